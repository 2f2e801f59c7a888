package bot

// This file is the route table: every command, subcommand group and
// subcommand quizhost answers, with its options and handler. Both the
// registration (commands) and the dispatch (command) are built from it, so
// each name is written once.

import (
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// handler answers one subcommand (opts are its value options) with the
// response to send.
type handler func(b *Bot, c *call, opts options) (response, error)

// command is a top-level slash command.
type command struct {
	name, desc string
	// admin: registered for Manage Server by default, and checked in code
	// (server admins can change the default).
	admin bool
	subs  []sub
}

// sub is a subcommand (handle set) or a subcommand group (subs set).
type sub struct {
	name, desc string
	options    []*discordgo.ApplicationCommandOption
	subs       []sub
	handle     handler
}

// routes is quizhost's command tree. Names, option names and types are an
// interface that study groups' docs rely on: change them only on purpose.
func routes() []command {
	one, minMinutes, zero := 1, 1.0, 0.0
	str := func(name, desc string, required, auto bool) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: name, Description: desc, Required: required, Autocomplete: auto, MinLength: &one, MaxLength: 100}
	}
	periods := []*discordgo.ApplicationCommandOptionChoice{
		{Name: "today", Value: "day"}, {Name: "this week", Value: "week"},
		{Name: "this month", Value: "month"}, {Name: "all time", Value: "all"},
	}
	paste := func(kind questions.DraftKind) handler {
		return func(b *Bot, c *call, opts options) (response, error) { return b.openPaste(c, opts, kind) }
	}
	return []command{
		{name: "quiz", desc: "Study-group quizzes", subs: []sub{
			{name: "ask", desc: "Post a question in this channel", handle: (*Bot).ask, options: opts(
				str("bank", "Question bank to draw from (default: every bank)", false, true),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "minutes", Description: "Minutes the question stays open (default: the server's setting)",
					MinValue: &minMinutes, MaxValue: 10080})},
			{name: "leaderboard", desc: "Top members by points", handle: (*Bot).leaderboard, options: opts(
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
					Name: "period", Description: "Which period (default: all time)", Choices: periods})},
			{name: "stats", desc: "Answers, accuracy, streaks and weak spots", handle: (*Bot).stats, options: opts(
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser,
					Name: "member", Description: "Whose stats (default: yours)"})},
			{name: "banks", desc: "The question banks this server can use", handle: (*Bot).banksCmd},
			{name: "suggest", desc: "Suggest questions for this server's banks (an admin reviews them)",
				handle: paste(questions.DraftSuggestion), options: opts(
					str("bank", "Bank to suggest them for (default: the bank the text names)", false, true))},
			{name: "review", desc: "Review your due questions privately, the ones you missed first", handle: (*Bot).review},
			{name: "exam", desc: "Set your exam date: /quiz stats then shows how ready you are", handle: (*Bot).exam, options: opts(
				str("date", "The exam date, YYYY-MM-DD (e.g. 2026-06-30)", true, false),
				str("bank", "The bank the exam is about (default: every bank the server draws from)", false, true))},
		}},
		{name: "quizadmin", desc: "Configure quizhost for this server", admin: true, subs: []sub{
			{name: "close", desc: "Close the open questions in this channel now", handle: (*Bot).closeCmd},
			{name: "daily", desc: "The daily quiz", subs: []sub{
				{name: "set", desc: "Post questions every day at a local time", handle: (*Bot).dailySet, options: opts(
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionChannel,
						Name: "channel", Description: "Where to post", Required: true,
						ChannelTypes: []discordgo.ChannelType{discordgo.ChannelTypeGuildText}},
					str("time", "Local time, HH:MM (24 h), e.g. 08:30", true, false),
					str("timezone", "IANA time zone, e.g. Europe/Berlin", true, true),
					str("bank", "Question bank (default: every bank)", false, true),
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
						Name: "count", Description: "Questions per day (default 1)", MinValue: &minMinutes, MaxValue: 10})},
				{name: "off", desc: "Stop the daily quiz", handle: (*Bot).dailyOff},
				{name: "status", desc: "Show the daily schedule", handle: (*Bot).dailyStatus},
			}},
			{name: "settings", desc: "Per-server choices", handle: (*Bot).settingsCmd, options: opts(
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionBoolean,
					Name: "reveal_on_answer", Description: "Show the answer and explanation right after a member answers"},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "ask_minutes", Description: "How long /quiz ask stays open", MinValue: &minMinutes, MaxValue: 10080},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "ask_cooldown_seconds", Description: "Least time between two of a member's /quiz ask (0: none; admins exempt)",
					MinValue: &zero, MaxValue: maxAskCooldown},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "ask_max_open", Description: "Open questions in a channel beyond which members can't /quiz ask (0: no cap)",
					MinValue: &zero, MaxValue: maxAskMaxOpen},
				str("banks", "Banks /quiz ask and the daily draw from: comma-separated names, or \"all\"", false, false),
				str("timezone", "IANA time zone for days, weeks and streaks", false, true),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "daily_close_hours", Description: "Close daily questions after N hours (0: when the next ones post)",
					MaxValue: 168})},
			{name: "import", desc: "Import bank files (text, Aiken, YAML, JSON, GIFT, CSV, TSV; 1 MiB each): questions merge in",
				handle: (*Bot).importCmd, options: importOptions(str)},
			{name: "add", desc: "Paste questions (exam text, a practice site's, Aiken, spreadsheet cells), preview, then add",
				handle: paste(questions.DraftPaste), options: opts(
					str("bank", "Bank to add them to (default: the bank the text names)", false, true))},
			{name: "suggestions", desc: "Review the questions members suggested", handle: (*Bot).suggestionsCmd},
			{name: "reports", desc: "Members' reports of wrong questions, with Close buttons", handle: (*Bot).reportsCmd},
			{name: "insights", desc: "What members' answers say about the questions: suspect keys first (only to you)",
				handle: (*Bot).insightsCmd, options: opts(
					str("bank", "Bank (default: every bank)", false, true),
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
						Name: "sort", Description: "After the flagged questions, order by (default: facility)",
						Choices: []*discordgo.ApplicationCommandOptionChoice{
							{Name: "facility (share right), lowest first", Value: "facility"},
							{Name: "discrimination, lowest first", Value: "discrimination"}}})},
			{name: "regrade", desc: "Grade every stored answer to a question again against its current answer",
				handle: (*Bot).regrade, options: opts(str("id", "Question (type to search)", true, true))},
			{name: "question", desc: "Single questions", subs: []sub{
				{name: "show", desc: "Show a question as posted, with its answer (only to you)", handle: (*Bot).questionShow,
					options: opts(str("id", "Question (type to search)", true, true))},
				{name: "remove", desc: "Remove a question from an imported bank (asks to confirm; undo for 7 days)", handle: (*Bot).questionRemove,
					options: opts(str("id", "Question (type to search)", true, true))},
			}},
			{name: "bank", desc: "Imported question banks", subs: []sub{
				{name: "remove", desc: "Remove an imported bank (asks to confirm; undo for 7 days)", handle: (*Bot).bankRemove,
					options: opts(str("name", "Bank name", true, true))},
				{name: "undo", desc: "Restore a bank as it was before its last remove, replace or question remove",
					handle: (*Bot).bankUndo, options: opts(str("name", "Bank name (banks with a kept version)", true, true))},
				{name: "export", desc: "Send an imported bank back as a file", handle: (*Bot).bankExport,
					options: opts(str("name", "Bank name", true, true))},
			}},
			{name: "reset", desc: "Reset scores for a new term (asks for confirmation)", handle: (*Bot).resetCmd, options: opts(
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
					Name: "scope", Description: "Everyone or one member", Required: true,
					Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "all", Value: "all"}, {Name: "member", Value: "member"}}},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser,
					Name: "member", Description: "The member, with scope member"})},
		}},
	}
}

func opts(o ...*discordgo.ApplicationCommandOption) []*discordgo.ApplicationCommandOption { return o }

// commands is every application command quizhost registers, in one bulk
// overwrite at start, built from routes.
func commands() []*discordgo.ApplicationCommand {
	guildOnly := &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	manage := int64(discordgo.PermissionManageGuild)
	var out []*discordgo.ApplicationCommand
	for _, cmd := range routes() {
		ac := &discordgo.ApplicationCommand{Name: cmd.name, Description: cmd.desc, Contexts: guildOnly}
		if cmd.admin {
			ac.DefaultMemberPermissions = &manage
		}
		for _, s := range cmd.subs {
			ac.Options = append(ac.Options, s.option())
		}
		out = append(out, ac)
	}
	return out
}

// option is s as a registered option: a subcommand, or a group of them.
func (s sub) option() *discordgo.ApplicationCommandOption {
	if s.handle != nil {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand,
			Name: s.name, Description: s.desc, Options: s.options}
	}
	o := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommandGroup,
		Name: s.name, Description: s.desc}
	for _, g := range s.subs {
		o.Options = append(o.Options, g.option())
	}
	return o
}

// route is a resolved entry of the table.
type route struct {
	admin  bool
	handle handler
}

// routeTable maps "command sub" and "command group sub" to their route.
func routeTable() map[string]route {
	t := map[string]route{}
	var walk func(prefix string, admin bool, subs []sub)
	walk = func(prefix string, admin bool, subs []sub) {
		for _, s := range subs {
			if s.handle != nil {
				t[prefix+" "+s.name] = route{admin: admin, handle: s.handle}
			}
			walk(prefix+" "+s.name, admin, s.subs)
		}
	}
	for _, cmd := range routes() {
		walk(cmd.name, cmd.admin, cmd.subs)
	}
	return t
}

// command routes a slash command to its handler.
func (b *Bot) command(c *call, d discordgo.ApplicationCommandInteractionData) (response, error) {
	path, opts := subcommand(d.Options)
	r, ok := b.routes[strings.TrimSpace(d.Name+" "+path)]
	if !ok {
		return response{}, userErr("I don't know that command. It may have been removed; try again in a minute.")
	}
	if r.admin && !isManager(c.member) {
		return response{}, userErr("You need the Manage Server permission to use /%s.", d.Name)
	}
	c.resolved = d.Resolved
	return r.handle(b, c, opts)
}

// isManager reports whether the member may use /quizadmin: Manage Server or
// Administrator in this channel. default_member_permissions is only a
// default that server admins can override, so this is checked in code.
func isManager(m *discordgo.Member) bool {
	return m != nil && m.Permissions&(discordgo.PermissionManageGuild|discordgo.PermissionAdministrator) != 0
}
