package bot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// answerAckWait is how long an answer may take to commit before the bot
// defers the interaction (Discord wants a response within 3 s).
const answerAckWait = 2 * time.Second

// answerBanksWait is how long after its interaction arrived an answer
// waits at most for its server's banks to load (the first answer after a
// start, with the reveal on answer on), before it replies without the
// reveal; the answer path never loads banks itself.
const answerBanksWait = time.Second

// ask posts a question now in this channel (/quiz ask [bank] [minutes]).
func (b *Bot) ask(c *call, opts options) (response, error) {
	if err := c.deferReply(true); err != nil {
		return response{}, err
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("ask: %w", err)
	}
	bankName, _ := opts.str("bank")
	minutes, ok := opts.int("minutes")
	if !ok || minutes <= 0 {
		minutes = set.AskMinutes
	}
	if perms := c.i.AppPermissions; perms != 0 && perms&(discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks|discordgo.PermissionViewChannel) !=
		discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks|discordgo.PermissionViewChannel {
		return response{}, userErr("I can't post here: I need View Channel, Send Messages and Embed Links in this channel.")
	}
	q, err := b.draw(c.ctx, c.guild, set, bankName)
	if err != nil {
		return response{}, err
	}
	closes := b.clock.Now().Add(time.Duration(minutes) * time.Minute)
	post, err := b.postQuestion(c.ctx, c.guild, c.channel, q, closes, false)
	if err != nil {
		return response{}, err
	}
	return asReply(askedMessage(q, post)), nil
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

// draw picks the guild's next question. While some candidates have not
// been asked in this round, one of those at random; once every candidate
// has been asked, the one the members who play are closest to forgetting
// (questions.DrawForgotten; see drawForgotten).
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
	if len(fresh) > 0 {
		return fresh[b.pick(len(fresh))], nil
	}
	return b.drawForgotten(guild, all)
}

// drawForgotten draws among questions that have all been asked: the one
// the members who play (questions.PlayerWindow) are closest to forgetting,
// ties drawn with the bot's random source. Questions open in the guild now
// are left out while others remain, so a question is not posted twice at
// once. The asked history is kept: a question added to a bank later is
// "not yet asked" and comes first.
func (b *Bot) drawForgotten(guild questions.GuildID, all []*questions.Question) (*questions.Question, error) {
	open, err := b.store.OpenQuestions(guild)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	byID := make(map[string]*questions.Question, len(all))
	var ids []string
	for _, q := range all {
		if !open[q.ID] {
			ids = append(ids, q.ID)
		}
		byID[q.ID] = q
	}
	if len(ids) == 0 {
		for _, q := range all {
			ids = append(ids, q.ID)
		}
	}
	now := b.clock.Now()
	players, err := b.store.Players(guild, now)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	mems, err := b.store.GroupMemories(guild, players, ids)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	// The bot's source only seeds this draw, so that no other server waits
	// while this one's questions are ranked.
	b.randMu.Lock()
	r := rand.New(rand.NewPCG(b.rand.Uint64(), b.rand.Uint64()))
	b.randMu.Unlock()
	picked := questions.DrawForgotten(ids, players, mems, now, 1, r)
	return byID[picked[0]], nil
}

// guildPost reads a post of the interaction's server: an error wrapping
// questions.ErrNotFound if there is none, or questions.ErrWrongGuild if it
// belongs to another server (storeErr words both for the member).
func (b *Bot) guildPost(c *call, postID questions.PostID) (questions.Post, error) {
	post, err := b.store.Post(postID)
	if err != nil {
		return questions.Post{}, err
	}
	if post.GuildID != c.guild {
		return questions.Post{}, fmt.Errorf("post %d: %w", postID, questions.ErrWrongGuild)
	}
	return post, nil
}

// answer grades a member's pick on a post's select menu.
func (b *Bot) answer(c *call, postID questions.PostID, values []string) (response, error) {
	post, err := b.guildPost(c, postID)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("This quiz has ended or this control is no longer in use.")
	}
	if err != nil {
		return response{}, storeErr(fmt.Errorf("answer: %w", err))
	}
	if c.i.Message != nil && post.MessageID != 0 && c.i.Message.ID != formatID(post.MessageID) {
		return response{}, userErr("That answer came from a message that isn't this question.")
	}
	if post.Closed {
		return response{}, userErr("This question is closed: answers are no longer taken.")
	}
	if _, err := questions.NormalizeChoice(values, post.OptionCount, post.SelectCount); err != nil {
		return response{}, userErr("That answer doesn't match the options offered. Pick %s from the menu.", plural(post.SelectCount, "option", "options"))
	}

	// Everything the reply needs is read (and rendered) before the commit,
	// so that once the answer is stored only the reply itself is left to do.
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("answer: %w", err)
	}
	var reveal []*discordgo.MessageEmbed
	if set.RevealOnAnswer {
		if q := b.answerQuestion(post, c.start.Add(answerBanksWait)); q != nil {
			reveal = b.reveals.get(post, q)
		}
	}

	a, err := b.commitAnswer(c, questions.Answer{
		PostID: postID, GuildID: c.guild, UserID: c.user, InteractionID: mustID(c.i.ID),
		Choice: values, At: b.clock.Now(),
	})
	if errors.Is(err, questions.ErrAlreadyAnswered) && a.InteractionID != mustID(c.i.ID) {
		return response{}, userErr("You already answered **%s**. One answer per member per question.", strings.Join(a.Choice, ", "))
	}
	if err != nil && !errors.Is(err, questions.ErrAlreadyAnswered) {
		return response{}, err
	}
	b.queueRefresh(postID)
	if err == nil {
		b.cfg.Metrics.AnswerRecorded(time.Since(c.start))
	}
	return asReply(gradeMessage(a, post, reveal)), nil
}

// commitAnswer records a, and returns what RecordAnswer returns (a store
// failure as storeErr). The commit runs on the handler's own goroutine; a
// commit still running near Discord's 3 s deadline (counted from the
// interaction's arrival) gets a deferral, sent from a timer's goroutine
// while the commit goes on, which is not an acknowledgement: the graded
// edit that follows the commit is. A deferral that fails is returned once
// the commit is done (the answer is stored either way).
func (b *Bot) commitAnswer(c *call, a questions.Answer) (questions.Answer, error) {
	deferred := make(chan error, 1)
	late := time.AfterFunc(answerAckWait-time.Since(c.start), func() { deferred <- c.deferReply(true) })
	a, err := b.store.RecordAnswer(c.ctx, a)
	if !late.Stop() {
		// The deferral started: wait for it, so that c is the handler's
		// alone again.
		if derr := <-deferred; derr != nil {
			return questions.Answer{}, derr
		}
	}
	if err != nil && !errors.Is(err, questions.ErrAlreadyAnswered) {
		return a, storeErr(err)
	}
	return a, err
}

func mustID(s string) uint64 {
	id, _ := parseID[uint64](s)
	return id
}
