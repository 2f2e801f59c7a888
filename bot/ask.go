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

// askRetries is how many times a member's ask draws again when the
// question it drew was asked meanwhile (by another member's ask).
const askRetries = 3

// ask posts a question now in this channel (/quiz ask [bank] [minutes]).
// A member's ask is held to the server's fair play (see askLimits); an
// admin's is not. Posting waits on Discord, so all of it comes after the
// deferral its route makes.
func (b *Bot) ask(c *call, opts options) (response, error) {
	return later(func() (response, error) { return b.askNow(c, opts) }), nil
}

// askNow is ask's work, once the interaction is deferred.
func (b *Bot) askNow(c *call, opts options) (response, error) {
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("ask: %w", err)
	}
	bankName, _ := opts.str("bank")
	minutes, ok := opts.int("minutes")
	if !ok || minutes <= 0 {
		minutes = set.AskMinutes
	}
	if !c.manager && minutes > set.AskMinutes {
		// A member's question would hold one of the channel's open slots
		// (ask_max_open) for as long as they like.
		return response{}, userErr("Members' questions stay open at most %s here (the server's ask_minutes); ask again with a shorter `minutes`, or leave it out.",
			plural(set.AskMinutes, "minute", "minutes"))
	}
	if perms := c.i.AppPermissions; perms != 0 && perms&(discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks|discordgo.PermissionViewChannel) !=
		discordgo.PermissionSendMessages|discordgo.PermissionEmbedLinks|discordgo.PermissionViewChannel {
		return response{}, userErr("I can't post here: I need View Channel, Send Messages and Embed Links in this channel.")
	}
	closes := b.clock.Now().Add(time.Duration(minutes) * time.Minute)
	if c.manager {
		q, err := b.draw(c.ctx, c.guild, set, bankName)
		if err != nil {
			return response{}, err
		}
		post, err := b.postQuestion(c.ctx, c.guild, c.channel, q, closes, false)
		if err != nil {
			return response{}, err
		}
		return asReply(askedMessage(q, post)), nil
	}
	lim := questions.AskLimits{Member: c.user, Cooldown: set.AskCooldown, MaxOpen: set.AskMaxOpen}
	for try := 0; ; try++ {
		q, err := b.drawFresh(c.guild, set, bankName)
		if err != nil {
			return response{}, err
		}
		post, err := b.publish(c.ctx, q, newPost(c.guild, c.channel, q, b.clock.Now(), closes, false),
			func(ctx context.Context, p questions.Post) (questions.Post, error) {
				return b.store.CreateAsk(ctx, p, lim)
			})
		if errors.Is(err, questions.ErrAlreadyAsked) && try < askRetries {
			continue // another member's ask took it meanwhile: draw again
		}
		if err != nil {
			return response{}, b.askRefused(c, set, bankName, err)
		}
		return asReply(askedMessage(q, post)), nil
	}
}

// askRefused words the refusal of a member's ask by the server's fair
// play, or passes err on.
func (b *Bot) askRefused(c *call, set questions.Settings, bankName string, err error) error {
	switch {
	case errors.Is(err, questions.ErrCooldown):
		last, lerr := b.store.LastAsk(c.guild, c.user)
		if lerr != nil {
			return fmt.Errorf("ask: %w", lerr)
		}
		return userErr("⏳ Members can ask one question every %s here. You can ask again %s.",
			secondsText(set.AskCooldown), timestamp(last.Add(set.AskCooldown), "R"))
	case errors.Is(err, questions.ErrChannelFull):
		return userErr("⏳ %s open in this channel already, the most members can ask for here. Answer them; once one closes, ask again.",
			plural(set.AskMaxOpen, "question is", "questions are"))
	case errors.Is(err, questions.ErrAlreadyAsked):
		return exhaustedErr(bankName)
	}
	return err
}

// exhaustedErr tells a member that every question they could be asked has
// been asked in this round, and how an admin carries on.
func exhaustedErr(bankName string) error {
	what := "Every question this server draws from"
	if bankName != "" {
		what = "Every question of **" + truncate(bankName, 100) + "**"
	}
	return userErr("%s has been asked already in this round, so members can't ask it again. "+
		"An admin can: `/quiz ask` posts the questions the group is closest to forgetting; "+
		"`/quizadmin reset scope:all` starts a new round (it resets scores too); new questions (`/quizadmin import` or `add`) can be asked at once.", what)
}

// secondsText is a whole number of seconds in words: "60 seconds", "90
// seconds", "2 minutes".
func secondsText(d time.Duration) string {
	s := int(d / time.Second)
	if s >= 120 && s%60 == 0 {
		return plural(s/60, "minute", "minutes")
	}
	return plural(s, "second", "seconds")
}

// newPost is the post of q in channel, before it is stored.
func newPost(guild questions.GuildID, channel questions.ChannelID, q *questions.Question, opened, closesAt time.Time, daily bool) questions.Post {
	return questions.Post{
		GuildID: guild, ChannelID: channel, QuestionID: q.ID, Bank: q.Bank, Tags: q.Tags,
		Correct: q.Correct(), OptionCount: len(q.Options), SelectCount: q.SelectCount(),
		Daily: daily, OpenedAt: opened, ClosesAt: closesAt,
	}
}

// postQuestion records a post of q and sends its message, with any extra
// embeds after the question's. A message that cannot be sent leaves no post.
func (b *Bot) postQuestion(ctx context.Context, guild questions.GuildID, channel questions.ChannelID, q *questions.Question, closesAt time.Time, daily bool, extra ...*discordgo.MessageEmbed) (questions.Post, error) {
	return b.publish(ctx, q, newPost(guild, channel, q, b.clock.Now(), closesAt, daily), b.store.CreatePost, extra...)
}

// publish stores p, a post of q, with create (CreatePost, or CreateAsk
// for a member's ask: its refusals come back wrapped) and sends its
// message, with any extra embeds after the question's. A message that
// cannot be sent leaves no post.
func (b *Bot) publish(ctx context.Context, q *questions.Question, p questions.Post,
	create func(context.Context, questions.Post) (questions.Post, error), extra ...*discordgo.MessageEmbed) (questions.Post, error) {
	post, err := create(ctx, p)
	if err != nil {
		return questions.Post{}, fmt.Errorf("create post: %w", err)
	}
	channel, guild := p.ChannelID, p.GuildID
	sent, err := b.out.Post(ctx, formatID(channel), openMessage(post, q, extra...))
	if err != nil {
		if derr := b.store.DeletePost(context.WithoutCancel(ctx), post.ID); derr != nil {
			b.log.Error("delete unsent post", "post", post.ID, "err", derr)
		}
		return questions.Post{}, fmt.Errorf("send question: %w", err)
	}
	msgID, ok := parseID[questions.MessageID](sent)
	if !ok {
		return questions.Post{}, fmt.Errorf("send question: bad message id %q", sent)
	}
	if err := b.store.SetPostMessage(context.WithoutCancel(ctx), post.ID, msgID); err != nil {
		return questions.Post{}, fmt.Errorf("set post message: %w", err)
	}
	post.MessageID = msgID
	b.log.Info("question posted", "guild", guild, "post", post.ID, "question", q.ID)
	b.poke()
	return post, nil
}

// candidates are the questions a draw picks from (every question of the
// bank named, or of the banks the guild draws from) and those of them not
// asked yet in this round.
func (b *Bot) candidates(guild questions.GuildID, set questions.Settings, bankName string) (all, fresh []*questions.Question, err error) {
	banks, err := b.guildBanks(guild)
	if err != nil {
		return nil, nil, err
	}
	var pool []*questions.Bank
	if bankName != "" {
		bk := findBank(banks, bankName)
		if bk == nil {
			return nil, nil, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(bankName, 100))
		}
		pool = []*questions.Bank{bk}
	} else {
		for _, bk := range banks {
			if len(set.Banks) == 0 || containsName(set.Banks, bk.Name) {
				pool = append(pool, bk)
			}
		}
		if len(pool) == 0 {
			return nil, nil, userErr("None of the banks this server draws from (%s) exists any more. An admin can pick others with `/quizadmin settings banks:`.",
				truncate(strings.Join(set.Banks, ", "), 300))
		}
	}
	for _, bk := range pool {
		for i := range bk.Questions {
			all = append(all, &bk.Questions[i])
		}
	}
	if len(all) == 0 {
		return nil, nil, userErr("There are no questions to ask yet.")
	}
	asked, err := b.store.Asked(guild)
	if err != nil {
		return nil, nil, fmt.Errorf("draw: %w", err)
	}
	for _, q := range all {
		if !asked[q.ID] {
			fresh = append(fresh, q)
		}
	}
	return all, fresh, nil
}

// draw picks the guild's next question. While some candidates have not
// been asked in this round, one of those at random; once every candidate
// has been asked, the one the members who play are closest to forgetting
// (questions.DrawForgotten; see drawForgotten).
func (b *Bot) draw(_ context.Context, guild questions.GuildID, set questions.Settings, bankName string) (*questions.Question, error) {
	all, fresh, err := b.candidates(guild, set, bankName)
	if err != nil {
		return nil, err
	}
	if len(fresh) > 0 {
		return fresh[b.pick(len(fresh))], nil
	}
	return b.drawForgotten(guild, all)
}

// drawFresh is draw for a member's ask: a candidate not asked yet in this
// round, at random; once every one has been asked, a refusal that says
// how an admin carries on (members do not post a bank again).
func (b *Bot) drawFresh(guild questions.GuildID, set questions.Settings, bankName string) (*questions.Question, error) {
	_, fresh, err := b.candidates(guild, set, bankName)
	if err != nil {
		return nil, err
	}
	if len(fresh) == 0 {
		return nil, exhaustedErr(bankName)
	}
	return fresh[b.pick(len(fresh))], nil
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
