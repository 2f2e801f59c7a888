package storage

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// answerRemembered records an answer and checks that RecordAnswer updated
// the member's memory of the question in the same call.
func answerRemembered(t *testing.T, db *DB, p questions.Post, user questions.UserID, at time.Time, choice ...string) questions.Answer {
	t.Helper()
	before := memoryReps(t, db, p.GuildID, user, p.QuestionID)
	a := answer(t, db, p, user, at, choice...)
	if got := memoryReps(t, db, p.GuildID, user, p.QuestionID); got != before+1 {
		t.Fatalf("member %d's memory of %s after an answer: %d repetitions, want %d", user, p.QuestionID, got, before+1)
	}
	return a
}

func memoryReps(t *testing.T, db *DB, guildID questions.GuildID, user questions.UserID, qid string) uint64 {
	t.Helper()
	m, ok := memoryOf(t, db, guildID, user, qid)
	if !ok {
		return 0
	}
	return m.Reps
}

func memoryOf(t *testing.T, db *DB, guildID questions.GuildID, user questions.UserID, qid string) (questions.Memory, bool) {
	t.Helper()
	mems, err := db.Memories(guildID, user)
	if err != nil {
		t.Fatalf("Memories: %v", err)
	}
	for _, m := range mems {
		if m.QuestionID == qid {
			return m, true
		}
	}
	return questions.Memory{}, false
}

// dumpMemory returns the guild's answer records (the answers and the
// memories) by member and question ID (question numbers depend on the
// order questions were first seen), for comparing live writes with a
// rebuild or a migration.
func dumpMemory(t *testing.T, db *DB, guildID questions.GuildID) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if sub(g, bAnswers) == nil {
			return nil // no guild (another shard's), or no answers
		}
		names := namesOf(g)
		return sub(g, bAnswers).ForEach(func(k, v []byte) error {
			qid, err := names.of(recordNum(k))
			if err != nil {
				return err
			}
			out[fmt.Sprintf("answers/%d/%q", getU64(k), qid)] = hex.EncodeToString(v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameMemory(a, b questions.Memory) bool {
	return a.UserID == b.UserID && a.QuestionID == b.QuestionID && a.Due.Equal(b.Due) && a.LastReview.Equal(b.LastReview) &&
		a.Stability == b.Stability && a.Difficulty == b.Difficulty && a.ElapsedDays == b.ElapsedDays &&
		a.ScheduledDays == b.ScheduledDays && a.Reps == b.Reps && a.Lapses == b.Lapses && a.State == b.State &&
		slices.EqualFunc(a.History, b.History, func(x, y questions.Attempt) bool {
			return x.At.Equal(y.At) && x.Right == y.Right && x.Review == y.Review
		})
}

// TestAnswerRecordRoundTrip: an answer record decodes to what was
// encoded, its card's last review time stored only when it is not the
// last answer's; a damaged record is an error.
func TestAnswerRecordRoundTrip(t *testing.T) {
	t.Parallel()
	answers := []recAnswer{
		{id: 7, seq: 1, interaction: 1 << 60, at: t0, choice: []string{"A"}},
		{id: 1<<40 + 3, seq: 300, interaction: 5, at: t0.Add(3 * time.Minute), right: true, review: true, picks: 2, points: 0, choice: []string{"B", "D"}},
	}
	attempts := []questions.Attempt{{At: t0}, {At: t0.Add(3 * time.Minute), Right: true, Review: true}}
	late := []questions.Attempt{{At: t0.Add(3 * time.Minute), Right: true}, {At: t0}} // the last answer delivered late
	for _, tc := range []struct {
		name     string
		qid      string
		attempts []questions.Attempt
	}{
		{"in order", "Net#x/é", attempts},
		{"last review not the last answer's", "q", late},
		{"no question ID", "", attempts},
	} {
		var num uint32
		if tc.qid != "" {
			num = 7
		}
		rec := record{user: 42, num: num, qid: tc.qid, answers: slices.Clone(answers)}
		for i, a := range tc.attempts {
			rec.answers[i].at, rec.answers[i].right, rec.answers[i].review = a.At, a.Right, a.Review
		}
		if tc.qid != "" {
			rec.mem = questions.Replay(42, tc.qid, tc.attempts, []time.Time{t0.Add(time.Minute)})
		}
		v := encodeRecord(rec)
		got, err := decodeRecord(recordKey(nil, 42, num), v, tc.qid)
		if err != nil || !sameMemory(got.mem, rec.mem) || len(got.answers) != len(rec.answers) {
			t.Fatalf("%s: round trip: got %+v, %v; want %+v", tc.name, got, err, rec)
		}
		for i := range got.answers {
			g, w := got.answers[i], rec.answers[i]
			if g.id != w.id || g.seq != w.seq || g.interaction != w.interaction || !g.at.Equal(w.at) || g.right != w.right ||
				g.review != w.review || g.picks != w.picks || g.points != w.points || !slices.Equal(g.choice, w.choice) {
				t.Errorf("%s: answer %d: got %+v, want %+v", tc.name, i, g, w)
			}
		}
		for _, cut := range []int{0, 1, 5, len(v) - 1} {
			if _, err := decodeRecord(recordKey(nil, 42, num), v[:cut], tc.qid); err == nil {
				t.Errorf("%s: decode of the first %d of %d bytes: got nil error", tc.name, cut, len(v))
			}
		}
		if _, err := decodeRecord(recordKey(nil, 42, num), append([]byte{9}, v[1:]...), tc.qid); err == nil {
			t.Errorf("%s: decode of another format: got nil error", tc.name)
		}
	}
}

// TestRememberAnswerHook: the hook RecordAnswer calls schedules a miss
// after the post's close, and a rebuild from the answers reproduces what
// the hook wrote.
func TestRememberAnswerHook(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	closes := t0.Add(10 * time.Minute)
	p := mustPost(t, db, questions.Post{QuestionID: "net#1", Correct: []string{"B"}, ClosesAt: closes})
	p2 := mustPost(t, db, questions.Post{QuestionID: "net#2", Correct: []string{"A", "C"}})
	answerRemembered(t, db, p, 1, t0.Add(time.Minute), "A")         // miss
	answerRemembered(t, db, p, 2, t0.Add(2*time.Minute), "B")       // right
	answerRemembered(t, db, p2, 1, t0.Add(3*time.Minute), "A", "C") // right

	miss, ok := memoryOf(t, db, guild, 1, "net#1")
	if !ok || miss.State != questions.StateLearning || !miss.Due.Equal(closes.Add(time.Minute)) || !miss.Missed() {
		t.Errorf("member 1's miss: got %+v, want learning, due a minute after the close %v", miss, closes)
	}
	right, _ := memoryOf(t, db, guild, 2, "net#1")
	if right.State != questions.StateReview || right.Due.Sub(closes) < 24*time.Hour {
		t.Errorf("member 2's right answer: got state %d due %v, want review, days after the close", right.State, right.Due)
	}
	mems, err := db.Memories(guild, 1)
	if err != nil || len(mems) != 2 || mems[0].QuestionID != "net#1" || mems[1].QuestionID != "net#2" {
		t.Errorf("Memories(1): got %+v, %v; want net#1, net#2", mems, err)
	}

	live := dumpMemory(t, db, guild)
	if err := db.RebuildMemory(t.Context(), guild, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpMemory(t, db, guild), live); d != "" {
		t.Errorf("rebuild differs from the hook's writes:\n%s", d)
	}
	if len(live) != 3 {
		t.Errorf("memories: got %d, want 3", len(live))
	}
}

// TestEarlyCloseMovesSchedules: a post closed before its ClosesAt
// schedules its answers from the actual close: a miss comes due a minute
// after it, a right answer's days count from it; a post closed on time (a
// moment late) or without a ClosesAt moves nothing; and a rebuild from
// the answers gives the same memories.
func TestEarlyCloseMovesSchedules(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	early := mustPost(t, db, questions.Post{QuestionID: "net#1", ClosesAt: t0.Add(10 * time.Minute)})
	noClose := mustPost(t, db, questions.Post{QuestionID: "net#2"})
	onTime := mustPost(t, db, questions.Post{QuestionID: "net#3", ClosesAt: t0.Add(10 * time.Minute)})
	for _, p := range []questions.Post{early, noClose, onTime} {
		answerRemembered(t, db, p, 1, t0.Add(time.Minute), "A") // miss
		answerRemembered(t, db, p, 2, t0.Add(time.Minute), "B") // right
	}
	rightBefore, _ := memoryOf(t, db, guild, 2, "net#1")
	onTimeBefore, _ := memoryOf(t, db, guild, 1, "net#3")
	closes := []struct {
		p  questions.Post
		at time.Time
	}{{early, t0.Add(2 * time.Minute)}, {noClose, t0.Add(time.Hour)}, {onTime, t0.Add(10*time.Minute + 300*time.Millisecond)}}
	for _, c := range closes {
		if _, ok, err := db.ClosePost(t.Context(), c.p.ID, c.at); err != nil || !ok {
			t.Fatalf("close %s: %v, %v", c.p.QuestionID, ok, err)
		}
	}
	for _, tt := range []struct {
		qid  string
		want time.Time
	}{{"net#1", t0.Add(3 * time.Minute)}, {"net#2", t0.Add(2 * time.Minute)}, {"net#3", onTimeBefore.Due}} {
		if m, _ := memoryOf(t, db, guild, 1, tt.qid); !m.Due.Equal(tt.want) {
			t.Errorf("member 1's miss of %s is due %v, want %v", tt.qid, m.Due, tt.want)
		}
	}
	if m, _ := memoryOf(t, db, guild, 2, "net#1"); !m.Due.Equal(rightBefore.Due.Add(-8 * time.Minute)) {
		t.Errorf("member 2's right answer to net#1 is due %v, want 8 minutes earlier than %v (closed 8 minutes early)", m.Due, rightBefore.Due)
	}
	live := dumpMemory(t, db, guild)
	if err := db.RebuildMemory(t.Context(), guild, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpMemory(t, db, guild), live); d != "" {
		t.Errorf("rebuild differs from the memories after the closes:\n%s", d)
	}
}

// TestDeletePostForgetsItsAnswers: deleting a post (a question whose
// message could not be sent) recomputes the memories of its question from
// the answers left, as a rebuild would.
func TestDeletePostForgetsItsAnswers(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "net#1", Correct: []string{"B"}})
	p2 := mustPost(t, db, questions.Post{QuestionID: "net#1", Correct: []string{"B"}})
	answerRemembered(t, db, p, 1, t0, "A")
	answerRemembered(t, db, p2, 1, t0.Add(time.Hour), "B")
	answerRemembered(t, db, p2, 2, t0.Add(time.Hour), "B")
	if err := db.DeletePost(t.Context(), p2.ID); err != nil {
		t.Fatal(err)
	}
	if got := memoryReps(t, db, guild, 1, "net#1"); got != 1 {
		t.Errorf("member 1 after the delete: %d repetitions, want 1 (the first post's answer)", got)
	}
	if _, ok := memoryOf(t, db, guild, 2, "net#1"); ok {
		t.Error("member 2 still remembers an answer to the deleted post")
	}
	live := dumpMemory(t, db, guild)
	if err := db.RebuildMemory(t.Context(), guild, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpMemory(t, db, guild), live); d != "" {
		t.Errorf("rebuild differs after the delete:\n%s", d)
	}
}

// TestMigrateV4 builds a version-4 file with answers (misses, right
// answers, two guilds), opens it with this build and checks each
// member's memory was built from the answers in order.
func TestMigrateV4(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v4 := openV7(t, path, 4)
	closes := t0.Add(30 * time.Minute)
	p1 := mustPost(t, v4, questions.Post{QuestionID: "net#1", ClosesAt: closes})
	p2 := mustPost(t, v4, questions.Post{QuestionID: "net#1", ClosesAt: t0.AddDate(0, 0, 2).Add(time.Hour)}) // asked again
	p3 := mustPost(t, v4, questions.Post{QuestionID: "net#2", GuildID: 2000})
	v7Answer(t, v4, p1, 1, t0, "A")
	v7Answer(t, v4, p1, 2, t0.Add(time.Minute), "B")
	v7Answer(t, v4, p2, 1, t0.AddDate(0, 0, 2), "B")
	v7Answer(t, v4, p3, 1, t0, "B")
	// Make it a genuine version-4 layout: no memory, exams or reviews.
	err := v4.bolt.Update(func(tx *bbolt.Tx) error {
		for _, g := range []questions.GuildID{guild, 2000} {
			for _, b := range [][]byte{bMemoryV7, bExams, bReviews} {
				if err := guildRO(tx, g).DeleteBucket(b); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v4.Close()

	db := openPath(t, path)
	want := map[[2]uint64]questions.Memory{
		{guild, 1}: questions.Replay(1, "net#1", []questions.Attempt{{At: t0}, {At: t0.AddDate(0, 0, 2), Right: true}},
			[]time.Time{closes, p2.ClosesAt}),
		{guild, 2}: questions.Replay(2, "net#1", []questions.Attempt{{At: t0.Add(time.Minute), Right: true}}, []time.Time{closes}),
		{2000, 1}:  questions.Replay(1, "net#2", []questions.Attempt{{At: t0, Right: true}}, nil),
	}
	for k, w := range want {
		got, ok := memoryOf(t, db, questions.GuildID(k[0]), questions.UserID(k[1]), w.QuestionID)
		if !ok || !sameMemory(got, w) {
			t.Errorf("guild %d member %d after migration: got %+v, want %+v", k[0], k[1], got, w)
		}
	}
	if got, _ := memoryOf(t, db, guild, 1, "net#1"); got.Reps != 2 || got.State != questions.StateReview {
		t.Errorf("miss then right: got reps %d state %d, want 2, review", got.Reps, got.State)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: 2000, UserID: 1, Date: "2025-06-30"}); err != nil {
		t.Errorf("SetExamDate after migration: %v", err)
	}
	if _, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 1, QuestionID: "net#1", Correct: []string{"B"}, OptionCount: 4, SelectCount: 1}); err != nil {
		t.Errorf("StartReview after migration: %v", err)
	}
}

// TestReviewFlow: a miss comes due after the close, is reviewed privately,
// a right review pushes the next due date out, and the review counts for
// the streak but leaves points, answers and the boards as they were.
func TestReviewFlow(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	closes := t0.Add(10 * time.Minute)
	p := mustPost(t, db, questions.Post{QuestionID: "net#1", Correct: []string{"B"}, ClosesAt: closes, Tags: []string{"net"}})
	answerRemembered(t, db, p, 1, t0, "A") // miss
	answerRemembered(t, db, p, 2, t0, "B") // right

	// While the post is open, nothing is offered.
	q, err := db.ReviewQueue(guild, 1, closes.Add(5*time.Minute), nil, questions.ExamPlan{})
	if err != nil || len(q.Due) != 0 || !q.Next.IsZero() {
		t.Fatalf("queue while open: got %+v, %v; want nothing (the question is open)", q, err)
	}
	if _, _, err := db.ClosePost(t.Context(), p.ID, closes); err != nil {
		t.Fatal(err)
	}
	q, _ = db.ReviewQueue(guild, 1, closes.Add(30*time.Second), nil, questions.ExamPlan{})
	if len(q.Due) != 0 || !q.Next.Equal(closes.Add(time.Minute)) {
		t.Fatalf("queue before the step: got %+v, want none due, next %v", q, closes.Add(time.Minute))
	}
	now := closes.Add(2 * time.Minute)
	q, _ = db.ReviewQueue(guild, 1, now, nil, questions.ExamPlan{})
	if len(q.Due) != 1 || q.Due[0].QuestionID != "net#1" {
		t.Fatalf("queue after the step: got %+v, want net#1 due", q)
	}
	if q2, _ := db.ReviewQueue(guild, 1, now, func(string) bool { return false }, questions.ExamPlan{}); len(q2.Due) != 0 {
		t.Errorf("queue with the question out of the banks: got %d due, want 0", len(q2.Due))
	}

	before := dumpDerived(t, db, guild)
	boardBefore, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, now, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 1, QuestionID: "net#1", Bank: "bank", Tags: []string{"net"},
		Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID == 0 || r.ID.Post() == p.ID || !r.ExpiresAt.Equal(now.Add(questions.ReviewExpiry)) {
		t.Errorf("started review: got %+v, want a new ID, expiry an hour on", r)
	}
	got, err := db.RecordReview(t.Context(), questions.Answer{PostID: r.ID.Post(), GuildID: guild, UserID: 1, InteractionID: 77, Choice: []string{"B"}, At: now.Add(time.Minute)})
	if err != nil || !got.Right || got.Points != 0 {
		t.Fatalf("RecordReview: got %+v, %v; want right, 0 points", got, err)
	}
	m, _ := memoryOf(t, db, guild, 1, "net#1")
	if m.State != questions.StateReview || m.Due.Sub(now) < 24*time.Hour || len(m.History) != 2 || !m.History[1].Review {
		t.Errorf("memory after a right review: got %+v, want review state, due days out, a review attempt", m)
	}
	q, _ = db.ReviewQueue(guild, 1, now.Add(2*time.Minute), nil, questions.ExamPlan{})
	if len(q.Due) != 0 || !q.Next.Equal(m.Due) {
		t.Errorf("queue after the review: got %+v, want none due, next %v", q, m.Due)
	}

	// Points, answers, accuracy, topics and boards unchanged; the streak
	// row of the all-time period unchanged too (same day).
	if d := diffMaps(dumpDerived(t, db, guild), before); d != "" {
		t.Errorf("a same-day review changed derived data:\n%s", d)
	}
	boardAfter, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, now, 0, 10)
	if !slices.EqualFunc(boardAfter.Entries, boardBefore.Entries, func(a, b questions.Standing) bool { return a.Rank == b.Rank && a.Score == b.Score }) {
		t.Errorf("board after a review: got %+v, want %+v", boardAfter.Entries, boardBefore.Entries)
	}

	// A review the next day extends the streak and nothing else.
	next := t0.AddDate(0, 0, 1)
	r2, _ := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 2, QuestionID: "net#1", Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: next})
	if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: r2.ID.Post(), GuildID: guild, UserID: 2, InteractionID: 78, Choice: []string{"C"}, At: next}); err != nil {
		t.Fatal(err)
	}
	st, err := db.MemberStats(guild, 2, next)
	if err != nil {
		t.Fatal(err)
	}
	if st.All.CurrentStreak != 2 || st.All.Answered != 1 || st.All.Points != 1 || st.All.Correct != 1 {
		t.Errorf("member 2 after a next-day review: got %+v, want streak 2, 1 answered, 1 point", st.All)
	}
	if len(st.Topics) != 2 || st.Topics[1].Answered != 1 {
		t.Errorf("topics after a review: got %+v, want the live answer only", st.Topics)
	}
	m2, _ := memoryOf(t, db, guild, 2, "net#1")
	if m2.Lapses != 1 || m2.State != questions.StateRelearning {
		t.Errorf("member 2 missed a known question: got lapses %d state %d, want 1, relearning", m2.Lapses, m2.State)
	}

	// A rebuild of the memories reproduces the reviews too.
	live := dumpMemory(t, db, guild)
	if err := db.RebuildMemory(t.Context(), guild, []string{"net#1"}); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpMemory(t, db, guild), live); d != "" {
		t.Errorf("rebuild differs after reviews:\n%s", d)
	}
}

func TestRecordReviewRefusals(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 1, QuestionID: "q#1", Correct: []string{"A", "C"}, OptionCount: 4, SelectCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	ok := questions.Answer{PostID: r.ID.Post(), GuildID: guild, UserID: 1, InteractionID: 5, Choice: []string{"C", "A"}, At: t0}
	tests := []struct {
		name string
		edit func(*questions.Answer)
		want error
	}{
		{"unknown review", func(a *questions.Answer) { a.PostID = 999 }, questions.ErrNotFound},
		{"another guild", func(a *questions.Answer) { a.GuildID = 2000 }, questions.ErrNotFound},
		{"another member", func(a *questions.Answer) { a.UserID = 2 }, questions.ErrNotYours},
		{"expired", func(a *questions.Answer) { a.At = r.ExpiresAt }, questions.ErrClosed},
		{"bad choice", func(a *questions.Answer) { a.Choice = []string{"A"} }, questions.ErrBadChoice},
	}
	for _, tt := range tests {
		a := ok
		tt.edit(&a)
		if _, err := db.RecordReview(t.Context(), a); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	if mems, _ := db.Memories(guild, 1); len(mems) != 0 {
		t.Errorf("memories after refusals: got %+v, want none", mems)
	}
	got, err := db.RecordReview(t.Context(), ok)
	if err != nil || !got.Right || !slices.Equal(got.Choice, []string{"A", "C"}) {
		t.Fatalf("RecordReview: got %+v, %v; want right, A C", got, err)
	}
	again := ok
	again.InteractionID = 6
	stored, err := db.RecordReview(t.Context(), again)
	if !errors.Is(err, questions.ErrAlreadyAnswered) || stored.InteractionID != 5 {
		t.Errorf("second answer: got %+v, %v; want the stored answer (interaction 5), ErrAlreadyAnswered", stored, err)
	}
	if m, _ := memoryOf(t, db, guild, 1, "q#1"); m.Reps != 1 {
		t.Errorf("reps after a refused second answer: got %d, want 1", m.Reps)
	}
	for _, bad := range []questions.Review{
		{UserID: 1, QuestionID: "q", Correct: []string{"A"}, OptionCount: 2, SelectCount: 1},
		{GuildID: guild, QuestionID: "q", Correct: []string{"A"}, OptionCount: 2, SelectCount: 1},
		{GuildID: guild, UserID: 1, Correct: []string{"A"}, OptionCount: 2, SelectCount: 1},
		{GuildID: guild, UserID: 1, QuestionID: "q", Correct: []string{"C"}, OptionCount: 2, SelectCount: 1},
		{GuildID: guild, UserID: 1, QuestionID: "q", Correct: []string{"A"}, OptionCount: 2, SelectCount: 2},
	} {
		if _, err := db.StartReview(t.Context(), bad); err == nil {
			t.Errorf("StartReview(%+v): got nil error", bad)
		}
	}
	if _, err := db.Review(guild, r.ID); err != nil {
		t.Errorf("Review: %v", err)
	}
	if _, err := db.Review(2000, r.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("Review of another guild: got %v, want ErrNotFound", err)
	}
}

// TestCountStoredMatchesLive: recounting with countStored (what
// RebuildScores' recount will call) reproduces live answers and reviews.
func TestCountStoredMatchesLive(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "q#1", Tags: []string{"t"}})
	answer(t, db, p, 1, t0, "B")
	answer(t, db, p, 2, t0, "A")
	if _, _, err := db.ClosePost(t.Context(), p.ID, t0.Add(time.Minute)); err != nil { // reviewed once closed
		t.Fatal(err)
	}
	for i, user := range []questions.UserID{1, 2, 3} {
		at := t0.AddDate(0, 0, 1+i)
		r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: user, QuestionID: "q#1", Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: r.ID.Post(), GuildID: guild, UserID: user, InteractionID: uint64(100 + i), Choice: []string{"B"}, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	live := dumpDerived(t, db, guild)
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guild)
		if err := clearScores(g); err != nil {
			return err
		}
		loc, err := db.guildLocation(tx, guild)
		if err != nil {
			return err
		}
		sources := map[questions.PostID]postSource{}
		refs, err := countedAnswers(g, nil)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if err := countStored(tx, g, nil, loc, ref.user, ref.ra, sources); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpDerived(t, db, guild), live); d != "" {
		t.Errorf("recount with countStored differs from live:\n%s", d)
	}
	st, _ := db.MemberStats(guild, 1, t0.AddDate(0, 0, 1))
	if st.All.CurrentStreak != 2 || st.All.Answered != 1 {
		t.Errorf("member 1: got %+v, want streak 2 (answer, review next day), 1 answered", st.All)
	}
}

func TestGroupMemoriesAndPlayers(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	old := mustPost(t, db, questions.Post{QuestionID: "q#old"})
	answerRemembered(t, db, old, 9, t0.AddDate(0, 0, -40), "B") // played 40 days ago only
	for _, id := range []string{"q#1", "q#2", "q#3"} {
		p := mustPost(t, db, questions.Post{QuestionID: id})
		answerRemembered(t, db, p, 1, t0.AddDate(0, 0, -2), "B")
		if id != "q#3" {
			answerRemembered(t, db, p, 2, t0, "A")
		}
	}
	players, err := db.Players(guild, t0)
	if err != nil || !slices.Equal(players, []questions.UserID{1, 2}) {
		t.Errorf("Players: got %v, %v; want [1 2]", players, err)
	}
	mems, err := db.GroupMemories(guild, players, []string{"q#2", "q#3", "q#none", "q#1"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mems {
		got = append(got, m.QuestionID+"/"+string(rune('0'+m.UserID)))
	}
	if want := []string{"q#1/1", "q#2/1", "q#3/1", "q#1/2", "q#2/2"}; !slices.Equal(got, want) {
		t.Errorf("GroupMemories: got %v, want %v", got, want)
	}
	// The draw over them: member 2 missed q#1 and q#2 an hour ago (still
	// fresh) and never saw q#3, which the group therefore knows least.
	draw := questions.DrawForgotten([]string{"q#1", "q#2", "q#3"}, players, mems, t0.Add(time.Hour), 1, nil)
	if len(draw) != 1 || draw[0] != "q#3" {
		t.Errorf("draw: got %v, want [q#3]", draw)
	}
	all, _ := db.GroupMemories(guild, []questions.UserID{1}, nil)
	if len(all) != 3 {
		t.Errorf("GroupMemories of member 1, every question: got %d, want 3", len(all))
	}
	if ps, _ := db.Players(4242, t0); len(ps) != 0 {
		t.Errorf("Players of an unknown guild: got %v, want none", ps)
	}
}
