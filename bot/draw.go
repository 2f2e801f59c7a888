package bot

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// Charts are drawn after the reply they belong to, in the background of
// the handler: tens of milliseconds of CPU each. Drawn as they come, a
// burst of /quiz stats (or of insights) would have every core drawing
// while the next members wait for their replies; the drawer draws one at
// a time, leaving the other cores to the replies, and a bounded queue: a
// chart that would wait behind maxDrawQueue others is left out (logged),
// the reply it belongs to already sent. After each chart the drawer rests
// pace times as long as the chart took before it draws the next, so that
// charts one after another take at most 1/(pace+1) of a core: on two
// cores a busy drawer otherwise keeps one of them, and the replies, the
// gateway and the garbage collector share the other (bench/scale: /quiz
// stats p99 back to back 11 ms drawing without rest, 5.5 ms with pace 3).

// maxDrawQueue is how many charts may wait for the drawer: at about 30
// ms each, the last of them is drawn within a second or two. One server
// may hold maxDrawQueuePerGuild of those places, so that a burst of /quiz
// stats in one server leaves room for the charts of the others.
const (
	maxDrawQueue         = 32
	maxDrawQueuePerGuild = 8
)

// drawer runs the charts' drawing one at a time (see above). The zero
// value is not ready: use newDrawer. Safe for concurrent use.
type drawer struct {
	slot    chan struct{} // holds a token while a chart is drawn, and its rest
	waiting atomic.Int32  // drawings waiting for the slot, or drawing
	pace    int           // the rest after a chart, in times its drawing

	mu      sync.Mutex
	ofGuild map[questions.GuildID]int // waiting, per server
	// after runs f once d has passed: time.AfterFunc, or a test's hook.
	after func(d time.Duration, f func())
}

// newDrawer is a drawer that rests pace times as long as each chart took
// (0: no rest).
func newDrawer(pace int) *drawer {
	return &drawer{slot: make(chan struct{}, 1), pace: pace, ofGuild: map[questions.GuildID]int{},
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// draw runs f, a chart of guild's, once no other drawing runs, and
// reports true; it reports false without running f when the queue is
// full, or holds guild's share of it.
func (d *drawer) draw(guild questions.GuildID, f func()) bool {
	if !d.enter(guild) {
		return false
	}
	defer d.leave(guild)
	d.slot <- struct{}{}
	start := time.Now()
	defer func() {
		// The rest holds the slot, not the caller: the chart is sent now.
		if rest := time.Duration(d.pace) * time.Since(start); rest > 0 {
			d.after(rest, func() { <-d.slot })
		} else {
			<-d.slot
		}
	}()
	// On a thread of its own at the lowest priority: when other work
	// takes the other cores, the kernel gives the replies' threads the
	// CPU before this one. The thread is never unlocked, so it ends with
	// the goroutine, its priority with it.
	// A panic in f is raised again here, where the handler recovers it.
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		runtime.LockOSThread()
		lowerThreadPriority()
		f()
	}()
	if p := <-done; p != nil {
		panic(p)
	}
	return true
}

// enter takes a place in the queue for one of guild's charts, if there
// is one (see maxDrawQueue).
func (d *drawer) enter(guild questions.GuildID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ofGuild[guild] >= maxDrawQueuePerGuild+1 || d.waiting.Load() >= maxDrawQueue+1 {
		return false
	}
	d.ofGuild[guild]++
	d.waiting.Add(1)
	return true
}

// leave gives back the place enter took.
func (d *drawer) leave(guild questions.GuildID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ofGuild[guild]--; d.ofGuild[guild] == 0 {
		delete(d.ofGuild, guild)
	}
	d.waiting.Add(-1)
}
