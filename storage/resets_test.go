package storage

import (
	"slices"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestResetGuild(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "q#1"})
	answer(t, db, p, 1, t0, "B")
	answer(t, db, p, 2, t0, "A")
	other := mustPost(t, db, questions.Post{GuildID: guild + 1})
	answer(t, db, other, 1, t0, "B")
	otherBefore := dumpDerived(t, db, guild+1)

	if err := db.ResetGuild(t.Context(), guild); err != nil {
		t.Fatal(err)
	}
	lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 10)
	if lb.Total != 0 || len(lb.Entries) != 0 {
		t.Errorf("board after reset: got %+v", lb)
	}
	if asked, _ := db.Asked(guild); len(asked) != 0 {
		t.Errorf("asked after reset: got %v", asked)
	}
	if s, _ := db.ActiveStreaks(guild, t0, 0); len(s) != 0 {
		t.Errorf("streaks after reset: got %v", s)
	}
	// History stays, and still blocks a second answer.
	if a, err := db.Answers(p.ID); err != nil || len(a) != 2 {
		t.Errorf("answers after reset: got %d, %v; want 2", len(a), err)
	}
	_, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, Choice: []string{"B"}})
	wantErr(t, err, questions.ErrAlreadyAnswered)
	// New answers count from zero; a rebuild does not resurrect old ones.
	answer(t, db, p, 3, t0, "B")
	assertRebuildEqual(t, db, guild)
	lb, _ = db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 10)
	if got := users2(lb); !slices.Equal(got, []questions.UserID{3}) {
		t.Errorf("board after reset and rebuild: got %v, want [3]", got)
	}
	if d := diffMaps(dumpDerived(t, db, guild+1), otherBefore); d != "" {
		t.Errorf("other guild changed:\n%s", d)
	}
	if err := db.ResetGuild(t.Context(), 4242); err != nil {
		t.Errorf("reset of an unknown guild: %v", err)
	}
}

func TestResetMember(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{Tags: []string{"x"}})
	p2 := mustPost(t, db, questions.Post{})
	day2 := t0.Add(24 * time.Hour)
	for u := questions.UserID(1); u <= 12; u++ {
		answer(t, db, p, u, t0, "B")
	}
	answer(t, db, p2, 5, day2, "B")
	// Members 5 and 6 are on the accuracy board too.
	for _, u := range []questions.UserID{5, 6} {
		play(t, db, u, times(t0, questions.MinAnswersForAccuracy, time.Second), bools(questions.MinAnswersForAccuracy, 5))
	}
	if lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, t0, 0, 5); lb.Total != 2 {
		t.Fatalf("accuracy board before reset: got %d members, want 2", lb.Total)
	}

	if err := db.ResetMember(t.Context(), guild, 5); err != nil {
		t.Fatal(err)
	}
	ms, _ := db.MemberStats(guild, 5, day2)
	if ms.All.Answered != 0 || ms.Rank != 0 || len(ms.Topics) != 0 {
		t.Errorf("member after reset: got %+v", ms)
	}
	for _, per := range []questions.Period{questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth, questions.PeriodAll} {
		lb, _ := db.Leaderboard(guild, per, questions.ByPoints, t0, 0, 20)
		if lb.Total != 11 || slices.Contains(users2(lb), 5) {
			t.Errorf("%s after reset: got %v (total %d), want 11 members without 5", per, users2(lb), lb.Total)
		}
	}
	if lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, t0, 0, 5); !slices.Equal(users2(lb), []questions.UserID{6}) || lb.Total != 1 {
		t.Errorf("accuracy board after reset: got %v (total %d), want [6]", users2(lb), lb.Total)
	}
	if s, _ := db.ActiveStreaks(guild, day2, 0); slices.ContainsFunc(s, func(s questions.Score) bool { return s.UserID == 5 }) {
		t.Error("member 5 still in active streaks")
	}
	// The member starts over with new answers; rebuild agrees.
	p3 := mustPost(t, db, questions.Post{})
	answer(t, db, p3, 5, day2, "B")
	ms, _ = db.MemberStats(guild, 5, day2)
	if ms.All.Answered != 1 || ms.All.CurrentStreak != 1 {
		t.Errorf("member after new answer: got %+v, want 1 answer, streak 1", ms.All)
	}
	assertRebuildEqual(t, db, guild)
	if err := db.ResetMember(t.Context(), 4242, 1); err != nil {
		t.Errorf("reset in an unknown guild: %v", err)
	}
}
