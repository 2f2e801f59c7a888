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
func (b *Bot) guildBanks(guild uint64) ([]*questions.Bank, error) {
	imp, err := b.imported(guild)
	if err != nil {
		return nil, err
	}
	all := append(slices.Clone(b.cfg.Catalogue.Banks()), imp.banks...)
	sort.SliceStable(all, func(i, j int) bool { return strings.ToLower(all[i].Name) < strings.ToLower(all[j].Name) })
	return all, nil
}

func (b *Bot) imported(guild uint64) (*guildBanks, error) {
	if v, ok := b.guildMu.Load(guild); ok {
		return v.(*guildBanks), nil
	}
	// Loads and invalidations take turns, so a load that read the banks
	// before an import cannot cache them after it.
	b.importMu.Lock()
	defer b.importMu.Unlock()
	if v, ok := b.guildMu.Load(guild); ok {
		return v.(*guildBanks), nil
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
	b.guildMu.Store(guild, g)
	return g, nil
}

// forgetImported drops the guild's cached imported banks.
func (b *Bot) forgetImported(guild uint64) {
	b.importMu.Lock()
	defer b.importMu.Unlock()
	b.guildMu.Delete(guild)
}

func (b *Bot) importedNames(guild uint64) (map[string]bool, error) {
	g, err := b.imported(guild)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, bk := range g.banks {
		names[strings.ToLower(bk.Name)] = true
	}
	return names, nil
}

// question finds a question by its stable ID among the guild's banks; nil
// if no bank has it any more.
func (b *Bot) question(guild uint64, id string) *questions.Question {
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
	renameBank(&bk, f.Name)
	return &bk, nil
}

// renameBank gives a bank a new name, carrying its questions' IDs along
// when they were derived from the old name.
func renameBank(bk *questions.Bank, name string) {
	old := bk.Name
	if old == name {
		return
	}
	bk.Name = name
	for i := range bk.Questions {
		q := &bk.Questions[i]
		q.Bank = name
		if rest, ok := strings.CutPrefix(q.ID, old+"#"); ok {
			q.ID = name + "#" + rest
		}
	}
}
