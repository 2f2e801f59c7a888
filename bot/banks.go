package bot

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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
