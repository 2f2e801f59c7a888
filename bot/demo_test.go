package bot

import (
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// /quiz demo exists only in tests. It shows what a new command with a
// button and a form takes: its route and custom-ID kinds (for a real
// feature, an entry of routes() and two constants in routes.go), this
// file's handlers and renderers, and its test (demo_e2e_test.go). Nothing
// else changes: from the route, the table registers the command and its
// option's autocomplete, routes the two kinds, holds the form to Manage
// Server and acknowledges each interaction as declared.

const (
	kindDemoButton idKind = "dx1:<next|note>:<page>" // Next and Note under a demo question
	kindDemoNote   idKind = "dy1:<page>"             // the note form of a demo question
)

// demoRoute is /quiz demo's entry of the interaction table.
func demoRoute() route {
	return route{command: "quiz demo", desc: "Practise privately, one question after another", handle: (*Bot).demo,
		options: opts(&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: "bank", Description: "Question bank (default: the first)"}),
		suggest:    map[string]suggester{"bank": suggestBanks(false)},
		components: []component{{kind: kindDemoButton, handle: (*Bot).demoButton}},
		modals: []component{{kind: kindDemoNote, handle: (*Bot).demoNote, ack: ackDeferReply,
			access: managers("keep notes on questions")}},
	}
}

// demoInputID is the custom ID of the note form's text input.
const demoInputID = "note"

// demo shows the first question of the catalogue's first bank, privately
// (/quiz demo [bank]); a real feature would draw from the bank named.
func (b *Bot) demo(_ *call, opts options) (response, error) {
	if name, ok := opts.str("bank"); ok && name != "" {
		if _, ok := b.cfg.Catalogue.Bank(name); !ok {
			return response{}, userErr("There is no bank named %q here.", truncate(name, 100))
		}
	}
	return asReply(demoMessage(b.demoQuestion(0), 0)), nil
}

// demoQuestion is question page of the catalogue's first bank, round and
// round.
func (b *Bot) demoQuestion(page int) *questions.Question {
	qs := b.cfg.Catalogue.Banks()[0].Questions
	return &qs[page%len(qs)]
}

// demoButton shows the next question in place (Next) or opens the note
// form (Note).
func (b *Bot) demoButton(c *call, id componentID) (response, error) {
	if id.action == "note" {
		return asModal(demoNoteModal(id.page)), nil
	}
	return asUpdate(demoMessage(b.demoQuestion(id.page+1), id.page+1)), nil
}

// demoNote takes a note on a question (the form), after a deferral: a real
// feature would store it.
func (b *Bot) demoNote(c *call, id componentID) (response, error) {
	text := c.text(demoInputID)
	if text == "" {
		return response{}, userErr("Write the note, then send the form.")
	}
	return later(func() (response, error) {
		return asReply(message{ephemeral: true, content: fmt.Sprintf("📝 Noted on demo question %d: %s", id.page+1, text)}), nil
	}), nil
}

// demoMessage is demo question page (0-based), privately, with Next and
// Note.
func demoMessage(q *questions.Question, page int) message {
	return message{ephemeral: true, content: truncate(fmt.Sprintf("🧪 Demo question %d: %s", page+1, q.Stem), maxContent),
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Next", Style: discordgo.PrimaryButton, CustomID: kindDemoButton.id(componentID{action: "next", page: page})},
			discordgo.Button{Label: "Note", Style: discordgo.SecondaryButton, CustomID: kindDemoButton.id(componentID{action: "note", page: page})},
		}}}}
}

// demoNoteModal is the note form of demo question page.
func demoNoteModal(page int) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{CustomID: kindDemoNote.id(componentID{page: page}), Title: "Note",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: demoInputID, Label: "Your note", Style: discordgo.TextInputParagraph, Required: true, MaxLength: 1000},
		}}}}
}
