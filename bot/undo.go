package bot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Undo instead of regret. The three changes that take questions out of a
// server's imported banks (bank remove, import mode:replace, question
// remove) ask for confirmation (confirm.go) and, once confirmed, keep the
// bank as it was for questions.UndoKeep: the change and the kept version
// are one store transaction (Store.EditBanks). /quizadmin bank undo
// restores a bank's newest kept version and forgets it, so each undo goes
// one step further back; a restore is held to the server's quota like any
// change (see Store.EditBanks), and one past it keeps its version. When the bank changed after the step being
// undone (an import merged into it, a paste, an approved suggestion, a
// bank of that name made again), those changes are not thrown away: the
// bank as it is is kept as a step of its own, which a second undo puts
// back. Question IDs are the bank's own, so a restored question has its
// answers, scores, asked history and review memory as before. Each change
// holds the server's own edit lock (bankSlot.edit) from reading its banks
// to storing, and publishes the server's next snapshot once stored.

// bankStamp is what a confirmation of a bank's removal or a question's
// removal is asked against: the bank's stored bytes.
func bankStamp(f questions.BankFile) string { return questions.Digest(f.Data) }

// setStamp is what an import replace is asked against: every imported
// bank of the server (its plan checks the questions' IDs against all of
// them), by name and bytes.
func setStamp(files []questions.BankFile) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\n", strings.ToLower(f.Name), questions.Digest(f.Data))
	}
	return questions.Digest(h.Sum(nil))
}

// storedBank is the server's stored bank of that name; ok is false when
// there is none.
func (b *Bot) storedBank(guild questions.GuildID, name string) (questions.BankFile, bool, error) {
	files, err := b.store.Banks(guild)
	if err != nil {
		return questions.BankFile{}, false, fmt.Errorf("banks: %w", err)
	}
	for _, f := range files {
		if sameName(f.Name, name) {
			return f, true, nil
		}
	}
	return questions.BankFile{}, false, nil
}

// editBanks stores e (see Store.EditBanks) and, once it is stored,
// publishes next as the guild's snapshot: the banks as e leaves them. The
// caller holds s.edit from reading the banks e is made of to here. A
// change the guild's quota refuses is a message for the admin (see
// quotaErr); nothing is stored then, and the snapshot stays.
func (b *Bot) editBanks(ctx context.Context, s *bankSlot, guild questions.GuildID, e questions.BankEdit, next *guildBanks) error {
	if err := b.store.EditBanks(ctx, guild, e); err != nil {
		return quotaErr(err)
	}
	s.publish(next)
	return nil
}

// bankRemove asks to confirm removing an imported bank (/quizadmin bank
// remove name:<bank>).
func (b *Bot) bankRemove(c *call, opts options) (response, error) {
	name, _ := opts.str("name")
	f, err := b.importedFile(c.guild, name)
	if err != nil {
		return response{}, err
	}
	conf := questions.Confirmation{Action: questions.ConfirmBankRemove, Bank: f.Name, Stamp: bankStamp(f)}
	return b.confirmPrompt(c, conf, bankRemovePrompt(f.Name, questionCount(f)), "Confirm")
}

// questionCount is how many questions f holds; -1 when this build can't
// read it (it was valid when imported: a newer parser may disagree), which
// must not stop its removal.
func questionCount(f questions.BankFile) int {
	bk, err := parseBankFile(f)
	if err != nil {
		return -1
	}
	return len(bk.Questions)
}

// questionsText is "N questions", or "its questions" for -1 (see
// questionCount).
func questionsText(n int) string {
	if n < 0 {
		return "its questions"
	}
	return plural(n, "question", "questions")
}

// bankRemoveConfirmed removes the bank conf names, if it is still as it
// was when asked, and keeps it for undo.
func (b *Bot) bankRemoveConfirmed(c *call, conf questions.Confirmation) (message, error) {
	s := b.slot(c.guild)
	s.edit.Lock() // an edit planned from the bank as it is must not store it again
	defer s.edit.Unlock()
	g, err := b.imported(c.guild)
	if err != nil {
		return message{}, err
	}
	f, ok, err := b.storedBank(c.guild, conf.Bank)
	if err != nil {
		return message{}, err
	}
	if !ok {
		return message{content: fmt.Sprintf("**%s** was removed meanwhile: nothing to do.", conf.Bank)}, nil
	}
	n := questionCount(f)
	if bankStamp(f) != conf.Stamp {
		now := ""
		if n >= 0 {
			now = fmt.Sprintf(" (it has %s now)", plural(n, "question", "questions"))
		}
		return staleMessage(fmt.Sprintf("**%s** changed since you asked%s: nothing was removed. Run `/quizadmin bank remove` again to remove it as it is now.",
			f.Name, now)), nil
	}
	now := b.clock.Now()
	err = b.editBanks(c.ctx, s, c.guild, questions.BankEdit{Remove: []string{f.Name}, Keep: []string{f.Name},
		Change: questions.ChangeRemoved, By: c.user, At: now}, g.with(nil, f.Name))
	if err != nil {
		return message{}, fmt.Errorf("bank remove: %w", err)
	}
	b.log.Info("bank removed", "guild", c.guild, "user", c.user, "bank", f.Name)
	return message{content: fmt.Sprintf("🗑️ Removed **%s** (%s). Answers given to them keep counting.\n%s",
		f.Name, questionsText(n), undoHint(f.Name, now))}, nil
}

// questionRemove asks to confirm removing a question from an imported
// bank (/quizadmin question remove id:<id>); the bank goes when its last
// question does.
func (b *Bot) questionRemove(c *call, opts options) (response, error) {
	id, _ := opts.str("id")
	id = strings.TrimSpace(id)
	if q, ok := b.cfg.Catalogue.Question(id); ok {
		return response{}, userErr("Question `%s` is in **%s**, which comes with this quizhost: it can't be removed here. Edit the bank file instead.", truncate(q.ID, 200), q.Bank)
	}
	q := b.question(c.guild, id)
	if q == nil {
		return response{}, userErr("There is no question with id %q here. Type part of its text and pick it from the list.", truncate(id, 100))
	}
	f, ok, err := b.storedBank(c.guild, q.Bank)
	if err != nil {
		return response{}, err
	}
	bk, perr := parseBankFile(f)
	if !ok || perr != nil {
		return response{}, userErr("There is no question with id %q here. Type part of its text and pick it from the list.", truncate(id, 100))
	}
	conf := questions.Confirmation{Action: questions.ConfirmQuestionRemove, Bank: f.Name, QuestionID: q.ID, Stamp: bankStamp(f)}
	return b.confirmPrompt(c, conf, questionRemovePrompt(q, f.Name, len(bk.Questions)-1), "Confirm")
}

// questionRemoveConfirmed removes the question conf names, if its bank is
// still as it was when asked, and keeps the bank for undo.
func (b *Bot) questionRemoveConfirmed(c *call, conf questions.Confirmation) (message, error) {
	s := b.slot(c.guild)
	s.edit.Lock()
	defer s.edit.Unlock()
	g, err := b.imported(c.guild)
	if err != nil {
		return message{}, err
	}
	stale := staleMessage(fmt.Sprintf("**%s** changed since you asked: nothing was removed. Run `/quizadmin question remove` again.", conf.Bank))
	f, ok, err := b.storedBank(c.guild, conf.Bank)
	if err != nil {
		return message{}, err
	}
	if !ok || bankStamp(f) != conf.Stamp {
		return stale, nil
	}
	bk, err := parseBankFile(f)
	if err != nil {
		return message{}, fmt.Errorf("remove question: %w", err)
	}
	rest, found := questions.Without(*bk, conf.QuestionID)
	if !found {
		return stale, nil
	}
	now := b.clock.Now()
	e := questions.BankEdit{Keep: []string{f.Name}, Change: questions.ChangeQuestionRemoved, By: c.user, At: now}
	next := g.with(nil, f.Name)
	if len(rest.Questions) == 0 {
		e.Remove = []string{f.Name}
	} else {
		saved, back, err := b.encodeBank(rest, c.user, now)
		if err != nil {
			return message{}, fmt.Errorf("remove question: %w", err)
		}
		e.Save, next = []questions.BankFile{saved}, g.with([]*questions.Bank{back})
	}
	if err := b.editBanks(c.ctx, s, c.guild, e, next); err != nil {
		return message{}, fmt.Errorf("remove question: %w", err)
	}
	b.log.Info("question removed", "guild", c.guild, "user", c.user, "bank", f.Name, "left", len(rest.Questions))
	m := questionRemovedMessage(conf.QuestionID, f.Name, len(rest.Questions))
	m.content += "\n" + undoHint(f.Name, now)
	return m, nil
}

// importReplace is an import with mode:replace whose files parsed (parts,
// with the files' warnings): when it replaces a bank the server has, it
// keeps parts and asks to confirm; when every bank it names is new, it
// imports at once, as a merge would.
func (b *Bot) importReplace(c *call, parts []questions.Bank, warnings questions.Problems, what string, several bool) (response, error) {
	s := b.slot(c.guild)
	s.edit.Lock()
	defer s.edit.Unlock()
	ch, refused, err := b.planBanks(c.guild, c.user, parts, true)
	if err != nil {
		return response{}, fmt.Errorf("import: %w", err)
	}
	if len(refused) > 0 {
		return asReply(problemsMessage(what, several, refused)), nil
	}
	before := map[string]int{} // replaced bank → its questions now
	for _, r := range ch.results {
		if old := findBank(ch.base.banks, r.name); r.replaced && old != nil {
			before[r.name] = len(old.Questions)
		}
	}
	if len(before) == 0 {
		if err := b.saveChange(c.ctx, s, c.guild, &ch, 0); err != nil {
			return response{}, fmt.Errorf("import: %w", err)
		}
		b.logImport(c, ch.results, true)
		return asReply(importedMessage(ch.results, warnings)), nil
	}
	files, err := b.store.Banks(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("import: %w", err)
	}
	conf := questions.Confirmation{Action: questions.ConfirmImportReplace, Stamp: setStamp(files)}
	for _, p := range parts {
		if len(p.Questions) == 0 {
			continue
		}
		data, err := questions.MarshalYAML(p)
		if err != nil {
			return asReply(problemsMessage(what, several, questions.Problems{{Path: p.Path, Line: p.Questions[0].Line,
				Msg: fmt.Sprintf("bank %q can't be kept until you confirm: %v", p.Name, err)}})), nil
		}
		conf.Banks = append(conf.Banks, questions.BankFile{Name: p.Name, Format: questions.FormatYAML, Data: data})
	}
	var embeds []*discordgo.MessageEmbed
	if len(warnings) > 0 {
		embeds = []*discordgo.MessageEmbed{{Title: "Warnings", Description: problemList(warnings, true), Color: colorOpen}}
	}
	return b.confirmPrompt(c, conf, importReplacePrompt(ch.results, before), "Confirm", embeds...)
}

// importReplaceConfirmed stores the import conf keeps, if the server's
// banks are still as they were when asked, and keeps the banks it
// replaces for undo.
func (b *Bot) importReplaceConfirmed(c *call, conf questions.Confirmation) (message, error) {
	s := b.slot(c.guild)
	s.edit.Lock()
	defer s.edit.Unlock()
	files, err := b.store.Banks(c.guild)
	if err != nil {
		return message{}, fmt.Errorf("import: %w", err)
	}
	if setStamp(files) != conf.Stamp {
		return staleMessage("This server's banks changed since you asked (an import, a paste, an approved suggestion or a removal): nothing was imported. Run the import again."), nil
	}
	var parts []questions.Bank
	for _, f := range conf.Banks {
		bk, err := parseBankFile(f)
		if err != nil {
			return message{}, fmt.Errorf("import: kept bank %q: %w", f.Name, err)
		}
		bk.Path = f.Name
		parts = append(parts, *bk)
	}
	ch, refused, err := b.planBanks(c.guild, c.user, parts, true)
	if err != nil {
		return message{}, fmt.Errorf("import: %w", err)
	}
	if len(refused) > 0 { // the banks are as they were: only a new catalogue can refuse now
		return problemsMessage("The import", false, refused), nil
	}
	var keep []string
	for _, r := range ch.results {
		if r.replaced {
			keep = append(keep, r.name)
		}
	}
	now := b.clock.Now()
	if err := b.editBanks(c.ctx, s, c.guild, questions.BankEdit{Save: ch.files, Keep: keep, Change: questions.ChangeReplaced,
		By: c.user, At: now}, ch.base.with(ch.banks)); err != nil {
		return message{}, fmt.Errorf("import: %w", err)
	}
	b.logImport(c, ch.results, true)
	m := importedMessage(ch.results, nil)
	for _, name := range keep {
		m.content += "\n" + undoHint(name, now)
	}
	return m, nil
}

// logImport logs what an import did to each bank.
func (b *Bot) logImport(c *call, results []bankResult, replace bool) {
	for _, r := range results {
		b.log.Info("bank imported", "guild", c.guild, "bank", r.name, "added", r.count.Added,
			"updated", r.count.Updated, "unchanged", r.count.Unchanged, "replace", replace)
	}
}

// bankUndo restores an imported bank's newest kept version (/quizadmin
// bank undo name:<bank>).
func (b *Bot) bankUndo(c *call, opts options) (response, error) {
	name, _ := opts.str("name")
	s := b.slot(c.guild)
	s.edit.Lock()
	defer s.edit.Unlock()
	vs, err := b.store.BankVersions(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("bank undo: %w", err)
	}
	v, older := newestVersion(vs, name)
	if v == nil {
		return response{}, userErr("Nothing of **%s** is kept to undo. A bank is kept for %d days after it is removed, replaced by an import or loses a question.",
			truncate(strings.TrimSpace(name), 100), int(questions.UndoKeep.Hours()/24))
	}
	bk, err := parseBankFile(v.File)
	if err != nil {
		b.log.Error("kept bank version no longer parses", "guild", c.guild, "bank", v.File.Name, "err", err)
		return response{}, userErr("The kept version of **%s** no longer reads with this quizhost, so it can't be restored.", v.File.Name)
	}
	bk.Path = v.File.Name
	cur, exists, err := b.storedBank(c.guild, v.File.Name)
	if err != nil {
		return response{}, err
	}
	ch, refused, err := b.planBanks(c.guild, c.user, []questions.Bank{*bk}, true)
	if err != nil {
		return response{}, fmt.Errorf("bank undo: %w", err)
	}
	if len(refused) > 0 {
		return asReply(message{ephemeral: true, content: fmt.Sprintf("❌ **%s** can't be restored: %s. Nothing changed.",
			v.File.Name, plural(len(refused), "problem", "problems")),
			embeds: []*discordgo.MessageEmbed{{Title: "Problems", Description: problemList(refused, false), Color: colorWrong}}}), nil
	}
	now := b.clock.Now()
	e := questions.BankEdit{Save: ch.files, Restore: v.ID, By: c.user, At: now}
	keptNow := exists && bankStamp(cur) != v.After // changed after the step undone: keep it
	if keptNow {
		e.Keep, e.Change = []string{cur.Name}, questions.ChangeUndone
	}
	if err := b.editBanks(c.ctx, s, c.guild, e, ch.base.with(ch.banks)); errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("That version of **%s** was restored or expired a moment ago. Nothing changed by this command.", v.File.Name)
	} else if msg, ok := isUser(err); ok { // the quota: the version stays for when there is room
		return response{}, userErr("%s The kept version of **%s** stays: undo again once there is room.", msg, v.File.Name)
	} else if err != nil {
		return response{}, fmt.Errorf("bank undo: %w", err)
	}
	b.log.Info("bank restored", "guild", c.guild, "user", c.user, "bank", v.File.Name, "version", v.ID, "kept", keptNow)
	return asReply(undoneMessage(*v, len(bk.Questions), keptNow, older, now)), nil
}

// newestVersion finds the newest of vs (oldest first) of the bank name,
// and the one before it of that bank (nil for none).
func newestVersion(vs []questions.BankVersion, name string) (newest, older *questions.BankVersion) {
	for i := range vs {
		if sameName(vs[i].File.Name, name) {
			newest, older = &vs[i], newest
		}
	}
	return newest, older
}

// undoChoices are the autocomplete choices of bank undo: the banks with a
// kept version whose name contains typed (lower case), the most recently
// changed first.
func undoChoices(vs []questions.BankVersion, typed string) []string {
	var names []string
	for i := len(vs) - 1; i >= 0; i-- {
		n := vs[i].File.Name
		if strings.Contains(strings.ToLower(n), typed) && !containsName(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// Rendering: pure functions of the banks and the change.

// staleMessage replaces a prompt whose state changed before the click.
func staleMessage(text string) message { return message{content: "⚠️ " + text} }

// undoTail is what every prompt says last: answers keep counting, and the
// change can be undone.
func undoTail(verb string) string {
	return fmt.Sprintf("Answers already given keep counting on the leaderboards and in `/quiz stats`. You can undo this for %d days with `/quizadmin bank undo`. %s?",
		int(questions.UndoKeep.Hours()/24), verb)
}

// bankRemovePrompt asks to confirm removing bank and its n questions (-1:
// a bank this build can't read, see questionCount).
func bankRemovePrompt(bank string, n int) string {
	what := "its " + questionsText(n)
	if n < 0 {
		what = "all its questions (this quizhost can no longer read them)"
	}
	return fmt.Sprintf("⚠️ This removes the bank **%s** and %s. %s", bank, what, undoTail("Remove it"))
}

// questionRemovePrompt asks to confirm removing q from bank, which then
// has left questions (none: the bank goes).
func questionRemovePrompt(q *questions.Question, bank string, left int) string {
	what := fmt.Sprintf("⚠️ This removes question `%s` (%s) from **%s**, leaving %s.", truncate(q.ID, 200),
		truncate(questionTitle(q)+" · "+strings.Join(strings.Fields(q.Stem), " "), 200), bank, plural(left, "question", "questions"))
	if left == 0 {
		what = fmt.Sprintf("⚠️ This removes question `%s` (%s), the last of **%s**: the bank goes with it.", truncate(q.ID, 200),
			truncate(questionTitle(q)+" · "+strings.Join(strings.Fields(q.Stem), " "), 200), bank)
	}
	return what + " " + undoTail("Remove it")
}

// importReplacePrompt asks to confirm an import that replaces banks
// (before: each replaced bank's questions now), one line per bank.
func importReplacePrompt(results []bankResult, before map[string]int) string {
	var lines []string
	for _, r := range results {
		if n, ok := before[r.name]; ok {
			lines = append(lines, fmt.Sprintf("• **%s**: its %s are replaced by the %s of the import",
				r.name, plural(n, "question", "questions"), plural(r.total, "question", "questions")))
			continue
		}
		how := "merged into the bank"
		if r.isNew {
			how = "a new bank"
		}
		lines = append(lines, fmt.Sprintf("• **%s** (%s): %s after the import", r.name, how, plural(r.total, "question", "questions")))
	}
	return truncate("⚠️ This import replaces whole banks:\n"+strings.Join(lines, "\n")+"\n"+undoTail("Replace"), 2000)
}

// undoHint says how to undo a change made at the bank, and until when.
func undoHint(bank string, at time.Time) string {
	return fmt.Sprintf("↩️ Changed your mind? `/quizadmin bank undo name:%s` restores it until <t:%d:f>.", bank, at.Add(questions.UndoKeep).Unix())
}

// changeText says what a kept version was kept from.
func changeText(c questions.BankChange) string {
	switch c {
	case questions.ChangeRemoved:
		return "it was removed"
	case questions.ChangeReplaced:
		return "an import replaced it"
	case questions.ChangeQuestionRemoved:
		return "a question was removed from it"
	case questions.ChangeUndone:
		return "an undo"
	}
	return "it changed"
}

// undoneMessage reports a restored version v (n questions): from when,
// and what a next undo would do (keptNow: the bank as it was is kept;
// else older, when there is one, is the next step back).
func undoneMessage(v questions.BankVersion, n int, keptNow bool, older *questions.BankVersion, now time.Time) message {
	text := fmt.Sprintf("↩️ Restored **%s** as it was before %s <t:%d:f> (by <@%d>): %s. Answers to its questions count as before.",
		v.File.Name, changeText(v.Change), v.At.Unix(), v.By, plural(n, "question", "questions"))
	switch {
	case keptNow:
		text += fmt.Sprintf("\nThe bank had changed since; as it was just now, it is kept: `/quizadmin bank undo name:%s` again puts it back (until <t:%d:f>).",
			v.File.Name, now.Add(questions.UndoKeep).Unix())
	case older != nil:
		text += fmt.Sprintf("\nAn earlier version is kept too, from before %s <t:%d:f>: undo again to go back further.", changeText(older.Change), older.At.Unix())
	}
	return message{ephemeral: true, content: text}
}
