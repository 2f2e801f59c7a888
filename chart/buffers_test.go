package chart

import (
	"runtime"
	"testing"
)

// TestBuffersOutliveCollections: a chart drawn after garbage collections
// (a busy bot collects more often than it draws charts) reuses the last
// chart's image and encoder buffers instead of making them again (some 3
// MB). Not parallel: it reads the process's allocation count.
func TestBuffersOutliveCollections(t *testing.T) {
	if _, err := Render(sample()); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC() // a sync.Pool would be empty now
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Render(sample()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("a chart after two collections allocated %d KB, want under 2048 KB (its image and encoder buffers kept)", n>>10)
	}
}
