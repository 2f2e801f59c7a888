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
	f.Advance(59 * time.Second)
	if fired(a) {
		t.Error("timer fired before its deadline")
	}
	stopB()
	f.Advance(2 * time.Minute) // now start+2m59s
	if !fired(a) || fired(b) || fired(c) {
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
	go func() {
		time.Sleep(10 * time.Millisecond)
		f.TimerAt(time.Unix(60, 0))
	}()
	if !f.WaitTimer(5 * time.Second) {
		t.Fatal("WaitTimer missed a timer armed later")
	}
}
