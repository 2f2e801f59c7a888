package storage

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestSettings(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	got, err := db.Settings(5)
	if err != nil || !reflect.DeepEqual(got, questions.DefaultSettings(5)) {
		t.Fatalf("Settings of a new guild: got %+v, %v; want defaults", got, err)
	}
	want := questions.Settings{GuildID: 5, TimeZone: "America/New_York", RevealOnAnswer: false, AskMinutes: 3,
		Banks: []string{"A", "B"}, Daily: &questions.Daily{ChannelID: 8, Time: "07:30",
			Bank: "A", Count: 2, CloseAfterHours: 6, Next: t0.Add(19 * time.Hour), LastPosted: "2025-03-13",
			LastError: "missing access"}, LastDaily: "2025-03-12", LastDailyTime: "07:30"}
	if err := db.SaveSettings(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	got, err = db.Settings(5)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Settings: got %+v, %v; want %+v", got, err, want)
	}
}

// TestSettingsNextInUTC: Next comes back in UTC, the same instant.
func TestSettingsNextInUTC(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	tokyo := time.FixedZone("JST", 9*3600)
	next := time.Date(2025, 3, 15, 7, 30, 0, 0, tokyo)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 5, TimeZone: "Asia/Tokyo",
		Daily: &questions.Daily{ChannelID: 1, Time: "07:30", Count: 1, Next: next}}); err != nil {
		t.Fatal(err)
	}
	s, err := db.Settings(5)
	if err != nil || !s.Daily.Next.Equal(next) || s.Daily.Next.Location() != time.UTC {
		t.Errorf("Next: got %v, %v; want %v in UTC", s.Daily.Next, err, next.UTC())
	}
}

// TestSettingsOldDailyRecord: a record written when Daily had its own time
// zone still decodes; that field is ignored. Written before the fair-play
// settings, it has the default cooldown and cap of open questions.
func TestSettingsOldDailyRecord(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	old := `{"tz":"Europe/Paris","reveal":true,"askMinutes":10,` +
		`"daily":{"channel":8,"time":"07:30","tz":"Asia/Tokyo","count":2,"lastPosted":"2025-03-13"}}`
	if err := db.bolt.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bSettings).Put(u64(uint64(5)), []byte(old)) }); err != nil {
		t.Fatal(err)
	}
	got, err := db.Settings(5)
	want := questions.Settings{GuildID: 5, TimeZone: "Europe/Paris", RevealOnAnswer: true, AskMinutes: 10,
		AskCooldown: questions.DefaultAskCooldown, AskMaxOpen: questions.DefaultAskMaxOpen,
		Daily: &questions.Daily{ChannelID: 8, Time: "07:30", Count: 2, LastPosted: "2025-03-13"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Settings: got %+v (daily %+v), %v; want %+v (daily %+v)", got, got.Daily, err, want, want.Daily)
	}
}

// TestSettingsAskLimitsOff: a cooldown and a cap of 0 (off) are stored as
// such, not taken for the defaults of a record that has none.
func TestSettingsAskLimitsOff(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	for _, tc := range []struct {
		name     string
		cooldown time.Duration
		maxOpen  int
	}{
		{"off", 0, 0},
		{"set", 90 * time.Second, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.UpdateSettings(t.Context(), 5, func(s *questions.Settings) error {
				s.AskCooldown, s.AskMaxOpen = tc.cooldown, tc.maxOpen
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			read, err := db.Settings(5)
			if err != nil || !reflect.DeepEqual(read, got) || read.AskCooldown != tc.cooldown || read.AskMaxOpen != tc.maxOpen {
				t.Errorf("Settings: got cooldown %v, max open %d (%v); want %v, %d", read.AskCooldown, read.AskMaxOpen, err, tc.cooldown, tc.maxOpen)
			}
		})
	}
}

func TestSaveSettingsRefuses(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	for _, tc := range []struct {
		name string
		s    questions.Settings
	}{
		{"unknown zone", questions.Settings{GuildID: 1, TimeZone: "Mars/Olympus"}},
		{"empty zone", questions.Settings{GuildID: 1}},
		{"host zone", questions.Settings{GuildID: 1, TimeZone: "Local"}},
		{"no guild", questions.Settings{TimeZone: "UTC"}},
		{"negative cooldown", questions.Settings{GuildID: 1, TimeZone: "UTC", AskCooldown: -time.Second}},
		{"cooldown not in seconds", questions.Settings{GuildID: 1, TimeZone: "UTC", AskCooldown: 1500 * time.Millisecond}},
		{"negative cap", questions.Settings{GuildID: 1, TimeZone: "UTC", AskMaxOpen: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := db.SaveSettings(t.Context(), tc.s); err == nil {
				t.Errorf("SaveSettings(%+v): got nil error", tc.s)
			}
		})
	}
}

func TestDailyGuilds(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	for _, s := range []questions.Settings{
		{GuildID: 3, TimeZone: "UTC", Daily: &questions.Daily{ChannelID: 1, Time: "09:00", Count: 1}},
		{GuildID: 1, TimeZone: "UTC"},
		{GuildID: 2, TimeZone: "UTC", Daily: &questions.Daily{ChannelID: 2, Time: "10:00", Count: 1}},
	} {
		if err := db.SaveSettings(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	daily, err := db.DailyGuilds()
	if err != nil || len(daily) != 2 || daily[0].GuildID != 2 || daily[1].GuildID != 3 {
		t.Fatalf("DailyGuilds: got %+v, %v; want guilds 2 and 3", daily, err)
	}
}

func TestClaimDaily(t *testing.T) {
	t.Parallel()
	day1 := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	day3 := day2.AddDate(0, 0, 1)
	db, _ := newDB(t)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 2, TimeZone: "UTC",
		Daily: &questions.Daily{ChannelID: 2, Time: "09:00", Count: 1, Next: day1, LastError: "boom"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 1, TimeZone: "UTC"}); err != nil {
		t.Fatal(err)
	}

	// Concurrent claims of one due time: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 20 {
		wg.Go(func() {
			ok, err := db.ClaimDaily(t.Context(), 2, day1, day2, "2025-03-14")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("concurrent claims won: got %d, want 1", wins)
	}
	want := questions.Daily{ChannelID: 2, Time: "09:00", Count: 1, Next: day2, LastPosted: "2025-03-14"}
	if s, _ := db.Settings(2); !reflect.DeepEqual(*s.Daily, want) {
		t.Errorf("after the claim: got %+v, want %+v", *s.Daily, want)
	}

	for _, tc := range []struct {
		name    string
		guild   questions.GuildID
		due     time.Time
		want    bool
		wantErr error
	}{
		{"stale due", 2, day1, false, nil},
		{"due in another zone, same instant", 2, day2.In(time.FixedZone("X", 3600)), true, nil},
		{"claimed again", 2, day2, false, nil},
		{"no daily", 1, day1, false, questions.ErrNotFound},
		{"no settings", 9, day1, false, questions.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := db.ClaimDaily(t.Context(), tc.guild, tc.due, day3, "2025-03-15")
			if tc.wantErr != nil {
				wantErr(t, err, tc.wantErr)
			} else if err != nil {
				t.Fatal(err)
			}
			if ok != tc.want {
				t.Errorf("ClaimDaily: got %v, want %v", ok, tc.want)
			}
		})
	}
	if s, _ := db.Settings(2); !s.Daily.Next.Equal(day3) || s.Daily.LastPosted != "2025-03-15" {
		t.Errorf("after the second claim: got %+v, want Next %v, LastPosted 2025-03-15", *s.Daily, day3)
	}
}

func TestDailyFailed(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	due := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 2, TimeZone: "UTC",
		Daily: &questions.Daily{ChannelID: 2, Time: "09:00", Count: 1, Next: due}}); err != nil {
		t.Fatal(err)
	}
	if err := db.DailyFailed(t.Context(), 2, "missing access"); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.Settings(2); s.Daily.LastError != "missing access" || !s.Daily.Next.Equal(due) {
		t.Errorf("after DailyFailed: got %+v, want LastError set, Next unchanged", *s.Daily)
	}
	// A successful claim clears it.
	if ok, err := db.ClaimDaily(t.Context(), 2, due, due.AddDate(0, 0, 1), "2025-03-14"); !ok || err != nil {
		t.Fatalf("ClaimDaily: got %v, %v; want true", ok, err)
	}
	if s, _ := db.Settings(2); s.Daily.LastError != "" {
		t.Errorf("LastError after a claim: got %q, want empty", s.Daily.LastError)
	}
	// No schedule, or no settings at all: nothing to do, nothing written.
	for _, g := range []questions.GuildID{3, 4} {
		if g == 3 {
			if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 3, TimeZone: "UTC"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.DailyFailed(t.Context(), g, "x"); err != nil {
			t.Errorf("DailyFailed(guild %d without daily): got %v, want nil", g, err)
		}
		if s, _ := db.Settings(g); s.Daily != nil {
			t.Errorf("guild %d after DailyFailed: got daily %+v, want nil", g, *s.Daily)
		}
	}
	if daily, _ := db.DailyGuilds(); len(daily) != 1 {
		t.Errorf("DailyGuilds: got %d guilds, want 1", len(daily))
	}
}

// refusal is an error type a caller of UpdateSettings finds with errors.As.
type refusal struct{ why string }

func (r *refusal) Error() string { return r.why }

func TestUpdateSettings(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	// No settings yet: fn sees the defaults.
	got, err := db.UpdateSettings(t.Context(), 5, func(s *questions.Settings) error {
		if !reflect.DeepEqual(*s, questions.DefaultSettings(5)) {
			t.Errorf("fn saw %+v, want the defaults", *s)
		}
		s.AskMinutes = 3
		s.Daily = &questions.Daily{ChannelID: 8, Time: "07:30", Count: 1, Next: t0}
		return nil
	})
	want := questions.DefaultSettings(5)
	want.AskMinutes = 3
	want.Daily = &questions.Daily{ChannelID: 8, Time: "07:30", Count: 1, Next: t0}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("UpdateSettings: got %+v, %v; want %+v", got, err, want)
	}
	if stored, _ := db.Settings(5); !reflect.DeepEqual(stored, want) {
		t.Errorf("stored: got %+v, want %+v", stored, want)
	}

	for _, tc := range []struct {
		name string
		fn   func(*questions.Settings) error
		as   bool // the error is a *refusal
	}{
		{"fn error", func(s *questions.Settings) error {
			s.AskMinutes = 99 // not stored: fn failed
			return &refusal{"no"}
		}, true},
		{"unknown zone", func(s *questions.Settings) error { s.TimeZone = "Mars/Olympus"; return nil }, false},
		{"guild changed", func(s *questions.Settings) error { s.GuildID = 6; return nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.UpdateSettings(t.Context(), 5, tc.fn)
			if err == nil {
				t.Fatalf("got %+v, nil error; want an error", got)
			}
			var r *refusal
			if errors.As(err, &r) != tc.as {
				t.Errorf("errors.As(%v, *refusal): got %v, want %v", err, !tc.as, tc.as)
			}
			if stored, _ := db.Settings(5); !reflect.DeepEqual(stored, want) {
				t.Errorf("stored after refusal: got %+v, want %+v", stored, want)
			}
		})
	}
	if s, _ := db.Settings(6); !reflect.DeepEqual(s, questions.DefaultSettings(6)) {
		t.Errorf("guild 6: got %+v, want the defaults", s)
	}
}

// TestUpdateSettingsKeepsClaims: settings changes and daily claims running
// at once lose neither.
func TestUpdateSettingsKeepsClaims(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	start := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 2, TimeZone: "UTC", AskMinutes: 0,
		Daily: &questions.Daily{ChannelID: 2, Time: "09:00", Count: 1, Next: start}}); err != nil {
		t.Fatal(err)
	}
	const n = 30
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			due := start.AddDate(0, 0, i)
			ok, err := db.ClaimDaily(t.Context(), 2, due, due.AddDate(0, 0, 1), due.Format(dateLayout))
			if err != nil || !ok {
				t.Errorf("claim %d: got %v, %v; want true", i, ok, err)
			}
		}
	})
	for range n {
		wg.Go(func() {
			if _, err := db.UpdateSettings(t.Context(), 2, func(s *questions.Settings) error {
				s.AskMinutes++
				return nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s, _ := db.Settings(2)
	if want := start.AddDate(0, 0, n); s.AskMinutes != n || !s.Daily.Next.Equal(want) {
		t.Errorf("got AskMinutes %d, Next %v; want %d, %v", s.AskMinutes, s.Daily.Next, n, want)
	}
}

// TestTimeZoneChangeRecounts: changing the guild's zone recounts periods
// and streaks in the new zone at once, with SaveSettings and UpdateSettings.
func TestTimeZoneChangeRecounts(t *testing.T) {
	t.Parallel()
	// Monday 17 March 2025, 02:00 UTC is Sunday 22:00 in New York (EDT).
	monday := time.Date(2025, 3, 17, 2, 0, 0, 0, time.UTC)
	friday := time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		change func(db *DB) error
	}{
		{"SaveSettings", func(db *DB) error {
			s, err := db.Settings(guild)
			if err != nil {
				return err
			}
			s.TimeZone = "America/New_York"
			return db.SaveSettings(t.Context(), s)
		}},
		{"UpdateSettings", func(db *DB) error {
			_, err := db.UpdateSettings(t.Context(), guild, func(s *questions.Settings) error {
				s.TimeZone = "America/New_York"
				return nil
			})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := newDB(t)
			p := mustPost(t, db, questions.Post{})
			answer(t, db, p, 1, friday, "B")
			answer(t, db, p, 2, monday, "B")
			weekOf := func(at time.Time) []questions.UserID {
				t.Helper()
				lb, err := db.Leaderboard(guild, questions.PeriodWeek, questions.ByPoints, at, 0, 10)
				if err != nil {
					t.Fatal(err)
				}
				return users2(lb)
			}
			if got := weekOf(monday); !reflect.DeepEqual(got, []questions.UserID{2}) {
				t.Fatalf("UTC week of Monday: got %v, want [2]", got)
			}
			if err := tc.change(db); err != nil {
				t.Fatal(err)
			}
			if got := weekOf(friday); !reflect.DeepEqual(got, []questions.UserID{1, 2}) {
				t.Errorf("New York week of Friday: got %v, want [1 2]", got)
			}
			if got := weekOf(monday.Add(12 * time.Hour)); got != nil {
				t.Errorf("New York week of Monday: got %v, want nobody", got)
			}
			lb, _ := db.Leaderboard(guild, questions.PeriodDay, questions.ByPoints, monday, 0, 10)
			if got := users2(lb); !reflect.DeepEqual(got, []questions.UserID{2}) || lb.Start.Day() != 16 {
				t.Errorf("day of Monday 02:00 UTC: got %v from %v, want [2] from Sunday 16th", got, lb.Start)
			}
			assertRebuildEqual(t, db, guild)
		})
	}
}
