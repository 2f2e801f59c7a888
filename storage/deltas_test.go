package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// TestSharedTransactionsWriteWhatSingleOnesDo: answers recorded many to a
// transaction (their ranking counters buffered and written once at the
// end) leave the file exactly as the same answers recorded one to a
// transaction do, and as a rebuild (which writes every counter change at
// once) does. A few members answer many posts over days and months, so
// within one transaction the same member moves again and again and
// counters fall to 0 and come back.
func TestSharedTransactionsWriteWhatSingleOnesDo(t *testing.T) {
	const members, posts = 5, 12
	r := rand.New(rand.NewPCG(7, 11))
	type pick struct {
		post   int
		user   questions.UserID
		choice string
		at     time.Time
	}
	var picks []pick
	at := t0
	for p := range posts {
		for _, u := range r.Perm(members) {
			if r.IntN(5) == 0 {
				continue // not everyone answers everything
			}
			at = at.Add(time.Duration(r.IntN(40)) * time.Hour) // days, weeks and a month apart; sometimes the same instant
			picks = append(picks, pick{post: p, user: questions.UserID(u + 1), choice: questions.Letter(r.IntN(3)), at: at})
		}
	}
	record := func(t *testing.T, perTx int) []byte {
		db, _ := newDB(t)
		var ps []questions.Post
		for i := range posts {
			ps = append(ps, mustPost(t, db, questions.Post{QuestionID: fmt.Sprint("q#", i), Tags: []string{"t", fmt.Sprint("t", i%3)},
				Correct: []string{questions.Letter(i % 2)}}))
		}
		for start := 0; start < len(picks); start += perTx {
			err := db.write(t.Context(), func(tx *bbolt.Tx, d *deltas) error {
				for _, pk := range picks[start:min(start+perTx, len(picks))] {
					_, refused, err := db.recordAnswer(tx, d, questions.Answer{PostID: ps[pk.post].ID, GuildID: guild, UserID: pk.user,
						InteractionID: uint64(pk.post*members) + uint64(pk.user), Choice: []string{pk.choice}, At: pk.at})
					if err != nil || refused != nil {
						return fmt.Errorf("post %d, member %d: %v, %v", pk.post, pk.user, err, refused)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("answers %d to %d: %v", start, start+perTx, err)
			}
		}
		var dump bytes.Buffer
		if err := db.bolt.View(func(tx *bbolt.Tx) error {
			return tx.ForEach(func(name []byte, b *bbolt.Bucket) error { return dumpBucket(&dump, string(name), b) })
		}); err != nil {
			t.Fatal(err)
		}
		assertRebuildEqual(t, db, guild)
		return dump.Bytes()
	}
	want := record(t, 1)
	for _, perTx := range []int{2, 7, 32, len(picks)} {
		t.Run(fmt.Sprint(perTx, " to a transaction"), func(t *testing.T) {
			if got := record(t, perTx); !bytes.Equal(got, want) {
				t.Errorf("file contents differ from one answer to a transaction:\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestGroupCommitRetryDropsCounterChanges: when a call of a shared
// transaction fails, the counter changes of the others in that attempt
// are dropped with it; the retry counts each recorded answer once.
func TestGroupCommitRetryDropsCounterChanges(t *testing.T) {
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "q#1"})
	joined := make(chan int, 4)
	db.group.queued = func(n int) { joined <- n }
	inTx, release := make(chan struct{}), make(chan struct{})
	leader := make(chan error, 1)
	go func() {
		leader <- db.group.do(t.Context(), func(*bbolt.Tx, *deltas) error {
			close(inTx)
			<-release
			return nil
		})
	}()
	<-inTx
	boom := errors.New("boom")
	results := make(chan error, 2)
	for i, users := range [][]questions.UserID{{1, 2, 3}, {4}} {
		go func() {
			results <- db.group.do(t.Context(), func(tx *bbolt.Tx, d *deltas) error {
				for _, u := range users {
					if _, refused, err := db.recordAnswer(tx, d, questions.Answer{PostID: p.ID, GuildID: guild, UserID: u,
						InteractionID: uint64(u), Choice: []string{"B"}, At: t0}); err != nil || refused != nil {
						return fmt.Errorf("member %d: %v, %v", u, err, refused)
					}
				}
				if i == 1 {
					return boom // after its answer's counter changes
				}
				return nil
			})
		}()
		<-joined // both wait behind the leader, then share one attempt
	}
	close(release)
	if err := <-leader; err != nil {
		t.Fatal(err)
	}
	var errs []error
	for range 2 {
		errs = append(errs, <-results)
	}
	if !(errs[0] == nil && errors.Is(errs[1], boom) || errors.Is(errs[0], boom) && errs[1] == nil) {
		t.Fatalf("got results %v, want one nil and one boom", errs)
	}
	for _, period := range []questions.Period{questions.PeriodAll, questions.PeriodDay} {
		lb, err := db.Leaderboard(guild, period, questions.ByPoints, t0, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if lb.Total != 3 || len(lb.Entries) != 3 {
			t.Errorf("%s: got total %d, %d entries; want 3, 3", period, lb.Total, len(lb.Entries))
		}
		for _, u := range []questions.UserID{1, 2, 3} {
			// Tied on points and time: in member order.
			if st, err := db.Standing(guild, u, period, questions.ByPoints, t0); err != nil || st.Rank != int(u) {
				t.Errorf("%s: member %d got rank %d, %v; want %d", period, u, st.Rank, err, u)
			}
		}
	}
	assertRebuildEqual(t, db, guild)
}
