// Package clock gives the bot's scheduler its notion of time: the real clock
// in production, a fake one, advanced by hand, in tests, so that
// schedules are tested without sleeping, and in the sandbox the real clock
// with a jump forward on request (Shifted).
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the time and makes timers. Implementations are safe for
// concurrent use.
type Clock interface {
	Now() time.Time
	// TimerAt returns a channel that receives once, when the clock reaches
	// t (at once if it has), and a stop function. An absolute deadline, not
	// a duration, so that no time passes unseen between reading the clock
	// and arming the timer.
	TimerAt(t time.Time) (<-chan time.Time, func())
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// TimerAt wraps time.NewTimer.
func (Real) TimerAt(at time.Time) (<-chan time.Time, func()) {
	t := time.NewTimer(time.Until(at))
	return t.C, func() { t.Stop() }
}

// Fake is a clock that moves only when Advance or Set is called. Timers
// fire, in deadline order, when the clock reaches their deadline.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	armed   int           // timers made so far
	changed chan struct{} // closed and replaced whenever a timer is added
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

// NewFake returns a fake clock set to now.
func NewFake(now time.Time) *Fake { return &Fake{now: now, changed: make(chan struct{})} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// TimerAt registers a timer that fires when the clock reaches at.
func (f *Fake) TimerAt(at time.Time) (<-chan time.Time, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{at: at, c: make(chan time.Time, 1)}
	f.armed++
	if !at.After(f.now) {
		t.c <- f.now
	} else {
		f.timers = append(f.timers, t)
	}
	close(f.changed)
	f.changed = make(chan struct{})
	return t.c, func() { f.stop(t) }
}

func (f *Fake) stop(t *fakeTimer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.timers {
		if x == t {
			f.timers = append(f.timers[:i], f.timers[i+1:]...)
			return
		}
	}
}

// Advance moves the clock forward by d, firing the timers that fall due,
// and returns how many fired.
func (f *Fake) Advance(d time.Duration) int { return f.Set(f.Now().Add(d)) }

// Set moves the clock to t (never backwards), firing the timers that fall
// due, and returns how many fired.
func (f *Fake) Set(t time.Time) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.now = t
	}
	sort.Slice(f.timers, func(i, j int) bool { return f.timers[i].at.Before(f.timers[j].at) })
	keep := f.timers[:0]
	fired := 0
	for _, x := range f.timers {
		if !x.at.After(f.now) {
			x.c <- f.now
			fired++
		} else {
			keep = append(keep, x)
		}
	}
	f.timers = keep
	return fired
}

// Armed returns how many timers TimerAt has made so far. With WaitArmed it
// lets a test wait for a goroutine that arms a timer each time it finishes
// its work (the bot's scheduler) to have finished the work after an event.
func (f *Fake) Armed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.armed
}

// WaitArmed blocks until more than n timers have been made (see Armed) or
// the timeout passes, and reports whether they have.
func (f *Fake) WaitArmed(n int, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		f.mu.Lock()
		armed, ch := f.armed, f.changed
		f.mu.Unlock()
		if armed > n {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

// Pending reports how many timers are waiting.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// WaitTimer blocks until at least one timer is pending or the timeout
// passes, and reports whether one is. Tests use it to know that the
// scheduler has gone back to sleep before they advance the clock.
func (f *Fake) WaitTimer(timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		f.mu.Lock()
		n, ch := len(f.timers), f.changed
		f.mu.Unlock()
		if n > 0 {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

// Shifted is the wall clock plus an offset that only grows: time runs at
// its normal rate and jumps forward when Advance is called. A timer fires
// when the shifted time reaches its deadline, by waiting or by a jump
// (then within Advance). The sandbox runs the bot on it, so a visitor can
// see a question close or the daily quiz post without waiting. The zero
// value is the wall clock; it must not be copied after first use.
type Shifted struct {
	mu     sync.Mutex
	offset time.Duration
	timers map[*shiftedTimer]struct{}
}

type shiftedTimer struct {
	at   time.Time
	c    chan time.Time
	wall *time.Timer // fires when the wall clock reaches at - offset
}

// Now returns the wall time plus the offset.
func (s *Shifted) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Add(s.offset)
}

// Offset returns how far ahead of the wall clock the clock is.
func (s *Shifted) Offset() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offset
}

// TimerAt returns a channel that receives once, when the shifted time
// reaches at (at once if it has), and a stop function.
func (s *Shifted) TimerAt(at time.Time) (<-chan time.Time, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &shiftedTimer{at: at, c: make(chan time.Time, 1)}
	now := time.Now().Add(s.offset)
	if !at.After(now) {
		t.c <- now
		return t.c, func() {}
	}
	if s.timers == nil {
		s.timers = map[*shiftedTimer]struct{}{}
	}
	s.timers[t] = struct{}{}
	t.wall = time.AfterFunc(at.Sub(now), func() { s.due(t) })
	return t.c, func() { s.stop(t) }
}

// due fires t if its time has come; a wall timer that ran early (Advance
// moved it while it was starting) is set again.
func (s *Shifted) due(t *shiftedTimer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.timers[t]; !ok {
		return
	}
	now := time.Now().Add(s.offset)
	if t.at.After(now) {
		t.wall.Reset(t.at.Sub(now))
		return
	}
	delete(s.timers, t)
	t.c <- now
}

func (s *Shifted) stop(t *shiftedTimer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.timers[t]; ok {
		delete(s.timers, t)
		t.wall.Stop()
	}
}

// Advance moves the clock forward by d (a negative d is ignored), fires
// the timers that fall due before it returns, and returns how many fired.
// The others are set to fire at the wall time their deadline now falls on.
func (s *Shifted) Advance(d time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d > 0 {
		s.offset += d
	}
	now := time.Now().Add(s.offset)
	due := make([]*shiftedTimer, 0, len(s.timers))
	for t := range s.timers {
		if t.at.After(now) {
			t.wall.Reset(t.at.Sub(now))
			continue
		}
		t.wall.Stop()
		delete(s.timers, t)
		due = append(due, t)
	}
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.c <- now
	}
	return len(due)
}

// Pending reports how many timers are waiting.
func (s *Shifted) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.timers)
}
