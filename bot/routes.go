package bot

// This file is the interaction table: every slash command quizhost answers
// with its options, their autocomplete, who may use it and how it is
// acknowledged, and every button, select menu and modal with its custom-ID
// kind. The commands registered, the dispatch of every interaction, the
// Manage Server checks, the autocomplete and the custom-ID codec are all
// built from it (table.go, dispatch.go, customid.go), so each name is
// written once. A new command with a button and a form is a route here
// and its feature file.

import (
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// The custom-ID kinds, each as its pattern (see idKind): the prefix on the
// wire, then its fields. These are sent to Discord and come back with the
// clicks on old messages: a prefix keeps its shape for good.
const (
	kindAnswer       idKind = "a1:<post>"                           // the answer select of a post
	kindReport       idKind = "rp1:<post>"                          // the Report button of a revealed post
	kindReportModal  idKind = "rm1:<post>"                          // the report form of a post
	kindBoard        idKind = "lb1:<period>:<ranking>:<page>"       // leaderboard paging and ranking
	kindReviewAnswer idKind = "rv1:<review>"                        // the answer select of a question in /quiz review
	kindReviewNext   idKind = "rn1:<next|stop>"                     // the buttons after a graded review question
	kindDrillAnswer  idKind = "dq1:<review>"                        // the answer select of a question in /quiz drill
	kindDrillNext    idKind = "dn1:<next|stop>"                     // the buttons after a graded drill question, before they named it
	kindDrillStep    idKind = "dn2:<next|stop>:<review>"            // Next and Stop of a drill question, which they name
	kindPasteModal   idKind = "pm1:<draft>"                         // the paste form of a draft (/quizadmin add, /quiz suggest)
	kindDraftButton  idKind = "pd1:<add|cancel|fix>:<draft>"        // a draft's preview buttons
	kindSuggestion   idKind = "sg1:<approve|reject|next>:<draft>"   // the review of a queued suggestion
	kindReportClose  idKind = "rc1:<report>"                        // the Close button of an open report
	kindConfirm      idKind = "cf1:<confirm|cancel>:<confirmation>" // the buttons of a prompt to confirm
	// A mock exam's question: its answer select, and its buttons (page is
	// the question shown; end and resume are the prompt to finish's);
	// then its result's pages (page is the page to show).
	kindMockAnswer idKind = "ma1:<mock>:<page>"
	kindMockButton idKind = "mb1:<back|next|flag|finish|end|resume>:<mock>:<page>"
	kindMockResult idKind = "mr1:<back|next|top>:<mock>:<page>"
	// /quizadmin insights: a list's paging, an entry's Show, Regrade… and
	// Dismiss (s, r, d; with the page it was on), and the regrade form.
	kindInsights    idKind = "in1:<sort>:<page>:<bank>"
	kindInsight     idKind = "iq1:<s|r|d>:<question>:<sort>:<page>:<bank>"
	kindRegradeForm idKind = "ik1:<question>"
)

// commandGroups describes the top-level commands and the subcommand
// groups that the routes' command paths go through.
func commandGroups() map[string]string {
	return map[string]string{
		"quiz":               "Study-group quizzes",
		"quiz misses":        "The questions you missed",
		"quizadmin":          "Configure quizhost for this server",
		"quizadmin daily":    "The daily quiz",
		"quizadmin question": "Single questions",
		"quizadmin bank":     "Imported question banks",
	}
}

// routes is quizhost's interaction table, in the order Discord lists the
// commands. Command names, option names and types are an interface that
// study groups' docs rely on: change them only on purpose.
func routes() []route {
	one, minMinutes, zero := 1, 1.0, 0.0
	str := func(name, desc string, required bool) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: name, Description: desc, Required: required, MinLength: &one, MaxLength: 100}
	}
	periods := []*discordgo.ApplicationCommandOptionChoice{
		{Name: "today", Value: "day"}, {Name: "this week", Value: "week"},
		{Name: "this month", Value: "month"}, {Name: "all time", Value: "all"},
	}
	paste := func(kind questions.DraftKind) handler {
		return func(b *Bot, c *call, opts options) (response, error) { return b.openPaste(c, opts, kind) }
	}
	admin := access{managersOnly: always} // "You need the Manage Server permission to use /quizadmin."
	return []route{
		{command: "quiz ask", desc: "Post a question in this channel", handle: (*Bot).ask, ack: ackDeferReply,
			options: opts(
				str("bank", "Question bank to draw from (default: every bank)", false),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "minutes", Description: "Minutes the question stays open (default: the server's setting)",
					MinValue: &minMinutes, MaxValue: 10080}),
			suggest: map[string]suggester{"bank": suggestBanks(false)},
			// The question posted (by the daily quiz too): its select,
			// then once revealed its Report button and form.
			components: []component{
				{kind: kindAnswer, handle: (*Bot).answer, ack: ackDeferIfLate},
				{kind: kindReport, handle: (*Bot).reportOpen},
			},
			modals: []component{{kind: kindReportModal, handle: (*Bot).reportSubmit}}},
		{command: "quiz leaderboard", desc: "Top members by points", handle: (*Bot).leaderboard,
			options: opts(&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
				Name: "period", Description: "Which period (default: all time)", Choices: periods}),
			components: []component{{kind: kindBoard, handle: (*Bot).boardPage}}},
		{command: "quiz stats", desc: "Answers, accuracy, streaks and weak spots", handle: (*Bot).stats,
			options: opts(&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser,
				Name: "member", Description: "Whose stats (default: yours)"})},
		{command: "quiz banks", desc: "The question banks this server can use", handle: (*Bot).banksCmd},
		{command: "quiz suggest", desc: "Suggest questions for this server's banks (an admin reviews them)",
			handle:  paste(questions.DraftSuggestion), // its form and buttons: the paste drafts' below
			options: opts(str("bank", "Bank to suggest them for (default: the bank the text names)", false)),
			suggest: map[string]suggester{"bank": suggestBanks(true)}},
		{command: "quiz review", desc: "Review your due questions privately, the ones you missed first", handle: (*Bot).review,
			components: []component{
				{kind: kindReviewAnswer, handle: (*Bot).reviewAnswer},
				{kind: kindReviewNext, handle: (*Bot).reviewNext},
			}},
		{command: "quiz drill", desc: "Practise a topic privately: your misses first, then new questions, then a few you know",
			handle: (*Bot).drill,
			options: opts(
				str("topic", "Topic, a tag of the questions (default: your weakest)", false),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "count", Description: fmt.Sprintf("Questions (default %d)", questions.DrillSize),
					MinValue: &minMinutes, MaxValue: questions.MaxDrillSize}),
			suggest: map[string]suggester{"topic": suggestTopics},
			components: []component{
				{kind: kindDrillAnswer, handle: (*Bot).drillAnswer},
				{kind: kindDrillNext, handle: (*Bot).drillNext},
				{kind: kindDrillStep, handle: (*Bot).drillNext},
			}},
		{command: "quiz misses export", desc: "Your missed questions as a file to import into Anki (only you see it)",
			handle: (*Bot).missesExport, ack: ackDeferReply},
		{command: "quiz mock", desc: "Sit a timed mock exam privately: the exam's length, pass mark and domains", handle: (*Bot).mock,
			ack: ackDeferReply,
			options: opts(
				str("bank", "The bank (default: your exam's, or the server's only one)", false),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "questions", Description: "How many questions (default: the exam's, else up to 60)", MinValue: &minMinutes, MaxValue: questions.MaxExamQuestions},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "minutes", Description: "How many minutes (default: the exam's, else 2 a question)", MinValue: &minMinutes, MaxValue: questions.MaxExamMinutes}),
			suggest: map[string]suggester{"bank": suggestBanks(false)},
			// Each click is a new interaction, answered through its own
			// token (an attempt outlasts the 15 minutes of the first's).
			components: []component{
				{kind: kindMockAnswer, handle: (*Bot).mockAnswer, ack: ackDeferUpdate},
				{kind: kindMockButton, handle: (*Bot).mockButton, ack: ackDeferUpdate},
				{kind: kindMockResult, handle: (*Bot).mockResultPage, ack: ackDeferUpdate},
			}},
		{command: "quiz exam", desc: "Set your exam date: /quiz stats then shows how ready you are", handle: (*Bot).exam,
			options: opts(
				str("date", "The exam date, YYYY-MM-DD (e.g. 2026-06-30)", true),
				str("bank", "The bank the exam is about (default: every bank the server draws from)", false)),
			suggest: map[string]suggester{"bank": suggestBanks(false)}},

		{command: "quizadmin close", desc: "Close the open questions in this channel now", handle: (*Bot).closeCmd,
			access: admin, ack: ackDeferReply},
		{command: "quizadmin daily set", desc: "Post questions every day at a local time", handle: (*Bot).dailySet, access: admin,
			options: opts(
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionChannel,
					Name: "channel", Description: "Where to post", Required: true,
					ChannelTypes: []discordgo.ChannelType{discordgo.ChannelTypeGuildText}},
				str("time", "Local time, HH:MM (24 h), e.g. 08:30", true),
				str("timezone", "IANA time zone, e.g. Europe/Berlin", true),
				str("bank", "Question bank (default: every bank)", false),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "count", Description: "Questions per day (default 1)", MinValue: &minMinutes, MaxValue: 10}),
			suggest: map[string]suggester{"timezone": suggestZones, "bank": suggestBanks(false)}},
		{command: "quizadmin daily off", desc: "Stop the daily quiz", handle: (*Bot).dailyOff, access: admin},
		{command: "quizadmin daily status", desc: "Show the daily schedule", handle: (*Bot).dailyStatus, access: admin},
		{command: "quizadmin settings", desc: "Per-server choices", handle: (*Bot).settingsCmd, access: admin,
			ack: ackDeferReply, // a new time zone recounts the scores
			options: opts(
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
				str("banks", "Banks /quiz ask and the daily draw from: comma-separated names, or \"all\"", false),
				str("timezone", "IANA time zone for days, weeks and streaks", false),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "daily_close_hours", Description: "Close daily questions after N hours (0: when the next ones post)",
					MaxValue: 168}),
			suggest: map[string]suggester{"timezone": suggestZones}},
		{command: "quizadmin import", desc: "Import bank files (text, Aiken, YAML, JSON, GIFT, CSV, TSV; 1 MiB each): questions merge in",
			handle: (*Bot).importCmd, access: admin, ack: ackDeferReply, options: importOptions(str)},
		{command: "quizadmin add", desc: "Paste questions (exam text, a practice site's, Aiken, spreadsheet cells), preview, then add",
			handle: paste(questions.DraftPaste), access: admin, // its form and buttons: the paste drafts' below
			options: opts(str("bank", "Bank to add them to (default: the bank the text names)", false)),
			suggest: map[string]suggester{"bank": suggestBanks(true)}},
		{command: "quizadmin suggestions", desc: "Review the questions members suggested", handle: (*Bot).suggestionsCmd, access: admin,
			components: []component{{kind: kindSuggestion, handle: (*Bot).suggestionButton, access: managers("review suggestions")}}},
		{command: "quizadmin reports", desc: "Members' reports of wrong questions, with Close buttons", handle: (*Bot).reportsCmd, access: admin,
			components: []component{{kind: kindReportClose, handle: (*Bot).reportClose, access: managers("close reports")}}},
		{command: "quizadmin insights", desc: "What members' answers say about the questions: suspect keys first (only to you)",
			handle: (*Bot).insightsCmd, access: admin,
			options: opts(
				str("bank", "Bank (default: every bank)", false),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
					Name: "sort", Description: "After the flagged questions, order by (default: facility)",
					Choices: []*discordgo.ApplicationCommandOptionChoice{
						{Name: "facility (share right), lowest first", Value: "facility"},
						{Name: "discrimination, lowest first", Value: "discrimination"}}}),
			suggest: map[string]suggester{"bank": suggestBanks(false)},
			// Show and Dismiss answer at once, Regrade… opens the form,
			// whose regrade can outlast Discord's 3 s.
			components: []component{
				{kind: kindInsights, handle: (*Bot).insightsPage, access: managers("use insights")},
				{kind: kindInsight, handle: (*Bot).insightButton, access: managers("use insights")},
			},
			modals: []component{{kind: kindRegradeForm, handle: (*Bot).regradeSubmit, ack: ackDeferReply, access: managers("regrade")}}},
		{command: "quizadmin regrade", desc: "Grade every stored answer to a question again against its current answer",
			handle: (*Bot).regrade, access: admin, ack: ackDeferReply,
			options: opts(str("id", "Question (type to search)", true)),
			suggest: map[string]suggester{"id": suggestQuestions(false)}},
		{command: "quizadmin question show", desc: "Show a question as posted, with its answer (only to you)", handle: (*Bot).questionShow,
			access: admin, options: opts(str("id", "Question (type to search)", true)),
			suggest: map[string]suggester{"id": suggestQuestions(false)}},
		{command: "quizadmin question remove", desc: "Remove a question from an imported bank (asks to confirm; undo for 7 days)", handle: (*Bot).questionRemove,
			access: admin, options: opts(str("id", "Question (type to search)", true)),
			suggest: map[string]suggester{"id": suggestQuestions(true)}}, // only imported banks can lose questions
		{command: "quizadmin bank remove", desc: "Remove an imported bank (asks to confirm; undo for 7 days)", handle: (*Bot).bankRemove,
			access: admin, options: opts(str("name", "Bank name", true)),
			suggest: map[string]suggester{"name": suggestBanks(true)}},
		{command: "quizadmin bank undo", desc: "Restore a bank as it was before its last remove, replace or question remove",
			handle: (*Bot).bankUndo, access: admin, options: opts(str("name", "Bank name (banks with a kept version)", true)),
			suggest: map[string]suggester{"name": suggestUndo}},
		{command: "quizadmin bank exam", desc: "A bank's mock exam: questions, minutes, pass mark (none given: show them)", handle: (*Bot).bankExam,
			access: admin, options: opts(
				str("bank", "Bank name", true),
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "questions", Description: "Questions an attempt has (0: the bank file's, else the bank up to 60)", MinValue: &zero, MaxValue: questions.MaxExamQuestions},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger,
					Name: "minutes", Description: "Minutes an attempt has (0: the bank file's, else 2 a question)", MinValue: &zero, MaxValue: questions.MaxExamMinutes},
				str("pass", "Pass mark: 70%, 700 of 100-1000, 700/1000, or 700 on the bank's scale; default: 70%", false)),
			suggest: map[string]suggester{"bank": suggestBanks(false)}},
		{command: "quizadmin bank export", desc: "Send an imported bank back as a file", handle: (*Bot).bankExport,
			access: admin, options: opts(str("name", "Bank name", true)),
			suggest: map[string]suggester{"name": suggestBanks(true)}},
		{command: "quizadmin reset", desc: "Reset scores for a new term (asks for confirmation)", handle: (*Bot).resetCmd, access: admin,
			options: opts(
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
					Name: "scope", Description: "Everyone or one member", Required: true,
					Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "all", Value: "all"}, {Name: "member", Value: "member"}}},
				&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser,
					Name: "member", Description: "The member, with scope member"})},

		// The paste drafts of /quizadmin add and /quiz suggest: the form,
		// and the buttons of its preview or problems. An admin's paste
		// needs Manage Server at each step; a member's suggestion does not.
		{components: []component{{kind: kindDraftButton, handle: (*Bot).draftButton, access: pasteAccess}},
			modals: []component{{kind: kindPasteModal, handle: (*Bot).pasteSubmit, access: pasteAccess}}},
		// The prompts to confirm of reset, bank remove, question remove and
		// import mode:replace: a confirmed change can outlast Discord's 3 s.
		{components: []component{{kind: kindConfirm, handle: (*Bot).confirmButton, ack: ackDeferUpdate,
			access: managers("confirm or cancel this. Nothing changed")}}},
	}
}

func opts(o ...*discordgo.ApplicationCommandOption) []*discordgo.ApplicationCommandOption { return o }
