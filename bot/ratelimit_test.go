package bot

import (
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		at   []time.Duration // offsets of the writes from t0
		want []bool
		next time.Duration // when the last refused write would have been allowed
	}{
		{"a burst of 3", []time.Duration{0, 0, 0}, []bool{true, true, true}, 0},
		{"the 4th at once is refused", []time.Duration{0, 0, 0, 0}, []bool{true, true, true, false}, 10 * time.Second},
		{"one more after the interval", []time.Duration{0, 0, 0, 10 * time.Second, 10 * time.Second}, []bool{true, true, true, true, false}, 20 * time.Second},
		{"refused writes take nothing", []time.Duration{0, 0, 0, time.Second, 2 * time.Second, 10 * time.Second}, []bool{true, true, true, false, false, true}, 0},
		{"full again after burst × interval", []time.Duration{0, 0, 0, 30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second},
			[]bool{true, true, true, true, true, true, false}, 40 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLimiter(limit{name: "test", burst: 3, every: 10 * time.Second})
			var next time.Time
			for i, d := range tt.at {
				ok, n := l.allow(1, 2, t0.Add(d))
				if ok != tt.want[i] {
					t.Fatalf("write %d at +%v: got %v, want %v", i+1, d, ok, tt.want[i])
				}
				if !ok {
					next = n
				}
			}
			if tt.next != 0 && !next.Equal(t0.Add(tt.next)) {
				t.Errorf("next allowed at %v, want +%v", next.Sub(t0), tt.next)
			}
			// Another member, and the same member in another server, have
			// their own bucket.
			if ok, _ := l.allow(1, 3, t0); !ok {
				t.Error("another member refused")
			}
			if ok, _ := l.allow(9, 2, t0); !ok {
				t.Error("the member in another server refused")
			}
		})
	}
}

// TestLimiterMemoryBounded: however many members write, a limiter keeps
// at most limiterKeys of them per stripe.
func TestLimiterMemoryBounded(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	l := newLimiter(limit{name: "test", burst: 1, every: time.Minute})
	if ok, _ := l.allow(1, 1, t0); !ok {
		t.Fatal("first write refused")
	}
	// Members enough to fill every stripe twice over (16 stripes of 1,024
	// keys: some 2,500 members each), so that each has to make room
	// again and again.
	for u := range 40_000 {
		l.allow(1, questions.UserID(u+2), t0.Add(2*time.Minute)) // member 1's bucket is full again by then
	}
	n := 0
	for i := range l.stripes {
		if len(l.stripes[i].full) > limiterKeys {
			t.Errorf("stripe %d holds %d members, want at most %d", i, len(l.stripes[i].full), limiterKeys)
		}
		n += len(l.stripes[i].full)
	}
	if n > limiterStripes*limiterKeys || n < limiterStripes*limiterKeys/2 {
		t.Errorf("%d members kept, want at most %d and most of that", n, limiterStripes*limiterKeys)
	}
}
