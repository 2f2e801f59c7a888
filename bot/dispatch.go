package bot

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// call is one interaction being handled: the session, the interaction and
// whether its one initial response has gone out.
type call struct {
	ctx     context.Context
	s       *discordgo.Session
	i       *discordgo.Interaction
	guild   questions.GuildID
	channel questions.ChannelID
	user    questions.UserID
	member  *discordgo.Member
	start   time.Time // when the interaction arrived (Discord's 3 s run from about then)
	acked   bool      // initial response sent (deferred or final)
	replied bool      // the member has seen a reply (not just "thinking…")
}

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
			_ = c.reply(message{ephemeral: true, content: "quizhost is restarting; try again in a minute."})
		}
		return
	}
	log := b.log.With("interaction", i.ID, "type", int(i.Type), "guild", i.GuildID)
	defer func() {
		if r := recover(); r != nil {
			log.Error("handler panic", "panic", r, "stack", string(debug.Stack()))
			c.fail("Something went wrong on our side. Try again in a moment.")
		}
	}()
	err := b.dispatch(c)
	if err == nil {
		return
	}
	if msg, ok := isUser(err); ok {
		c.fail(msg)
		return
	}
	log.Error("interaction failed", "err", redact(err))
	c.fail("Something went wrong on our side. Try again in a moment.")
}

func (b *Bot) dispatch(c *call) error {
	i := c.i
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete,
		discordgo.InteractionMessageComponent, discordgo.InteractionModalSubmit:
	case 0: // discordgo could not decode the payload at all
		b.log.Warn("undecodable interaction: ignored")
		return nil
	default:
		return nil // pings
	}
	if i.Data == nil { // discordgo could not decode its data
		b.log.Warn("undecodable interaction: told it arrived garbled", "interaction", i.ID)
		return userErr("That request arrived garbled. Try again.")
	}
	if i.GuildID == "" || i.Member == nil || i.Member.User == nil {
		return userErr("quizhost works in servers, not in direct messages.")
	}
	var ok1, ok2, ok3 bool
	c.guild, ok1 = parseID[questions.GuildID](i.GuildID)
	c.channel, ok2 = parseID[questions.ChannelID](i.ChannelID)
	c.user, ok3 = parseID[questions.UserID](i.Member.User.ID)
	if !ok1 || !ok2 || !ok3 {
		return userErr("That request arrived garbled. Try again.")
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
		if err != nil || id.kind != kindModal {
			return userErr("This form is no longer in use. Start again with the command.")
		}
		return b.pasteSubmit(c, id, modalText(d.Components, pasteInputID))
	default:
		d := i.MessageComponentData()
		id, err := parseCustomID(d.CustomID)
		if err != nil {
			return userErr("This quiz has ended or this control is no longer in use.")
		}
		switch id.kind {
		case kindAnswer:
			return b.answer(c, id.post, d.Values)
		case kindBoard:
			return b.boardPage(c, id)
		case kindReset:
			return b.resetConfirm(c, id)
		case kindDraft:
			return b.draftButton(c, id)
		case kindReview:
			return b.reviewButton(c, id)
		}
		return userErr("This quiz has ended or this control is no longer in use.")
	}
}

// command routes a slash command to its handler.
func (b *Bot) command(c *call, d discordgo.ApplicationCommandInteractionData) error {
	path, opts := subcommand(d.Options)
	switch d.Name + " " + path {
	case "quiz ask":
		return b.ask(c, opts)
	case "quiz leaderboard":
		return b.leaderboard(c, opts)
	case "quiz stats":
		return b.stats(c, opts)
	case "quiz banks":
		return b.banksCmd(c)
	case "quiz suggest":
		return b.openPaste(c, opts, questions.DraftSuggestion)
	}
	if d.Name == "quizadmin" {
		if !isManager(c.member) {
			return userErr("You need the Manage Server permission to use /quizadmin.")
		}
		switch path {
		case "close":
			return b.closeCmd(c)
		case "daily set":
			return b.dailySet(c, opts, d.Resolved)
		case "daily off":
			return b.dailyOff(c)
		case "daily status":
			return b.dailyStatus(c)
		case "settings":
			return b.settingsCmd(c, opts)
		case "import":
			return b.importCmd(c, opts, d.Resolved)
		case "add":
			return b.openPaste(c, opts, questions.DraftPaste)
		case "suggestions":
			return b.suggestionsCmd(c)
		case "question show":
			return b.questionShow(c, opts)
		case "question remove":
			return b.questionRemove(c, opts)
		case "bank remove":
			return b.bankRemove(c, opts)
		case "bank export":
			return b.bankExport(c, opts)
		case "reset":
			return b.resetCmd(c, opts)
		}
	}
	return userErr("I don't know that command. It may have been removed; try again in a minute.")
}

// isManager reports whether the member may use /quizadmin: Manage Server or
// Administrator in this channel. default_member_permissions is only a
// default that server admins can override, so this is checked in code.
func isManager(m *discordgo.Member) bool {
	return m != nil && m.Permissions&(discordgo.PermissionManageGuild|discordgo.PermissionAdministrator) != 0
}

// subcommand flattens "group sub" into a path and returns the value options.
func subcommand(opts []*discordgo.ApplicationCommandInteractionDataOption) (string, options) {
	path := ""
	for len(opts) == 1 && opts[0] != nil &&
		(opts[0].Type == discordgo.ApplicationCommandOptionSubCommand || opts[0].Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
		if path != "" {
			path += " "
		}
		path += opts[0].Name
		opts = opts[0].Options
	}
	return path, options(opts)
}

// options reads value options without trusting their types: a mismatch
// reads as absent, never a panic.
type options []*discordgo.ApplicationCommandInteractionDataOption

func (o options) get(name string) *discordgo.ApplicationCommandInteractionDataOption {
	for _, x := range o {
		if x != nil && x.Name == name {
			return x
		}
	}
	return nil
}

func (o options) str(name string) (string, bool) {
	x := o.get(name)
	if x == nil {
		return "", false
	}
	v, ok := x.Value.(string)
	return v, ok
}

func (o options) int(name string) (int, bool) {
	x := o.get(name)
	if x == nil {
		return 0, false
	}
	v, ok := x.Value.(float64)
	if !ok || v != float64(int(v)) {
		return 0, false
	}
	return int(v), true
}

func (o options) bool(name string) (bool, bool) {
	x := o.get(name)
	if x == nil {
		return false, false
	}
	v, ok := x.Value.(bool)
	return v, ok
}

// snowflake reads a user, channel or attachment option's id.
func (o options) snowflake(name string) (uint64, bool) {
	s, ok := o.str(name)
	if !ok {
		return 0, false
	}
	return parseID[uint64](s)
}

// user reads a user option.
func (o options) user(name string) (questions.UserID, bool) {
	id, ok := o.snowflake(name)
	return questions.UserID(id), ok
}

// channel reads a channel option.
func (o options) channel(name string) (questions.ChannelID, bool) {
	id, ok := o.snowflake(name)
	return questions.ChannelID(id), ok
}

func (o options) focused() *discordgo.ApplicationCommandInteractionDataOption {
	for _, x := range o {
		if x != nil && x.Focused {
			return x
		}
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
	err := c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: flags, AllowedMentions: noPings()},
	}, discordgo.WithContext(c.ctx))
	if err != nil {
		return fmt.Errorf("defer reply: %w", err)
	}
	c.acked = true
	return nil
}

// deferUpdate acknowledges a component now and promises an edit of its
// message later (type 6); reply then edits that message.
func (c *call) deferUpdate() error {
	err := c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredMessageUpdate,
	}, discordgo.WithContext(c.ctx))
	if err != nil {
		return fmt.Errorf("defer update: %w", err)
	}
	c.acked = true
	return nil
}

// reply sends m as the interaction's response: the initial response, or an
// edit of the deferred one. Ephemerality of a deferred reply was fixed when
// it was deferred.
func (c *call) reply(m message) error {
	content, embeds, comps := m.payload()
	if c.acked {
		_, err := c.s.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{
			Content: &content, Embeds: &embeds, Components: &comps, Files: m.files, AllowedMentions: noPings(),
		}, discordgo.WithContext(c.ctx))
		if err != nil {
			return fmt.Errorf("edit reply: %w", err)
		}
		c.replied = true
		return nil
	}
	var flags discordgo.MessageFlags
	if m.ephemeral {
		flags = discordgo.MessageFlagsEphemeral
	}
	err := c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: content, Embeds: embeds, Components: comps,
			Files: m.files, Flags: flags, AllowedMentions: noPings()},
	}, discordgo.WithContext(c.ctx))
	if err != nil {
		return fmt.Errorf("reply: %w", err)
	}
	c.acked, c.replied = true, true
	return nil
}

// modal opens a modal (type 9), the initial response of a command or a
// component.
func (c *call) modal(d *discordgo.InteractionResponseData) error {
	err := c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseModal, Data: d,
	}, discordgo.WithContext(c.ctx))
	if err != nil {
		return fmt.Errorf("open modal: %w", err)
	}
	c.acked = true
	return nil
}

// update replaces the message that carries the component (type 7).
func (c *call) update(m message) error {
	content, embeds, comps := m.payload()
	err := c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{Content: content, Embeds: embeds,
			Components: comps, AllowedMentions: noPings()},
	}, discordgo.WithContext(c.ctx))
	if err != nil {
		return fmt.Errorf("update message: %w", err)
	}
	c.acked, c.replied = true, true
	return nil
}

// fail tells the member something went wrong, in whatever way is still open.
func (c *call) fail(text string) {
	if c.i.Type == discordgo.InteractionApplicationCommandAutocomplete {
		_ = c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}},
		})
		return
	}
	if c.replied {
		// The reply is out; a follow-up can still carry the message.
		_, _ = c.s.FollowupMessageCreate(c.i, true, &discordgo.WebhookParams{
			Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noPings(),
		})
		return
	}
	_ = c.reply(message{ephemeral: true, content: text})
}

func formatID[T ~uint64](id T) string { return strconv.FormatUint(uint64(id), 10) }

// tokenInURL matches the interaction token in the REST routes that carry
// one; an *url.Error from net/http quotes the whole URL.
var tokenInURL = regexp.MustCompile(`(/interactions/\d+/|/webhooks/\d+/)[^/?\s"]+`)

// redact is err's text without interaction tokens, for logs: a token
// answers for its interaction for 15 minutes.
func redact(err error) string {
	return tokenInURL.ReplaceAllString(err.Error(), "${1}<token>")
}

// storeErr turns a domain error into a message for the member, or passes
// the error on to be logged.
func storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, questions.ErrNotFound):
		return userErr("That question no longer exists.")
	case errors.Is(err, questions.ErrClosed):
		return userErr("This question is closed: answers are no longer taken.")
	case errors.Is(err, questions.ErrWrongGuild):
		return userErr("That question belongs to another server.")
	case errors.Is(err, questions.ErrBadChoice):
		return userErr("That answer doesn't match the options offered. Pick again from the menu.")
	}
	return err
}
