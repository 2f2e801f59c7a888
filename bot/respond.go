package bot

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot/internal/discord"
	"github.com/quizhost/quizhost/questions"
)

// outbound is every request the bot sends Discord. Features describe
// messages (the pure renderers) and hand them to it; the connection to
// Discord (bot/internal/discord's Client) sends them, with the rate-limit
// handling each needs. An interaction's replies go through send below; the
// rest (a posted question, its live count and reveal, a member's direct
// message) through the Bot's out.
type outbound interface {
	// Respond sends an interaction's one initial response: a message, an
	// update of its component's message, a deferral, a form or
	// autocomplete choices.
	Respond(ctx context.Context, i *discordgo.Interaction, r *discordgo.InteractionResponse) error
	// EditReply replaces the interaction's response (its @original).
	EditReply(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error
	// FollowUp sends a message after the interaction's response.
	FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error
	// Post sends a message to a channel and returns its id; Edit edits
	// one. Both wait out a rate limit (a discord.Background ctx does not
	// retry a 429).
	Post(ctx context.Context, channel string, m *discordgo.MessageSend) (messageID string, err error)
	Edit(ctx context.Context, m *discordgo.MessageEdit) error
	// PostNow and EditNow do as Post and Edit without waiting out a rate
	// limit of more than a second: they fail at once (discord.RateLimited).
	PostNow(ctx context.Context, channel string, m *discordgo.MessageSend) error
	EditNow(ctx context.Context, m *discordgo.MessageEdit) error
	// DM sends a user a direct message; one whose direct messages are
	// closed fails with discord.ErrDMClosed.
	DM(ctx context.Context, user string, m *discordgo.MessageSend) error
}

var _ outbound = (*discord.Client)(nil)

// call is one interaction being handled: where its replies go, the
// interaction and whether its one initial response has gone out.
type call struct {
	ctx     context.Context
	out     outbound
	i       *discordgo.Interaction
	guild   questions.GuildID
	channel questions.ChannelID
	user    questions.UserID
	member  *discordgo.Member
	// resolved holds the users, channels and attachments a slash command's
	// options name (nil for other interactions).
	resolved *discordgo.ApplicationCommandInteractionDataResolved
	values   []string                     // a select menu's picks
	inputs   []discordgo.MessageComponent // a submitted form's rows (see text)
	start    time.Time                    // when the interaction arrived (Discord's 3 s run from about then)
	// manager: the member has Manage Server (or Administrator) here. The
	// table refuses the routes that need it (dispatch.go); a handler reads
	// it only to treat an admin otherwise (an admin's /quiz ask is not
	// held to fair play). (The bools sit together: one call is made per
	// interaction, and this keeps it in a smaller allocation.)
	manager bool
	acked   bool // initial response sent (deferred or final)
	// deferredUpdate: the initial response was a deferred update of the
	// component's message (deferUpdate).
	deferredUpdate bool
	replied        bool // the member has seen a reply (not just "thinking…")
}

// response is what a handler answers with; onInteraction sends it (send),
// so that handlers decide what to say and not how it reaches Discord. Work
// that may outlast Discord's 3 s is returned as later(f): the interaction
// is then acknowledged as its route says (see ack), and f's response
// edits the deferred one.
type response struct {
	kind    responseKind
	msg     message                                     // respondReply, respondUpdate
	modal   *discordgo.InteractionResponseData          // respondModal
	choices []*discordgo.ApplicationCommandOptionChoice // respondChoices
	// more continues a reply or update that one message cannot hold (a
	// long reveal): follow-ups sent in order once it is out.
	more []message
	// after, when set, runs once the response is out (a direct message
	// to a member, say, which must not hold up the response).
	after func()
	// then is the work of a respondLater, run once the interaction is
	// acknowledged.
	then func() (response, error)
}

type responseKind int

const (
	respondNothing responseKind = iota // nothing to send (a ping, an undecodable payload)
	respondReply                       // a message: the initial response, or the edit of the deferred one
	respondUpdate                      // replace the message that carries the component
	respondModal                       // open a form
	respondChoices                     // autocomplete suggestions
	respondLater                       // more time: acknowledge first, then run then (see later)
)

// asReply answers with a message.
func asReply(m message) response { return response{kind: respondReply, msg: m} }

// asUpdate answers a component by replacing its message.
func asUpdate(m message) response { return response{kind: respondUpdate, msg: m} }

// asReplies answers with ms[0] and continues with the rest of ms as
// follow-ups, in order. ms must not be empty.
func asReplies(ms []message) response {
	r := asReply(ms[0])
	r.more = ms[1:]
	return r
}

// asUpdates answers a component by replacing its message with ms[0],
// then continues with the rest of ms as follow-ups, in order. ms must not
// be empty.
func asUpdates(ms []message) response {
	r := asUpdate(ms[0])
	r.more = ms[1:]
	return r
}

// asModal answers by opening a form.
func asModal(d *discordgo.InteractionResponseData) response {
	return response{kind: respondModal, modal: d}
}

// later answers with work that can outlast Discord's 3 s: dispatch
// acknowledges the interaction as its route says (ackDeferReply,
// ackDeferUpdate), then runs f and sends its response.
func later(f func() (response, error)) response { return response{kind: respondLater, then: f} }

// asChoices answers an autocomplete.
func asChoices(cs []*discordgo.ApplicationCommandOptionChoice) response {
	return response{kind: respondChoices, choices: cs}
}

// send sends r, a handler's answer: the one place an answer leaves for
// Discord (the deferrals the table asks for are sent by dispatch, through
// the same calls below).
func (c *call) send(r response) error {
	switch r.kind {
	case respondReply:
		if err := c.reply(r.msg); err != nil {
			return err
		}
		return c.sendMore(r.more)
	case respondUpdate:
		var err error
		if c.acked { // deferred with deferUpdate: the edit replaces the message
			err = c.reply(r.msg)
		} else {
			err = c.update(r.msg)
		}
		if err != nil {
			return err
		}
		return c.sendMore(r.more)
	case respondModal:
		return c.modal(r.modal)
	case respondChoices:
		choices := r.choices
		if choices == nil {
			choices = []*discordgo.ApplicationCommandOptionChoice{}
		}
		c.acked = true
		return c.respond(&discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: choices},
		})
	}
	return nil
}

// message is what a reply or follow-up carries.
type message struct {
	ephemeral  bool
	content    string
	embeds     []*discordgo.MessageEmbed
	components []discordgo.MessageComponent
	files      []*discordgo.File
}

// noPings is set on every message: quiz text is written by users, and no
// user-written text may ping anyone.
func noPings() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// payload returns m's parts as Discord wants them: content within its limit,
// and non-nil embeds and components (nil would be sent as null, which
// removes nothing and means nothing).
func (m message) payload() (string, []*discordgo.MessageEmbed, []discordgo.MessageComponent) {
	embeds, comps := m.embeds, m.components
	if embeds == nil {
		embeds = []*discordgo.MessageEmbed{}
	}
	if comps == nil {
		comps = []discordgo.MessageComponent{}
	}
	return truncate(m.content, 2000), embeds, comps
}

// deferReply acknowledges now and promises a reply later (edit of @original).
func (c *call) deferReply(ephemeral bool) error {
	if c.acked {
		return nil
	}
	var flags discordgo.MessageFlags
	if ephemeral {
		flags = discordgo.MessageFlagsEphemeral
	}
	err := c.respond(&discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: flags, AllowedMentions: noPings()},
	})
	if err != nil {
		return fmt.Errorf("defer reply: %w", err)
	}
	c.acked = true
	return nil
}

// deferUpdate acknowledges a component now and promises an edit of its
// message later (type 6); reply then edits that message.
func (c *call) deferUpdate() error {
	err := c.respond(&discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredMessageUpdate,
	})
	if err != nil {
		return fmt.Errorf("defer update: %w", err)
	}
	c.acked, c.deferredUpdate = true, true
	return nil
}

// reply sends m as the interaction's response: the initial response, or an
// edit of the deferred one. Ephemerality of a deferred reply was fixed when
// it was deferred.
func (c *call) reply(m message) error {
	if c.acked {
		if err := c.edit(m); err != nil {
			return err
		}
		c.replied = true
		return nil
	}
	content, embeds, comps := m.payload()
	var flags discordgo.MessageFlags
	if m.ephemeral {
		flags = discordgo.MessageFlagsEphemeral
	}
	err := c.respond(&discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: content, Embeds: embeds, Components: comps,
			Files: m.files, Flags: flags, AllowedMentions: noPings()},
	})
	if err != nil {
		return fmt.Errorf("reply: %w", err)
	}
	c.acked, c.replied = true, true
	return nil
}

// edit replaces the interaction's reply (its @original) with m, after the
// reply went out: an after-step adding what took longer to make.
func (c *call) edit(m message) error {
	content, embeds, comps := m.payload()
	err := c.out.EditReply(c.ctx, c.i, &discordgo.WebhookEdit{
		Content: &content, Embeds: &embeds, Components: &comps, Files: m.files, AllowedMentions: noPings(),
	})
	if err != nil {
		return fmt.Errorf("edit reply: %w", err)
	}
	return nil
}

// modal opens a modal (type 9), the initial response of a command or a
// component.
func (c *call) modal(d *discordgo.InteractionResponseData) error {
	err := c.respond(&discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseModal, Data: d,
	})
	if err != nil {
		return fmt.Errorf("open modal: %w", err)
	}
	c.acked = true
	return nil
}

// update replaces the message that carries the component (type 7).
func (c *call) update(m message) error {
	content, embeds, comps := m.payload()
	err := c.respond(&discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{Content: content, Embeds: embeds,
			Components: comps, AllowedMentions: noPings()},
	})
	if err != nil {
		return fmt.Errorf("update message: %w", err)
	}
	c.acked, c.replied = true, true
	return nil
}

// sendMore sends ms as follow-ups of the interaction, one after the other
// so that they show in order, after its reply.
func (c *call) sendMore(ms []message) error {
	for i, m := range ms {
		content, embeds, comps := m.payload()
		var flags discordgo.MessageFlags
		if m.ephemeral {
			flags = discordgo.MessageFlagsEphemeral
		}
		err := c.out.FollowUp(c.ctx, c.i, &discordgo.WebhookParams{Content: content, Embeds: embeds, Components: comps,
			Files: m.files, Flags: flags, AllowedMentions: noPings()})
		if err != nil {
			return fmt.Errorf("follow-up %d of %d: %w", i+1, len(ms), err)
		}
	}
	return nil
}

// fail tells the member something went wrong, in whatever way is still open.
func (c *call) fail(text string) {
	if c.i.Type == discordgo.InteractionApplicationCommandAutocomplete {
		_ = c.respond(&discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}},
		})
		return
	}
	if c.replied || c.deferredUpdate {
		// The reply is out, or the message clicked is still what the
		// member works in (a mock exam's question, a list's page): a
		// follow-up carries the message and leaves it as it is.
		_ = c.out.FollowUp(c.ctx, c.i, &discordgo.WebhookParams{
			Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noPings(),
		})
		return
	}
	_ = c.reply(message{ephemeral: true, content: text})
}

// respond sends the interaction's initial response.
func (c *call) respond(r *discordgo.InteractionResponse) error { return c.out.Respond(c.ctx, c.i, r) }

// text is the value of the text input id of a submitted form, or "".
func (c *call) text(id string) string {
	for _, r := range c.inputs {
		row, ok := r.(*discordgo.ActionsRow)
		if !ok || row == nil {
			continue
		}
		for _, k := range row.Components {
			if in, ok := k.(*discordgo.TextInput); ok && in != nil && in.CustomID == id {
				return in.Value
			}
		}
	}
	return ""
}

// formatID is an ID in decimal, as Discord and custom IDs write it.
func formatID[T ~uint64](id T) string { return strconv.FormatUint(uint64(id), 10) }
