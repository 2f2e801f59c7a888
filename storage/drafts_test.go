package storage

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestDrafts(t *testing.T) {
	now := t0
	path := filepath.Join(t.TempDir(), "quiz.db")
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return now }})
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
	path := filepath.Join(t.TempDir(), "quiz.db")
	v3, err := open(t.Context(), path, Options{Now: func() time.Time { return t0 }}, migrations()[:3])
	if err != nil {
		t.Fatal(err)
	}
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
