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

func TestRezone(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	la, _ := time.LoadLocation("America/Los_Angeles")
	tests := []struct {
		name         string
		time, posted string
		from, to     *time.Location
		want         string
	}{
		// 08:00 on 11 June in Tokyo is 16:00 on 10 June in Los Angeles.
		{"west", "08:00", "2026-06-11", tokyo, la, "2026-06-10"},
		// 20:00 on 10 June in Los Angeles is 12:00 on 11 June in Tokyo.
		{"east", "20:00", "2026-06-10", la, tokyo, "2026-06-11"},
		{"never posted", "08:00", "", tokyo, la, ""},
	}
	for _, tt := range tests {
		d := questions.Daily{Time: tt.time, LastPosted: tt.posted}
		rezone(&d, tt.from, tt.to)
		if d.LastPosted != tt.want {
			t.Errorf("%s: LastPosted %q, want %q", tt.name, d.LastPosted, tt.want)
		}
	}
}

func TestNextPost(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	ny, _ := time.LoadLocation("America/New_York")
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	la, _ := time.LoadLocation("America/Los_Angeles")
	tests := []struct {
		name       string
		loc        *time.Location
		now        time.Time
		lastPosted string
		want       time.Time
	}{
		{"before today's time", berlin, time.Date(2026, 3, 28, 7, 0, 0, 0, berlin), "2026-03-27",
			time.Date(2026, 3, 28, 8, 0, 0, 0, berlin)},
		{"exactly at the time: tomorrow", berlin, time.Date(2026, 3, 28, 8, 0, 0, 0, berlin), "",
			time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)},
		{"posted today: tomorrow, across spring forward", berlin, time.Date(2026, 3, 28, 7, 0, 0, 0, berlin), "2026-03-28",
			time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)},
		{"fall back in New York", ny, time.Date(2026, 10, 31, 12, 0, 0, 0, ny), "2026-10-31",
			time.Date(2026, 11, 1, 8, 0, 0, 0, ny)},
		// Posted on 10 June (local) at 20:00: the same day's 08:00 is out,
		// however early it is now.
		{"posted today, time moved later", la, time.Date(2026, 6, 10, 6, 0, 0, 0, la), "2026-06-10",
			time.Date(2026, 6, 11, 8, 0, 0, 0, la)},
		{"never posted", la, time.Date(2026, 6, 11, 9, 0, 0, 0, tokyo), "",
			time.Date(2026, 6, 11, 8, 0, 0, 0, la)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nextPost(questions.Daily{Time: "08:00", LastPosted: tt.lastPosted}, tt.loc, tt.now)
			if err != nil || !got.Equal(tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
			if h, m, _ := got.In(tt.loc).Clock(); h != 8 || m != 0 {
				t.Errorf("local time %02d:%02d, want 08:00", h, m)
			}
		})
	}
	// The UTC hour moves with DST while the local hour does not.
	a, _ := nextPost(questions.Daily{Time: "08:00", LastPosted: "2026-03-28"}, berlin, time.Date(2026, 3, 28, 9, 0, 0, 0, berlin))
	if a.UTC().Hour() != 6 {
		t.Errorf("after spring forward 08:00 Berlin is %v UTC, want 06:00", a.UTC())
	}
}
