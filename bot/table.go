package bot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// The interaction table's types, and what is built from it: the commands
// registered (commands), the lookup of every interaction's route by
// command path or custom-ID prefix (newTable), and each route's access
// and acknowledgement (dispatch.go). The table itself is routes.go.

// route is one entry of the interaction table: a slash command and what
// answers it, with the components and modals of the messages it sends. A
// route without a command holds components that several commands send
// (the prompts to confirm, the paste drafts).
type route struct {
	// command is the slash command's path: "quiz ask", "quizadmin daily
	// set" (its command and group are described in commandGroups).
	command string
	desc    string
	options []*discordgo.ApplicationCommandOption
	// suggest holds the autocomplete of options, by option name: those
	// options are registered with autocomplete on.
	suggest map[string]suggester
	handle  handler
	access  access
	ack     ack
	// components are the buttons and select menus of the messages the
	// route sends; modals, the forms it opens.
	components []component
	modals     []component
}

// component is a button, select menu or modal: its custom-ID kind, who may
// use it, how it is acknowledged and its handler.
type component struct {
	kind   idKind
	handle componentHandler
	access access
	ack    ack

	placeholders []string // kind's, split once by newTable
}

// handler answers one slash command (opts are its value options) with the
// response to send.
type handler func(b *Bot, c *call, opts options) (response, error)

// componentHandler answers a click, a pick or a submitted form, its custom
// ID parsed (a select's values are c.values, a form's inputs c.text).
type componentHandler func(b *Bot, c *call, id componentID) (response, error)

// suggester answers the autocomplete of an option with the choices for
// what the member typed (lower case, trimmed).
type suggester func(b *Bot, c *call, typed string) ([]*discordgo.ApplicationCommandOptionChoice, error)

// access is who may use an interaction: every member (the zero value), or
// only managers, members with Manage Server or Administrator. A command's
// default_member_permissions is only a default that a server's admins can
// change, and a component outlives the command that sent it, so Manage
// Server is checked at every interaction (dispatch.go), and for a
// command's autocomplete too (it answers nothing).
type access struct {
	// managersOnly says whether the interaction needs Manage Server; nil
	// means it never does. Most routes use always; a route whose rule
	// depends on what the custom ID names reads it (a paste draft's form
	// and buttons: an admin's paste needs it, a suggestion does not).
	managersOnly func(b *Bot, c *call, id componentID) bool
	// to is what the refusal says the member cannot do: "You need the
	// Manage Server permission to <to>." A command's default is "use
	// /<command>".
	to string
}

// managers is the access of what needs Manage Server always.
func managers(to string) access { return access{managersOnly: always, to: to} }

func always(*Bot, *call, componentID) bool { return true }

// admin reports whether the access can ever need Manage Server.
func (a access) admin() bool { return a.managersOnly != nil }

// ack is how an interaction is acknowledged: Discord wants its first
// response within 3 s of its arrival.
type ack int

const (
	// ackNow: the handler's response is the first response; the handler
	// answers within Discord's 3 s.
	ackNow ack = iota
	// ackDeferReply: work that can take longer. The handler answers at
	// once (a refusal, say) or returns later(f): then a private deferred
	// reply ("thinking…") goes first, and f's response edits it.
	ackDeferReply
	// ackDeferUpdate: ackDeferReply for a component whose answer replaces
	// its message: a deferred update of the message goes first.
	ackDeferUpdate
	// ackDeferIfLate: the handler's response is the first response, unless
	// the handler is still at work Config.AnswerAckWait after the
	// interaction arrived: then a private deferred reply goes out
	// meanwhile, and the response edits it.
	ackDeferIfLate
)

// table is the interaction table resolved for dispatch.
type table struct {
	routes     []route
	commands   map[string]*route     // by command path
	components map[string]*component // buttons and menus, by custom-ID prefix
	modals     map[string]*component // forms, by custom-ID prefix
}

// newTable checks rs and indexes it; the table keeps rs (routes() makes a
// new one each call). Command paths and custom-ID prefixes are each
// declared once; every command goes through a described command and
// group; suggestions are for free string options; ackDeferUpdate is for
// buttons and menus only; a refusal says what it refuses.
func newTable(rs []route) (*table, error) {
	t := &table{routes: rs, commands: map[string]*route{}, components: map[string]*component{}, modals: map[string]*component{}}
	groups := commandGroups()
	prefixes := map[string]idKind{}
	for i := range rs {
		r := &t.routes[i]
		if r.command != "" {
			f := strings.Fields(r.command)
			if len(f) < 2 || len(f) > 3 || strings.Join(f, " ") != r.command {
				return nil, fmt.Errorf("route %q: a command path is a command, maybe a group, and a subcommand", r.command)
			}
			for j := 1; j < len(f); j++ {
				if _, ok := groups[strings.Join(f[:j], " ")]; !ok {
					return nil, fmt.Errorf("route %q: %q is not in commandGroups", r.command, strings.Join(f[:j], " "))
				}
			}
			if t.commands[r.command] != nil {
				return nil, fmt.Errorf("route %q declared twice", r.command)
			}
			if r.handle == nil || r.desc == "" {
				return nil, fmt.Errorf("route %q: no handler or description", r.command)
			}
			if r.ack == ackDeferUpdate {
				return nil, fmt.Errorf("route %q: a command has no message to update", r.command)
			}
			t.commands[r.command] = r
		} else if r.handle != nil || len(r.options) > 0 || len(r.suggest) > 0 {
			return nil, fmt.Errorf("route of %v: a handler or options without a command", r.components)
		}
		for name := range r.suggest {
			i := slices.IndexFunc(r.options, func(o *discordgo.ApplicationCommandOption) bool { return o.Name == name })
			if i < 0 || r.options[i].Type != discordgo.ApplicationCommandOptionString || len(r.options[i].Choices) > 0 {
				return nil, fmt.Errorf("route %q: suggestions for %q, which is not a free string option", r.command, name)
			}
		}
		for _, set := range []struct {
			list  []component
			index map[string]*component
			modal bool
		}{{r.components, t.components, false}, {r.modals, t.modals, true}} {
			for j := range set.list {
				c := &set.list[j]
				if err := c.kind.check(); err != nil {
					return nil, fmt.Errorf("custom-ID kind %q: %w", c.kind, err)
				}
				if old, ok := prefixes[c.kind.prefix()]; ok {
					return nil, fmt.Errorf("custom-ID kinds %q and %q share their prefix", old, c.kind)
				}
				if c.handle == nil {
					return nil, fmt.Errorf("custom-ID kind %q: no handler", c.kind)
				}
				if c.access.admin() && c.access.to == "" {
					return nil, fmt.Errorf("custom-ID kind %q: a refusal that does not say what it refuses", c.kind)
				}
				if set.modal && c.ack == ackDeferUpdate {
					return nil, fmt.Errorf("custom-ID kind %q: a modal has no message to update", c.kind)
				}
				prefixes[c.kind.prefix()] = c.kind
				c.placeholders = c.kind.placeholders()
				set.index[c.kind.prefix()] = c
			}
		}
	}
	return t, nil
}

// component finds the route of a custom ID: a form's (modal) or a button's
// or menu's, and parses the ID. ok is false for an ID no route answers
// (another kind, an old version, a malformed field).
func (t *table) component(customID string, modal bool) (*component, componentID, bool) {
	prefix, fields, ok := splitCustomID(customID)
	if !ok {
		return nil, componentID{}, false
	}
	index := t.components
	if modal {
		index = t.modals
	}
	c := index[prefix]
	if c == nil {
		return nil, componentID{}, false
	}
	id, ok := c.kind.parse(c.placeholders, fields)
	if !ok {
		return nil, componentID{}, false
	}
	return c, id, true
}

// parseCustomID parses a custom ID of any kind of the table: a button's,
// a menu's or a form's.
func (t *table) parseCustomID(s string) (componentID, error) {
	if _, id, ok := t.component(s, false); ok {
		return id, nil
	}
	if _, id, ok := t.component(s, true); ok {
		return id, nil
	}
	return componentID{}, errBadCustomID
}

// applicationCommands is every application command of the table, registered in one
// bulk overwrite at start: the commands and groups of commandGroups, in
// the order the routes name them, each subcommand with its options. A
// command whose routes all need Manage Server is registered for it by
// default.
func (t *table) applicationCommands() []*discordgo.ApplicationCommand {
	guildOnly := &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	manage := int64(discordgo.PermissionManageGuild)
	groups := commandGroups()
	var out []*discordgo.ApplicationCommand
	top := map[string]*discordgo.ApplicationCommand{}
	admin := map[string]bool{}
	nested := map[string]*discordgo.ApplicationCommandOption{}
	for _, r := range t.routes {
		if r.command == "" {
			continue
		}
		f := strings.Fields(r.command)
		cmd := top[f[0]]
		if cmd == nil {
			cmd = &discordgo.ApplicationCommand{Name: f[0], Description: groups[f[0]], Contexts: guildOnly}
			top[f[0]] = cmd
			admin[f[0]] = true
			out = append(out, cmd)
		}
		admin[f[0]] = admin[f[0]] && r.access.admin()
		into := &cmd.Options
		if len(f) == 3 {
			g := nested[f[0]+" "+f[1]]
			if g == nil {
				g = &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommandGroup,
					Name: f[1], Description: groups[f[0]+" "+f[1]]}
				nested[f[0]+" "+f[1]] = g
				cmd.Options = append(cmd.Options, g)
			}
			into = &g.Options
		}
		var opts []*discordgo.ApplicationCommandOption
		for _, o := range r.options {
			o := *o
			o.Autocomplete = r.suggest[o.Name] != nil
			opts = append(opts, &o)
		}
		*into = append(*into, &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand,
			Name: f[len(f)-1], Description: r.desc, Options: opts})
	}
	for _, cmd := range out {
		if admin[cmd.Name] {
			cmd.DefaultMemberPermissions = &manage
		}
	}
	return out
}

// isManager reports whether the member has Manage Server or Administrator
// in this channel.
func isManager(m *discordgo.Member) bool {
	return m != nil && m.Permissions&(discordgo.PermissionManageGuild|discordgo.PermissionAdministrator) != 0
}
