package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// closePost closes a post (if still open) and edits its message into the
// reveal, then records that the reveal went out. It is safe to call more
// than once: a post already revealed is left alone, and one closed but not
// yet revealed (its edit failed) is revealed now.
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
		if err := b.editNow(ctx, closedMessage(post, b.questionFor(post))); err != nil {
			return fmt.Errorf("edit closed post %d: %w", postID, err)
		}
	}
	if err := b.store.MarkRevealed(context.WithoutCancel(ctx), postID); err != nil {
		return fmt.Errorf("mark post %d revealed: %w", postID, err)
	}
	b.log.Info("question closed", "guild", post.GuildID, "post", postID, "answers", post.Answers)
	return nil
}

// closeCmd closes the open questions in this channel (/quizadmin close).
func (b *Bot) closeCmd(c *call, _ options) (response, error) {
	if err := c.deferReply(true); err != nil {
		return response{}, err
	}
	posts, err := b.store.OpenPostsIn(c.guild, c.channel)
	if err != nil {
		return response{}, fmt.Errorf("close: %w", err)
	}
	// A reveal held up by Discord's rate limit is not waited for (the
	// reply is due within seconds): the scheduler retries it.
	var failed, later int
	for _, p := range posts {
		err := b.closePost(c.ctx, p.ID)
		var rl *discordgo.RateLimitError
		switch {
		case err == nil:
		case errors.Is(err, errRateLimited) || errors.As(err, &rl):
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
	case permanent(err):
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

// permanent reports whether a Discord error will not go away by retrying:
// 403 (missing access or permissions) or 404 (unknown message or channel).
func permanent(err error) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Response != nil &&
		(re.Response.StatusCode == http.StatusForbidden || re.Response.StatusCode == http.StatusNotFound)
}

// editNow edits a channel message without waiting out a rate limit of
// more than maxRateWait: discordgo would sleep through it before sending
// (deaf to ctx), so an interaction whose reply waits on the edit (a reveal
// by /quizadmin close) would answer far too late. A limited route fails at
// once with errRateLimited (and a 429 with a RateLimitError); the caller
// leaves the edit to a later retry. It takes the route's discordgo bucket
// itself, so discordgo's own requests and this one still count together.
func (b *Bot) editNow(ctx context.Context, m *discordgo.MessageEdit) error {
	rl := b.sess.Ratelimiter
	bucket := rl.GetBucket(discordgo.EndpointChannelMessage(m.Channel, ""))
	give := time.Now().Add(maxRateWait)
	for !bucket.TryLock() { // another request of the route is in flight, or asleep
		if time.Now().After(give) {
			return fmt.Errorf("edit message %s: %w", m.ID, errRateLimited)
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	if wait := rl.GetWaitTime(bucket, 1); wait > 0 {
		if wait > maxRateWait {
			bucket.Unlock()
			return fmt.Errorf("edit message %s: %w (for %v)", m.ID, errRateLimited, wait.Round(time.Millisecond))
		}
		if err := sleepCtx(ctx, wait); err != nil {
			bucket.Unlock()
			return err
		}
	}
	bucket.Remaining--
	if m.Embeds != nil {
		for _, e := range *m.Embeds {
			if e.Type == "" {
				e.Type = discordgo.EmbedTypeRich
			}
		}
	}
	body, err := json.Marshal(m)
	if err != nil {
		bucket.Release(nil)
		return fmt.Errorf("edit message %s: %w", m.ID, err)
	}
	_, err = b.sess.RequestWithLockedBucket(http.MethodPatch, discordgo.EndpointChannelMessage(m.Channel, m.ID),
		"application/json", body, bucket, 0, append(rest(ctx), discordgo.WithRetryOnRatelimit(false))...)
	return err
}
