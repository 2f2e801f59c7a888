package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
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
	t.Parallel()
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
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "q#1"})
	joined := make(chan int, 4)
	db.group.queued = func(n int) { joined <- n }
	release, leader := holdLeader(t.Context(), db)
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

// TestPostTalliesPendingInTransaction: the answers of one transaction
// count into their post's tallies in the deltas, written once at flush.
// Each case records answers to one post (correct letter B) and checks the
// tallies read back, through the DB (its decode cache) and from the file reopened.
func TestPostTalliesPendingInTransaction(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	rec := func(db *DB, tx *bbolt.Tx, d *deltas, p questions.Post, user questions.UserID, choice string) (error, error) {
		_, refused, err := db.recordAnswer(tx, d, questions.Answer{PostID: p.ID, GuildID: guild, UserID: user,
			InteractionID: uint64(user), Choice: []string{choice}, At: t0})
		return refused, err
	}
	tests := []struct {
		name        string
		run         func(t *testing.T, db *DB, p questions.Post)
		tallies     []int
		answers     int
		right       int
		wantMembers int // on the all-time leaderboard
	}{
		{"members of one transaction", func(t *testing.T, db *DB, p questions.Post) {
			err := db.write(t.Context(), func(tx *bbolt.Tx, d *deltas) error {
				accepted := 0
				for _, a := range []struct {
					user   questions.UserID
					choice string
					want   error
				}{{1, "A", nil}, {2, "B", nil}, {3, "B", nil}, {1, "B", questions.ErrAlreadyAnswered}, {4, "E", questions.ErrBadChoice}} {
					refused, err := rec(db, tx, d, p, a.user, a.choice)
					if err != nil {
						return err
					}
					if !errors.Is(refused, a.want) || (a.want == nil) != (refused == nil) {
						t.Errorf("member %d: got refusal %v, want %v", a.user, refused, a.want)
					}
					if refused == nil {
						accepted++
					}
					// Read in the transaction, the post counts the answers so far.
					got, err := db.postIn(tx, d, p.ID)
					if err != nil {
						return err
					}
					if got.Answers != accepted {
						t.Errorf("after member %d: post read in the transaction got %d answers, want %d", a.user, got.Answers, accepted)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}, []int{1, 2, 0, 0}, 3, 2, 3},
		{"transactions one after another", func(t *testing.T, db *DB, p questions.Post) {
			for _, u := range []questions.UserID{1, 2} {
				answer(t, db, p, u, t0, "B")
			}
			answer(t, db, p, 3, t0, "C")
		}, []int{0, 2, 1, 0}, 3, 2, 3},
		{"a group retried without its failing call", func(t *testing.T, db *DB, p questions.Post) {
			joined := make(chan int, 4)
			db.group.queued = func(n int) { joined <- n }
			release, leader := holdLeader(t.Context(), db)
			results := make(chan error, 2)
			for i, users := range [][]questions.UserID{{1, 2}, {3}} {
				go func() {
					results <- db.group.do(t.Context(), func(tx *bbolt.Tx, d *deltas) error {
						for _, u := range users {
							if refused, err := rec(db, tx, d, p, u, "B"); err != nil || refused != nil {
								return fmt.Errorf("member %d: %v, %v", u, err, refused)
							}
						}
						if i == 1 {
							return boom // after its answer's tally
						}
						return nil
					})
				}()
				<-joined
			}
			close(release)
			if err := <-leader; err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := <-results; err != nil && !errors.Is(err, boom) {
					t.Fatal(err)
				}
			}
		}, []int{0, 2, 0, 0}, 2, 2, 2},
		{"a transaction rolled back after its flush", func(t *testing.T, db *DB, p questions.Post) {
			answer(t, db, p, 1, t0, "A")
			err := db.bolt.Update(func(tx *bbolt.Tx) error {
				d := newDeltas()
				for _, u := range []questions.UserID{2, 3} {
					if refused, err := rec(db, tx, d, p, u, "B"); err != nil || refused != nil {
						return fmt.Errorf("member %d: %v, %v", u, err, refused)
					}
				}
				if err := d.flush(); err != nil { // the cache is told of bytes the file will not keep
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("got %v, want boom", err)
			}
		}, []int{1, 0, 0, 0}, 1, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, path := newDB(t)
			p := mustPost(t, db, questions.Post{QuestionID: "q#1"})
			tc.run(t, db, p)
			check := func(from string, db *DB) {
				got, err := db.Post(p.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Tallies, tc.tallies) || got.Answers != tc.answers || got.Right != tc.right {
					t.Errorf("%s: got tallies %v, %d answers, %d right; want %v, %d, %d", from, got.Tallies, got.Answers, got.Right,
						tc.tallies, tc.answers, tc.right)
				}
				lb, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 10)
				if err != nil {
					t.Fatal(err)
				}
				if lb.Total != tc.wantMembers {
					t.Errorf("%s: got %d members on the leaderboard, want %d", from, lb.Total, tc.wantMembers)
				}
			}
			check("read through the DB", db)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			check("read from the file reopened", openPath(t, path))
		})
	}
}
