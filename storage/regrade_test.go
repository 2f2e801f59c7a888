package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// history records the same play in a database: two posts of question q#1
// with key `key` (and one of q#2), answers by three members, a review
// answer of q#1, and a reset of one member in between.
func history(t *testing.T, db *DB, key []string) {
	t.Helper()
	p1 := mustPost(t, db, questions.Post{QuestionID: "q#1", Tags: []string{"net"}, Correct: key, ClosesAt: t0.Add(10 * time.Minute)})
	other := mustPost(t, db, questions.Post{QuestionID: "q#2", Correct: []string{"A"}, ClosesAt: t0.Add(10 * time.Minute)})
	answer(t, db, p1, 1, t0.Add(time.Minute), "B")
	answer(t, db, p1, 2, t0.Add(2*time.Minute), "C")
	answer(t, db, p1, 3, t0.Add(3*time.Minute), "A")
	answer(t, db, other, 1, t0.Add(4*time.Minute), "A")
	answer(t, db, other, 2, t0.Add(4*time.Minute), "A")
	for _, p := range []questions.Post{p1, other} {
		if _, _, err := db.ClosePost(t.Context(), p.ID, t0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(time.Hour)
	r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 2, QuestionID: "q#1", Correct: key, OptionCount: 4, SelectCount: 1, OpenedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: r.ID.Post(), GuildID: guild, UserID: 2, InteractionID: 99, Choice: []string{"C"}, At: at}); err != nil {
		t.Fatal(err)
	}
	if err := db.ResetMember(t.Context(), guild, 3); err != nil {
		t.Fatal(err)
	}
	p2 := mustPost(t, db, questions.Post{QuestionID: "q#1", Tags: []string{"net"}, Correct: key, OpenedAt: t0.AddDate(0, 0, 1), ClosesAt: t0.AddDate(0, 0, 1).Add(10 * time.Minute)})
	answer(t, db, p2, 3, t0.AddDate(0, 0, 1).Add(time.Minute), "C")
	answer(t, db, p2, 1, t0.AddDate(0, 0, 1).Add(2*time.Minute), "C")
	if _, _, err := db.ClosePost(t.Context(), p2.ID, t0.AddDate(0, 0, 1).Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// TestRegradeEqualsGradingRightFromTheStart: a history graded against a
// wrong key (B), then regraded against the right one (C), leaves the same
// scores, leaderboards, streaks, topic stats and memories as the same
// history graded against C from the start.
func TestRegradeEqualsGradingRightFromTheStart(t *testing.T) {
	t.Parallel()
	wrong, _ := newDB(t)
	history(t, wrong, []string{"B"})
	right, _ := newDB(t)
	history(t, right, []string{"C"})

	got, err := wrong.Regrade(t.Context(), guild, "q#1", []string{"C"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Graded again: five answers to q#1 (four to posts, one review); the
	// grades of member 1's first answer (B: right → wrong), member 2's
	// (C: wrong → right), their review (C) and the two answers of the
	// next day (C) change.
	if want := (questions.Regraded{Answers: 6, Changed: 5, Posts: 2}); got != want {
		t.Errorf("Regrade = %+v, want %+v", got, want)
	}
	if d := diffMaps(dumpDerived(t, wrong, guild), dumpDerived(t, right, guild)); d != "" {
		t.Errorf("scores after the regrade differ from grading right from the start:\n%s", d)
	}
	if d := diffMaps(dumpMemory(t, wrong, guild), dumpMemory(t, right, guild)); d != "" {
		t.Errorf("memories after the regrade differ from grading right from the start:\n%s", d)
	}
	for _, user := range []questions.UserID{1, 2, 3} {
		for _, p := range []questions.PostID{1, 3} {
			a, errA := wrong.Answer(p, user)
			b, errB := right.Answer(p, user)
			if (errA == nil) != (errB == nil) || a.Grade != b.Grade {
				t.Errorf("member %d's answer to post %d: regraded %+v (%v), want %+v (%v)", user, p, a.Grade, errA, b.Grade, errB)
			}
		}
	}
	pw, _ := wrong.Post(1)
	pr, _ := right.Post(1)
	if pw.Right != pr.Right || len(pw.Correct) != 1 || pw.Correct[0] != "C" {
		t.Errorf("post 1 after the regrade: right %d, key %v; want right %d, key [C]", pw.Right, pw.Correct, pr.Right)
	}
	// A second regrade against the same key changes nothing.
	again, err := wrong.Regrade(t.Context(), guild, "q#1", []string{"C"}, 4)
	if err != nil || again.Changed != 0 || again.Posts != 0 {
		t.Errorf("second regrade = %+v, %v; want nothing changed", again, err)
	}
}

func TestRegradeRefusals(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	history(t, db, []string{"B"})
	mustPost(t, db, questions.Post{QuestionID: "q#2", Correct: []string{"A"}}) // open
	before := dumpDerived(t, db, guild)
	tests := []struct {
		name    string
		qid     string
		key     []string
		options int
		wantErr error
	}{
		{"open question", "q#2", []string{"B"}, 4, questions.ErrQuestionOpen},
		{"other option count", "q#1", []string{"C"}, 5, questions.ErrOptionsChanged},
		{"letter not an option", "q#1", []string{"E"}, 4, questions.ErrBadChoice},
		{"no key", "q#1", nil, 4, questions.ErrBadChoice},
		{"duplicate letters", "q#1", []string{"C", "C"}, 4, questions.ErrBadChoice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Regrade(t.Context(), guild, tt.qid, tt.key, tt.options)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Regrade: got %v, want %v", err, tt.wantErr)
			}
		})
	}
	if d := diffMaps(dumpDerived(t, db, guild), before); d != "" {
		t.Errorf("a refused regrade changed scores:\n%s", d)
	}
	if p, _ := db.Post(1); p.Correct[0] != "B" {
		t.Errorf("a refused regrade changed post 1's key to %v", p.Correct)
	}
}

func TestReports(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := t.Context()
	if rs, err := db.Reports(guild); err != nil || len(rs) != 0 {
		t.Fatalf("Reports on a new file: %v, %v; want none", rs, err)
	}
	r1, err := db.AddReport(ctx, questions.Report{GuildID: guild, QuestionID: "q#1", PostID: 4, UserID: 1, Text: "the key should be C"})
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := db.AddReport(ctx, questions.Report{GuildID: guild, QuestionID: "q#2", UserID: 1, Text: "typo"})
	// The same member again on q#1: replaces the text, keeps the ID.
	r3, _ := db.AddReport(ctx, questions.Report{GuildID: guild, QuestionID: "q#1", UserID: 1, Text: "C, not B"})
	long := make([]rune, questions.MaxReportText+50)
	for i := range long {
		long[i] = 'é'
	}
	r4, _ := db.AddReport(ctx, questions.Report{GuildID: guild, QuestionID: "q#1", UserID: 2, Text: string(long)})
	if r1.ID != 1 || r2.ID != 2 || r3.ID != 1 || r4.ID != 3 || !r1.At.Equal(t0) {
		t.Errorf("report IDs %d %d %d %d at %v, want 1 2 1 3 at %v", r1.ID, r2.ID, r3.ID, r4.ID, r1.At, t0)
	}
	rs, err := db.Reports(guild)
	if err != nil || len(rs) != 3 || rs[0].Text != "C, not B" || rs[0].PostID != 0 && rs[0].PostID != 4 || len([]rune(rs[2].Text)) != questions.MaxReportText {
		t.Fatalf("Reports = %+v, %v", rs, err)
	}
	if err := db.CloseReport(ctx, guild, 2); err != nil {
		t.Fatal(err)
	}
	if err := db.CloseReport(ctx, guild, 2); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("closing a closed report: got %v, want ErrNotFound", err)
	}
	if rs, _ := db.Reports(guild); len(rs) != 2 || rs[0].ID != 1 || rs[1].ID != 3 {
		t.Errorf("Reports after closing 2 = %+v, want 1 and 3", rs)
	}
	if _, err := db.AddReport(ctx, questions.Report{GuildID: guild, QuestionID: "q#1", UserID: 1}); err == nil {
		t.Error("a report without text was stored")
	}
}

// TestRegradeReachesPendingReviews: a review shown before the regrade and
// answered after it is graded against the corrected key.
func TestRegradeReachesPendingReviews(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	history(t, db, []string{"B"})
	at := t0.AddDate(0, 0, 2)
	r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 1, QuestionID: "q#1", Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Regrade(t.Context(), guild, "q#1", []string{"C"}, 4); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Review(guild, r.ID); err != nil || len(got.Correct) != 1 || got.Correct[0] != "C" {
		t.Errorf("pending review's key after the regrade: got %v, %v; want [C]", got.Correct, err)
	}
	a, err := db.RecordReview(t.Context(), questions.Answer{PostID: r.ID.Post(), GuildID: guild, UserID: 1, InteractionID: 500, Choice: []string{"C"}, At: at.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Right {
		t.Errorf("review answered C after the regrade to C: got right %v, want true", a.Right)
	}
}
