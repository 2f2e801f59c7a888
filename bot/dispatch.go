package bot

import (
	"context"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
)

// onInteraction is the one entry point for interactions, each in a
// goroutine of its own once Run's handler (which the gateway's shards hand
// every interaction to) has counted it in for shutdown: it recovers
// panics, dispatches on the interaction type, sends the response, and
// turns a returned error into a short ephemeral message.
func (b *Bot) onInteraction(ctx context.Context, ic *discordgo.InteractionCreate, closing bool) {
	if ic == nil || ic.Interaction == nil {
		return
	}
	i := ic.Interaction
	c := &call{ctx: context.WithoutCancel(ctx), out: b.out, i: i, start: time.Now()}
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

// dispatch answers an interaction through the table (routes.go): by its
// type, then its command path or its custom ID's prefix, to its route; it
// refuses a member who may not use the route, and runs the route's
// handler, acknowledging the interaction as the route says.
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
	c.member, c.manager = i.Member, isManager(i.Member)

	switch i.Type {
	case discordgo.InteractionApplicationCommandAutocomplete:
		return b.autocomplete(c, i.ApplicationCommandData())
	case discordgo.InteractionApplicationCommand:
		return b.command(c, i.ApplicationCommandData())
	case discordgo.InteractionModalSubmit:
		d := i.ModalSubmitData()
		comp, id, ok := b.table.component(d.CustomID, true)
		if !ok {
			return response{}, userErr("This form is no longer in use. Start again with the command.")
		}
		c.inputs = d.Components
		return b.run(c, comp.access, id, comp.ack, func() (response, error) { return comp.handle(b, c, id) })
	default:
		d := i.MessageComponentData()
		comp, id, ok := b.table.component(d.CustomID, false)
		if !ok {
			return response{}, userErr("This quiz has ended or this control is no longer in use.")
		}
		c.values = d.Values
		return b.run(c, comp.access, id, comp.ack, func() (response, error) { return comp.handle(b, c, id) })
	}
}

// command routes a slash command to its handler.
func (b *Bot) command(c *call, d discordgo.ApplicationCommandInteractionData) (response, error) {
	path, opts := subcommand(d.Options)
	r, ok := b.table.commands[strings.TrimSpace(d.Name+" "+path)]
	if !ok {
		return response{}, userErr("I don't know that command. It may have been removed; try again in a minute.")
	}
	c.resolved = d.Resolved
	a := r.access
	if a.to == "" {
		a.to = "use /" + d.Name
	}
	return b.run(c, a, componentID{}, r.ack, func() (response, error) { return r.handle(b, c, opts) })
}

// autocomplete answers an option's autocomplete with its route's
// suggester: no choices for an option without one, and none for a member
// who may not use the command.
func (b *Bot) autocomplete(c *call, d discordgo.ApplicationCommandInteractionData) (response, error) {
	path, opts := subcommand(d.Options)
	r, ok := b.table.commands[strings.TrimSpace(d.Name+" "+path)]
	f := opts.focused()
	if !ok || f == nil || r.suggest[f.Name] == nil || !b.allowed(c, r.access, componentID{}) {
		return asChoices(nil), nil
	}
	typed, _ := f.Value.(string)
	choices, err := r.suggest[f.Name](b, c, strings.ToLower(strings.TrimSpace(typed)))
	if err != nil {
		return response{}, err
	}
	return asChoices(choices), nil
}

// allowed reports whether the member may use an interaction of access a
// (id: its custom ID's fields, if any).
func (b *Bot) allowed(c *call, a access, id componentID) bool {
	return c.manager || a.managersOnly == nil || !a.managersOnly(b, c, id)
}

// run checks that the member may use the interaction (access a, for the
// custom ID id), then runs handle, acknowledging the interaction as how
// says (see ack).
func (b *Bot) run(c *call, a access, id componentID, how ack, handle func() (response, error)) (response, error) {
	if !b.allowed(c, a, id) {
		return response{}, userErr("You need the Manage Server permission to %s.", a.to)
	}
	if how == ackDeferIfLate {
		return b.inTime(c, handle)
	}
	r, err := handle()
	if err != nil || r.kind != respondLater {
		return r, err
	}
	switch how {
	case ackNow: // the table says the handler answers at once: no deferral
	case ackDeferReply:
		err = c.deferReply(true)
	case ackDeferUpdate:
		err = c.deferUpdate()
	}
	if err != nil {
		return response{}, err
	}
	return r.then()
}

// inTime runs handle; should it still be at work Config.AnswerAckWait
// after the interaction arrived (Discord wants a response within 3 s), a
// private deferral goes out meanwhile from a timer's goroutine, and the
// response then edits it. The deferral is not an acknowledgement of what
// handle does: the response is. A deferral that fails is returned once
// handle is done (whatever handle stored stays stored).
func (b *Bot) inTime(c *call, handle func() (response, error)) (response, error) {
	deferred := make(chan error, 1)
	late := time.AfterFunc(b.cfg.AnswerAckWait-time.Since(c.start), func() { deferred <- c.deferReply(true) })
	r, err := handle()
	if !late.Stop() {
		// The deferral started: wait for it, so that c is this goroutine's
		// alone again.
		if derr := <-deferred; derr != nil {
			return response{}, derr
		}
	}
	return r, err
}
