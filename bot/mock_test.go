package bot

import (
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// /quiz mock exists only in tests. It shows what a new command with a
// button and a form takes: its route and custom-ID kinds (for a real
// feature, an entry of routes() and two constants in routes.go), this
// file's handlers and renderers, and its test (mock_e2e_test.go). Nothing
// else changes: from the route, the table registers the command and its
// option's autocomplete, routes the two kinds, holds the form to Manage
// Server and acknowledges each interaction as declared.

const (
	kindMockButton idKind = "mk1:<next|note>:<page>" // Next and Note under a mock question
	kindMockNote   idKind = "mn1:<page>"             // the note form of a mock question
)

// mockRoute is /quiz mock's entry of the interaction table.
func mockRoute() route {
	return route{command: "quiz mock", desc: "Practise privately, one question after another", handle: (*Bot).mock,
		options: opts(&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: "bank", Description: "Question bank (default: the first)"}),
		suggest:    map[string]suggester{"bank": suggestBanks(false)},
		components: []component{{kind: kindMockButton, handle: (*Bot).mockButton}},
		modals: []component{{kind: kindMockNote, handle: (*Bot).mockNote, ack: ackDeferReply,
			access: managers("keep notes on questions")}},
	}
}

// mockInputID is the custom ID of the note form's text input.
const mockInputID = "note"

// mock shows the first question of the catalogue's first bank, privately
// (/quiz mock [bank]); a real feature would draw from the bank named.
func (b *Bot) mock(_ *call, opts options) (response, error) {
	if name, ok := opts.str("bank"); ok && name != "" {
		if _, ok := b.cfg.Catalogue.Bank(name); !ok {
			return response{}, userErr("There is no bank named %q here.", truncate(name, 100))
		}
	}
	return asReply(mockMessage(b.mockQuestion(0), 0)), nil
}

// mockQuestion is question page of the catalogue's first bank, round and
// round.
func (b *Bot) mockQuestion(page int) *questions.Question {
	qs := b.cfg.Catalogue.Banks()[0].Questions
	return &qs[page%len(qs)]
}

// mockButton shows the next question in place (Next) or opens the note
// form (Note).
func (b *Bot) mockButton(c *call, id componentID) (response, error) {
	if id.action == "note" {
		return asModal(mockNoteModal(id.page)), nil
	}
	return asUpdate(mockMessage(b.mockQuestion(id.page+1), id.page+1)), nil
}

// mockNote takes a note on a question (the form), after a deferral: a real
// feature would store it.
func (b *Bot) mockNote(c *call, id componentID) (response, error) {
	text := c.text(mockInputID)
	if text == "" {
		return response{}, userErr("Write the note, then send the form.")
	}
	return later(func() (response, error) {
		return asReply(message{ephemeral: true, content: fmt.Sprintf("📝 Noted on mock question %d: %s", id.page+1, text)}), nil
	}), nil
}

// mockMessage is mock question page (0-based), privately, with Next and
// Note.
func mockMessage(q *questions.Question, page int) message {
	return message{ephemeral: true, content: truncate(fmt.Sprintf("🧪 Mock question %d: %s", page+1, q.Stem), maxContent),
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Next", Style: discordgo.PrimaryButton, CustomID: kindMockButton.id(componentID{action: "next", page: page})},
			discordgo.Button{Label: "Note", Style: discordgo.SecondaryButton, CustomID: kindMockButton.id(componentID{action: "note", page: page})},
		}}}}
}

// mockNoteModal is the note form of mock question page.
func mockNoteModal(page int) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{CustomID: kindMockNote.id(componentID{page: page}), Title: "Note",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: mockInputID, Label: "Your note", Style: discordgo.TextInputParagraph, Required: true, MaxLength: 1000},
		}}}}
}
