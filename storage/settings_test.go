package storage

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestSettings(t *testing.T) {
	db, _ := newDB(t)
	got, err := db.Settings(5)
	if err != nil || !reflect.DeepEqual(got, questions.DefaultSettings(5)) {
		t.Fatalf("Settings of a new guild: got %+v, %v; want defaults", got, err)
	}
	want := questions.Settings{GuildID: 5, TimeZone: "America/New_York", RevealOnAnswer: false, AskMinutes: 3,
		Banks: []string{"A", "B"}, Daily: &questions.Daily{ChannelID: 8, Time: "07:30",
			Bank: "A", Count: 2, CloseAfterHours: 6, Next: t0.Add(19 * time.Hour), LastPosted: "2025-03-13",
			LastError: "missing access"}}
	if err := db.SaveSettings(want); err != nil {
		t.Fatal(err)
	}
	got, err = db.Settings(5)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Settings: got %+v, %v; want %+v", got, err, want)
	}
}

// TestSettingsNextInUTC: Next comes back in UTC, the same instant.
func TestSettingsNextInUTC(t *testing.T) {
	db, _ := newDB(t)
	tokyo := time.FixedZone("JST", 9*3600)
	next := time.Date(2025, 3, 15, 7, 30, 0, 0, tokyo)
	if err := db.SaveSettings(questions.Settings{GuildID: 5, TimeZone: "Asia/Tokyo",
		Daily: &questions.Daily{ChannelID: 1, Time: "07:30", Count: 1, Next: next}}); err != nil {
		t.Fatal(err)
	}
	s, err := db.Settings(5)
	if err != nil || !s.Daily.Next.Equal(next) || s.Daily.Next.Location() != time.UTC {
		t.Errorf("Next: got %v, %v; want %v in UTC", s.Daily.Next, err, next.UTC())
	}
}

// TestSettingsOldDailyRecord: a record written when Daily had its own time
// zone still decodes; that field is ignored.
func TestSettingsOldDailyRecord(t *testing.T) {
	db, _ := newDB(t)
	old := `{"tz":"Europe/Paris","reveal":true,"askMinutes":10,` +
		`"daily":{"channel":8,"time":"07:30","tz":"Asia/Tokyo","count":2,"lastPosted":"2025-03-13"}}`
	if err := db.bolt.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bSettings).Put(u64(5), []byte(old)) }); err != nil {
		t.Fatal(err)
	}
	got, err := db.Settings(5)
	want := questions.Settings{GuildID: 5, TimeZone: "Europe/Paris", RevealOnAnswer: true, AskMinutes: 10,
		Daily: &questions.Daily{ChannelID: 8, Time: "07:30", Count: 2, LastPosted: "2025-03-13"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Settings: got %+v (daily %+v), %v; want %+v (daily %+v)", got, got.Daily, err, want, want.Daily)
	}
}

func TestSaveSettingsRefuses(t *testing.T) {
	db, _ := newDB(t)
	for _, tc := range []struct {
		name string
		s    questions.Settings
	}{
		{"unknown zone", questions.Settings{GuildID: 1, TimeZone: "Mars/Olympus"}},
		{"empty zone", questions.Settings{GuildID: 1}},
		{"no guild", questions.Settings{TimeZone: "UTC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := db.SaveSettings(tc.s); err == nil {
				t.Errorf("SaveSettings(%+v): got nil error", tc.s)
			}
		})
	}
}

func TestDailyGuildsAndClaim(t *testing.T) {
	db, _ := newDB(t)
	for _, s := range []questions.Settings{
		{GuildID: 3, TimeZone: "UTC", Daily: &questions.Daily{ChannelID: 1, Time: "09:00", Count: 1}},
		{GuildID: 1, TimeZone: "UTC"},
		{GuildID: 2, TimeZone: "UTC", Daily: &questions.Daily{ChannelID: 2, Time: "10:00", Count: 1}},
	} {
		if err := db.SaveSettings(s); err != nil {
			t.Fatal(err)
		}
	}
	daily, err := db.DailyGuilds()
	if err != nil || len(daily) != 2 || daily[0].GuildID != 2 || daily[1].GuildID != 3 {
		t.Fatalf("DailyGuilds: got %+v, %v; want guilds 2 and 3", daily, err)
	}

	// Concurrent claims of one day: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 20 {
		wg.Go(func() {
			ok, err := db.ClaimDaily(2, "2025-03-14")
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
	if ok, _ := db.ClaimDaily(2, "2025-03-15"); !ok {
		t.Error("claim of the next day: got false, want true")
	}
	s, _ := db.Settings(2)
	if s.Daily.LastPosted != "2025-03-15" {
		t.Errorf("LastPosted: got %q, want 2025-03-15", s.Daily.LastPosted)
	}
	_, err = db.ClaimDaily(1, "2025-03-14")
	wantErr(t, err, questions.ErrNotFound)
}
