package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// openModal runs a command that should open the paste modal and returns
// the modal's custom ID and the text input it holds.
func (e *env) openModal(p *discordtest.Pending) (string, *discordgo.TextInput) {
	e.t.Helper()
	r := p.WaitResponse(e.t, wait)
	if r.Type != discordgo.InteractionResponseModal {
		e.t.Fatalf("response type %d (%q), want a modal (9)", r.Type, r.Content)
	}
	if len(r.Components) != 1 {
		e.t.Fatalf("modal has %d rows, want 1", len(r.Components))
	}
	row, ok := r.Components[0].(*discordgo.ActionsRow)
	if !ok || len(row.Components) != 1 {
		e.t.Fatalf("modal row %#v, want one text input", r.Components[0])
	}
	in, ok := row.Components[0].(*discordgo.TextInput)
	if !ok || in.Style != discordgo.TextInputParagraph || in.MaxLength != 4000 {
		e.t.Fatalf("modal input %#v, want a paragraph of at most 4000", row.Components[0])
	}
	return r.CustomID, in
}

// buttons returns a message's buttons by label.
func buttons(comps []discordgo.MessageComponent) map[string]*discordgo.Button {
	out := map[string]*discordgo.Button{}
	for _, c := range comps {
		if row, ok := c.(*discordgo.ActionsRow); ok {
			for _, k := range row.Components {
				if b, ok := k.(*discordgo.Button); ok {
					out[b.Label] = b
				}
			}
		}
	}
	return out
}

// submit sends the modal with text (from messageID's Fix it when not "")
// and returns the reply message.
func (e *env) submit(by discordtest.Member, messageID, customID, text string) discordtest.Message {
	e.t.Helper()
	p := e.srv.ModalSubmit(guildID, channelID, by, messageID, customID, map[string]string{"text": text})
	r := p.WaitResponse(e.t, wait)
	m, ok := p.Original()
	if !ok {
		e.t.Fatalf("modal submit answered with type %d and no message", r.Type)
	}
	return m
}

// click presses a button on a message and returns the response and the
// message after it.
func (e *env) click(by discordtest.Member, msg discordtest.Message, customID string) (discordtest.Response, discordtest.Message) {
	e.t.Helper()
	p := e.srv.Component(guildID, channelID, by, msg.ID, customID)
	r := p.WaitResponse(e.t, wait)
	m, _ := p.Original()
	return r, m
}

func TestPasteQuestions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "AWS Practice"

	// Members may not paste.
	if got := e.admin(bob, sub("add")); !strings.Contains(got, "Manage Server") {
		t.Errorf("member add reply %q, want a refusal", got)
	}
	if got := e.admin(alice, sub("add", str("bank", "test bank"))); !strings.Contains(got, "comes with this quizhost") {
		t.Errorf("add to a catalogue bank: %q, want a refusal", got)
	}

	// A paste with problems: every problem with its line, and Fix it.
	id, in := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add", str("bank", bank))))
	if in.Value != "" {
		t.Errorf("a new paste's modal holds %q", in.Value)
	}
	broken := strings.Replace(examQuestion(bank, 1, "Which service stores objects?"), "Correct answer: A", "Correct answer: E", 1) +
		"\r\n" + examQuestion(bank, 2, "Which service is a CDN?")
	m := e.submit(alice, "", id, broken)
	if !m.Ephemeral() || !strings.Contains(m.Content, "1 problem") || !strings.Contains(embedsText(m.Embeds), "line 8: answer letter E is not an option") {
		t.Errorf("paste with problems: %q\n%s", m.Content, embedsText(m.Embeds))
	}
	fix := buttons(m.Components)["Fix it"]
	if fix == nil {
		t.Fatalf("no Fix it button on %q", m.Content)
	}
	// Fix it reopens the modal holding the text, as Alice pasted it.
	if r, _ := e.click(bob, m, fix.CustomID); !strings.Contains(r.Content, "belongs to <@7001>") {
		t.Errorf("Bob pressing Alice's Fix it: %q", r.Content)
	}
	id2, in := e.openModal(e.srv.Component(guildID, channelID, alice, m.ID, fix.CustomID))
	if id2 != id || in.Value != broken {
		t.Errorf("Fix it opened %q holding %q, want %q holding the pasted text", id2, in.Value, id)
	}
	fixed := strings.Replace(broken, "Correct answer: E", "Correct answer: A", 1)
	m = e.submit(alice, m.ID, id, fixed)
	b := buttons(m.Components)
	if b["Add"] == nil || b["Add"].Style != discordgo.SuccessButton || b["Cancel"] == nil || b["Cancel"].Style != discordgo.SecondaryButton {
		t.Fatalf("preview buttons %v, want Add (success) and Cancel (secondary)", b)
	}
	// The preview: each question as posted, then its answer and rationales.
	text := m.Content + "\n" + embedsText(m.Embeds)
	for _, want := range []string{"Preview** of 2 questions", "a new bank **AWS Practice**: add 2, update 0, leave 0 unchanged",
		"AWS Practice · Question 1", "Which service stores objects?", "**A.** Right answer", "Pick **1** answer",
		"Answer: A", "Question 1's explanation.", "AWS Practice · Question 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("preview lacks %q:\n%s", want, text)
		}
	}
	if len(m.Embeds) != 4 {
		t.Errorf("preview has %d embeds, want 4 (question and answer, twice)", len(m.Embeds))
	}
	if got := e.bankQuestions(bank); got != 0 {
		t.Fatalf("before Add, %s has %d questions", bank, got)
	}

	// Bob can't add Alice's paste; Alice can.
	if r, _ := e.click(bob, m, b["Add"].CustomID); !strings.Contains(r.Content, "belongs to <@7001>") {
		t.Errorf("Bob pressing Add: %q", r.Content)
	}
	r, after := e.click(alice, m, b["Add"].CustomID)
	if r.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(after.Content, "**AWS Practice** (new bank): added 2, updated 0, unchanged 0") || len(after.Components) != 0 {
		t.Errorf("after Add (type %d): %q with %d rows", r.Type, after.Content, len(after.Components))
	}
	if got := e.bankQuestions(bank); got != 2 {
		t.Fatalf("after Add, %s has %d questions, want 2", bank, got)
	}
	post, _ := e.ask(bob, str("bank", bank))
	if !strings.HasPrefix(post.QuestionID, bank+"#") {
		t.Errorf("asked %q, want a question of %s", post.QuestionID, bank)
	}
	// Add again: the draft is gone.
	if r, _ := e.click(alice, m, b["Add"].CustomID); !strings.Contains(r.Content, "is gone") {
		t.Errorf("second Add: %q", r.Content)
	}

	// Pasting a changed question updates it; Cancel stores nothing.
	id, _ = e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add")))
	m = e.submit(alice, "", id, examQuestion(bank, 2, "Which service is a content delivery network?"))
	if !strings.Contains(m.Content, "→ **AWS Practice**: add 0, update 1, leave 0 unchanged") {
		t.Errorf("preview of a changed question: %q", m.Content)
	}
	if _, after := e.click(alice, m, buttons(m.Components)["Cancel"].CustomID); !strings.Contains(after.Content, "Cancelled") {
		t.Errorf("after Cancel: %q", after.Content)
	}
	if got := e.admin(alice, group("question", sub("show", str("id", bank+"#2")))); strings.Contains(got, "content delivery network") {
		t.Error("a cancelled paste changed the question")
	}
	// A paste left a day expires.
	id, _ = e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add")))
	e.advance(25 * time.Hour)
	p := e.srv.ModalSubmit(guildID, channelID, alice, "", id, map[string]string{"text": examQuestion(bank, 3, "Three?")})
	if c, _, _ := e.reply(p); !strings.Contains(c, "is gone") {
		t.Errorf("submit after a day: %q", c)
	}
	// An admin who lost Manage Server can't add.
	id, _ = e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add")))
	demoted := alice
	demoted.Permissions = discordtest.DefaultPermissions
	p = e.srv.ModalSubmit(guildID, channelID, demoted, "", id, map[string]string{"text": examQuestion(bank, 3, "Three?")})
	if c, _, _ := e.reply(p); !strings.Contains(c, "Manage Server") {
		t.Errorf("submit without Manage Server: %q", c)
	}
	// A question pasted as a practice page shows it, titled "Question 3"
	// with no exam name: it joins the bank the command names.
	id, _ = e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add", str("bank", bank))))
	bare := strings.Replace(examQuestion(bank, 3, "Which service is serverless?"), bank+" Question 3", "Question 3", 1)
	m = e.submit(alice, "", id, bare)
	if text := m.Content + "\n" + embedsText(m.Embeds); !strings.Contains(text, "→ **AWS Practice**: add 1, update 0, leave 0 unchanged") ||
		!strings.Contains(text, "AWS Practice · Question 3") {
		t.Errorf("preview of a bare-titled paste:\n%s", text)
	}
	if _, after := e.click(alice, m, buttons(m.Components)["Add"].CustomID); !strings.Contains(after.Content, "added 1") {
		t.Errorf("after adding the bare-titled paste: %q", after.Content)
	}
	if got := e.bankQuestions(bank); got != 3 {
		t.Errorf("after the bare-titled paste, %s has %d questions, want 3", bank, got)
	}
	e.checkWire()
}

func TestSuggestions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "AWS Practice"
	e.admin(alice, sub("import", fileOpt("file", "q1.txt", examQuestion(bank, 1, "Imported?"))))

	if got := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest", str("bank", "Test Bank")))); !strings.Contains(got, "comes with this quizhost") {
		t.Errorf("suggestion for a catalogue bank: %q, want a refusal", got)
	}
	// Bob and Carol suggest a question each.
	id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest", str("bank", "aws practice"))))
	m := e.submit(bob, "", id, examQuestion(bank, 2, "Suggested by Bob?"))
	if !m.Ephemeral() || !strings.Contains(m.Content, "waiting for an admin's review") || len(m.Components) != 0 ||
		!strings.Contains(embedsText(m.Embeds), "Suggested by Bob?") {
		t.Errorf("suggestion reply %q\n%s", m.Content, embedsText(m.Embeds))
	}
	id, _ = e.openModal(e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("suggest")))
	e.submit(carol, "", id, examQuestion(bank, 3, "Suggested by Carol?"))

	// A pending suggestion is never drawn.
	for range 3 {
		if post, _ := e.ask(alice, str("bank", bank)); post.QuestionID != bank+"#1" {
			t.Errorf("drew %q while only %s#1 is approved", post.QuestionID, bank)
		}
	}

	// Members can't review.
	if got := e.admin(carol, sub("suggestions")); !strings.Contains(got, "Manage Server") {
		t.Errorf("member suggestions reply %q", got)
	}
	p := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("suggestions"))
	r := p.WaitResponse(t, wait)
	review, _ := p.Original()
	if !strings.Contains(r.Content, "Suggestion 1 of 2** from <@7002>") || !strings.Contains(embedsText(r.Embeds), "Suggested by Bob?") {
		t.Errorf("review:\n%s\n%s", r.Content, embedsText(r.Embeds))
	}
	b := buttons(r.Components)
	if b["Approve"] == nil || b["Approve"].Style != discordgo.SuccessButton || b["Reject"] == nil || b["Reject"].Style != discordgo.DangerButton {
		t.Fatalf("review buttons %v, want Approve (success) and Reject (danger)", b)
	}
	if r, _ := e.click(carol, review, b["Approve"].CustomID); !strings.Contains(r.Content, "Manage Server") {
		t.Errorf("member pressing Approve: %q", r.Content)
	}
	if got := e.bankQuestions(bank); got != 1 {
		t.Fatalf("after a member's Approve: %d questions, want 1", got)
	}

	// Approve Bob's: in the bank, Bob told by DM; the review moves on to Carol's.
	_, review = e.click(alice, review, b["Approve"].CustomID)
	if !strings.Contains(review.Content, "Approved <@7002>'s suggestion") || !strings.Contains(review.Content, "Suggestion 1 of 1** from <@7003>") {
		t.Errorf("after Approve:\n%s", review.Content)
	}
	dm := e.srv.WaitDMs(t, bob.ID, 1, wait)
	if !strings.Contains(dm[0].Content, "approved") || !strings.Contains(dm[0].Content, "1 question added") ||
		!strings.Contains(dm[0].Content, "on **Study Group**") { // the server's name, from the gateway
		t.Errorf("DM to Bob: %q", dm[0].Content)
	}
	if got := e.bankQuestions(bank); got != 2 {
		t.Errorf("after Approve: %d questions, want 2", got)
	}
	if got := e.admin(alice, group("question", sub("show", str("id", bank+"#2")))); !strings.Contains(got, "Suggested by Bob?") {
		t.Errorf("approved question:\n%s", got)
	}

	// Reject Carol's, whose DMs are closed: nothing fails.
	e.srv.CloseDMs(carol.ID)
	_, review = e.click(alice, review, buttons(review.Components)["Reject"].CustomID)
	if !strings.Contains(review.Content, "Rejected <@7003>'s suggestion") || !strings.Contains(review.Content, "No suggestions are waiting") {
		t.Errorf("after Reject:\n%s", review.Content)
	}
	e.srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "POST" && r.Status == 403 }, wait)
	if got := e.srv.DMs(carol.ID); len(got) != 0 {
		t.Errorf("%d DMs delivered to closed DMs", len(got))
	}
	if got := e.bankQuestions(bank); got != 2 {
		t.Errorf("after Reject: %d questions, want 2", got)
	}

	// A rejection DM reaches a member whose DMs are open.
	id, _ = e.openModal(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest")))
	e.submit(bob, "", id, examQuestion(bank, 4, "Another from Bob?"))
	p = e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("suggestions"))
	r = p.WaitResponse(t, wait)
	review, _ = p.Original()
	e.click(alice, review, buttons(r.Components)["Reject"].CustomID)
	if dm := e.srv.WaitDMs(t, bob.ID, 2, wait); !strings.Contains(dm[1].Content, "was not added") {
		t.Errorf("rejection DM to Bob: %q", dm[1].Content)
	}
	if got := e.bankQuestions(bank); got != 2 {
		t.Errorf("after the second Reject: %d questions, want 2", got)
	}
	e.checkWire()
	// The bot logged the closed DMs; after stop every handler has finished.
	e.stop()
	if !strings.Contains(e.logs.String(), "direct messages are closed") {
		t.Error("the closed DMs were not logged")
	}
}

func TestQuestionShowRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "AWS Practice"
	e.admin(alice, sub("import", fileOpt("file", "two.txt", examQuestion(bank, 1, "Which stores objects?")+"\r\n"+examQuestion(bank, 2, "Which is a CDN?"))))

	ac := e.srv.Autocomplete(guildID, channelID, alice, "quizadmin", group("question", sub("show", str("id", "is a CDN")))).WaitResponse(t, wait)
	if len(ac.Choices) != 1 || ac.Choices[0].Value != bank+"#2" || !strings.Contains(ac.Choices[0].Name, "Question 2 · Which is a CDN?") {
		t.Errorf("autocomplete %+v, want AWS Practice#2", ac.Choices)
	}
	ac = e.srv.Autocomplete(guildID, channelID, bob, "quizadmin", group("question", sub("show", str("id", "cdn")))).WaitResponse(t, wait)
	if len(ac.Choices) != 0 {
		t.Errorf("autocomplete for a member: %+v, want none", ac.Choices)
	}
	ac = e.srv.Autocomplete(guildID, channelID, alice, "quizadmin", group("question", sub("remove", str("id", "")))).WaitResponse(t, wait)
	if len(ac.Choices) != 2 {
		t.Errorf("remove autocomplete %+v, want the 2 imported questions only", ac.Choices)
	}

	p := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("question", sub("show", str("id", bank+"#2"))))
	c, embeds, eph := e.reply(p)
	text := c + "\n" + embedsText(embeds)
	if !eph || !strings.Contains(text, "Which is a CDN?") || !strings.Contains(text, "Answer: A") || !strings.Contains(text, "Question 2's explanation.") {
		t.Errorf("show (ephemeral %v):\n%s", eph, text)
	}
	if got := e.admin(alice, group("question", sub("show", str("id", "Test Bank#1")))); !strings.Contains(got, "Which two are prime?") {
		t.Errorf("show of a catalogue question:\n%s", got)
	}
	if got := e.admin(bob, group("question", sub("show", str("id", bank+"#2")))); !strings.Contains(got, "Manage Server") {
		t.Errorf("member show: %q", got)
	}
	if got := e.admin(alice, group("question", sub("show", str("id", "nope")))); !strings.Contains(got, `no question with id "nope"`) {
		t.Errorf("show of an unknown id: %q", got)
	}

	// Scores earned on a removed question stay.
	post, _ := e.ask(bob, str("bank", bank))
	e.choose(carol, post, post.Correct...)
	if got := e.admin(bob, group("question", sub("remove", str("id", post.QuestionID)))); !strings.Contains(got, "Manage Server") {
		t.Errorf("member remove: %q", got)
	}
	if got := e.admin(alice, group("question", sub("remove", str("id", "Test Bank#1")))); !strings.Contains(got, "Edit the bank file") {
		t.Errorf("removing a catalogue question: %q", got)
	}
	if got := e.confirmed(alice, group("question", sub("remove", str("id", post.QuestionID)))); !strings.Contains(got, "1 question left") {
		t.Errorf("remove reply %q", got)
	}
	if got := e.bankQuestions(bank); got != 1 {
		t.Errorf("after remove: %d questions, want 1", got)
	}
	if st, _ := e.db.MemberStats(8001, 7003, e.clk.Now()); st.All.Correct != 1 {
		t.Errorf("carol's score after the remove: %+v", st.All)
	}
	last := bank + "#1"
	if post.QuestionID == last {
		last = bank + "#2"
	}
	if got := e.confirmed(alice, group("question", sub("remove", str("id", last)))); !strings.Contains(got, "bank is gone too") {
		t.Errorf("removing the last question: %q", got)
	}
	if banks := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks"))); strings.Contains(banks, bank) {
		t.Errorf("the emptied bank is still listed:\n%s", banks)
	}
	if got := e.admin(alice, group("question", sub("remove", str("id", last)))); !strings.Contains(got, fmt.Sprintf("no question with id %q", last)) {
		t.Errorf("removing it again: %q", got)
	}
	e.checkWire()
}
