package bot

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// guildBanks are a guild's imported banks, parsed once and cached until the
// guild imports or removes a bank.
type guildBanks struct {
	banks []*questions.Bank
}

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

// imported returns the server's imported banks, parsed from storage on
// first use and kept until they change.
func (b *Bot) imported(guild questions.GuildID) (*guildBanks, error) {
	b.importedMu.Lock()
	defer b.importedMu.Unlock()
	if g, ok := b.imports[guild]; ok {
		return g, nil
	}
	files, err := b.store.Banks(guild)
	if err != nil {
		return nil, fmt.Errorf("imported banks: %w", err)
	}
	g := &guildBanks{}
	for _, f := range files {
		bk, err := parseBankFile(f)
		if err != nil {
			// It was valid when imported; a newer parser may disagree. Skip
			// it rather than take the whole guild down, and say so.
			b.log.Error("imported bank no longer parses", "guild", guild, "bank", f.Name, "err", err)
			continue
		}
		g.banks = append(g.banks, bk)
	}
	b.imports[guild] = g
	return g, nil
}

// forgetImported drops the guild's cached imported banks.
func (b *Bot) forgetImported(guild questions.GuildID) {
	b.importedMu.Lock()
	defer b.importedMu.Unlock()
	delete(b.imports, guild)
}

// questionFor returns the question a post asked, as the guild's banks have
// it now; nil if it is gone or has changed since (other options or answer),
// in which case the post's own record is all that can be shown.
func (b *Bot) questionFor(p questions.Post) *questions.Question {
	q := b.question(p.GuildID, p.QuestionID)
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
	for _, bk := range g.banks {
		for i := range bk.Questions {
			if bk.Questions[i].ID == id {
				return &bk.Questions[i]
			}
		}
	}
	return nil
}

// parseBankFile parses an imported file as the one bank it holds, named as
// the import named it.
func parseBankFile(f questions.BankFile) (*questions.Bank, error) {
	banks, err := questions.Parse(f.Name+"."+string(f.Format), f.Data)
	if err != nil {
		return nil, err
	}
	if len(banks) != 1 {
		return nil, fmt.Errorf("bank file %q holds %d banks, want 1", f.Name, len(banks))
	}
	bk := banks[0]
	questions.Rename(&bk, f.Name)
	return &bk, nil
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
	if _, ok := b.cfg.Catalogue.Bank(strings.TrimSpace(name)); ok {
		return questions.BankFile{}, userErr("**%s** is not an imported bank: it comes with this quizhost. `/quizadmin settings banks:` leaves it out of the draw.", truncate(name, 100))
	}
	return questions.BankFile{}, userErr("There is no imported bank named %q.", truncate(name, 100))
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
