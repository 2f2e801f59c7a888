package bot

import (
	"fmt"
	"strings"

	"github.com/quizhost/quizhost/questions"
)

// Exam settings: what /quiz mock sits for a bank. A bank's files give
// them (questions.Bank.Exam); a server's admins set them for the server
// with /quizadmin bank exam, over the files' (Store.SetBankExam); what
// neither sets is the default (questions.Exam.Plan, PassMark).

// examOf is the exam settings of bank bk in the guild: its files', with
// those the guild's admins set over them.
func (b *Bot) examOf(guild questions.GuildID, bk *questions.Bank) (questions.Exam, error) {
	var e questions.Exam
	if bk.Exam != nil {
		e = *bk.Exam
	}
	set, err := b.store.BankExams(guild)
	if err != nil {
		return questions.Exam{}, fmt.Errorf("exam settings: %w", err)
	}
	if o, ok := set[strings.ToLower(bk.Name)]; ok {
		e = e.Override(o)
	}
	return e, nil
}

// bankExam shows or sets a bank's exam settings in the server
// (/quizadmin bank exam bank:<name> [questions] [minutes] [pass]). 0 for
// questions or minutes, and "default" for pass, go back to the bank
// file's setting, or the default.
func (b *Bot) bankExam(c *call, opts options) (response, error) {
	name, _ := opts.str("bank")
	banks, err := b.guildBanks(c.guild)
	if err != nil {
		return response{}, err
	}
	bk := findBank(banks, name)
	if bk == nil {
		return response{}, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(name, 100))
	}
	set, err := b.store.BankExams(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("bank exam: %w", err)
	}
	var file questions.Exam
	if bk.Exam != nil {
		file = *bk.Exam
	}
	mine := set[strings.ToLower(bk.Name)]
	n, hasN := opts.int("questions")
	mins, hasM := opts.int("minutes")
	pass, hasP := opts.str("pass")
	if !hasN && !hasM && !hasP {
		return asReply(bankExamMessage(bk, file, mine, false)), nil
	}
	next := mine
	if hasN {
		next.Questions = n
	}
	if hasM {
		next.Minutes = mins
	}
	if hasP {
		if strings.EqualFold(strings.TrimSpace(pass), "default") {
			next.Pass = questions.PassMark{}
		} else {
			p, err := questions.ParsePassMark(pass, file.Override(mine).PassMark())
			if err != nil {
				return response{}, userErr("%s.", truncate(err.Error(), 300))
			}
			next.Pass = p
		}
	}
	if err := questions.CheckExam(next); err != nil {
		return response{}, userErr("%s.", truncate(err.Error(), 300))
	}
	if err := b.store.SetBankExam(c.ctx, c.guild, bk.Name, next); err != nil {
		return response{}, fmt.Errorf("bank exam: %w", err)
	}
	return asReply(bankExamMessage(bk, file, next, true)), nil
}

// bankExamMessage shows a bank's exam settings in the server: what a mock
// exam of it is, and where each setting comes from (this server's
// admins, the bank's file, the default).
func bankExamMessage(bk *questions.Bank, file, mine questions.Exam, changed bool) message {
	e := file.Override(mine)
	head := "📝"
	if changed {
		head = "✅ Saved."
	}
	from := func(set bool, inFile bool) string {
		switch {
		case set:
			return "set here"
		case inFile:
			return "the bank's file"
		}
		return "the default"
	}
	text := fmt.Sprintf("%s A mock exam of **%s** (`/quiz mock`): %s.\nQuestions: %s · minutes: %s · pass mark: %s",
		head, bk.Name, e.Describe(len(bk.Questions)),
		from(mine.Questions > 0, file.Questions > 0), from(mine.Minutes > 0, file.Minutes > 0), from(!mine.Pass.IsZero(), !file.Pass.IsZero()))
	if len(e.Domains) > 0 {
		text += " · domains: " + from(len(mine.Domains) > 0, true)
	}
	text += ".\nChange them with `questions:`, `minutes:` and `pass:` (70%, 700 of 100-1000, 700/1000); 0 or `pass:default` go back to the file's or the default."
	return message{ephemeral: true, content: text}
}
