package storage

import (
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestAsked(t *testing.T) {
	db, _ := newDB(t)
	for _, id := range []string{"a#1", "a#2", "b#1"} {
		mustPost(t, db, questions.Post{QuestionID: id})
	}
	mustPost(t, db, questions.Post{GuildID: guild + 1, QuestionID: "a#3"})
	if err := db.ForgetAsked(t.Context(), guild, []string{"a#1", "a#2", "zz", ""}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Asked(guild)
	if err != nil || len(got) != 1 || !got["b#1"] {
		t.Errorf("Asked after forgetting: got %v, %v; want only b#1", got, err)
	}
	if got, _ := db.Asked(guild + 1); !got["a#3"] {
		t.Errorf("other guild: got %v, want a#3", got)
	}
	if got, _ := db.Asked(77); len(got) != 0 {
		t.Errorf("unknown guild: got %v", got)
	}
	if err := db.ForgetAsked(t.Context(), 77, []string{"x"}); err != nil {
		t.Errorf("ForgetAsked of an unknown guild: %v", err)
	}
}

func TestBanks(t *testing.T) {
	db, _ := newDB(t)
	save := func(name, data string) {
		t.Helper()
		if err := db.SaveBank(t.Context(), guild, questions.BankFile{Name: name, Format: questions.FormatText, Data: []byte(data),
			ImportedAt: t0, ImportedBy: 5}); err != nil {
			t.Fatal(err)
		}
	}
	save("zeta", "1")
	save("Alpha", "2")
	save("ALPHA", "3") // replaces Alpha
	banks, err := db.Banks(guild)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range banks {
		names = append(names, b.Name+"="+string(b.Data))
	}
	if want := []string{"ALPHA=3", "zeta=1"}; !slices.Equal(names, want) {
		t.Errorf("Banks: got %v, want %v", names, want)
	}
	if !banks[0].ImportedAt.Equal(t0) || banks[0].ImportedBy != 5 || banks[0].Format != questions.FormatText {
		t.Errorf("bank fields: got %+v", banks[0])
	}
	if err := db.DeleteBank(t.Context(), guild, "alpha"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, db.DeleteBank(t.Context(), guild, "alpha"), questions.ErrNotFound)
	wantErr(t, db.DeleteBank(t.Context(), 99, "x"), questions.ErrNotFound)
	if banks, _ := db.Banks(guild); len(banks) != 1 {
		t.Errorf("after delete: got %d banks, want 1", len(banks))
	}
	if err := db.SaveBank(t.Context(), guild, questions.BankFile{}); err == nil {
		t.Error("SaveBank without name: got nil error")
	}
}

func TestResetGuild(t *testing.T) {
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

// TestAccuracyBoardThreshold: a member joins the accuracy board with their
// 10th answer in the period.
func TestAccuracyBoardThreshold(t *testing.T) {
	db, _ := newDB(t)
	for i := range questions.MinAnswersForAccuracy {
		lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, t0, 0, 10)
		if lb.Total != 0 {
			t.Fatalf("after %d answers: got total %d, want 0", i, lb.Total)
		}
		play(t, db, 1, []time.Time{t0.Add(time.Duration(i) * time.Second)}, []bool{i%2 == 0})
	}
	st, err := db.Standing(guild, 1, questions.PeriodAll, questions.ByAccuracy, t0)
	if err != nil || st.Rank != 1 || st.Accuracy() != 0.5 {
		t.Errorf("Standing: got %+v, %v; want rank 1 at 0.5", st, err)
	}
}

// TestRebuildRepairs: derived data lost or damaged is recounted from the
// answers.
func TestRebuildRepairs(t *testing.T) {
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{Tags: []string{"a"}})
	for u := questions.UserID(1); u <= 20; u++ {
		answer(t, db, p, u, t0.Add(time.Duration(u)*time.Hour), questions.Letter(int(u%2)))
	}
	want := dumpDerived(t, db, guild)
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guild)
		if err := g.Bucket(bPeriods).DeleteBucket(kAllTime); err != nil {
			return err
		}
		return g.Bucket(bTopics).Put(cat(u64(uint64(1)), []byte("tag:a")), cat(u64(uint64(99)), u64(uint64(99))))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildScores(t.Context(), guild); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpDerived(t, db, guild), want); d != "" {
		t.Errorf("after rebuild:\n%s", d)
	}
	if err := db.RebuildScores(t.Context(), 4242); err != nil {
		t.Errorf("rebuild of an unknown guild: %v", err)
	}
}
