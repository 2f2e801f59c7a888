package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// answerAckWait is how long an answer may take to commit before the bot
// defers the interaction (Discord wants a response within 3 s).
const answerAckWait = 2 * time.Second

// ask posts a question now in this channel (/quiz ask [bank] [minutes]).
func (b *Bot) ask(c *call, opts options) error {
	if err := c.deferReply(true); err != nil {
		return err
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("ask: %w", err)
	}
	bankName, _ := opts.str("bank")
	minutes, ok := opts.int("minutes")
	if !ok || minutes <= 0 {
		minutes = set.AskMinutes
	}
	if perms := c.i.AppPermissions; perms != 0 && perms&(discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks|discordgo.PermissionViewChannel) !=
		discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks|discordgo.PermissionViewChannel {
		return userErr("I can't post here: I need View Channel, Send Messages and Embed Links in this channel.")
	}
	q, err := b.draw(c.ctx, c.guild, set, bankName)
	if err != nil {
		return err
	}
	closes := b.clock.Now().Add(time.Duration(minutes) * time.Minute)
	post, err := b.postQuestion(c.ctx, c.guild, c.channel, q, closes, false)
	if err != nil {
		return err
	}
	return c.reply(message{ephemeral: true, content: fmt.Sprintf("Posted question %d of **%s**. It closes %s.",
		q.Number, q.Bank, timestamp(post.ClosesAt, "R"))})
}

// postQuestion records a post of q and sends its message, with any extra
// embeds after the question's. A message that cannot be sent leaves no post.
func (b *Bot) postQuestion(ctx context.Context, guild questions.GuildID, channel questions.ChannelID, q *questions.Question, closesAt time.Time, daily bool, extra ...*discordgo.MessageEmbed) (questions.Post, error) {
	post, err := b.store.CreatePost(ctx, questions.Post{
		GuildID: guild, ChannelID: channel, QuestionID: q.ID, Bank: q.Bank, Tags: q.Tags,
		Correct: q.Correct(), OptionCount: len(q.Options), SelectCount: q.SelectCount(),
		Daily: daily, OpenedAt: b.clock.Now(), ClosesAt: closesAt,
	})
	if err != nil {
		return questions.Post{}, fmt.Errorf("create post: %w", err)
	}
	msg, err := b.sess.ChannelMessageSendComplex(formatID(channel), openMessage(post, q, extra...), rest(ctx)...)
	if err != nil {
		if derr := b.store.DeletePost(context.WithoutCancel(ctx), post.ID); derr != nil {
			b.log.Error("delete unsent post", "post", post.ID, "err", derr)
		}
		return questions.Post{}, fmt.Errorf("send question: %w", err)
	}
	msgID, ok := parseID[questions.MessageID](msg.ID)
	if !ok {
		return questions.Post{}, fmt.Errorf("send question: bad message id %q", msg.ID)
	}
	if err := b.store.SetPostMessage(context.WithoutCancel(ctx), post.ID, msgID); err != nil {
		return questions.Post{}, fmt.Errorf("set post message: %w", err)
	}
	post.MessageID = msgID
	b.log.Info("question posted", "guild", guild, "post", post.ID, "question", q.ID)
	b.poke()
	return post, nil
}

// draw picks the guild's next question: one not yet asked in this round,
// at random; when every candidate was asked, a new round starts.
func (b *Bot) draw(ctx context.Context, guild questions.GuildID, set questions.Settings, bankName string) (*questions.Question, error) {
	banks, err := b.guildBanks(guild)
	if err != nil {
		return nil, err
	}
	var pool []*questions.Bank
	if bankName != "" {
		bk := findBank(banks, bankName)
		if bk == nil {
			return nil, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(bankName, 100))
		}
		pool = []*questions.Bank{bk}
	} else {
		for _, bk := range banks {
			if len(set.Banks) == 0 || containsName(set.Banks, bk.Name) {
				pool = append(pool, bk)
			}
		}
		if len(pool) == 0 {
			return nil, userErr("None of the banks this server draws from (%s) exists any more. An admin can pick others with `/quizadmin settings banks:`.",
				truncate(strings.Join(set.Banks, ", "), 300))
		}
	}
	var all []*questions.Question
	for _, bk := range pool {
		for i := range bk.Questions {
			all = append(all, &bk.Questions[i])
		}
	}
	if len(all) == 0 {
		return nil, userErr("There are no questions to ask yet.")
	}
	asked, err := b.store.Asked(guild)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	var fresh []*questions.Question
	for _, q := range all {
		if !asked[q.ID] {
			fresh = append(fresh, q)
		}
	}
	if len(fresh) == 0 {
		ids := make([]string, len(all))
		for i, q := range all {
			ids[i] = q.ID
		}
		if err := b.store.ForgetAsked(ctx, guild, ids); err != nil {
			return nil, fmt.Errorf("draw: new round: %w", err)
		}
		fresh = all
	}
	return fresh[b.pick(len(fresh))], nil
}

// answer grades a member's pick on a post's select menu.
func (b *Bot) answer(c *call, postID questions.PostID, values []string) error {
	post, err := b.store.Post(postID)
	if errors.Is(err, questions.ErrNotFound) {
		return userErr("This quiz has ended or this control is no longer in use.")
	}
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	if post.GuildID != c.guild {
		return userErr("That question belongs to another server.")
	}
	if c.i.Message != nil && post.MessageID != 0 && c.i.Message.ID != formatID(post.MessageID) {
		return userErr("That answer came from a message that isn't this question.")
	}
	if post.Closed {
		return userErr("This question is closed: answers are no longer taken.")
	}
	if _, err := questions.NormalizeChoice(values, post.OptionCount, post.SelectCount); err != nil {
		return userErr("That answer doesn't match the options offered. Pick %s from the menu.", plural(post.SelectCount, "option", "options"))
	}

	// Everything the reply needs is read before the commit, so that once
	// the answer is stored only the reply itself is left to do.
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	q := b.questionFor(post)

	// Commit first; acknowledge only after. A commit still running near
	// Discord's 3 s deadline (counted from the interaction's arrival) gets
	// a deferral, which is not an acknowledgement: the graded edit is.
	type result struct {
		a   questions.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := b.store.RecordAnswer(c.ctx, questions.Answer{
			PostID: postID, GuildID: c.guild, UserID: c.user, InteractionID: mustID(c.i.ID),
			Choice: values, At: b.clock.Now(),
		})
		done <- result{a, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(answerAckWait - time.Since(c.start)):
		if err := c.deferReply(true); err != nil {
			return err
		}
		r = <-done
	}
	if errors.Is(r.err, questions.ErrAlreadyAnswered) && r.a.InteractionID != mustID(c.i.ID) {
		return userErr("You already answered **%s**. One answer per member per question.", strings.Join(r.a.Choice, ", "))
	}
	if r.err != nil && !errors.Is(r.err, questions.ErrAlreadyAnswered) {
		return storeErr(r.err)
	}
	b.queueRefresh(postID)
	return c.reply(gradeMessage(r.a, post, q, set.RevealOnAnswer))
}

func mustID(s string) uint64 {
	id, _ := parseID[uint64](s)
	return id
}

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
func (b *Bot) closeCmd(c *call) error {
	if err := c.deferReply(true); err != nil {
		return err
	}
	posts, err := b.store.OpenPostsIn(c.guild, c.channel)
	if err != nil {
		return fmt.Errorf("close: %w", err)
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
	return c.reply(message{ephemeral: true, content: text})
}

// queueRefresh asks the refresher to update a post's live count.
func (b *Bot) queueRefresh(postID questions.PostID) {
	select {
	case b.refresh <- postID:
	default: // the refresher is behind; the next answer will queue again
	}
}

// refresher edits the live answer count of posts that got answers, at most
// once per RefreshEvery for all of them together, so bursts of answers cost
// one edit per post.
func (b *Bot) refresher(ctx context.Context) {
	dirty := map[questions.PostID]bool{}
	tick := time.NewTicker(b.cfg.RefreshEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-b.refresh:
			dirty[id] = true
		case <-tick.C:
			var wg sync.WaitGroup
			for id := range dirty {
				delete(dirty, id)
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := b.refreshCount(ctx, id); err != nil && ctx.Err() == nil {
						b.log.Warn("refresh answer count", "post", id, "err", err)
						b.queueRefresh(id) // try again next tick (a 429, say)
					}
				}()
			}
			wg.Wait()
		}
	}
}

// refreshCount edits an open post's answer count into its message.
func (b *Bot) refreshCount(ctx context.Context, postID questions.PostID) error {
	mu := b.postLock(postID)
	mu.Lock()
	defer mu.Unlock()
	post, err := b.store.Post(postID)
	if err != nil || post.Closed || post.MessageID == 0 {
		return nil // gone or closed: the reveal shows the final count
	}
	content := openContent(post)
	_, err = b.sess.ChannelMessageEditComplex(&discordgo.MessageEdit{
		Channel: formatID(post.ChannelID), ID: formatID(post.MessageID), Content: &content, AllowedMentions: noPings(),
	}, rest(ctx)...)
	return err
}

// scheduler is the one goroutine that drives time: it closes questions
// whose time is up and posts the daily quizzes, then sleeps until the next
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
// (at most once a minute each), and posts the daily quizzes.
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
	for _, p := range posts {
		if p.ClosesAt.IsZero() {
			continue
		}
		if p.ClosesAt.After(now) {
			earliest(p.ClosesAt)
			continue
		}
		b.tryClose(ctx, p.ID, now)
	}
	unrevealed, err := b.store.UnrevealedPosts()
	if err != nil {
		b.log.Error("list unrevealed posts", "err", err)
	}
	for _, p := range unrevealed {
		if at := b.revealAt[p.ID]; at.After(now) {
			earliest(at)
			continue
		}
		b.tryClose(ctx, p.ID, now)
		earliest(b.revealAt[p.ID])
	}
	earliest(b.runDaily(ctx, b.clock.Now())) // the work above may have taken a while
	return next
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
