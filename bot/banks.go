package bot

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// guildBanks returns every bank the guild can use: the catalogue's (built-in
// and QUIZHOST_QUESTIONS) and its imported ones, sorted by name.
func (b *Bot) guildBanks(guild questions.GuildID) ([]*questions.Bank, error) {
	imp, err := b.imported(guild)
	if err != nil {
		return nil, err
	}
	all := append(slices.Clone(b.cfg.Catalogue.Banks()), imp.banks...)
	sort.SliceStable(all, func(i, j int) bool { return strings.ToLower(all[i].Name) < strings.ToLower(all[j].Name) })
	return all, nil
}

// offeredBanks are the banks an autocomplete offers: the server's imported
// banks only, or every bank it can draw from.
func (b *Bot) offeredBanks(guild questions.GuildID, importedOnly bool) ([]*questions.Bank, error) {
	if !importedOnly {
		return b.guildBanks(guild)
	}
	g, err := b.imported(guild)
	if err != nil {
		return nil, err
	}
	return g.banks, nil
}

// questionFor returns the question a post asked, as the guild's banks have
// it now; nil if it is gone or has changed since (other options or answer),
// in which case the post's own record is all that can be shown.
func (b *Bot) questionFor(p questions.Post) *questions.Question {
	return sameQuestion(p, b.question(p.GuildID, p.QuestionID))
}

// answerQuestion is questionFor on the answer path, which never loads a
// bank: the catalogue's question, or the guild's as its snapshot has it;
// a snapshot not loaded yet (the first answer after a start) is loaded
// in the background and waited for until deadline at most, then nil.
func (b *Bot) answerQuestion(p questions.Post, deadline time.Time) *questions.Question {
	if q, ok := b.cfg.Catalogue.Question(p.QuestionID); ok {
		return sameQuestion(p, q)
	}
	g := b.importedBy(p.GuildID, deadline)
	if g == nil {
		return nil
	}
	return sameQuestion(p, g.byID[p.QuestionID])
}

// sameQuestion is q if it is still the question p asked (same options and
// answer), else nil.
func sameQuestion(p questions.Post, q *questions.Question) *questions.Question {
	if q == nil || len(q.Options) != p.OptionCount || !slices.Equal(q.Correct(), p.Correct) {
		return nil
	}
	return q
}

// sameName compares bank names as members type them: case and surrounding
// space do not matter.
func sameName(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) }

// findBank finds a bank by name; nil if there is none.
func findBank(banks []*questions.Bank, name string) *questions.Bank {
	for _, bk := range banks {
		if sameName(bk.Name, name) {
			return bk
		}
	}
	return nil
}

// question finds a question by its stable ID among the guild's banks; nil
// if no bank has it any more. IDs are unique across a guild's banks:
// Loader checks the catalogue, and imports are refused on a clash.
func (b *Bot) question(guild questions.GuildID, id string) *questions.Question {
	if q, ok := b.cfg.Catalogue.Question(id); ok {
		return q
	}
	g, err := b.imported(guild)
	if err != nil {
		return nil
	}
	return g.byID[id]
}

// importedFile finds an imported bank by name, or says why not.
func (b *Bot) importedFile(guild questions.GuildID, name string) (questions.BankFile, error) {
	files, err := b.store.Banks(guild)
	if err != nil {
		return questions.BankFile{}, fmt.Errorf("banks: %w", err)
	}
	for _, f := range files {
		if sameName(f.Name, name) {
			return f, nil
		}
	}
	return questions.BankFile{}, notImported(b.cfg.Catalogue, name)
}

// notImported says why name is no imported bank of the server.
func notImported(cat *questions.Catalogue, name string) error {
	if _, ok := cat.Bank(strings.TrimSpace(name)); ok {
		return userErr("**%s** is not an imported bank: it comes with this quizhost. `/quizadmin settings banks:` leaves it out of the draw.", truncate(name, 100))
	}
	return userErr("There is no imported bank named %q.", truncate(name, 100))
}

// banksCmd lists the banks this server can use (/quiz banks).
func (b *Bot) banksCmd(c *call, _ options) (response, error) {
	banks, err := b.guildBanks(c.guild)
	if err != nil {
		return response{}, err
	}
	asked, err := b.store.Asked(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("banks: %w", err)
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("banks: %w", err)
	}
	imp, err := b.imported(c.guild)
	if err != nil {
		return response{}, err
	}
	return asReply(banksMessage(banks, imp.banks, asked, set.Banks)), nil
}

// banksMessage lists the banks a server can use: questions, how many are
// not asked yet, which are imported and which are left out of the draw
// (draw: the settings' banks; empty for all).
func banksMessage(banks, imported []*questions.Bank, asked map[string]bool, draw []string) message {
	var lines []string
	for _, bk := range banks {
		left := 0
		for _, q := range bk.Questions {
			if !asked[q.ID] {
				left++
			}
		}
		line := fmt.Sprintf("**%s** · %s · %d not yet asked", bk.Name, plural(len(bk.Questions), "question", "questions"), left)
		if findBank(imported, bk.Name) != nil {
			line += " · imported"
		}
		if len(draw) > 0 && !containsName(draw, bk.Name) {
			line += " · not in the draw"
		}
		lines = append(lines, line)
	}
	e := &discordgo.MessageEmbed{Title: "📚 Question banks", Color: colorOpen,
		Description: truncate(strings.Join(lines, "\n"), maxDesc)}
	return message{ephemeral: true, embeds: []*discordgo.MessageEmbed{e}}
}

// containsName reports whether names holds name (see sameName).
func containsName(names []string, name string) bool {
	for _, x := range names {
		if sameName(x, name) {
			return true
		}
	}
	return false
}
