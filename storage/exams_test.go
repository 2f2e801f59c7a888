package storage

import (
	"errors"
	"slices"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestExamDate(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if _, err := db.ExamDate(guild, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("before any: got %v, want ErrNotFound", err)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: 1, Date: "2025-06-30", Bank: "Net"}); err != nil {
		t.Fatal(err)
	}
	e, err := db.ExamDate(guild, 1)
	if err != nil || e.Date != "2025-06-30" || e.Bank != "Net" || e.UserID != 1 || e.GuildID != guild {
		t.Errorf("ExamDate: got %+v, %v; want 2025-06-30, Net", e, err)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: 1, Date: "30/06/2025"}); err == nil {
		t.Error("bad date: got nil error")
	}
	if e2, _ := db.ExamDate(guild, 1); e2 != e {
		t.Errorf("after a refused date: got %+v, want %+v unchanged", e2, e)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExamDate(guild, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("after clearing: got %v, want ErrNotFound", err)
	}
}

// TestDrills: a member's drill round-trips, a second replaces the first,
// members and guilds are apart, and bad drills are refused.
func TestDrills(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := t.Context()
	if _, err := db.Drill(guild, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Fatalf("Drill before any: got %v, want ErrNotFound", err)
	}
	d := questions.Drill{GuildID: guild, UserID: 1, Topic: "net", Questions: []string{"b#1", "b#2"}, Shown: 1, StartedAt: t0, Review: 77}
	if err := db.SaveDrill(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := db.Drill(guild, 1)
	if err != nil || got.Topic != "net" || !slices.Equal(got.Questions, d.Questions) || got.Shown != 1 || !got.StartedAt.Equal(t0) || got.GuildID != guild || got.UserID != 1 || got.Review != 77 {
		t.Errorf("Drill: got %+v, %v; want %+v", got, err, d)
	}
	d.Topic, d.Questions, d.Shown = "", []string{"b#3"}, 0
	if err := db.SaveDrill(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Drill(guild, 1); got.Topic != "" || !slices.Equal(got.Questions, []string{"b#3"}) || got.Shown != 0 {
		t.Errorf("Drill after a second: got %+v, want it replaced", got)
	}
	if _, err := db.Drill(guild, 2); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("another member's drill: got %v, want ErrNotFound", err)
	}
	if _, err := db.Drill(guild+1, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("another guild's drill: got %v, want ErrNotFound", err)
	}
	for _, bad := range []questions.Drill{{UserID: 1}, {GuildID: guild}, {GuildID: guild, UserID: 1, Questions: []string{"a"}, Shown: 2}, {GuildID: guild, UserID: 1, Shown: -1}} {
		if err := db.SaveDrill(ctx, bad); err == nil {
			t.Errorf("SaveDrill(%+v): got nil, want a refusal", bad)
		}
	}
	if got, _ := db.Drill(guild, 1); !slices.Equal(got.Questions, []string{"b#3"}) {
		t.Errorf("a refused drill changed the stored one: %+v", got)
	}
}
