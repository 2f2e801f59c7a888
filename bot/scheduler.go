package bot

import (
	"context"
	"time"
)

// scheduler is the one goroutine that drives time: it closes questions
// whose time is up, ends mock exams whose time is up (and sends their
// results) and posts the daily quizzes, of the bot's own servers only,
// then sleeps until the next
// deadline that stored state names (or until poked). It arms its timer
// only once nothing poked it while it worked, so one armed timer means it
// is idle (tests wait for that).
func (b *Bot) scheduler(ctx context.Context) {
	for {
		now := b.clock.Now()
		next := b.runDue(ctx, now)
		select {
		case <-b.wake:
			continue // poked while working (a post it made, a command): look again first
		default:
		}
		if next.IsZero() || next.Sub(now) > time.Hour {
			next = now.Add(time.Hour) // re-read stored state at least hourly
		}
		c, stop := b.clock.TimerAt(next)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-c:
		case <-b.wake:
			stop()
		}
	}
}

// runDue does what is due at now and returns the next deadline (zero if
// none): it closes questions whose time is up, retries reveals that failed
// (at most once a minute each), ends mock exams whose time is up (runMocks),
// and posts the daily quizzes.
func (b *Bot) runDue(ctx context.Context, now time.Time) time.Time {
	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	posts, err := b.store.OpenPosts()
	if err != nil {
		b.log.Error("list open posts", "err", err)
		return now.Add(time.Minute)
	}
	foreign := 0
	for _, p := range posts {
		if !b.shards.Owns(uint64(p.GuildID)) {
			foreign++
			continue
		}
		if p.ClosesAt.IsZero() {
			continue
		}
		if p.ClosesAt.After(now) {
			earliest(p.ClosesAt)
			continue
		}
		b.cfg.Metrics.SchedulerLag(now.Sub(p.ClosesAt))
		b.tryClose(ctx, p.ID, now)
	}
	unrevealed, err := b.store.UnrevealedPosts()
	if err != nil {
		b.log.Error("list unrevealed posts", "err", err)
	}
	for _, p := range unrevealed {
		if !b.shards.Owns(uint64(p.GuildID)) {
			foreign++
			continue
		}
		if at := b.revealAt[p.ID]; at.After(now) {
			earliest(at)
			continue
		}
		b.tryClose(ctx, p.ID, now)
		earliest(b.revealAt[p.ID])
	}
	if foreign > 0 {
		b.log.Error("posts of servers of other shards left alone: the database holds servers this process does not serve",
			"posts", foreign, "shards", b.shards.String())
	}
	earliest(b.runMocks(ctx, b.clock.Now()))
	earliest(b.runDaily(ctx, b.clock.Now())) // the work above may have taken a while
	return next
}

// poke wakes the scheduler to recompute its next deadline.
func (b *Bot) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}
