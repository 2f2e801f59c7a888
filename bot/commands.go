package bot

import "github.com/bwmarrin/discordgo"

// commands is every application command quizhost registers, in one bulk
// overwrite at start. Names, option names and types are an interface that
// study groups' docs rely on: change them only on purpose.
func commands() []*discordgo.ApplicationCommand {
	guildOnly := &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	manage := int64(discordgo.PermissionManageGuild)
	one, minMinutes := 1, 1.0
	str := func(name, desc string, required, auto bool) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: name, Description: desc, Required: required, Autocomplete: auto, MinLength: &one, MaxLength: 100}
	}
	sub := func(name, desc string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand,
			Name: name, Description: desc, Options: opts}
	}
	group := func(name, desc string, subs ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommandGroup,
			Name: name, Description: desc, Options: subs}
	}
	periods := []*discordgo.ApplicationCommandOptionChoice{
		{Name: "today", Value: "day"}, {Name: "this week", Value: "week"},
		{Name: "this month", Value: "month"}, {Name: "all time", Value: "all"},
	}
	return []*discordgo.ApplicationCommand{
		{
			Name: "quiz", Description: "Study-group quizzes", Contexts: guildOnly,
			Options: []*discordgo.ApplicationCommandOption{
				sub("ask", "Post a question in this channel",
					str("bank", "Question bank to draw from (default: every bank)", false, true),
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
						Name: "minutes", Description: "Minutes the question stays open (default: the server's setting)",
						MinValue: &minMinutes, MaxValue: 10080}),
				sub("leaderboard", "Top members by points",
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
						Name: "period", Description: "Which period (default: all time)", Choices: periods}),
				sub("stats", "Answers, accuracy, streaks and weak spots",
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser,
						Name: "member", Description: "Whose stats (default: yours)"}),
				sub("banks", "The question banks this server can use"),
				sub("suggest", "Suggest questions for this server's banks (an admin reviews them)",
					str("bank", "Bank to suggest them for (default: the bank the text names)", false, true)),
			},
		},
		{
			Name: "quizadmin", Description: "Configure quizhost for this server", Contexts: guildOnly,
			DefaultMemberPermissions: &manage,
			Options: []*discordgo.ApplicationCommandOption{
				sub("close", "Close the open questions in this channel now"),
				group("daily", "The daily quiz",
					sub("set", "Post questions every day at a local time",
						&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionChannel,
							Name: "channel", Description: "Where to post", Required: true,
							ChannelTypes: []discordgo.ChannelType{discordgo.ChannelTypeGuildText}},
						str("time", "Local time, HH:MM (24 h), e.g. 08:30", true, false),
						str("timezone", "IANA time zone, e.g. Europe/Berlin", true, true),
						str("bank", "Question bank (default: every bank)", false, true),
						&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
							Name: "count", Description: "Questions per day (default 1)", MinValue: &minMinutes, MaxValue: 10}),
					sub("off", "Stop the daily quiz"),
					sub("status", "Show the daily schedule"),
				),
				sub("settings", "Per-server choices",
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionBoolean,
						Name: "reveal_on_answer", Description: "Show the answer and explanation right after a member answers"},
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
						Name: "ask_minutes", Description: "How long /quiz ask stays open", MinValue: &minMinutes, MaxValue: 10080},
					str("banks", "Banks /quiz ask and the daily draw from: comma-separated names, or \"all\"", false, false),
					str("timezone", "IANA time zone for days, weeks and streaks", false, true),
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
						Name: "daily_close_hours", Description: "Close daily questions after N hours (0: when the next ones post)",
						MaxValue: 168}),
				sub("import", "Import bank files (exam text, YAML, JSON or GIFT; at most 1 MiB each): their questions merge in", importOptions(str)...),
				sub("add", "Paste questions (exam text) in a form, see them as posted, then add them",
					str("bank", "Bank to add them to (default: the bank the text names)", false, true)),
				sub("suggestions", "Review the questions members suggested"),
				group("question", "Single questions",
					sub("show", "Show a question as posted, with its answer (only to you)", str("id", "Question (type to search)", true, true)),
					sub("remove", "Remove a question from an imported bank", str("id", "Question (type to search)", true, true)),
				),
				group("bank", "Imported question banks",
					sub("remove", "Remove an imported bank", str("name", "Bank name", true, true)),
					sub("export", "Send an imported bank back as a file", str("name", "Bank name", true, true)),
				),
				sub("reset", "Reset scores for a new term (asks for confirmation)",
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
						Name: "scope", Description: "Everyone or one member", Required: true,
						Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "all", Value: "all"}, {Name: "member", Value: "member"}}},
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser,
						Name: "member", Description: "The member, with scope member"}),
			},
		},
	}
}

// importOptions are /quizadmin import's options: file (required), file2 …
// file10, bank and mode.
func importOptions(str func(name, desc string, required, auto bool) *discordgo.ApplicationCommandOption) []*discordgo.ApplicationCommandOption {
	opts := []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionAttachment,
		Name: importFileOption(0), Description: "The bank file", Required: true}}
	for i := 1; i < maxImportFiles; i++ {
		opts = append(opts, &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionAttachment,
			Name: importFileOption(i), Description: "Another bank file"})
	}
	return append(opts,
		str("bank", "Bank to put every question in (default: the banks the files name)", false, false),
		&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: "mode", Description: "merge (default): add and update questions; replace: replace the whole bank",
			Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "merge", Value: "merge"}, {Name: "replace", Value: "replace"}}})
}
