package bot

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Pasting questions in Discord: /quizadmin add and /quiz suggest open a
// modal; what is pasted is kept as a draft (a custom ID cannot hold 4 KB)
// and answered with a preview, or with its problems and a Fix it button
// that reopens the modal holding the text.

const (
	// draftTTL is how long an unfinished draft is kept.
	draftTTL = 24 * time.Hour
	// maxPaste is the most characters the modal's text input takes.
	maxPaste = 4000
	// previewQuestions is how many questions a preview shows (two embeds
	// each, of the ten a message may carry).
	previewQuestions = 5
	// pasteInputID is the custom ID of the modal's text input.
	pasteInputID = "text"
	// pastePath names pasted text in problems.
	pastePath = "pasted text"
)

// openPaste opens the paste modal for an admin's paste (/quizadmin add
// [bank]) or a member's suggestion (/quiz suggest [bank]). The target
// bank must be one the server can edit: an imported bank, or a new one.
func (b *Bot) openPaste(c *call, opts options, kind questions.DraftKind) (response, error) {
	bank, _ := opts.str("bank")
	bank = strings.TrimSpace(bank)
	if bank != "" {
		if cat, ok := b.cfg.Catalogue.Bank(bank); ok {
			return response{}, userErr("**%s** comes with this quizhost and can't be changed here. Pick one of this server's own banks, or name a new one.", cat.Name)
		}
		g, err := b.imported(c.guild)
		if err != nil {
			return response{}, err
		}
		if bk := findBank(g.banks, bank); bk != nil {
			bank = bk.Name
		}
	}
	now := b.clock.Now()
	if kind == questions.DraftSuggestion {
		if err := b.checkQueue(c.guild, c.user); err != nil {
			return response{}, err
		}
		if err := b.suggests.take(c, now); err != nil {
			return response{}, err
		}
	}
	d, err := b.store.SaveDraft(c.ctx, questions.Draft{GuildID: c.guild, UserID: c.user, Kind: kind, Bank: bank,
		CreatedAt: now, ExpiresAt: now.Add(draftTTL)})
	if err != nil {
		return response{}, fmt.Errorf("paste: %w", err)
	}
	return asModal(pasteModal(d, "")), nil
}

// checkQueue refuses a member who has questions.MaxQueuedSuggestions
// suggestions waiting, before the form opens. It is a courtesy: SaveDraft
// holds the cap in the transaction that queues.
func (b *Bot) checkQueue(guild questions.GuildID, user questions.UserID) error {
	queue, err := b.store.Suggestions(guild)
	if err != nil {
		return fmt.Errorf("suggestions: %w", err)
	}
	n := 0
	for _, d := range queue {
		if d.UserID == user {
			n++
		}
	}
	if n >= questions.MaxQueuedSuggestions {
		return queueFullErr()
	}
	return nil
}

// queueFullErr refuses a member's suggestion beyond the cap.
func queueFullErr() error {
	return userErr("You have %d suggestions waiting for review already. Once an admin has looked at them, suggest more.", questions.MaxQueuedSuggestions)
}

// pasteModal is the modal of a draft: one paragraph text input, holding
// text when reopened by Fix it.
func pasteModal(d questions.Draft, text string) *discordgo.InteractionResponseData {
	title := "Paste questions"
	if d.Kind == questions.DraftSuggestion {
		title = "Suggest questions"
	}
	if d.Bank != "" {
		title = truncate(title+" · "+d.Bank, 45)
	}
	return &discordgo.InteractionResponseData{
		CustomID: kindPasteModal.id(componentID{draft: d.ID}),
		Title:    title,
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: pasteInputID, Label: "Questions, as copied from the practice page",
				Style: discordgo.TextInputParagraph, Placeholder: "Exam text, a practice site's \"Question #12 Topic 1\" or Aiken: the question, options, answer",
				Required: true, MaxLength: maxPaste, Value: truncate(text, maxPaste)},
		}}},
	}
}

// pasteAccess is who may use a draft's form and buttons: the author of a
// member's suggestion, and the author of an admin's paste with Manage
// Server, checked again at each step (they may have lost it since).
var pasteAccess = access{managersOnly: (*Bot).ownAdminPaste, to: "add questions"}

// ownAdminPaste reports whether the draft id names is an admin's paste of
// the member. Any other (another's, one that can't be read) needs no
// Manage Server: ownDraft then says whose it is or what became of it.
func (b *Bot) ownAdminPaste(c *call, id componentID) bool {
	d, err := b.store.Draft(c.guild, id.draft)
	return err == nil && d.Kind == questions.DraftPaste && d.UserID == c.user
}

// ownDraft loads a draft for the member acting on it: its author.
func (b *Bot) ownDraft(c *call, id questions.DraftID) (questions.Draft, error) {
	d, err := b.store.Draft(c.guild, id)
	if errors.Is(err, questions.ErrNotFound) {
		return d, userErr("This paste is gone: it was added, cancelled, has expired or was replaced by a newer one (each member keeps their %d latest). Start again with `/quizadmin add` or `/quiz suggest`.",
			questions.MaxUnsentDrafts)
	}
	if err != nil {
		return d, fmt.Errorf("draft: %w", err)
	}
	if d.UserID != c.user {
		return d, userErr("This paste belongs to <@%d>; only they can change it.", d.UserID)
	}
	if d.Queued {
		return d, userErr("This suggestion is waiting for review already.")
	}
	return d, nil
}

// pasteSubmit takes the modal's text: it keeps it in the draft and answers
// with the preview (an admin's paste: Add or Cancel; a suggestion: queued
// for review), or with the problems and Fix it. Opened by Fix it, the
// answer replaces the message that carried the button.
func (b *Bot) pasteSubmit(c *call, id componentID) (response, error) {
	text := c.text(pasteInputID)
	d, err := b.ownDraft(c, id.draft)
	if err != nil {
		return response{}, err
	}
	if d.Kind == questions.DraftSuggestion {
		if err := b.suggests.take(c, b.clock.Now()); err != nil {
			return response{}, err
		}
	}
	d.Text = truncate(text, maxPaste)
	d.ExpiresAt = b.clock.Now().Add(draftTTL)
	m, err := b.draftOutcome(c, d)
	if err != nil {
		return response{}, err
	}
	m.ephemeral = true
	if c.i.Message != nil {
		return asUpdate(m), nil
	}
	return asReply(m), nil
}

// draftOutcome saves the draft and works out what its text does: the
// problems, or the preview (and, for a suggestion, queues it).
func (b *Bot) draftOutcome(c *call, d questions.Draft) (message, error) {
	parts, ps := parsePaste(d)
	var results []bankResult
	if len(ps.Errors()) == 0 {
		ch, refused, err := b.planBanks(c.guild, d.UserID, parts, false)
		if err != nil {
			return message{}, err
		}
		ps, results = append(ps, refused...), ch.results
	}
	if errs := ps.Errors(); len(errs) > 0 {
		if _, err := b.store.SaveDraft(c.ctx, d); err != nil {
			return message{}, storeDraftErr(err)
		}
		return draftProblemsMessage(d, errs), nil
	}
	if d.Kind == questions.DraftSuggestion {
		// SaveDraft refuses it beyond the member's cap (ErrQueueFull).
		d.Queued, d.ExpiresAt = true, time.Time{}
		if _, err := b.store.SaveDraft(c.ctx, d); err != nil {
			return message{}, storeDraftErr(err)
		}
		b.log.Info("suggestion queued", "guild", c.guild, "user", c.user, "draft", d.ID)
		return suggestionSentMessage(parts, results, ps.Warnings()), nil
	}
	if _, err := b.store.SaveDraft(c.ctx, d); err != nil {
		return message{}, storeDraftErr(err)
	}
	return pastePreviewMessage(d, parts, results, ps.Warnings()), nil
}

func storeDraftErr(err error) error {
	if errors.Is(err, questions.ErrNotFound) {
		return userErr("This paste has expired or was replaced by a newer one (each member keeps their %d latest). Start again with `/quizadmin add` or `/quiz suggest`.",
			questions.MaxUnsentDrafts)
	}
	if errors.Is(err, questions.ErrQueueFull) {
		return queueFullErr()
	}
	return fmt.Errorf("save draft: %w", err)
}

// parsePaste parses a draft's text as a *.txt file is parsed (exam text,
// the practice-site shape or Aiken, as its lines say); the draft's bank, when
// set, names the bank of every question.
func parsePaste(d questions.Draft) ([]questions.Bank, questions.Problems) {
	banks, ps := questions.ParseFile(pastePath+".txt", []byte(d.Text), questions.ParseOptions{DefaultBank: d.Bank})
	for i := range ps {
		ps[i].Path = pastePath
	}
	for i := range banks {
		if d.Bank != "" {
			questions.Rename(&banks[i], d.Bank)
		}
		banks[i].Path = pastePath
	}
	return banks, ps
}

// draftButton answers a draft's Add, Cancel and Fix it buttons.
func (b *Bot) draftButton(c *call, id componentID) (response, error) {
	d, err := b.ownDraft(c, id.draft)
	if err != nil {
		return response{}, err
	}
	switch id.action {
	case "fix":
		return asModal(pasteModal(d, d.Text)), nil
	case "cancel":
		if err := b.store.DeleteDraft(c.ctx, c.guild, d.ID); err != nil && !errors.Is(err, questions.ErrNotFound) {
			return response{}, fmt.Errorf("cancel draft: %w", err)
		}
		return asUpdate(draftCancelledMessage()), nil
	}
	// add: an admin's paste goes into its banks now.
	if d.Kind != questions.DraftPaste {
		return response{}, userErr("A suggestion is added by an admin's approval.")
	}
	parts, ps := parsePaste(d)
	if errs := ps.Errors(); len(errs) > 0 {
		return asUpdate(draftProblemsMessage(d, errs)), nil
	}
	ch, refused, err := b.applyChange(c.ctx, c.guild, c.user, parts, false, d.ID)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("This paste is gone: it was added, cancelled or has expired.")
	}
	if err != nil {
		return response{}, fmt.Errorf("add paste: %w", err)
	}
	if len(refused) > 0 {
		return asUpdate(draftProblemsMessage(d, refused)), nil
	}
	b.log.Info("paste added", "guild", c.guild, "user", c.user, "draft", d.ID)
	return asUpdate(pasteAddedMessage(ch.results)), nil
}

// Rendering: pure functions of the draft and what it would do.

// previewEmbeds show a question as it will be posted, with how to answer
// it (the post's line above), then its answer and rationales as the
// reveal shows them.
func previewEmbeds(q *questions.Question) []*discordgo.MessageEmbed {
	p := questions.Post{SelectCount: q.SelectCount(), OptionCount: len(q.Options), Correct: q.Correct()}
	embeds := questionEmbeds(q, colorOpen)
	embeds[0].Fields = []*discordgo.MessageEmbedField{{Name: "How to answer", Value: pickText(p.SelectCount) + " from the menu"}}
	for _, part := range answerReveal(q, p) {
		embeds = append(embeds, part...)
	}
	return embeds
}

// previewOf is the preview embeds of the first previewQuestions questions
// of banks, and how many questions there are in all.
func previewOf(banks []questions.Bank) ([]*discordgo.MessageEmbed, int) {
	var embeds []*discordgo.MessageEmbed
	n := 0
	for _, bk := range banks {
		for i := range bk.Questions {
			if n < previewQuestions {
				embeds = append(embeds, previewEmbeds(&bk.Questions[i])...)
			}
			n++
		}
	}
	return fitEmbeds(embeds), n
}

// changeOutlook says what adding would do, one line per bank.
func changeOutlook(results []bankResult) string {
	var lines []string
	for _, r := range results {
		bank := "**" + r.name + "**"
		if r.isNew {
			bank = "a new bank **" + r.name + "**"
		}
		lines = append(lines, fmt.Sprintf("→ %s: add %d, update %d, leave %d unchanged", bank, r.count.Added, r.count.Updated, r.count.Unchanged))
	}
	return strings.Join(lines, "\n")
}

func shownNote(n int) string {
	if n > previewQuestions {
		return fmt.Sprintf(" (the first %d shown)", previewQuestions)
	}
	return ""
}

// warningsEmbed lists warnings, or is nil.
func warningsEmbed(w questions.Problems) []*discordgo.MessageEmbed {
	if len(w) == 0 {
		return nil
	}
	return []*discordgo.MessageEmbed{{Title: "Warnings", Description: problemList(w, false), Color: colorOpen}}
}

// pastePreviewMessage shows an admin's paste as it will be posted, with
// Add and Cancel.
func pastePreviewMessage(d questions.Draft, banks []questions.Bank, results []bankResult, warnings questions.Problems) message {
	embeds, n := previewOf(banks)
	embeds = append(warningsEmbed(warnings), embeds...)
	if len(embeds) > 10 {
		embeds = embeds[:10]
	}
	return message{ephemeral: true,
		content: fmt.Sprintf("👀 **Preview** of %s%s, as members will see them.\n%s\nAdd them?",
			plural(n, "question", "questions"), shownNote(n), changeOutlook(results)),
		embeds: fitEmbeds(embeds),
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Add", Style: discordgo.SuccessButton, CustomID: kindDraftButton.id(componentID{action: "add", draft: d.ID})},
			discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: kindDraftButton.id(componentID{action: "cancel", draft: d.ID})},
		}}}}
}

// suggestionSentMessage tells a member their suggestion waits for review.
func suggestionSentMessage(banks []questions.Bank, results []bankResult, warnings questions.Problems) message {
	embeds, n := previewOf(banks)
	embeds = append(warningsEmbed(warnings), embeds...)
	if len(embeds) > 10 {
		embeds = embeds[:10]
	}
	names := make([]string, len(results))
	for i, r := range results {
		names[i] = "**" + r.name + "**"
	}
	what, verb := "Your "+plural(n, "question", "questions"), "are"
	if n == 1 {
		what, verb = "Your question", "is"
	}
	return message{ephemeral: true,
		content: fmt.Sprintf("📨 Thanks! %s for %s %s waiting for an admin's review%s. I'll tell you by direct message what became of it.",
			what, strings.Join(names, ", "), verb, shownNote(n)),
		embeds: fitEmbeds(embeds)}
}

// pasteAddedMessage replaces the preview once an admin's paste is added:
// what it did to each bank.
func pasteAddedMessage(results []bankResult) message {
	return message{content: changeSummary("Added to", results)}
}

// draftCancelledMessage replaces the preview or the problems when the
// member cancels.
func draftCancelledMessage() message {
	return message{content: "Cancelled. Nothing was added."}
}

// draftProblemsMessage lists what is wrong with pasted text, with Fix it
// (the modal again, holding the text) and Cancel.
func draftProblemsMessage(d questions.Draft, ps questions.Problems) message {
	return message{ephemeral: true,
		content: fmt.Sprintf("❌ The pasted text has %s; nothing was added. **Fix it** opens the form again with your text.",
			plural(len(ps), "problem", "problems")),
		embeds: []*discordgo.MessageEmbed{{Title: "Problems", Description: problemList(ps, false), Color: colorWrong}},
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Fix it", Style: discordgo.PrimaryButton, CustomID: kindDraftButton.id(componentID{action: "fix", draft: d.ID})},
			discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: kindDraftButton.id(componentID{action: "cancel", draft: d.ID})},
		}}}}
}
