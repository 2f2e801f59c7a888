package storage

import (
	"errors"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestRecordAnswerRefusals(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	open := mustPost(t, db, questions.Post{Correct: []string{"A", "C"}})
	timed := mustPost(t, db, questions.Post{ClosesAt: t0.Add(time.Minute)})
	closed := mustPost(t, db, questions.Post{})
	if _, _, err := db.ClosePost(t.Context(), closed.ID, t0); err != nil {
		t.Fatal(err)
	}
	before := commits(t, db)
	for _, tc := range []struct {
		name string
		a    questions.Answer
		want error // errAny: a plain error, none of the domain sentinels
	}{
		{"unknown post", questions.Answer{PostID: 99, GuildID: guild, UserID: 1, Choice: []string{"A", "C"}}, questions.ErrNotFound},
		{"other guild", questions.Answer{PostID: open.ID, GuildID: guild + 1, UserID: 1, Choice: []string{"A", "C"}}, questions.ErrWrongGuild},
		{"closed", questions.Answer{PostID: closed.ID, GuildID: guild, UserID: 1, Choice: []string{"B"}}, questions.ErrClosed},
		{"at ClosesAt", questions.Answer{PostID: timed.ID, GuildID: guild, UserID: 1, Choice: []string{"B"}, At: t0.Add(time.Minute)}, questions.ErrClosed},
		{"too few picks", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A"}}, questions.ErrBadChoice},
		{"duplicate pick", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "A"}}, questions.ErrBadChoice},
		{"not offered", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "E"}}, questions.ErrBadChoice},
		{"not a letter", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "cc"}}, questions.ErrBadChoice},
		{"year 10000", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "C"}, At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, errAny},
		{"year 0", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "C"}, At: time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC)}, errAny},
		{"year 1500", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "C"}, At: time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)}, errAny},
		{"year 2300", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "C"}, At: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}, errAny},
		{"the instant stored as zero", questions.Answer{PostID: open.ID, GuildID: guild, UserID: 1, Choice: []string{"A", "C"}, At: time.Unix(0, math.MinInt64)}, errAny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.RecordAnswer(t.Context(), tc.a)
			if tc.want != errAny {
				wantErr(t, err, tc.want)
				return
			}
			if err == nil {
				t.Fatal("got nil error, want one")
			}
			for _, sentinel := range []error{questions.ErrNotFound, questions.ErrAlreadyAnswered, questions.ErrClosed,
				questions.ErrWrongGuild, questions.ErrBadChoice} {
				if errors.Is(err, sentinel) {
					t.Errorf("got %v, want a plain error, not %v", err, sentinel)
				}
			}
		})
	}
	// No refusal cost a commit.
	if after := commits(t, db); after != before {
		t.Errorf("commits during refusals: got %d, want 0", after-before)
	}
	// Nothing was written by any refusal.
	for _, p := range []questions.Post{open, timed, closed} {
		got, _ := db.Post(p.ID)
		if got.Answers != 0 {
			t.Errorf("post %d after refusals: got %d answers, want 0", p.ID, got.Answers)
		}
	}
	if ms, _ := db.MemberStats(guild, 1, t0); ms.All.Answered != 0 {
		t.Errorf("member after refusals: got %+v, want nothing", ms.All)
	}
	// Just before ClosesAt is fine, and so is the last storable time.
	answer(t, db, timed, 1, t0.Add(time.Minute-time.Nanosecond), "B")
	answer(t, db, open, 1, time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC), "A", "C")
	if a, _ := db.Answer(open.ID, 1); a.At.Year() != 2262 {
		t.Errorf("stored time: got %v, want 2262-01-01", a.At)
	}
}

// commits returns bbolt's last transaction ID: it grows by one with every
// commit.
func commits(t testing.TB, db *DB) int {
	t.Helper()
	var id int
	if err := db.bolt.View(func(tx *bbolt.Tx) error { id = tx.ID(); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestRecordAnswerGrades(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{OptionCount: 5, Correct: []string{"B", "D"}})
	for _, tc := range []struct {
		user   questions.UserID
		choice []string
		want   questions.Grade
	}{
		{1, []string{"D", "B"}, questions.Grade{Right: true, RightPicks: 2, Points: 2}},
		{2, []string{"B", "C"}, questions.Grade{Right: false, RightPicks: 1, Points: 0}},
		{3, []string{"A", "E"}, questions.Grade{Right: false, RightPicks: 0, Points: 0}},
	} {
		a := answer(t, db, p, tc.user, t0, tc.choice...)
		if a.Grade != tc.want {
			t.Errorf("user %d %v: got %+v, want %+v", tc.user, tc.choice, a.Grade, tc.want)
		}
		stored, err := db.Answer(p.ID, tc.user)
		if err != nil || !reflect.DeepEqual(stored, a) {
			t.Errorf("stored answer of %d: got %+v, %v; want %+v", tc.user, stored, err, a)
		}
	}
	got, _ := db.Post(p.ID)
	if want := []int{1, 2, 1, 1, 1}; !reflect.DeepEqual(got.Tallies, want) || got.Answers != 3 || got.Right != 1 {
		t.Errorf("post: got tallies %v, answers %d, right %d; want %v, 3, 1", got.Tallies, got.Answers, got.Right, want)
	}
	if a, _ := db.Answer(p.ID, 1); !reflect.DeepEqual(a.Choice, []string{"B", "D"}) {
		t.Errorf("stored choice: got %v, want sorted [B D]", a.Choice)
	}
	all, err := db.Answers(p.ID)
	if err != nil || len(all) != 3 || all[0].UserID != 1 || all[2].UserID != 3 {
		t.Errorf("Answers: got %+v, %v", all, err)
	}
	_, err = db.Answer(p.ID, 9)
	wantErr(t, err, questions.ErrNotFound)
	_, err = db.Answers(99)
	wantErr(t, err, questions.ErrNotFound)
	// Zero At means now.
	a := answer(t, db, p, 4, time.Time{}, "B", "D")
	if !a.At.Equal(t0) {
		t.Errorf("At of an answer without time: got %v, want %v", a.At, t0)
	}
}

func TestRecordAnswerIdempotent(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	first, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 77, Choice: []string{"B"}, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	before := commits(t, db)
	for _, tc := range []struct {
		name string
		a    questions.Answer
	}{
		{"redelivery", questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 77, Choice: []string{"B"}, At: t0}},
		{"second answer", questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 78, Choice: []string{"A"}, At: t0.Add(time.Second)}},
		{"second answer, bad choice", questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 79, Choice: []string{"Z"}, At: t0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.RecordAnswer(t.Context(), tc.a)
			wantErr(t, err, questions.ErrAlreadyAnswered)
			if !reflect.DeepEqual(got, first) {
				t.Errorf("got %+v, want the first answer %+v", got, first)
			}
		})
	}
	if after := commits(t, db); after != before {
		t.Errorf("commits for duplicates: got %d, want 0", after-before)
	}
	// A redelivery after the close still finds the first answer.
	db.ClosePost(t.Context(), p.ID, t0.Add(time.Hour))
	got, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 77, Choice: []string{"B"}})
	wantErr(t, err, questions.ErrAlreadyAnswered)
	if got.InteractionID != 77 {
		t.Errorf("after close: got interaction %d, want 77", got.InteractionID)
	}
	post, _ := db.Post(p.ID)
	ms, _ := db.MemberStats(guild, 1, t0)
	if post.Answers != 1 || post.Tallies[1] != 1 || ms.All.Answered != 1 || ms.All.Points != 1 {
		t.Errorf("after duplicates: post %+v, score %+v; want one answer counted once", post, ms.All)
	}
}

// TestConcurrentAnswers: 1,000 members answer one post at once, and each
// answer is delivered twice; tallies and scores must be exact.
func TestConcurrentAnswers(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{OptionCount: 4, Correct: []string{"B"}})
	const members = 1000
	choice := func(u questions.UserID) string { return questions.Letter(int(u % 4)) }
	var wg sync.WaitGroup
	errs := make(chan error, 2*members)
	// Readers run alongside the writers: a read after a write (rather
	// than reads as fast as they go, which would take a core from the
	// writers for as long as they run).
	stop := make(chan struct{})
	wrote := make(chan struct{}, 1)
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-wrote:
				}
				if _, err := db.Leaderboard(guild, questions.PeriodDay, questions.ByPoints, t0, 0, 10); err != nil {
					t.Error(err)
				}
				if _, err := db.Standing(guild, 1, questions.PeriodWeek, questions.ByPoints, t0); err != nil && !errors.Is(err, questions.ErrNotFound) {
					t.Error(err)
				}
				if _, err := db.Post(p.ID); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for u := questions.UserID(1); u <= members; u++ {
		for range 2 {
			wg.Go(func() {
				_, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: u,
					InteractionID: uint64(u), Choice: []string{choice(u)}, At: t0.Add(time.Duration(u) * time.Millisecond)})
				errs <- err
				select {
				case wrote <- struct{}{}:
				default: // a read is due already
				}
			})
		}
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	ok, dup := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, questions.ErrAlreadyAnswered):
			dup++
		default:
			t.Errorf("RecordAnswer: %v", err)
		}
	}
	if ok != members || dup != members {
		t.Errorf("got %d recorded and %d duplicates, want %d and %d", ok, dup, members, members)
	}
	got, _ := db.Post(p.ID)
	if want := []int{250, 250, 250, 250}; !reflect.DeepEqual(got.Tallies, want) || got.Answers != members || got.Right != 250 {
		t.Errorf("post: got tallies %v, answers %d, right %d; want %v, %d, 250", got.Tallies, got.Answers, got.Right, want, members)
	}
	for _, period := range []questions.Period{questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth, questions.PeriodAll} {
		lb, err := db.Leaderboard(guild, period, questions.ByPoints, t0, 0, 300)
		if err != nil {
			t.Fatal(err)
		}
		if lb.Total != members || len(lb.Entries) != 300 {
			t.Fatalf("%s: got total %d, %d entries; want %d, 300", period, lb.Total, len(lb.Entries), members)
		}
		// Right answers (user%4 == 1) first, in the order they were given.
		for i, e := range lb.Entries[:250] {
			if want := questions.UserID(4*i + 1); e.UserID != want || e.Points != 1 {
				t.Fatalf("%s entry %d: got user %d with %d points, want user %d with 1", period, i, e.UserID, e.Points, want)
			}
		}
	}
	assertRebuildEqual(t, db, guild)
}

// TestOnCommitCountsEveryAnswer: Options.OnCommit hears of every committed
// answer exactly once, however the group commit merged them, and of no
// refused one.
func TestOnCommitCountsEveryAnswer(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	var mu sync.Mutex
	commits, answers := 0, 0
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return t0 }, NoSync: true, OnCommit: func(n int) {
		mu.Lock()
		defer mu.Unlock()
		commits++
		answers += n
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := mustPost(t, db, questions.Post{QuestionID: "q#1", Correct: []string{"A"}})
	var wg sync.WaitGroup
	for u := range 50 {
		wg.Go(func() { answer(t, db, p, questions.UserID(u+1), t0, "A") })
	}
	wg.Wait()
	// A duplicate is refused in a read transaction: no commit.
	if _, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, Choice: []string{"A"}, At: t0}); !errors.Is(err, questions.ErrAlreadyAnswered) {
		t.Fatalf("duplicate: got %v, want ErrAlreadyAnswered", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if answers != 50 || commits < 1 || commits > 50 {
		t.Errorf("OnCommit heard %d answers in %d commits, want 50 answers in 1 to 50 commits", answers, commits)
	}
}

// TestAnswerInGuildWithoutData: a post without a question ID is the only
// thing of its guild in the file (CreatePost makes the guild's bucket only
// to mark a question asked). Reading and recording answers to it must work
// (it used to dereference the missing bucket, which marked the file
// damaged), and the first answer creates the guild's data.
func TestAnswerInGuildWithoutData(t *testing.T) {
	t.Parallel()
	const g questions.GuildID = 5
	db, _ := newDB(t)
	p, err := db.CreatePost(t.Context(), questions.Post{GuildID: g, ChannelID: 1, Correct: []string{"A"}, OptionCount: 2, SelectCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Answer(p.ID, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Fatalf("Answer before any: got %v, want ErrNotFound", err)
	}
	a, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: g, UserID: 1, InteractionID: 9, Choice: []string{"A"}, At: t0})
	if err != nil {
		t.Fatalf("RecordAnswer: %v", err)
	}
	if !a.Right || a.Points != 1 {
		t.Errorf("got right %v, %d points; want true, 1", a.Right, a.Points)
	}
	if got, err := db.Answer(p.ID, 1); err != nil || got.InteractionID != 9 {
		t.Errorf("Answer: got interaction %d, %v; want 9", got.InteractionID, err)
	}
	if got, err := db.Post(p.ID); err != nil || got.Answers != 1 || got.Tallies[0] != 1 {
		t.Errorf("Post: got %d answers, tallies %v, %v; want 1, [1 0]", got.Answers, got.Tallies, err)
	}
	if st, err := db.Standing(g, 1, questions.PeriodAll, questions.ByPoints, t0); err != nil || st.Rank != 1 {
		t.Errorf("Standing: got rank %d, %v; want 1", st.Rank, err)
	}
}
