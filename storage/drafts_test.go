package storage

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestDrafts(t *testing.T) {
	t.Parallel()
	now := t0
	path := newPath(t)
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return now }, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(); checkFile(t, path) })

	paste, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 7, Kind: questions.DraftPaste, Bank: "Net",
		Text: "Net Question 1\r\nSelect 1…", ExpiresAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	sugg, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 8, Kind: questions.DraftSuggestion, Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if paste.ID == 0 || sugg.ID == paste.ID || !paste.CreatedAt.Equal(t0) {
		t.Fatalf("ids %d, %d, created %v: want distinct non-zero ids created at t0", paste.ID, sugg.ID, paste.CreatedAt)
	}
	got, err := db.Draft(guild, paste.ID)
	if err != nil || got.Text != paste.Text || got.Bank != "Net" || got.Kind != questions.DraftPaste || got.UserID != 7 {
		t.Errorf("Draft = %+v, %v; want %+v", got, err, paste)
	}
	if _, err := db.Draft(guild+1, paste.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("another guild's draft: got %v, want ErrNotFound", err)
	}

	// Only queued suggestions are in the queue.
	if q, err := db.Suggestions(guild); err != nil || len(q) != 0 {
		t.Errorf("Suggestions before queueing = %+v, %v; want none", q, err)
	}
	sugg.Queued = true
	if _, err := db.SaveDraft(t.Context(), sugg); err != nil {
		t.Fatal(err)
	}
	if q, err := db.Suggestions(guild); err != nil || len(q) != 1 || q[0].ID != sugg.ID || q[0].UserID != 8 {
		t.Errorf("Suggestions = %+v, %v; want suggestion %d", q, err, sugg.ID)
	}

	// Expired drafts read as gone, and the next save drops them.
	now = t0.Add(time.Hour)
	if _, err := db.Draft(guild, paste.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("expired draft: got %v, want ErrNotFound", err)
	}
	if _, err := db.SaveDraft(t.Context(), paste); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("saving over an expired draft: got %v, want ErrNotFound", err)
	}
	if _, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 9, Kind: questions.DraftPaste, Text: "y", ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var left int
	db.bolt.View(func(tx *bbolt.Tx) error {
		left = guildRO(tx, guild).Bucket(bDrafts).Stats().KeyN
		return nil
	})
	if left != 2 {
		t.Errorf("%d drafts stored after the clean-up, want 2 (the queued suggestion, which does not expire, and the new draft)", left)
	}

	if err := db.DeleteDraft(t.Context(), guild, sugg.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteDraft(t.Context(), guild, sugg.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("second delete: got %v, want ErrNotFound", err)
	}
}

func TestSaveBanksWithDraft(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	d, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 7, Kind: questions.DraftSuggestion, Text: "x", Queued: true})
	if err != nil {
		t.Fatal(err)
	}
	files := []questions.BankFile{
		{Name: "Net", Format: questions.FormatYAML, Data: []byte("net"), ImportedAt: t0, ImportedBy: 7},
		{Name: "Data", Format: questions.FormatYAML, Data: []byte("data"), ImportedAt: t0, ImportedBy: 7},
	}
	if err := db.SaveBanks(t.Context(), guild, files, d.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Banks(guild)
	if len(got) != 2 || got[0].Name != "Data" || got[1].Name != "Net" || string(got[1].Data) != "net" {
		t.Errorf("banks after SaveBanks: %+v", got)
	}
	if _, err := db.Draft(guild, d.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("draft after SaveBanks: got %v, want ErrNotFound", err)
	}
	// A second approval of the same draft stores nothing.
	files[0].Data = []byte("changed")
	if err := db.SaveBanks(t.Context(), guild, files, d.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("SaveBanks with a gone draft: got %v, want ErrNotFound", err)
	}
	if got, _ := db.Banks(guild); string(got[1].Data) != "net" {
		t.Errorf("a refused SaveBanks changed bank Net to %q", got[1].Data)
	}
	// Without a draft: all banks or none.
	if err := db.SaveBanks(t.Context(), guild, []questions.BankFile{{Name: "New", Data: []byte("n")}, {Name: ""}}, 0); err == nil {
		t.Error("SaveBanks with a nameless bank: got nil error")
	}
	if got, _ := db.Banks(guild); len(got) != 2 {
		t.Errorf("%d banks after a refused SaveBanks, want 2", len(got))
	}
}

// TestMigrateV3 opens a version-3 file whose guild has no drafts bucket:
// the migration adds it, and drafts work.
func TestMigrateV3(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v3 := openV7(t, path, 3)
	if err := v3.SaveBank(t.Context(), guild, questions.BankFile{Name: "Net", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	v3.bolt.Update(func(tx *bbolt.Tx) error { return guildRO(tx, guild).DeleteBucket(bDrafts) })
	v3.Close()

	db := openPath(t, path)
	var has bool
	db.bolt.View(func(tx *bbolt.Tx) error {
		has = guildRO(tx, guild).Bucket(bDrafts) != nil
		return nil
	})
	if !has {
		t.Fatal("no drafts bucket after the migration")
	}
	d, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 7, Kind: questions.DraftSuggestion, Text: "x", Queued: true})
	if err != nil {
		t.Fatal(err)
	}
	if q, err := db.Suggestions(guild); err != nil || len(q) != 1 || q[0].ID != d.ID {
		t.Errorf("Suggestions after the migration = %+v, %v", q, err)
	}
}

// TestSuggestionCapConcurrent is issue 19's "40 submits at once queued
// 32": the cap of questions.MaxQueuedSuggestions is checked in the
// transaction that queues, so 40 suggestions queued at once by one member
// leave exactly 10, and another member is not held to that member's cap.
func TestSuggestionCapConcurrent(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	start := make(chan struct{})
	for range 40 {
		wg.Go(func() {
			<-start
			_, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 7, Kind: questions.DraftSuggestion, Text: "x", Queued: true})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, questions.ErrQueueFull):
				refused++
			case err != nil:
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	q, err := db.Suggestions(guild)
	if err != nil || len(q) != questions.MaxQueuedSuggestions || refused != 40-questions.MaxQueuedSuggestions {
		t.Errorf("40 suggestions queued at once: %d queued (%v), %d refused; want %d and %d", len(q), err, refused,
			questions.MaxQueuedSuggestions, 40-questions.MaxQueuedSuggestions)
	}
	// A draft the member had before is refused when queued too; another
	// member queues.
	d, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 7, Kind: questions.DraftSuggestion, Text: "y"})
	if err != nil {
		t.Fatal(err)
	}
	d.Queued = true
	if _, err := db.SaveDraft(t.Context(), d); !errors.Is(err, questions.ErrQueueFull) {
		t.Errorf("queueing an 11th suggestion: got %v, want ErrQueueFull", err)
	}
	if got, _ := db.Draft(guild, d.ID); got.Queued {
		t.Error("the refused draft was queued")
	}
	if _, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: 8, Kind: questions.DraftSuggestion, Text: "z", Queued: true}); err != nil {
		t.Errorf("another member's suggestion: %v", err)
	}
}

// TestUnsentDraftCap: a member keeps at most questions.MaxUnsentDrafts
// drafts neither added nor queued; a new one deletes the oldest. Queued
// suggestions and other members' drafts stay.
func TestUnsentDraftCap(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	save := func(user questions.UserID, queued bool) questions.Draft {
		t.Helper()
		d, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: user, Kind: questions.DraftSuggestion,
			Text: "x", Queued: queued, ExpiresAt: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	queued := save(7, true)
	other := save(8, false)
	var mine []questions.Draft
	for range 8 {
		mine = append(mine, save(7, false))
	}
	for i, d := range mine {
		_, err := db.Draft(guild, d.ID)
		if kept := i >= len(mine)-questions.MaxUnsentDrafts; kept != (err == nil) {
			t.Errorf("draft %d of 8: Draft = %v, want kept %v", i+1, err, kept)
		}
	}
	// Saving an existing draft again deletes nothing.
	if _, err := db.SaveDraft(t.Context(), mine[len(mine)-1]); err != nil {
		t.Fatal(err)
	}
	for _, d := range append([]questions.Draft{queued, other}, mine[len(mine)-questions.MaxUnsentDrafts:]...) {
		if _, err := db.Draft(guild, d.ID); err != nil {
			t.Errorf("draft %d (member %d, queued %v): %v, want kept", d.ID, d.UserID, d.Queued, err)
		}
	}
}
