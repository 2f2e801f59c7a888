package bot

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// A guild's imported banks live in memory as a snapshot: parsed once from
// storage (on first use) or built by the change that stored them, never
// changed afterwards, and swapped whole by the next change. Each guild has
// its own slot, so nothing one guild does with its banks (a first load,
// an import's parsing, encoding and storing) holds up another guild; in
// particular the answer path reads a snapshot and never parses a bank.

// guildBanks is a snapshot of a guild's imported banks. Immutable: share
// it, never change it or its banks.
type guildBanks struct {
	banks []*questions.Bank              // sorted by lower-case name, as storage keeps them
	byID  map[string]*questions.Question // every question of banks, by ID
}

// newGuildBanks indexes banks (sorted here) into a snapshot.
func newGuildBanks(banks []*questions.Bank) *guildBanks {
	slices.SortFunc(banks, func(a, b *questions.Bank) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	g := &guildBanks{banks: banks, byID: map[string]*questions.Question{}}
	for _, bk := range banks {
		for i := range bk.Questions {
			g.byID[bk.Questions[i].ID] = &bk.Questions[i]
		}
	}
	return g
}

// with returns the snapshot with banks in place of those of the same names
// (compared as sameName) and without the banks named in gone.
func (g *guildBanks) with(banks []*questions.Bank, gone ...string) *guildBanks {
	next := slices.Clone(banks)
	for _, bk := range g.banks {
		if findBank(banks, bk.Name) == nil && !containsName(gone, bk.Name) {
			next = append(next, bk)
		}
	}
	return newGuildBanks(next)
}

// bank is the snapshot's bank of that name (see sameName); nil when there
// is none, or no snapshot (g is nil).
func (g *guildBanks) bank(name string) *questions.Bank {
	if g == nil {
		return nil
	}
	return findBank(g.banks, name)
}

// bankSlot is one guild's place in Bot.bankSets.
type bankSlot struct {
	snap atomic.Pointer[guildBanks] // nil until loaded
	// edit serialises the guild's changes to its banks (import, paste,
	// approval, removal): each is planned from the snapshot as it is and
	// stored whole, then published. Held while parsing, encoding and
	// storing: it is this guild's alone.
	edit sync.Mutex

	mu   sync.Mutex // guards load; held for no work
	load *bankLoad  // the load in flight, nil when none
}

// bankLoad is a guild's snapshot being read from storage: done is closed
// when it is published (or failed with err).
type bankLoad struct {
	done chan struct{}
	err  error
}

// slot returns the guild's slot, creating it.
func (b *Bot) slot(guild questions.GuildID) *bankSlot {
	if s, ok := b.bankSets.Load(guild); ok {
		return s.(*bankSlot)
	}
	s, _ := b.bankSets.LoadOrStore(guild, &bankSlot{})
	return s.(*bankSlot)
}

// imported returns the guild's imported banks, loading them from storage
// on first use. Concurrent first uses share one load; a load blocks only
// the callers of its own guild.
func (b *Bot) imported(guild questions.GuildID) (*guildBanks, error) {
	s := b.slot(guild)
	if g := s.snap.Load(); g != nil {
		return g, nil
	}
	l := b.startLoad(guild, s)
	<-l.done
	if g := s.snap.Load(); g != nil {
		return g, nil
	}
	return nil, l.err
}

// importedBy is imported for the answer path: the snapshot if it is
// loaded, else the load is started (or joined) and waited for until
// deadline at most; nil when it is not ready by then or failed.
func (b *Bot) importedBy(guild questions.GuildID, deadline time.Time) *guildBanks {
	s := b.slot(guild)
	if g := s.snap.Load(); g != nil {
		return g
	}
	l := b.startLoad(guild, s)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-l.done:
	case <-t.C:
	}
	return s.snap.Load()
}

// warm loads the guilds' snapshots in the background, one after another,
// so that the first answers and closes after a start find them ready; it
// returns at once. A guild needed sooner is loaded on demand meanwhile
// (sharing the load if warm has started it).
func (b *Bot) warm(guilds []questions.GuildID, stop <-chan struct{}) {
	b.loads.Go(func() {
		for _, g := range guilds {
			select {
			case <-stop:
				return
			case <-b.startLoad(g, b.slot(g)).done:
			}
		}
	})
}

// startLoad returns the guild's load in flight, starting one when there
// is none (the snapshot is nil). The load runs on its own goroutine
// (counted in b.loads), so that a caller that stops waiting (importedBy)
// leaves it to finish for the next.
func (b *Bot) startLoad(guild questions.GuildID, s *bankSlot) *bankLoad {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.load != nil {
		return s.load
	}
	l := &bankLoad{done: make(chan struct{})}
	if s.snap.Load() != nil { // published since the caller looked
		close(l.done)
		return l
	}
	s.load = l
	b.loads.Go(func() {
		start := time.Now()
		g, err := b.loadBanks(guild)
		s.mu.Lock()
		if err == nil {
			s.snap.CompareAndSwap(nil, g) // a change published meanwhile is newer
		}
		l.err, s.load = err, nil
		s.mu.Unlock()
		close(l.done)
		if err != nil {
			b.log.Error("load imported banks", "guild", guild, "err", err)
			return
		}
		b.log.Debug("imported banks loaded", "guild", guild, "banks", len(g.banks), "questions", len(g.byID), "took", time.Since(start))
	})
	return l
}

// loadBanks reads and parses the guild's imported banks.
func (b *Bot) loadBanks(guild questions.GuildID) (*guildBanks, error) {
	files, err := b.store.Banks(guild)
	if err != nil {
		return nil, fmt.Errorf("imported banks: %w", err)
	}
	banks := make([]*questions.Bank, 0, len(files))
	for i, f := range files {
		bk, err := parseBankFile(f)
		files[i].Data = nil // parsed: let it go while the rest parse
		if err != nil {
			// It was valid when imported; a newer parser may disagree. Skip
			// it rather than take the whole guild down, and say so.
			b.log.Error("imported bank no longer parses", "guild", guild, "bank", f.Name, "err", err)
			continue
		}
		banks = append(banks, bk)
	}
	return newGuildBanks(banks), nil
}

// publish makes next the guild's snapshot. The caller holds the slot's
// edit lock and has stored the change next reflects.
func (s *bankSlot) publish(next *guildBanks) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snap.Store(next)
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
