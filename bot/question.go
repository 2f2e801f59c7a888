package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Single questions: /quizadmin question show and remove, by ID
// (autocompleted with the server's questions).

// questionShow shows a question as posted, with its answer, privately
// (/quizadmin question show id:<id>).
func (b *Bot) questionShow(c *call, opts options) (response, error) {
	id, _ := opts.str("id")
	q := b.question(c.guild, strings.TrimSpace(id))
	if q == nil {
		return response{}, userErr("There is no question with id %q here. Type part of its text and pick it from the list.", truncate(id, 100))
	}
	return asReply(questionShowMessage(q, b.isCatalogue(q.ID))), nil
}

// questionShowMessage is a question as posted and its reveal, with its ID
// and where it comes from.
func questionShowMessage(q *questions.Question, builtin bool) message {
	origin := "imported"
	if builtin {
		origin = "comes with this quizhost"
	}
	return message{ephemeral: true,
		content: truncate(fmt.Sprintf("🔎 Question `%s` · bank **%s** (%s)", q.ID, q.Bank, origin), 2000),
		embeds:  fitEmbeds(previewEmbeds(q))}
}

func (b *Bot) isCatalogue(id string) bool {
	_, ok := b.cfg.Catalogue.Question(id)
	return ok
}

// questionRemove removes a question from an imported bank (/quizadmin
// question remove id:<id>); the bank goes when its last question does.
// Answers and scores earned on it stay.
func (b *Bot) questionRemove(c *call, opts options) (response, error) {
	id, _ := opts.str("id")
	id = strings.TrimSpace(id)
	if q, ok := b.cfg.Catalogue.Question(id); ok {
		return response{}, userErr("Question `%s` is in **%s**, which comes with this quizhost: it can't be removed here. Edit the bank file instead.", truncate(q.ID, 200), q.Bank)
	}
	bank, left, err := b.removeQuestion(c.ctx, c.guild, c.user, id)
	if err != nil {
		return response{}, err
	}
	return asReply(questionRemovedMessage(id, bank, left)), nil
}

// questionRemovedMessage says a question was removed from bank, which has
// left questions now (none: the bank went with it).
func questionRemovedMessage(id, bank string, left int) message {
	if left == 0 {
		return message{ephemeral: true, content: fmt.Sprintf(
			"🗑️ Removed `%s`. It was the last question of **%s**, so the bank is gone too. Scores earned on it stay.", id, bank)}
	}
	return message{ephemeral: true, content: fmt.Sprintf(
		"🗑️ Removed `%s` from **%s** (%s left). Scores earned on it stay.", id, bank, plural(left, "question", "questions"))}
}

// removeQuestion removes the question of that ID from the imported bank
// that has it, removing the bank with its last question. It returns the
// bank's name and how many questions it has left.
func (b *Bot) removeQuestion(ctx context.Context, guild questions.GuildID, user questions.UserID, id string) (string, int, error) {
	s := b.slot(guild)
	s.edit.Lock()
	defer s.edit.Unlock()
	g, err := b.imported(guild)
	if err != nil {
		return "", 0, err
	}
	var bank *questions.Bank
	if q := g.byID[id]; q != nil {
		bank = findBank(g.banks, q.Bank)
	}
	if bank == nil {
		return "", 0, userErr("There is no question with id %q here. Type part of its text and pick it from the list.", truncate(id, 100))
	}
	rest, _ := questions.Without(*bank, id)
	if len(rest.Questions) == 0 {
		if err := b.store.DeleteBank(ctx, guild, bank.Name); err != nil {
			return "", 0, storeErr(err)
		}
		s.publish(g.with(nil, bank.Name))
		b.log.Info("question removed with its bank", "guild", guild, "user", user, "bank", bank.Name)
		return bank.Name, 0, nil
	}
	f, back, err := b.encodeBank(rest, user, b.clock.Now())
	if err != nil {
		return "", 0, fmt.Errorf("remove question: %w", err)
	}
	ch := bankChange{files: []questions.BankFile{f}, base: g, banks: []*questions.Bank{back}}
	if err := b.saveChange(ctx, s, guild, ch, 0); err != nil {
		return "", 0, fmt.Errorf("remove question: %w", err)
	}
	b.log.Info("question removed", "guild", guild, "user", user, "bank", bank.Name)
	return bank.Name, len(rest.Questions), nil
}

// questionChoices are the autocomplete choices for a question ID: the
// questions of banks whose ID, title or text contains typed (lower case),
// named "Bank · Question N · stem…", at most 25. IDs too long for a
// choice's value are left out.
func questionChoices(banks []*questions.Bank, typed string) []*discordgo.ApplicationCommandOptionChoice {
	var out []*discordgo.ApplicationCommandOptionChoice
	for _, bk := range banks {
		for i := range bk.Questions {
			q := &bk.Questions[i]
			title := questionTitle(q)
			stem := strings.Join(strings.Fields(q.Stem), " ")
			if len(q.ID) > 100 || !strings.Contains(strings.ToLower(q.ID+"\n"+title+"\n"+stem), typed) {
				continue
			}
			out = append(out, &discordgo.ApplicationCommandOptionChoice{Name: truncate(title+" · "+stem, 100), Value: q.ID})
			if len(out) == 25 {
				return out
			}
		}
	}
	return out
}
