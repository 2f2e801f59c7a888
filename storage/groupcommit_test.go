package storage

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// holdLeader starts a group call, with ctx, that keeps its transaction
// open until release is closed; it returns once the transaction is open,
// and the call's result channel.
func holdLeader(ctx context.Context, db *DB) (release chan struct{}, result chan error) {
	inTx, release, result := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		result <- db.group.do(ctx, func(*bbolt.Tx, *deltas) error {
			close(inTx)
			<-release
			return nil
		})
	}()
	<-inTx
	return release, result
}

// TestGroupCommitLingersUnderLoad: a leader that queued behind a running
// commit waits for more calls (here until the queue is full) and commits
// them with it; a caller that finds no commit running commits at once; a
// lingering leader whose context ends withdraws, written nothing.
func TestGroupCommitLingersUnderLoad(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	var mu sync.Mutex
	var batches []int
	db.group.onCommit = func(n int) {
		mu.Lock()
		batches = append(batches, n)
		mu.Unlock()
	}
	committed := func() []int {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(batches)
	}
	db.group.delay = time.Hour // only a full queue or a context ends a linger here
	db.group.max = 2
	joined := make(chan int, 4)
	db.group.queued = func(n int) { joined <- n }
	answer := func(ctx context.Context, user questions.UserID) chan error {
		out := make(chan error, 1)
		go func() {
			_, err := db.RecordAnswer(ctx, questions.Answer{PostID: p.ID, GuildID: guild, UserID: user, InteractionID: uint64(user), Choice: []string{"B"}})
			out <- err
		}()
		return out
	}

	// Quiet: nothing is running, so a lone answer commits at once (within
	// the hour-long delay this would otherwise wait).
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := <-answer(ctx, 1); err != nil {
		t.Fatalf("lone answer: %v", err)
	}

	// Busy: member 2 queues behind a running commit, is handed the lead
	// when it ends, and lingers until member 3 fills the queue.
	release, leader := holdLeader(t.Context(), db)
	second := answer(t.Context(), 2)
	<-joined
	close(release)
	if err := <-leader; err != nil { // returns after handing the lead to member 2
		t.Fatal(err)
	}
	third := answer(t.Context(), 3)
	if n := <-joined; n != 2 {
		t.Fatalf("member 3 joined a queue of %d, want 2 (behind the lingering member 2)", n)
	}
	for i, ch := range []chan error{second, third} {
		if err := <-ch; err != nil {
			t.Fatalf("answer %d: %v", i+2, err)
		}
	}
	if got, want := committed(), []int{1, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("commits carried %v answers, want %v (the lone one, the held leader, then 2 and 3 together)", got, want)
	}

	// A lingering leader whose context ends withdraws; the group goes on.
	release, leader = holdLeader(t.Context(), db)
	ctx, cancel = context.WithCancel(t.Context())
	withdrawn := answer(ctx, 4)
	<-joined
	close(release)
	if err := <-leader; err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-withdrawn; !errors.Is(err, context.Canceled) {
		t.Errorf("lingering answer whose context ended = %v, want context.Canceled", err)
	}
	if _, err := db.Answer(p.ID, 4); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("withdrawn answer: %v, want ErrNotFound", err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := <-answer(ctx, 5); err != nil {
		t.Errorf("answer after a withdrawn leader: %v", err)
	}
}
