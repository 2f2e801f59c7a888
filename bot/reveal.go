package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/quizhost/quizhost/bot/internal/discord"
	"github.com/quizhost/quizhost/questions"
)

// closePost closes a post (if still open) and edits its message into the
// reveal, posts the messages that continue a reveal too long for it, then
// records that the reveal went out. It is safe to call more than once: a
// post already revealed is left alone, and one closed but not yet
// revealed (a step failed) is revealed now, going on after the messages
// that reached the channel (questions.Post.RevealSent) rather than
// posting them twice.
func (b *Bot) closePost(ctx context.Context, postID questions.PostID) error {
	mu := b.postLock(postID)
	mu.Lock()
	defer mu.Unlock()
	post, _, err := b.store.ClosePost(ctx, postID, b.clock.Now())
	if err != nil {
		return fmt.Errorf("close post %d: %w", postID, err)
	}
	b.reveals.forget(postID)
	if post.Revealed {
		return nil
	}
	if post.MessageID != 0 {
		if err := b.sendReveal(ctx, post, closedReveal(post, b.questionFor(post))); err != nil {
			return err
		}
	}
	if err := b.store.MarkRevealed(context.WithoutCancel(ctx), postID); err != nil {
		return fmt.Errorf("mark post %d revealed: %w", postID, err)
	}
	b.log.Info("question closed", "guild", post.GuildID, "post", postID, "answers", post.Answers)
	return nil
}

// sendReveal sends the reveal of a closed post that post.RevealSent says
// has not reached the channel yet: the edit of the post, then each message
// that continues it, in order, each after the one before it is in. Past
// the edit, each message sent is recorded (SetRevealSent) before the next.
// A reveal that fits the post costs no record.
func (b *Bot) sendReveal(ctx context.Context, post questions.Post, r channelReveal) error {
	sent := post.RevealSent
	if sent < 1 {
		if err := b.out.EditNow(ctx, r.edit); err != nil {
			return fmt.Errorf("edit closed post %d: %w", post.ID, err)
		}
		sent = 1
		if len(r.more) > 0 {
			if err := b.store.SetRevealSent(context.WithoutCancel(ctx), post.ID, sent); err != nil {
				return fmt.Errorf("record reveal of post %d: %w", post.ID, err)
			}
		}
	}
	for i := sent - 1; i < len(r.more); i++ {
		if err := b.out.PostNow(ctx, formatID(post.ChannelID), r.more[i]); err != nil {
			return fmt.Errorf("continue reveal of post %d (message %d of %d): %w", post.ID, i+2, len(r.more)+1, err)
		}
		if err := b.store.SetRevealSent(context.WithoutCancel(ctx), post.ID, i+2); err != nil {
			return fmt.Errorf("record reveal of post %d: %w", post.ID, err)
		}
	}
	return nil
}

// closeCmd closes the open questions in this channel (/quizadmin close):
// their reveals wait on Discord, so all of it comes after the deferral its
// route makes.
func (b *Bot) closeCmd(c *call, _ options) (response, error) {
	return later(func() (response, error) { return b.closeAll(c) }), nil
}

// closeAll is closeCmd's work, once the interaction is deferred.
func (b *Bot) closeAll(c *call) (response, error) {
	posts, err := b.store.OpenPostsIn(c.guild, c.channel)
	if err != nil {
		return response{}, fmt.Errorf("close: %w", err)
	}
	// A reveal held up by Discord's rate limit is not waited for (the
	// reply is due within seconds): the scheduler retries it.
	var failed, later int
	for _, p := range posts {
		err := b.closePost(c.ctx, p.ID)
		switch {
		case err == nil:
		case discord.RateLimited(err):
			b.log.Info("reveal left for later: rate limited", "post", p.ID, "err", err)
			later++
		default:
			b.log.Error("close post", "post", p.ID, "err", err)
			failed++
		}
	}
	b.poke()
	text := "There are no open questions in this channel."
	switch {
	case later > 0:
		text = fmt.Sprintf("Closed %s. Discord is rate-limiting edits: the answers of %s will be revealed in a minute or so.",
			plural(len(posts), "question", "questions"), plural(later, "question", "questions"))
	case len(posts) > 0:
		text = fmt.Sprintf("Closed %s and revealed the answers.", plural(len(posts)-failed, "question", "questions"))
	}
	if failed > 0 {
		text += fmt.Sprintf(" %s could not be edited; see the log.", plural(failed, "message", "messages"))
	}
	return asReply(message{ephemeral: true, content: text}), nil
}

// tryClose closes and reveals a post for the scheduler. A reveal that
// fails is retried with a growing pause (1 minute, doubling up to an
// hour); one that cannot succeed (the message or channel is gone, or the
// bot may no longer see it) is given up, so that no request keeps hitting
// a 403 or 404.
func (b *Bot) tryClose(ctx context.Context, postID questions.PostID, now time.Time) {
	err := b.closePost(ctx, postID)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return // shutting down: the next start retries
	case discord.Permanent(err):
		b.log.Warn("reveal given up: the question's message can't be edited", "post", postID, "err", err)
		if err := b.store.MarkRevealed(context.WithoutCancel(ctx), postID); err != nil {
			b.log.Error("mark post revealed", "post", postID, "err", err)
		}
	default:
		b.revealTries[postID]++
		wait := time.Minute << min(b.revealTries[postID]-1, 6)
		b.revealAt[postID] = now.Add(min(wait, time.Hour))
		b.log.Error("close post", "post", postID, "err", err, "retry_in", min(wait, time.Hour))
		return
	}
	delete(b.revealAt, postID)
	delete(b.revealTries, postID)
}
