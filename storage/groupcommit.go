package storage

// This file is the group commit behind RecordAnswer.

import (
	"fmt"
	"sync"

	"go.etcd.io/bbolt"
)

// groupCommit merges concurrent write functions into shared transactions,
// like bbolt's DB.Batch but without its fixed delay: the first caller
// commits at once (leader); callers that arrive while a commit runs queue
// up and the next leader commits them all in one transaction, one fsync
// pair. A lone caller never waits for a timer, and under load every commit
// carries everything that arrived during the previous one.
//
// As with DB.Batch a function may run more than once (when another
// function of its group fails, the group is retried without it and the
// failing one re-run alone), so functions must reset their outputs and
// have no effect outside the transaction.
type groupCommit struct {
	db      *bbolt.DB
	max     int // most functions per transaction
	broken  *breaker
	mu      sync.Mutex
	running bool
	queue   []*groupCall
}

type groupCall struct {
	fn   func(*bbolt.Tx) error
	done chan groupResult // buffered 1: a lead signal, or the result
}

type groupResult struct {
	err  error
	lead bool
}

// do runs fn in a shared write transaction and returns once that
// transaction has committed (or failed).
func (g *groupCommit) do(fn func(*bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan groupResult, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.running {
		g.mu.Unlock()
		r := <-c.done
		if !r.lead {
			return r.err
		}
		g.mu.Lock()
	}
	// This goroutine leads: take what is queued (c included) and commit it.
	g.running = true
	n := min(len(g.queue), g.max)
	calls := g.queue[:n:n]
	g.queue = append([]*groupCall(nil), g.queue[n:]...)
	g.mu.Unlock()

	g.run(calls)

	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].done <- groupResult{lead: true} // hand over
	} else {
		g.running = false
	}
	g.mu.Unlock()
	return (<-c.done).err
}

func (g *groupCommit) run(calls []*groupCall) {
	for len(calls) > 0 {
		failed := -1
		err := g.broken.run(func() error {
			return g.db.Update(func(tx *bbolt.Tx) error {
				for i, c := range calls {
					if err := safeCall(c.fn, tx); err != nil {
						failed = i
						return err
					}
				}
				return nil
			})
		})
		if failed >= 0 {
			c := calls[failed]
			calls = append(calls[:failed:failed], calls[failed+1:]...)
			c.done <- groupResult{err: g.broken.run(func() error {
				return g.db.Update(func(tx *bbolt.Tx) error { return safeCall(c.fn, tx) })
			})}
			continue
		}
		for _, c := range calls {
			c.done <- groupResult{err: err}
		}
		return
	}
}

// safeCall turns a panic of fn into an error so one bad call cannot take
// the leader (and everyone waiting on it) down.
func safeCall(fn func(*bbolt.Tx) error, tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(tx)
}
