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
		if err := b.editNow(ctx, r.edit); err != nil {
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
		if err := b.sendNow(ctx, formatID(post.ChannelID), r.more[i]); err != nil {
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
	if m.Embeds != nil {
		richEmbeds(*m.Embeds)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("edit message %s: %w", m.ID, err)
	}
	if err := b.requestNow(ctx, http.MethodPatch, discordgo.EndpointChannelMessage(m.Channel, m.ID),
		discordgo.EndpointChannelMessage(m.Channel, ""), body); err != nil {
		return fmt.Errorf("edit message %s: %w", m.ID, err)
	}
	return nil
}

// sendNow posts a message in a channel as editNow edits one: without
// waiting out a long rate limit (errRateLimited), in discordgo's bucket of
// the route.
func (b *Bot) sendNow(ctx context.Context, channel string, m *discordgo.MessageSend) error {
	richEmbeds(m.Embeds)
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	route := discordgo.EndpointChannelMessages(channel)
	if err := b.requestNow(ctx, http.MethodPost, route, route, body); err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	return nil
}

// richEmbeds sets the type discordgo sets on embeds it sends itself.
func richEmbeds(embeds []*discordgo.MessageEmbed) {
	for _, e := range embeds {
		if e.Type == "" {
			e.Type = discordgo.EmbedTypeRich
		}
	}
}

// requestNow makes a REST request in discordgo's rate-limit bucket of
// route, failing with errRateLimited rather than waiting more than
// maxRateWait for the bucket (see editNow).
func (b *Bot) requestNow(ctx context.Context, method, uri, route string, body []byte) error {
	rl := b.sess.Ratelimiter
	bucket := rl.GetBucket(route)
	give := time.Now().Add(maxRateWait)
	for !bucket.TryLock() { // another request of the route is in flight, or asleep
		if time.Now().After(give) {
			return errRateLimited
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	if wait := rl.GetWaitTime(bucket, 1); wait > 0 {
		if wait > maxRateWait {
			bucket.Unlock()
			return fmt.Errorf("%w (for %v)", errRateLimited, wait.Round(time.Millisecond))
		}
		if err := sleepCtx(ctx, wait); err != nil {
			bucket.Unlock()
			return err
		}
	}
	bucket.Remaining--
	_, err := b.sess.RequestWithLockedBucket(method, uri, "application/json", body, bucket, 0,
		append(rest(ctx), discordgo.WithRetryOnRatelimit(false))...)
	return err
}
