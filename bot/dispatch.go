package bot

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
)

// onInteraction is the one entry point for interactions: it tracks the
// handler for shutdown, recovers panics, dispatches on the interaction
// type, and turns a returned error into a short ephemeral message.
func (b *Bot) onInteraction(ctx context.Context, ic *discordgo.InteractionCreate, closing bool) {
	if ic == nil || ic.Interaction == nil {
		return
	}
	i := ic.Interaction
	c := &call{ctx: context.WithoutCancel(ctx), s: b.sess, i: i, start: time.Now()}
	if closing {
		if i.Type == discordgo.InteractionApplicationCommand || i.Type == discordgo.InteractionMessageComponent ||
			i.Type == discordgo.InteractionModalSubmit {
			_ = c.send(asReply(message{ephemeral: true, content: "quizhost is restarting; try again in a minute."}))
		}
		return
	}
	defer func() {
		if r := recover(); r != nil {
			b.interactionLog(i).Error("handler panic", "panic", r, "stack", string(debug.Stack()))
			c.fail("Something went wrong on our side. Try again in a moment.")
		}
	}()
	r, err := b.dispatch(c)
	if err == nil {
		if err = c.send(r); err == nil {
			if r.after != nil {
				r.after()
			}
			return
		}
	}
	if msg, ok := isUser(err); ok {
		c.fail(msg)
		return
	}
	b.interactionLog(i).Error("interaction failed", "err", redact(err))
	c.fail("Something went wrong on our side. Try again in a moment.")
}

// interactionLog is the logger for what happened to interaction i. It is
// made where something is logged, not for every interaction: most log
// nothing.
func (b *Bot) interactionLog(i *discordgo.Interaction) *slog.Logger {
	return b.log.With("interaction", i.ID, "type", int(i.Type), "guild", i.GuildID)
}

func (b *Bot) dispatch(c *call) (response, error) {
	i := c.i
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete,
		discordgo.InteractionMessageComponent, discordgo.InteractionModalSubmit:
	case 0: // discordgo could not decode the payload at all
		b.log.Warn("undecodable interaction: ignored")
		return response{}, nil
	default:
		return response{}, nil // pings
	}
	if i.Data == nil { // discordgo could not decode its data
		b.log.Warn("undecodable interaction: told it arrived garbled", "interaction", i.ID)
		return response{}, userErr("That request arrived garbled. Try again.")
	}
	if i.GuildID == "" || i.Member == nil || i.Member.User == nil {
		return response{}, userErr("quizhost works in servers, not in direct messages.")
	}
	var ok1, ok2, ok3 bool
	c.guild, ok1 = parseID[questions.GuildID](i.GuildID)
	c.channel, ok2 = parseID[questions.ChannelID](i.ChannelID)
	c.user, ok3 = parseID[questions.UserID](i.Member.User.ID)
	if !ok1 || !ok2 || !ok3 {
		return response{}, userErr("That request arrived garbled. Try again.")
	}
	if !b.shards.Owns(uint64(c.guild)) {
		// Discord sends a server's events to the shard of its ID; this one
		// is another process's, and its state is in another file.
		b.log.Error("interaction of a server of another shard refused: check QUIZHOST_SHARDS of every process",
			"interaction", i.ID, "guild", c.guild, "shard", sharding.ShardOf(uint64(c.guild), b.shards.Count), "shards", b.shards.String())
		return response{}, userErr("quizhost is misconfigured for this server: it reached a process that does not serve it. Nothing was saved; please tell the bot's operator.")
	}
	c.member = i.Member

	switch i.Type {
	case discordgo.InteractionApplicationCommandAutocomplete:
		return b.autocomplete(c, i.ApplicationCommandData())
	case discordgo.InteractionApplicationCommand:
		return b.command(c, i.ApplicationCommandData())
	case discordgo.InteractionModalSubmit:
		d := i.ModalSubmitData()
		id, err := parseCustomID(d.CustomID)
		switch {
		case err == nil && id.kind == kindModal:
			return b.pasteSubmit(c, id, modalText(d.Components, pasteInputID))
		case err == nil && id.kind == kindReportModal:
			return b.reportSubmit(c, id.post, modalText(d.Components, reportInputID))
		}
		return response{}, userErr("This form is no longer in use. Start again with the command.")
	default:
		d := i.MessageComponentData()
		id, err := parseCustomID(d.CustomID)
		if err != nil {
			return response{}, userErr("This quiz has ended or this control is no longer in use.")
		}
		switch id.kind {
		case kindAnswer:
			return b.answer(c, id.post, d.Values)
		case kindBoard:
			return b.boardPage(c, id)
		case kindConfirm:
			return b.confirmButton(c, id)
		case kindDraft:
			return b.draftButton(c, id)
		case kindReview:
			return b.reviewButton(c, id)
		case kindStudy:
			return b.studyAnswer(c, id.review, d.Values)
		case kindStudyNext:
			return b.studyNext(c, id)
		case kindReport:
			return b.reportOpen(c, id.post)
		case kindReportClose:
			return b.reportClose(c, id)
		}
		return response{}, userErr("This quiz has ended or this control is no longer in use.")
	}
}
