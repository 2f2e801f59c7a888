package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// Undo instead of regret: bank remove, import mode:replace and question
// remove ask to confirm (and do nothing until the admin who asked
// confirms, with Manage Server still theirs, the state unchanged and the
// prompt unused and not expired); /quizadmin bank undo restores the bank,
// and the answers given to its questions count as before.

const undoBankName = "Undo Bank"

// undoBank is the exam text of questions ns of the Undo Bank.
func undoBank(ns ...int) string {
	var qs []string
	for _, n := range ns {
		qs = append(qs, examQuestion(undoBankName, n, fmt.Sprintf("Undo stem %d?", n)))
	}
	return strings.Join(qs, "\r\n")
}

// prompt is a private prompt to confirm, as the admin saw it.
type prompt struct {
	text            string
	msgID           string
	confirm, cancel string // the buttons' custom IDs
}

// prompt runs a /quizadmin command that asks to confirm and returns its
// prompt, checking its privacy and buttons.
func (e *env) prompt(by discordtest.Member, opts ...discordtest.Option) prompt {
	e.t.Helper()
	p := e.srv.SlashCommand(guildID, channelID, by, "quizadmin", opts...)
	r := p.WaitResponse(e.t, wait)
	if r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		e.t.Fatalf("prompt answered with flags %d, want a private message", r.Flags)
	}
	m := p.WaitOriginal(e.t, wait, nil)
	text := m.Content + "\n" + embedsText(m.Embeds)
	if len(m.Components) != 1 {
		e.t.Fatalf("prompt %q has %d component rows, want Confirm and Cancel", text, len(m.Components))
	}
	row := m.Components[0].(*discordgo.ActionsRow).Components
	if len(row) != 2 {
		e.t.Fatalf("prompt %q has %d buttons, want Confirm and Cancel", text, len(row))
	}
	ok, cancel := row[0].(*discordgo.Button), row[1].(*discordgo.Button)
	if ok.Label != "Confirm" || ok.Style != discordgo.DangerButton || cancel.Label != "Cancel" || cancel.Style != discordgo.SecondaryButton {
		e.t.Errorf("prompt buttons %q (style %d) and %q (style %d), want Confirm (danger) and Cancel (secondary)",
			ok.Label, ok.Style, cancel.Label, cancel.Style)
	}
	return prompt{text: text, msgID: m.ID, confirm: ok.CustomID, cancel: cancel.CustomID}
}

// press presses a button of the prompt as by and returns what by sees.
func (e *env) press(by discordtest.Member, pr prompt, customID string) string {
	e.t.Helper()
	before, _ := e.srv.Message(channelID, pr.msgID)
	p := e.srv.Component(guildID, channelID, by, pr.msgID, customID)
	if r := p.WaitResponse(e.t, wait); r.Type == discordgo.InteractionResponseDeferredMessageUpdate {
		// The prompt is edited in place (it may have been edited before:
		// an import's deferred reply).
		m := p.WaitOriginal(e.t, wait, func(m discordtest.Message) bool { return m.Edits > before.Edits })
		return m.Content + "\n" + embedsText(m.Embeds)
	}
	return e.replyText(p)
}

// confirmed runs a /quizadmin command that asks to confirm, confirms it
// as by and returns what by sees then.
func (e *env) confirmed(by discordtest.Member, opts ...discordtest.Option) string {
	e.t.Helper()
	pr := e.prompt(by, opts...)
	return e.press(by, pr, pr.confirm)
}

// undo runs /quizadmin bank undo name:<bank> as alice.
func (e *env) undo(bank string) string {
	e.t.Helper()
	return e.admin(alice, group("bank", sub("undo", str("name", bank))))
}

// wants fails unless got holds every one of wants.
func wants(t testing.TB, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// answered posts a question of the Undo Bank, which bob answers right and
// carol wrong, and closes it a minute before now, so that carol's miss is
// due for review. It returns the question's ID.
func (e *env) answered() string {
	e.t.Helper()
	post, _ := e.ask(alice, str("bank", undoBankName), integer("minutes", 5))
	e.choose(bob, post, post.Correct...)
	e.choose(carol, post, wrongOf(post)...)
	e.advance(6 * time.Minute)
	return post.QuestionID
}

// counted checks that bob's right answer and carol's miss to qid count:
// the leaderboard, /quiz stats, the asked history of /quiz banks (one of
// asked of the bank's n questions) and carol's review.
func (e *env) counted(qid string, n int) {
	e.t.Helper()
	board := e.replyText(e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("leaderboard")))
	wants(e.t, "leaderboard", board, "**1.** <@7002>")
	stats := e.replyText(e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("stats",
		discordtest.Option{Name: "member", Type: discordgo.ApplicationCommandOptionUser, Value: bob.ID})))
	wants(e.t, "bob's /quiz stats", stats, "1 answer", "1 correct (100%)", "Bank: "+undoBankName)
	banks := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks")))
	wants(e.t, "/quiz banks", banks, fmt.Sprintf("**%s** · %d questions · %d not yet asked", undoBankName, n, n-1))
	r, _ := e.startReview(carol)
	n0 := strings.TrimPrefix(qid, undoBankName+"#")
	wants(e.t, "carol's review", r.Content+"\n"+embedsText(r.Embeds), "Undo stem "+n0+"?")
}

func TestBankRemoveAsksThenUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	e.admin(alice, sub("import", attachment("undo.txt", undoBank(1, 2))))
	qid := e.answered()
	e.counted(qid, 2)
	remove := group("bank", sub("remove", str("name", "undo bank")))

	// The prompt says what will happen; nothing happens until Confirm.
	pr := e.prompt(alice, remove)
	wants(t, "bank remove prompt", pr.text, "**Undo Bank**", "2 questions", "keep counting", "7 days", "/quizadmin bank undo")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("before Confirm the bank has %d questions, want 2", n)
	}
	// Cancel changes nothing, and spends the prompt.
	wants(t, "cancel", e.press(alice, pr, pr.cancel), "Cancelled. Nothing changed.")
	wants(t, "confirm after cancel", e.press(alice, pr, pr.confirm), "already answered")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("after Cancel the bank has %d questions, want 2", n)
	}

	// Only the admin who asked, with Manage Server at the click.
	pr = e.prompt(alice, remove)
	wants(t, "a member's click", e.press(bob, pr, pr.confirm), "Manage Server")
	demoted := alice
	demoted.Permissions = discordtest.DefaultPermissions
	wants(t, "the admin's click after losing Manage Server", e.press(demoted, pr, pr.confirm), "Manage Server")
	other := discordtest.Member{ID: "7004", Username: "dora", Permissions: discordtest.AdminPermissions}
	wants(t, "another admin's click", e.press(other, pr, pr.confirm), "Only the admin who asked")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("after refused clicks the bank has %d questions, want 2", n)
	}
	// Confirm removes it, once.
	wants(t, "confirm", e.press(alice, pr, pr.confirm), "Removed **Undo Bank** (2 questions)", "bank undo name:Undo Bank")
	if n := e.bankQuestions(undoBankName); n != 0 {
		t.Fatalf("after Confirm the bank has %d questions, want it gone", n)
	}
	if m, _ := e.srv.Message(channelID, pr.msgID); len(m.Components) != 0 {
		t.Errorf("the confirmed prompt keeps %d component rows, want none", len(m.Components))
	}
	wants(t, "second confirm", e.press(alice, pr, pr.confirm), "already answered")
	r, _ := e.startReview(carol)
	if !strings.Contains(r.Content, "Nothing is due") {
		t.Errorf("carol's review with the bank removed: %q, want nothing due", r.Content)
	}

	// Undo, offered by autocomplete, restores it and the answers to it.
	ac := e.srv.Autocomplete(guildID, channelID, alice, "quizadmin", group("bank", sub("undo", str("name", "und")))).WaitResponse(t, wait)
	if len(ac.Choices) != 1 || ac.Choices[0].Value != undoBankName {
		t.Errorf("undo autocomplete %+v, want Undo Bank", ac.Choices)
	}
	wants(t, "undo", e.undo("undo bank"), "Restored **Undo Bank** as it was before it was removed", "2 questions", "by <@7001>")
	e.counted(qid, 2)
	wants(t, "a second undo", e.undo(undoBankName), "Nothing of **Undo Bank** is kept")
	e.checkWire()
}

func TestBankRemoveStaleOrExpired(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	e.admin(alice, sub("import", attachment("undo.txt", undoBank(1, 2))))
	remove := group("bank", sub("remove", str("name", undoBankName)))

	// The bank changes between the prompt and the click: the click says so
	// and removes nothing.
	pr := e.prompt(alice, remove)
	e.admin(alice, sub("import", attachment("three.txt", undoBank(3))))
	wants(t, "stale confirm", e.press(alice, pr, pr.confirm), "changed since you asked", "3 questions now", "nothing was removed")
	if n := e.bankQuestions(undoBankName); n != 3 {
		t.Errorf("after a stale Confirm the bank has %d questions, want 3", n)
	}
	if m, _ := e.srv.Message(channelID, pr.msgID); len(m.Components) != 0 {
		t.Errorf("the stale prompt keeps its buttons")
	}
	// Removed in between by another prompt.
	first, second := e.prompt(alice, remove), e.prompt(alice, remove)
	wants(t, "first confirm", e.press(alice, first, first.confirm), "Removed **Undo Bank**")
	wants(t, "second prompt's confirm", e.press(alice, second, second.confirm), "was removed meanwhile")
	wants(t, "undo", e.undo(undoBankName), "3 questions")

	// A prompt expires: its click says so.
	pr = e.prompt(alice, remove)
	e.advance(16 * time.Minute)
	wants(t, "expired confirm", e.press(alice, pr, pr.confirm), "expired")
	if n := e.bankQuestions(undoBankName); n != 3 {
		t.Errorf("after an expired Confirm the bank has %d questions, want 3", n)
	}

	// A bank this build can no longer read can still be removed.
	if err := e.db.SaveBanks(t.Context(), 8001, []questions.BankFile{{Name: "Broken", Format: questions.FormatYAML,
		Data: []byte("bank: Broken\nquestions: [")}}, 0); err != nil {
		t.Fatal(err)
	}
	pr = e.prompt(alice, group("bank", sub("remove", str("name", "broken"))))
	wants(t, "unreadable bank's prompt", pr.text, "**Broken** and all its questions (this quizhost can no longer read them)")
	wants(t, "unreadable bank's confirm", e.press(alice, pr, pr.confirm), "Removed **Broken** (its questions)")
	if files, _ := e.db.Banks(8001); len(files) != 1 {
		t.Errorf("after removing Broken: %d banks, want Undo Bank alone", len(files))
	}
	e.checkWire()
}

func TestImportReplaceAsksThenUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	e.admin(alice, sub("import", attachment("undo.txt", undoBank(1, 2))))
	qid := e.answered()
	replace := []discordtest.Option{sub("import", fileOpt("file", "new.txt", undoBank(7)), str("mode", "replace"))}

	// A replace of a new bank needs no confirmation.
	got := e.admin(alice, sub("import", fileOpt("file", "other.txt", examQuestion("Other Bank", 1, "Other?")), str("mode", "replace")))
	wants(t, "replace of a new bank", got, "**Other Bank** (new bank): added 1")

	pr := e.prompt(alice, replace...)
	wants(t, "replace prompt", pr.text, "**Undo Bank**: its 2 questions are replaced by the 1 question of the import", "keep counting", "7 days")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("before Confirm the bank has %d questions, want 2", n)
	}
	wants(t, "cancel", e.press(alice, pr, pr.cancel), "Cancelled")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("after Cancel the bank has %d questions, want 2", n)
	}
	// Stale: another bank of the server changed in between.
	pr = e.prompt(alice, replace...)
	e.admin(alice, sub("import", fileOpt("file", "other2.txt", examQuestion("Other Bank", 2, "Other 2?"))))
	wants(t, "stale confirm", e.press(alice, pr, pr.confirm), "banks changed since you asked", "nothing was imported")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("after a stale Confirm the bank has %d questions, want 2", n)
	}
	// A member's click is refused; the admin's replaces with the files kept
	// since the command.
	pr = e.prompt(alice, replace...)
	wants(t, "a member's click", e.press(bob, pr, pr.confirm), "Manage Server")
	wants(t, "confirm", e.press(alice, pr, pr.confirm), "**Undo Bank** (replaced)", "1 question in the bank now", "bank undo name:Undo Bank")
	if n := e.bankQuestions(undoBankName); n != 1 {
		t.Fatalf("after Confirm the bank has %d questions, want 1", n)
	}
	wants(t, "the replaced bank", e.admin(alice, group("question", sub("show", str("id", undoBankName+"#7")))), "Undo stem 7?")

	wants(t, "undo", e.undo(undoBankName), "as it was before an import replaced it", "2 questions")
	e.counted(qid, 2)
	e.checkWire()
}

func TestQuestionRemoveAsksThenUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	e.admin(alice, sub("import", attachment("undo.txt", undoBank(1, 2))))
	qid := e.answered()
	remove := func(id string) discordtest.Option { return group("question", sub("remove", str("id", id))) }

	pr := e.prompt(alice, remove(qid))
	wants(t, "question remove prompt", pr.text, "`"+qid+"`", "from **Undo Bank**, leaving 1 question", "keep counting", "7 days")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("before Confirm the bank has %d questions, want 2", n)
	}
	wants(t, "cancel", e.press(alice, pr, pr.cancel), "Cancelled")
	pr = e.prompt(alice, remove(qid))
	wants(t, "a member's click", e.press(bob, pr, pr.confirm), "Manage Server")
	if n := e.bankQuestions(undoBankName); n != 2 {
		t.Fatalf("after Cancel and a member's click the bank has %d questions, want 2", n)
	}
	// Stale: the bank changed in between.
	e.admin(alice, sub("import", attachment("three.txt", undoBank(3))))
	wants(t, "stale confirm", e.press(alice, pr, pr.confirm), "changed since you asked", "nothing was removed")
	if n := e.bankQuestions(undoBankName); n != 3 {
		t.Fatalf("after a stale Confirm the bank has %d questions, want 3", n)
	}
	other := "Undo Bank#3"
	if qid == other {
		other = "Undo Bank#1"
	}
	// Two removes in a row, the second of the bank's... and undo walks
	// back one step at a time.
	pr = e.prompt(alice, remove(qid))
	wants(t, "confirm", e.press(alice, pr, pr.confirm), "Removed `"+qid+"` from **Undo Bank** (2 questions left)", "bank undo name:Undo Bank")
	pr = e.prompt(alice, remove(other))
	wants(t, "second remove", e.press(alice, pr, pr.confirm), "(1 question left)")
	if n := e.bankQuestions(undoBankName); n != 1 {
		t.Fatalf("after two removes the bank has %d questions, want 1", n)
	}
	wants(t, "first undo", e.undo(undoBankName), "as it was before a question was removed from it", "2 questions", "An earlier version is kept too")
	wants(t, "second undo", e.undo(undoBankName), "3 questions")
	e.counted(qid, 3)

	// An undo over changes made since keeps them as a step of their own.
	pr = e.prompt(alice, remove(qid))
	e.press(alice, pr, pr.confirm)
	e.admin(alice, sub("import", attachment("four.txt", undoBank(4))))
	wants(t, "undo over a merge", e.undo(undoBankName), "3 questions", "had changed since", "again puts it back")
	if n := e.bankQuestions(undoBankName); n != 3 {
		t.Errorf("after the undo the bank has %d questions, want 3", n)
	}
	wants(t, "undo of the undo", e.undo(undoBankName), "as it was before an undo", "3 questions")
	if n := e.bankQuestions(undoBankName); n != 3 { // 2, 3 and 4: qid removed, 4 merged
		t.Errorf("after undoing the undo the bank has %d questions, want 3", n)
	}
	wants(t, "question 4 is back", e.admin(alice, group("question", sub("show", str("id", undoBankName+"#4")))), "Undo stem 4?")
	e.checkWire()
}
