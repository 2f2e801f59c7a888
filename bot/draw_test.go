package bot

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDrawerOneAtATime: charts asked for together are drawn one after the
// other, every one of them while the queue has room; one more than the
// queue holds is left out at once, and the queue takes charts again once
// it has drained.
func TestDrawerOneAtATime(t *testing.T) {
	t.Parallel()
	d := newDrawer()
	release := make(chan struct{})
	var running, most, drawn atomic.Int32
	f := func() {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		running.Add(-1)
		drawn.Add(1)
	}
	var wg sync.WaitGroup
	for range maxDrawQueue + 1 { // one drawing, the queue full behind it
		wg.Go(func() {
			if !d.draw(f) {
				t.Error("a chart within the queue's bound was left out")
			}
		})
	}
	for d.waiting.Load() < maxDrawQueue+1 {
		runtime.Gosched()
	}
	if d.draw(func() { t.Error("a chart past the queue's bound was drawn") }) {
		t.Errorf("draw with %d charts waiting: got true, want false", maxDrawQueue+1)
	}
	close(release)
	wg.Wait()
	if got := drawn.Load(); got != maxDrawQueue+1 {
		t.Errorf("drawn %d charts, want %d", got, maxDrawQueue+1)
	}
	if got := most.Load(); got != 1 {
		t.Errorf("at most %d charts drawn at once, want 1", got)
	}
	if !d.draw(func() {}) {
		t.Error("draw after the queue drained: got false, want true")
	}
}

// TestDrawerPanic: a panic while drawing reaches the caller (whose
// handler recovers it), and the drawer draws again afterwards.
func TestDrawerPanic(t *testing.T) {
	t.Parallel()
	d := newDrawer()
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		d.draw(func() { panic("boom") })
		t.Error("draw returned after a panic")
	}()
	drawn := false
	if !d.draw(func() { drawn = true }) || !drawn {
		t.Error("draw after a panic: not drawn")
	}
}
