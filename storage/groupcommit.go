package storage

// This file is the group commit behind RecordAnswer.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.etcd.io/bbolt"
)

// commitDelay is how long a leader lingers under load (see groupCommit).
// Measured with bench/answers (2,000 answers, 64 in flight, eight rounds
// each, alternating): 1 ms cut the bot's CPU per answer by about an eighth
// (0.265 to 0.233 CPU s per 1,000 answers) with answers/s and p99 as they
// were; 2 ms did no better and cost answers/s.
const commitDelay = time.Millisecond

// groupCommit merges concurrent write functions into shared transactions,
// like bbolt's DB.Batch but without its fixed delay: the first caller
// commits at once (leader); callers that arrive while a commit runs queue
// up and the next leader commits them all in one transaction, one fsync
// pair. A lone caller never waits for a timer.
//
// Under load a leader lingers (like PostgreSQL's commit_delay, which also
// waits only when other transactions are active): a leader that was
// handed the lead, having queued behind a running commit, waits up to
// delay for more calls to join before it takes its turn, so a burst shares
// fewer, larger commits. Each commit costs the same fsyncs and much of the
// same page writes whatever it carries, so fewer commits is less CPU per
// answer. A caller that finds no commit running (a quiet server) commits
// at once.
//
// As with DB.Batch a function may run more than once (when another
// function of its group fails, the group is retried without it and the
// failing one re-run alone), so functions must reset their outputs and
// have no effect outside the transaction. The functions of one attempt
// share a deltas for their counter changes, flushed after the last of
// them, before the commit; each attempt has a new one.
type groupCommit struct {
	db       *bbolt.DB
	onCommit func(answers int) // nil: nothing
	max      int               // most functions per transaction
	delay    time.Duration     // longest linger under load; 0: none
	broken   *breaker
	gate     chan struct{} // DB.gate: one write transaction at a time
	mu       sync.Mutex
	running  bool
	queue    []*groupCall
	joined   chan struct{} // buffered 1: a call joined the queue (wakes a lingering leader)
	// queued, when set (by tests), is told the queue's length each time a
	// call joins it while a commit runs.
	queued func(n int)
}

type groupCall struct {
	fn   func(*bbolt.Tx, *deltas) error
	done chan groupResult // buffered 1: a lead signal, or the result
}

type groupResult struct {
	err  error
	lead bool
}

// do runs fn in a shared write transaction and returns once that
// transaction has committed (or failed). While fn waits in the queue, or
// its leader for the write turn (DB.gate), ctx ending withdraws it
// (ctx.Err() is returned, nothing was written); once a transaction has
// taken it, its outcome is returned whatever ctx does.
func (g *groupCommit) do(ctx context.Context, fn func(*bbolt.Tx, *deltas) error) error {
	c := &groupCall{fn: fn, done: make(chan groupResult, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	handed := g.running
	if handed {
		if g.queued != nil {
			g.queued(len(g.queue))
		}
		select {
		case g.joined <- struct{}{}:
		default:
		}
		g.mu.Unlock()
		var r groupResult
		select {
		case r = <-c.done:
		case <-ctx.Done():
			if g.withdraw(c) {
				return ctx.Err()
			}
			r = <-c.done
		}
		if !r.lead {
			return r.err
		}
	} else {
		g.running = true
		g.mu.Unlock()
	}
	// This goroutine leads: linger if it queued behind a commit, then wait
	// for the write turn, while ctx lasts (still in the queue, first); then
	// take what is queued (c included) and commit it.
	if handed && !g.linger(ctx) || !g.turn(ctx) {
		g.mu.Lock()
		g.queue = slices.DeleteFunc(g.queue, func(q *groupCall) bool { return q == c })
		g.handOver()
		g.mu.Unlock()
		return ctx.Err()
	}
	g.mu.Lock()
	n := min(len(g.queue), g.max)
	calls := g.queue[:n:n]
	g.queue = append([]*groupCall(nil), g.queue[n:]...)
	g.mu.Unlock()

	g.run(calls)
	<-g.gate

	g.mu.Lock()
	g.handOver()
	g.mu.Unlock()
	return (<-c.done).err
}

// linger waits until delay has passed or the queue is full, whichever
// comes first. It reports false if ctx ended first.
func (g *groupCommit) linger(ctx context.Context) bool {
	if g.delay <= 0 {
		return true
	}
	t := time.NewTimer(g.delay)
	defer t.Stop()
	for {
		g.mu.Lock()
		full := len(g.queue) >= g.max
		g.mu.Unlock()
		if full {
			return true
		}
		select {
		case <-g.joined:
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// turn waits for the write turn (DB.gate) while ctx lasts.
func (g *groupCommit) turn(ctx context.Context) bool {
	select {
	case g.gate <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// handOver passes the lead to the first queued call, or ends the run when
// none is queued. g.mu must be held.
func (g *groupCommit) handOver() {
	if len(g.queue) > 0 {
		g.queue[0].done <- groupResult{lead: true}
	} else {
		g.running = false
	}
}

// withdraw takes c out of the queue and reports whether it was still
// there (not yet taken into a transaction). If c had just been handed the
// lead, the lead passes to the next in the queue.
func (g *groupCommit) withdraw(c *groupCall) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.Index(g.queue, c)
	if i < 0 {
		return false
	}
	g.queue = slices.Delete(g.queue, i, i+1)
	select {
	case <-c.done: // a queued call can only have been handed the lead
		g.handOver()
	default:
	}
	return true
}

// run commits calls, retrying without a failing one; its leader holds the
// write turn (DB.gate) throughout.
func (g *groupCommit) run(calls []*groupCall) {
	for len(calls) > 0 {
		failed := -1
		err := g.broken.run(func() error {
			return g.db.Update(func(tx *bbolt.Tx) error {
				d := newDeltas()
				for i, c := range calls {
					if err := safeCall(func() error { return c.fn(tx, d) }); err != nil {
						failed = i
						return err
					}
				}
				return safeCall(d.flush)
			})
		})
		if failed >= 0 {
			c := calls[failed]
			calls = append(calls[:failed:failed], calls[failed+1:]...)
			err := g.broken.run(func() error {
				return g.db.Update(func(tx *bbolt.Tx) error {
					d := newDeltas()
					if err := safeCall(func() error { return c.fn(tx, d) }); err != nil {
						return err
					}
					return safeCall(d.flush)
				})
			})
			if err == nil && g.onCommit != nil {
				g.onCommit(1)
			}
			c.done <- groupResult{err: err}
			continue
		}
		if err == nil && g.onCommit != nil {
			g.onCommit(len(calls))
		}
		for _, c := range calls {
			c.done <- groupResult{err: err}
		}
		return
	}
}

// safeCall turns a panic of fn into an error so one bad call cannot take
// the leader (and everyone waiting on it) down.
func safeCall(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn()
}
