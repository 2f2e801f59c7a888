package bot

import (
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestParseClock(t *testing.T) {
	tests := []struct {
		in   string
		h, m int
		ok   bool
	}{
		{"08:30", 8, 30, true}, {"8:30", 8, 30, true}, {"23:59", 23, 59, true}, {"00:00", 0, 0, true},
		{"24:00", 0, 0, false}, {"12:60", 0, 0, false}, {"8.30", 0, 0, false}, {"noon", 0, 0, false}, {"", 0, 0, false},
		{"7:5", 0, 0, false}, {"08:30pm", 0, 0, false},
	}
	for _, tt := range tests {
		h, m, ok := parseClock(tt.in)
		if ok != tt.ok || h != tt.h || m != tt.m {
			t.Errorf("parseClock(%q) = %d, %d, %v; want %d, %d, %v", tt.in, h, m, ok, tt.h, tt.m, tt.ok)
		}
	}
}

func TestNextDailyKeepsLocalTimeAcrossDST(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	ny, _ := time.LoadLocation("America/New_York")
	tests := []struct {
		name       string
		loc        *time.Location
		now        time.Time
		lastPosted string
		want       time.Time
	}{
		{"before today's time", berlin, time.Date(2026, 3, 28, 7, 0, 0, 0, berlin), "2026-03-27",
			time.Date(2026, 3, 28, 8, 0, 0, 0, berlin)},
		{"posted today: tomorrow, across spring forward", berlin, time.Date(2026, 3, 28, 9, 0, 0, 0, berlin), "2026-03-28",
			time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)},
		{"due now: missed and same day", berlin, time.Date(2026, 3, 29, 9, 0, 0, 0, berlin), "2026-03-28",
			time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)},
		{"fall back in New York", ny, time.Date(2026, 10, 31, 12, 0, 0, 0, ny), "2026-10-31",
			time.Date(2026, 11, 1, 8, 0, 0, 0, ny)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nextDaily(questions.Daily{LastPosted: tt.lastPosted}, tt.now, tt.loc, 8, 0)
			if !got.Equal(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if h, m, _ := got.In(tt.loc).Clock(); h != 8 || m != 0 {
				t.Errorf("local time %02d:%02d, want 08:00", h, m)
			}
		})
	}
	// The UTC hour moves with DST while the local hour does not.
	a := nextDaily(questions.Daily{LastPosted: "2026-03-28"}, time.Date(2026, 3, 28, 9, 0, 0, 0, berlin), berlin, 8, 0)
	if a.UTC().Hour() != 6 {
		t.Errorf("after spring forward 08:00 Berlin is %v UTC, want 06:00", a.UTC())
	}
}
