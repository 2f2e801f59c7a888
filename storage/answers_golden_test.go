package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// TestAnswersStoredUnchanged records a mixed set of answers the way the
// group commit shares transactions (groups of 1 to 40 calls), and compares
// every key and value in the file with a dump (testdata/answers.golden,
// written by the first build of schema version 8): the hot path's
// shortcuts must not change one stored byte. The mix (answersScenario):
// two guilds (one in Europe/Paris, across the change to summer time, weeks
// and a month end), posts with and without bank, tags (repeated, empty),
// several correct letters, a close time, no question ID; reviews among the
// answers (of a question open in the other guild only); members reaching
// the accuracy board; refusals in the middle of groups (a second answer in
// the same group, a bad choice, a closed post, another guild's post, an
// unknown post); answers delivered late (before the member's last study
// day).
func TestAnswersStoredUnchanged(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	calls, posts := answersScenario(t, db, func(r questions.Review) questions.Review {
		rv, err := db.StartReview(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		return rv
	})
	accepted := 0
	playScenario(t, db, calls, posts[0], func(group []scenarioCall) error {
		return db.write(t.Context(), func(tx *bbolt.Tx, d *deltas) error {
			for _, c := range group {
				write := db.recordAnswer
				if c.review {
					write = db.recordReview
				}
				_, refused, err := write(tx, d, c.a)
				if err != nil {
					return err
				}
				if refused == nil {
					accepted++
				}
			}
			return nil
		})
	})
	if accepted < 60 || accepted == len(calls) {
		t.Fatalf("got %d of %d answers accepted, want at least 60 and some refused", accepted, len(calls))
	}
	checkGolden(t, db, "answers.golden")
	assertRebuildEqual(t, db, guild)
}

// TestV7WriterMatchesGolden: the version-7 writer of the migration tests
// (v7_test.go) writes answersScenario byte for byte as the last build of
// version 7 did (testdata/answers-v7.golden, the dump that build's
// TestAnswersStoredUnchanged kept).
func TestV7WriterMatchesGolden(t *testing.T) {
	t.Parallel()
	db := openV7(t, filepath.Join(t.TempDir(), "v7.db"), 7)
	defer db.Close()
	calls, posts := answersScenario(t, db, func(r questions.Review) questions.Review { return v7StartReview(t, db, r) })
	playScenario(t, db, calls, posts[0], func(group []scenarioCall) error {
		return db.bolt.Update(func(tx *bbolt.Tx) error {
			for _, c := range group {
				write := v7RecordAnswer
				if c.review {
					write = v7RecordReview
				}
				_, err := write(db, tx, c.a)
				if err != nil && !isRefusal(err) {
					return err
				}
			}
			return nil
		})
	})
	// CreatePost, this build's, numbers the questions as version 8 does:
	// version 7 had no such buckets.
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bGuilds).ForEachBucket(func(g []byte) error {
			for _, name := range [][]byte{bQids, bQnames} {
				if err := deleteBucket(tx.Bucket(bGuilds).Bucket(g), name); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, db, "answers-v7.golden")
}

// isRefusal reports whether err is a domain refusal (nothing written).
func isRefusal(err error) bool {
	for _, e := range []error{questions.ErrNotFound, questions.ErrWrongGuild, questions.ErrAlreadyAnswered, questions.ErrClosed,
		questions.ErrBadChoice, questions.ErrNotYours, questions.ErrQuestionOpen} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// scenarioCall is one answer of answersScenario: to a post, or to a review.
type scenarioCall struct {
	review bool
	a      questions.Answer
}

// answersScenario creates the posts of TestAnswersStoredUnchanged's mix
// and starts its reviews (with startReview), and returns the answers to
// record, and the posts.
func answersScenario(t *testing.T, db *DB, startReview func(questions.Review) questions.Review) ([]scenarioCall, []questions.Post) {
	t.Helper()
	const other questions.GuildID = 2000
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	var posts []questions.Post
	for i := range 15 {
		p := questions.Post{GuildID: guild, ChannelID: 7, QuestionID: fmt.Sprint("b#", i), Bank: []string{"b", "c", ""}[i%3],
			Tags: [][]string{nil, {"t"}, {"t", "u", "t", ""}}[i%3], Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: t0}
		switch i % 4 {
		case 1:
			p.Correct, p.OptionCount, p.SelectCount = []string{"A", "C"}, 5, 2
		case 2:
			p.ClosesAt = t0.Add(time.Duration(10+i) * 24 * time.Hour)
		case 3:
			if i == 11 {
				p.QuestionID = ""
			}
		}
		var err error
		if p, err = db.CreatePost(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p)
	}
	otherPost, err := db.CreatePost(t.Context(), questions.Post{GuildID: other, ChannelID: 8, QuestionID: "o#1", Bank: "o",
		Tags: []string{"t"}, Correct: []string{"A"}, OptionCount: 3, SelectCount: 1, OpenedAt: t0})
	if err != nil {
		t.Fatal(err)
	}

	r := rand.New(rand.NewPCG(3, 5))
	var calls []scenarioCall
	at := t0
	seq := uint64(0)
	add := func(review bool, a questions.Answer) {
		seq++
		a.InteractionID = seq
		calls = append(calls, scenarioCall{review, a})
	}
	const members = 7
	for i, p := range posts {
		for _, u := range r.Perm(members) {
			if r.IntN(10) == 0 {
				continue
			}
			at = at.Add(time.Duration(r.IntN(20)) * time.Hour)
			when := at
			if r.IntN(10) == 0 {
				when = at.Add(-50 * time.Hour) // delivered late
			}
			user := questions.UserID(u + 1)
			choice := []string{questions.Letter(r.IntN(p.OptionCount))}
			if p.SelectCount == 2 {
				choice = append(choice, questions.Letter((r.IntN(p.OptionCount-1)+1+questions.LetterIndex(choice[0]))%p.OptionCount))
			}
			if r.IntN(15) == 0 {
				choice = []string{"Z"} // refused: bad choice
			}
			add(false, questions.Answer{PostID: p.ID, GuildID: guild, UserID: user, Choice: choice, At: when})
			if r.IntN(12) == 0 {
				add(false, questions.Answer{PostID: p.ID, GuildID: guild, UserID: user, Choice: choice, At: when}) // refused: answered
			}
		}
		if i%4 == 0 {
			add(false, questions.Answer{PostID: otherPost.ID, GuildID: other, UserID: questions.UserID(i + 1), Choice: []string{"A"}, At: at})
			add(false, questions.Answer{PostID: otherPost.ID, GuildID: guild, UserID: 99, Choice: []string{"A"}, At: at}) // refused: wrong guild
			add(false, questions.Answer{PostID: 999, GuildID: guild, UserID: 1, Choice: []string{"A"}, At: at})           // refused: unknown
		}
		if i%3 == 1 {
			u := questions.UserID(i%members + 1)
			// Of a question open only in the other guild: a review of a
			// question open in its own guild is refused (TestRecordReviewWhileOpen).
			rv := startReview(questions.Review{GuildID: guild, UserID: u, QuestionID: otherPost.QuestionID,
				Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: at})
			add(true, questions.Answer{PostID: rv.ID.Post(), GuildID: guild, UserID: u, Choice: []string{questions.Letter(i % 2)}, At: at.Add(time.Minute)})
		}
	}
	return calls, posts
}

// playScenario records calls in groups of 1 to 40 with record, closing
// first (the scenario's first post) between the third and the fourth group
// (the answers after are refused).
func playScenario(t *testing.T, db *DB, calls []scenarioCall, first questions.Post, record func([]scenarioCall) error) {
	t.Helper()
	for start, n := 0, 0; start < len(calls); start, n = start+[]int{1, 3, 16, 40, 7}[n%5], n+1 {
		group := calls[start:min(start+[]int{1, 3, 16, 40, 7}[n%5], len(calls))]
		if n == 3 {
			if _, _, err := db.ClosePost(t.Context(), first.ID, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := record(group); err != nil {
			t.Fatalf("group at %d: %v", start, err)
		}
	}
}
