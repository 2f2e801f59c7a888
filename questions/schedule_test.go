package questions

import (
	"testing"
	"time"
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
		h, m, ok := ParseClock(tt.in)
		if ok != tt.ok || h != tt.h || m != tt.m {
			t.Errorf("ParseClock(%q) = %d, %d, %v; want %d, %d, %v", tt.in, h, m, ok, tt.h, tt.m, tt.ok)
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
		d := Daily{Time: tt.time, LastPosted: tt.posted}
		d.Rezone(tt.from, tt.to)
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
			got, err := Daily{Time: "08:00", LastPosted: tt.lastPosted}.NextPost(tt.loc, tt.now)
			if err != nil || !got.Equal(tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
			if h, m, _ := got.In(tt.loc).Clock(); h != 8 || m != 0 {
				t.Errorf("local time %02d:%02d, want 08:00", h, m)
			}
		})
	}
	// The UTC hour moves with DST while the local hour does not.
	a, _ := Daily{Time: "08:00", LastPosted: "2026-03-28"}.NextPost(berlin, time.Date(2026, 3, 28, 9, 0, 0, 0, berlin))
	if a.UTC().Hour() != 6 {
		t.Errorf("after spring forward 08:00 Berlin is %v UTC, want 06:00", a.UTC())
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestLoadZone(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{{"Europe/Berlin", true}, {" UTC ", true}, {"", false}, {"Local", false}, {"Mars/Olympus", false}} {
		_, err := LoadZone(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("LoadZone(%q) err = %v, want ok %v", tt.in, err, tt.ok)
		}
	}
}

func TestDailyStep(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	due := time.Date(2026, 3, 28, 8, 0, 0, 0, berlin)
	tests := []struct {
		name string
		d    Daily
		now  time.Time
		want DailyStep
	}{
		{"on time", Daily{Time: "08:00", Next: due, LastPosted: "2026-03-27"}, due,
			DailyStep{Post: true, LastPosted: "2026-03-28", Next: time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)}},
		{"late, same day", Daily{Time: "08:00", Next: due, LastPosted: "2026-03-27"}, due.Add(15 * time.Hour),
			DailyStep{Post: true, LastPosted: "2026-03-28", Next: time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)}},
		{"a few minutes past midnight: still that day's post", Daily{Time: "23:59", Next: time.Date(2026, 3, 28, 23, 59, 0, 0, berlin), LastPosted: "2026-03-27"},
			time.Date(2026, 3, 29, 0, 6, 0, 0, berlin),
			DailyStep{Post: true, LastPosted: "2026-03-28", Next: time.Date(2026, 3, 29, 23, 59, 0, 0, berlin)}},
		{"past the lateness: skipped", Daily{Time: "08:00", Next: due, LastPosted: "2026-03-27"}, time.Date(2026, 3, 29, 0, 11, 0, 0, berlin),
			DailyStep{Post: false, LastPosted: "2026-03-27", Next: time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)}},
		{"never computed: no post, just the next time", Daily{Time: "08:00"}, time.Date(2026, 3, 28, 9, 0, 0, 0, berlin),
			DailyStep{Post: false, Next: time.Date(2026, 3, 29, 8, 0, 0, 0, berlin)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.d.Step(berlin, tt.now)
			if err != nil || got.Post != tt.want.Post || got.LastPosted != tt.want.LastPosted || !got.Next.Equal(tt.want.Next) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := (Daily{Time: "25:00"}).Step(berlin, due); err == nil {
		t.Error("a bad time gave no error")
	}
}

func TestSettingsScheduleChanges(t *testing.T) {
	tokyo, la := mustZone(t, "Asia/Tokyo"), mustZone(t, "America/Los_Angeles")
	// 10 June, 09:00 in Tokyo (17:00 on 9 June in Los Angeles); posted
	// today at 08:00 Tokyo time.
	now := time.Date(2026, 6, 10, 9, 0, 0, 0, tokyo)
	posted := func() Settings {
		return Settings{TimeZone: "Asia/Tokyo", Daily: &Daily{ChannelID: 1, Time: "08:00", Count: 1, CloseAfterHours: 3,
			LastPosted: "2026-06-10", Next: time.Date(2026, 6, 11, 8, 0, 0, 0, tokyo)}}
	}

	t.Run("set daily keeps the last post and close hours, moves the zone", func(t *testing.T) {
		s := posted()
		if err := s.SetDaily(Daily{ChannelID: 2, Time: "20:00", Count: 2}, tokyo, la, now); err != nil {
			t.Fatal(err)
		}
		// 08:00 on 10 June in Tokyo was 9 June in Los Angeles, so 9 June had
		// its post: 20:00 on 9 June (in three hours) would be a second one.
		want := time.Date(2026, 6, 10, 20, 0, 0, 0, la)
		if s.TimeZone != "America/Los_Angeles" || s.Daily.ChannelID != 2 || s.Daily.Count != 2 ||
			s.Daily.CloseAfterHours != 3 || s.Daily.LastPosted != "2026-06-09" || !s.Daily.Next.Equal(want) {
			t.Errorf("got %+v in %s; want next %v, last 2026-06-09, close 3", *s.Daily, s.TimeZone, want)
		}
	})
	t.Run("set daily when off starts from LastDaily", func(t *testing.T) {
		s := Settings{TimeZone: "UTC", LastDaily: "2026-06-10"}
		if err := s.SetDaily(Daily{Time: "23:00", Count: 1}, time.UTC, time.UTC, time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 6, 11, 23, 0, 0, 0, time.UTC); !s.Daily.Next.Equal(want) {
			t.Errorf("next %v, want %v (10 June was already posted)", s.Daily.Next, want)
		}
	})
	t.Run("a due post stays due across a change", func(t *testing.T) {
		s := posted()
		s.Daily.Next = now.Add(-time.Minute)
		if err := s.SetTimeZone(tokyo, la, now); err != nil {
			t.Fatal(err)
		}
		if !s.Daily.Next.Equal(now.Add(-time.Minute)) {
			t.Errorf("next %v, want the due %v kept", s.Daily.Next, now.Add(-time.Minute))
		}
	})
	t.Run("time zone change keeps local time", func(t *testing.T) {
		s := posted()
		if err := s.SetTimeZone(tokyo, la, now); err != nil {
			t.Fatal(err)
		}
		want := time.Date(2026, 6, 10, 8, 0, 0, 0, la)
		if s.TimeZone != "America/Los_Angeles" || !s.Daily.Next.Equal(want) || s.Daily.LastPosted != "2026-06-09" {
			t.Errorf("got %+v in %s; want next %v", *s.Daily, s.TimeZone, want)
		}
	})
	t.Run("time zone change without a daily", func(t *testing.T) {
		s := Settings{TimeZone: "UTC"}
		if err := s.SetTimeZone(nil, tokyo, now); err != nil || s.TimeZone != "Asia/Tokyo" || s.Daily != nil {
			t.Errorf("got %+v, %v", s, err)
		}
	})
	t.Run("daily off keeps the last post date", func(t *testing.T) {
		s := posted()
		if !s.DailyOff() || s.Daily != nil || s.LastDaily != "2026-06-10" {
			t.Errorf("got %+v", s)
		}
		if s.DailyOff() {
			t.Error("DailyOff of an off daily reported it was on")
		}
	})
}

// TestDailyOffAndOnInAnotherZone: a daily quiz turned off and on again in
// another time zone never gives a local day a second post, and does not
// skip the next day either: the last post is carried into the new zone at
// the time it was made.
func TestDailyOffAndOnInAnotherZone(t *testing.T) {
	auckland := mustZone(t, "Pacific/Auckland")
	posted := func(at string) Settings { // the daily quiz posted on 1 December at `at` UTC, then turned off
		s := Settings{TimeZone: "UTC", Daily: &Daily{ChannelID: 1, Time: at, Count: 1, LastPosted: "2026-12-01"}}
		if !s.DailyOff() {
			t.Fatal("DailyOff: the daily quiz was on")
		}
		return s
	}
	tests := []struct {
		name     string
		postedAt string
		now      time.Time
		time     string
		want     time.Time
	}{
		// 23:00 UTC on 1 December is 12:00 on 2 December in Auckland: 2
		// December had its post there, 12:30 that day would be a second.
		{"west to east past midnight", "23:00", time.Date(2026, 12, 1, 23, 20, 0, 0, time.UTC), "12:30",
			time.Date(2026, 12, 3, 12, 30, 0, 0, auckland)},
		// 08:00 UTC on 1 December is 21:00 on 1 December in Auckland: 2
		// December at 20:00 is a new day there.
		{"east, the same date", "08:00", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), "20:00",
			time.Date(2026, 12, 2, 20, 0, 0, 0, auckland)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := posted(tt.postedAt)
			if s.LastDaily != "2026-12-01" || s.LastDailyTime != tt.postedAt {
				t.Fatalf("after DailyOff: last daily %q at %q, want 2026-12-01 at %s", s.LastDaily, s.LastDailyTime, tt.postedAt)
			}
			if err := s.SetDaily(Daily{ChannelID: 1, Time: tt.time, Count: 1}, time.UTC, auckland, tt.now); err != nil {
				t.Fatal(err)
			}
			if !s.Daily.Next.Equal(tt.want) {
				t.Errorf("next post %v, want %v", s.Daily.Next.In(auckland), tt.want)
			}
		})
	}

	t.Run("the zone changes while off, then on again", func(t *testing.T) {
		s := posted("23:00")
		if err := s.SetTimeZone(time.UTC, auckland, time.Date(2026, 12, 1, 23, 10, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if s.LastDaily != "2026-12-02" || s.LastDailyTime != "12:00" {
			t.Fatalf("kept last post after the zone change: %q at %q, want 2026-12-02 at 12:00", s.LastDaily, s.LastDailyTime)
		}
		if err := s.SetDaily(Daily{Time: "12:30", Count: 1}, auckland, auckland, time.Date(2026, 12, 1, 23, 20, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 12, 3, 12, 30, 0, 0, auckland); !s.Daily.Next.Equal(want) {
			t.Errorf("next post %v, want %v", s.Daily.Next.In(auckland), want)
		}
	})

	t.Run("a file from before the time was kept: the date as it is", func(t *testing.T) {
		s := Settings{TimeZone: "UTC", LastDaily: "2026-12-01"}
		if err := s.SetDaily(Daily{Time: "12:30", Count: 1}, time.UTC, auckland, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 12, 2, 12, 30, 0, 0, auckland); !s.Daily.Next.Equal(want) {
			t.Errorf("next post %v, want %v", s.Daily.Next.In(auckland), want)
		}
	})
}
