package clock

import (
	"testing"
	"time"
)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestFakeFiresInOrderAtDeadline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(start)
	a, _ := f.TimerAt(start.Add(time.Minute))
	b, stopB := f.TimerAt(start.Add(2 * time.Minute))
	c, _ := f.TimerAt(start.Add(3 * time.Minute))
	past, _ := f.TimerAt(start.Add(-time.Second))
	if !fired(past) {
		t.Error("a timer in the past did not fire at once")
	}
	if f.Pending() != 3 {
		t.Fatalf("pending %d, want 3", f.Pending())
	}
	if n := f.Advance(59 * time.Second); n != 0 || fired(a) {
		t.Error("timer fired before its deadline")
	}
	stopB()
	if n := f.Advance(2 * time.Minute); n != 1 || !fired(a) || fired(b) || fired(c) { // now start+2m59s
		t.Error("want a fired, stopped b silent, c waiting")
	}
	f.Set(start) // never backwards
	if got := f.Now(); !got.Equal(start.Add(179 * time.Second)) {
		t.Errorf("Now = %v after setting the past", got)
	}
	f.Advance(time.Second)
	if !fired(c) || f.Pending() != 0 {
		t.Errorf("c fired %v, pending %d", false, f.Pending())
	}
}

func TestFakeWaitTimer(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	if f.WaitTimer(10 * time.Millisecond) {
		t.Fatal("WaitTimer true with no timer")
	}
	armed := make(chan struct{})
	go func() {
		<-armed
		f.TimerAt(time.Unix(60, 0))
	}()
	close(armed)
	if !f.WaitTimer(5 * time.Second) {
		t.Fatal("WaitTimer missed a timer armed later")
	}
}

func TestFakeWaitArmed(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	n := f.Armed()
	if f.WaitArmed(n, 10*time.Millisecond) {
		t.Fatal("WaitArmed true with no new timer")
	}
	// A goroutine that, like the bot's scheduler, works each time its timer
	// fires and then arms the next one.
	work := make(chan time.Time, 1)
	c, _ := f.TimerAt(time.Unix(60, 0))
	go func() {
		now := <-c
		work <- now
		f.TimerAt(now.Add(time.Minute))
	}()
	n = f.Armed()
	if fired := f.Advance(time.Minute); fired != 1 {
		t.Fatalf("Advance fired %d timers, want 1", fired)
	}
	if !f.WaitArmed(n, 5*time.Second) {
		t.Fatal("WaitArmed missed the timer armed after the work")
	}
	select {
	case <-work:
	default:
		t.Fatal("WaitArmed returned before the work was done")
	}
	if f.Armed() != n+1 || f.Pending() != 1 {
		t.Errorf("armed %d pending %d, want %d and 1", f.Armed(), f.Pending(), n+1)
	}
}

func TestShiftedAdvanceFiresWhatFallsDue(t *testing.T) {
	var s Shifted
	start := s.Now()
	hour, _ := s.TimerAt(start.Add(time.Hour))
	day, _ := s.TimerAt(start.Add(24 * time.Hour))
	stopped, stop := s.TimerAt(start.Add(time.Hour))
	past, _ := s.TimerAt(start.Add(-time.Second))
	if !fired(past) {
		t.Error("a timer in the past did not fire at once")
	}
	stop()
	if got := s.Pending(); got != 2 {
		t.Fatalf("pending: got %d, want 2", got)
	}
	if n := s.Advance(59 * time.Minute); n != 0 || fired(hour) {
		t.Errorf("Advance(59m): got %d fired, want none", n)
	}
	if n := s.Advance(time.Minute); n != 1 || !fired(hour) || fired(day) || fired(stopped) {
		t.Error("Advance to the hour: want the hour's timer fired, the stopped one and the day's silent")
	}
	if got := s.Offset(); got != time.Hour {
		t.Errorf("Offset: got %v, want 1h", got)
	}
	if now := s.Now(); now.Sub(start) < time.Hour {
		t.Errorf("Now: got %v after a jump of an hour from %v, want at least an hour later", now, start)
	}
	s.Advance(-time.Hour) // never backwards
	if got := s.Offset(); got != time.Hour {
		t.Errorf("Offset after a negative Advance: got %v, want 1h", got)
	}
	if n := s.Advance(23 * time.Hour); n != 1 || !fired(day) || s.Pending() != 0 {
		t.Errorf("Advance to the day: got %d fired, %d pending; want the day's timer fired and none pending", n, s.Pending())
	}
}

// TestShiftedRunsWithTheWallClock checks a timer fires by waiting too, at
// the wall time its deadline falls on after a jump.
func TestShiftedRunsWithTheWallClock(t *testing.T) {
	var s Shifted
	c, _ := s.TimerAt(s.Now().Add(time.Hour + 20*time.Millisecond))
	if n := s.Advance(time.Hour); n != 0 {
		t.Fatalf("Advance(1h): %d fired, want none yet", n)
	}
	select {
	case at := <-c:
		if got := s.Now(); at.After(got) {
			t.Errorf("fired at %v, after the clock's now %v", at, got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the timer 20 ms ahead did not fire")
	}
	if got := s.Pending(); got != 0 {
		t.Errorf("pending: got %d, want 0", got)
	}
}
