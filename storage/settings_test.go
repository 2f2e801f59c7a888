package storage

import (
	"reflect"
	"sync"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestSettings(t *testing.T) {
	db, _ := newDB(t)
	got, err := db.Settings(5)
	if err != nil || !reflect.DeepEqual(got, questions.DefaultSettings(5)) {
		t.Fatalf("Settings of a new guild: got %+v, %v; want defaults", got, err)
	}
	want := questions.Settings{GuildID: 5, TimeZone: "America/New_York", RevealOnAnswer: false, AskMinutes: 3,
		Banks: []string{"A", "B"}, Daily: &questions.Daily{ChannelID: 8, Time: "07:30", TimeZone: "Asia/Tokyo",
			Bank: "A", Count: 2, CloseAfterHours: 6, LastPosted: "2025-03-13"}}
	if err := db.SaveSettings(want); err != nil {
		t.Fatal(err)
	}
	got, err = db.Settings(5)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Settings: got %+v, %v; want %+v", got, err, want)
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
		{"unknown daily zone", questions.Settings{GuildID: 1, TimeZone: "UTC", Daily: &questions.Daily{TimeZone: "Nowhere/Land"}}},
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
