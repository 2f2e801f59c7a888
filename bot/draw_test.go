package bot

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// TestDrawerOneAtATime: charts asked for together are drawn one after the
// other, every one of them while the queue has room; one more than the
// queue holds is left out at once, and the queue takes charts again once
// it has drained.
func TestDrawerOneAtATime(t *testing.T) {
	t.Parallel()
	d := newDrawer(0)
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
	for i := range maxDrawQueue + 1 { // one drawing, the queue full behind it, of four servers
		wg.Go(func() {
			if !d.draw(questions.GuildID(1+i%4), f) {
				t.Error("a chart within the queue's bound was left out")
			}
		})
	}
	for d.waiting.Load() < maxDrawQueue+1 {
		runtime.Gosched()
	}
	if d.draw(99, func() { t.Error("a chart past the queue's bound was drawn") }) {
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
	if !d.draw(1, func() {}) {
		t.Error("draw after the queue drained: got false, want true")
	}
}

// TestDrawerGuildShare: a server whose charts hold its share of the queue
// gets no more in, while another server's chart still gets its place and
// is drawn.
func TestDrawerGuildShare(t *testing.T) {
	t.Parallel()
	d := newDrawer(0)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range maxDrawQueuePerGuild + 1 { // one drawing, its share waiting
		wg.Go(func() {
			if !d.draw(1, func() { <-release }) {
				t.Error("a chart within the server's share was left out")
			}
		})
	}
	for d.waiting.Load() < maxDrawQueuePerGuild+1 {
		runtime.Gosched()
	}
	if d.draw(1, func() { t.Error("a chart past the server's share was drawn") }) {
		t.Errorf("draw with the server's %d charts waiting: got true, want false", maxDrawQueuePerGuild+1)
	}
	other := make(chan bool, 1)
	go func() {
		drawn := false
		other <- d.draw(2, func() { drawn = true }) && drawn
	}()
	for d.waiting.Load() < maxDrawQueuePerGuild+2 { // the other server's chart has its place
		runtime.Gosched()
	}
	close(release)
	if !<-other {
		t.Error("another server's chart: left out, want drawn")
	}
	wg.Wait()
}

// TestDrawerPanic: a panic while drawing reaches the caller (whose
// handler recovers it), and the drawer draws again afterwards.
func TestDrawerPanic(t *testing.T) {
	t.Parallel()
	d := newDrawer(0)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		d.draw(1, func() { panic("boom") })
		t.Error("draw returned after a panic")
	}()
	drawn := false
	if !d.draw(1, func() { drawn = true }) || !drawn {
		t.Error("draw after a panic: not drawn")
	}
}

// TestDrawerRests: after a chart the drawer rests pace times as long as
// the chart took, holding back the next chart (not the caller) until the
// rest has passed.
func TestDrawerRests(t *testing.T) {
	t.Parallel()
	d := newDrawer(3)
	rests := make(chan time.Duration, 2)
	var release func()
	d.after = func(rest time.Duration, f func()) { rests <- rest; release = f }
	const took = 2 * time.Millisecond
	if !d.draw(1, func() {
		for start := time.Now(); time.Since(start) < took; { // busy, as drawing is
		}
	}) {
		t.Fatal("first chart left out")
	}
	select { // draw arms the rest before it returns
	case rest := <-rests:
		if rest < 3*took {
			t.Errorf("rest after a chart of %v: %v, want at least 3 times as long", took, rest)
		}
	default:
		t.Fatal("no rest after a chart")
	}
	var second atomic.Bool
	done := make(chan bool)
	go func() { done <- d.draw(2, func() { second.Store(true) }) }()
	for d.waiting.Load() < 1 { // the second chart waits for the slot
		runtime.Gosched()
	}
	if second.Load() {
		t.Fatal("the second chart was drawn during the first one's rest")
	}
	release()
	if !<-done || !second.Load() {
		t.Fatal("the second chart was not drawn after the rest")
	}
	release() // the second chart's rest
}
