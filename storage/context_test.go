package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// TestRecordAnswerContext: an answer waiting for its group commit is
// withdrawn when its context ends (nothing recorded, the queue goes on);
// one whose transaction has begun is committed whatever its context does.
func TestRecordAnswerContext(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	joined := make(chan int, 4)
	db.group.queued = func(n int) { joined <- n }
	// A leader holds the write transaction open.
	release, leader := holdLeader(t.Context(), db)
	ctx, cancel := context.WithCancel(t.Context())
	withdrawn := make(chan error, 1)
	go func() {
		_, err := db.RecordAnswer(ctx, questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 1, Choice: []string{"B"}})
		withdrawn <- err
	}()
	kept := make(chan error, 1)
	go func() {
		_, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: 2, InteractionID: 2, Choice: []string{"B"}})
		kept <- err
	}()
	<-joined
	<-joined // both wait behind the leader
	cancel()
	if err := <-withdrawn; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled RecordAnswer = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-leader; err != nil {
		t.Fatal(err)
	}
	if err := <-kept; err != nil {
		t.Errorf("queued RecordAnswer = %v, want nil", err)
	}
	if _, err := db.Answer(p.ID, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("withdrawn answer: %v, want ErrNotFound", err)
	}
	if _, err := db.Answer(p.ID, 2); err != nil {
		t.Errorf("kept answer: %v", err)
	}

	// A context that ends once the transaction has begun changes nothing.
	ctx, cancel = context.WithCancel(t.Context())
	release, leader = holdLeader(ctx, db)
	cancel()
	close(release)
	if err := <-leader; err != nil {
		t.Errorf("a transaction under way = %v after its context ended, want nil", err)
	}
}

// TestWriteWaitsForItsTurnWithinContext: a write waiting for another
// write's transaction gives up when its context ends, having written
// nothing.
func TestWriteWaitsForItsTurnWithinContext(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	db.gate <- struct{}{} // another write's turn
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, _, err := db.ClosePost(ctx, p.ID, t0)
	<-db.gate
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ClosePost = %v, want context.DeadlineExceeded", err)
	}
	if got, err := db.Post(p.ID); err != nil || got.Closed {
		t.Errorf("post after the abandoned close: closed %v, %v; want open", got.Closed, err)
	}
	if _, _, err := db.ClosePost(t.Context(), p.ID, t0); err != nil {
		t.Errorf("ClosePost once the turn is free: %v", err)
	}
}

// TestOpenWaitsForTheLockWithinContext: Open gives up waiting for a lock
// held elsewhere when its context ends, before its own timeout.
func TestOpenWaitsForTheLockWithinContext(t *testing.T) {
	t.Parallel() // waits out a context
	path := filepath.Join(t.TempDir(), "q.db")
	held := openPath(t, path)
	defer held.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	db, err := Open(ctx, path, Options{Timeout: time.Minute})
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded while another DB holds the lock")
	}
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("Open = %v after %v, want context.DeadlineExceeded soon after 150 ms", err, time.Since(start))
	}
}

// TestRecordAnswerWaitsForItsTurnWithinContext: an answer that would lead
// a group commit while another write holds the turn gives up when its
// context ends, having written nothing, and the next answer still commits.
func TestRecordAnswerWaitsForItsTurnWithinContext(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	db.gate <- struct{}{} // another write's turn (a long rebuild, say)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := db.RecordAnswer(ctx, questions.Answer{PostID: p.ID, GuildID: guild, UserID: 1, InteractionID: 1, Choice: []string{"B"}})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
		<-db.gate
	case <-time.After(10 * time.Second):
		<-db.gate // let it through, to see what it does
		err = <-done
		t.Errorf("RecordAnswer still waited for the turn 10 s after its 50 ms context ended (then returned %v)", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("RecordAnswer = %v, want context.DeadlineExceeded", err)
	}
	if _, err := db.Answer(p.ID, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("abandoned answer: %v, want ErrNotFound", err)
	}
	if _, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: 2, InteractionID: 2, Choice: []string{"B"}}); err != nil {
		t.Errorf("RecordAnswer once the turn is free: %v", err)
	}
}
