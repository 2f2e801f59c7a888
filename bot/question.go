package bot

import (
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
	return asReplies(questionShowMessage(q, b.isCatalogue(q.ID))), nil
}

// questionShowMessage is a question as posted and its reveal, with its ID
// and where it comes from: one message, or more when the reveal is long
// (the rest are follow-ups).
func questionShowMessage(q *questions.Question, builtin bool) []message {
	origin := "imported"
	if builtin {
		origin = "comes with this quizhost"
	}
	p := questions.Post{SelectCount: q.SelectCount(), OptionCount: len(q.Options), Correct: q.Correct()}
	parts := withReveal(questionEmbeds(q, colorOpen), revealBlocks(q, p, false))
	return revealMessages(message{ephemeral: true,
		content: truncate(fmt.Sprintf("🔎 Question `%s` · bank **%s** (%s) · %s", q.ID, q.Bank, origin, pickText(p.SelectCount)), maxContent)}, parts)
}

func (b *Bot) isCatalogue(id string) bool {
	_, ok := b.cfg.Catalogue.Question(id)
	return ok
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
