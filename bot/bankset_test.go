package bot

import (
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// countingStore counts Banks calls per guild and holds those of one guild
// until release is closed.
type countingStore struct {
	*storage.DB
	held    questions.GuildID
	release chan struct{}
	calls   sync.Map // guild → *atomic.Int32
}

func (s *countingStore) Banks(g questions.GuildID) ([]questions.BankFile, error) {
	n, _ := s.calls.LoadOrStore(g, new(atomic.Int32))
	n.(*atomic.Int32).Add(1)
	if g == s.held {
		<-s.release
	}
	return s.DB.Banks(g)
}

func (s *countingStore) count(g questions.GuildID) int32 {
	n, ok := s.calls.Load(g)
	if !ok {
		return 0
	}
	return n.(*atomic.Int32).Load()
}

// Concurrent first uses of a guild's banks share one load, which holds up
// no other guild's; all of them get the same snapshot.
func TestBanksLoadOncePerGuild(t *testing.T) {
	db, err := storage.Open(t.Context(), filepath.Join(t.TempDir(), "q.db"), storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bk := questions.Bank{Name: "Mine", Questions: []questions.Question{{ID: "Mine#1", Bank: "Mine", Number: 1, Stem: "A?",
		Options: []questions.Option{{Letter: "A", Text: "x", Correct: true}, {Letter: "B", Text: "y"}}}}}
	data, err := questions.MarshalYAML(bk)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []questions.GuildID{1, 2} {
		if err := db.SaveBanks(t.Context(), g, []questions.BankFile{{Name: "Mine", Format: questions.FormatYAML, Data: data, Questions: 1}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	st := &countingStore{DB: db, held: 1, release: make(chan struct{})}
	builtin, err := questions.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := questions.NewCatalogue(builtin)
	b, err := New(Config{Token: "x", Store: st, Catalogue: cat, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}

	const callers = 20
	var started, done sync.WaitGroup
	got := make([]*guildBanks, callers)
	for i := range callers {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			started.Done()
			g, err := b.imported(1)
			if err != nil {
				t.Error(err)
			}
			got[i] = g
		}()
	}
	started.Wait()
	// Guild 1's load is held in the store; guild 2's goes by.
	if g, err := b.imported(2); err != nil || len(g.banks) != 1 || g.byID["Mine#1"] == nil {
		t.Errorf("guild 2 while guild 1 loads: %v, %v", g, err)
	}
	close(st.release)
	done.Wait()
	b.loads.Wait()
	if n := st.count(1); n != 1 {
		t.Errorf("guild 1's banks read %d times by %d first uses, want once", n, callers)
	}
	for i, g := range got {
		if g == nil || g != got[0] || g.byID["Mine#1"] == nil {
			t.Fatalf("caller %d got snapshot %p, caller 0 %p; want the same, with the question", i, g, got[0])
		}
	}
	if g, _ := b.imported(1); g != got[0] || st.count(1) != 1 {
		t.Errorf("a later use loaded again (%d reads) or got another snapshot", st.count(1))
	}
}
