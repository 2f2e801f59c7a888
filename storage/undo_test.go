package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// clockDB is a fresh database whose clock the test moves through *now.
func clockDB(t *testing.T, now *time.Time) *DB {
	t.Helper()
	path := newPath(t)
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return *now }, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(); checkFile(t, path) })
	return db
}

func bankFile(name, data string) questions.BankFile {
	return questions.BankFile{Name: name, Format: questions.FormatYAML, Data: []byte(data), ImportedAt: t0, ImportedBy: 7}
}

// bankData is the guild's stored banks as name → data.
func bankData(t *testing.T, db *DB, g questions.GuildID) map[string]string {
	t.Helper()
	files, err := db.Banks(g)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[f.Name] = string(f.Data)
	}
	return out
}

func TestConfirmations(t *testing.T) {
	t.Parallel()
	now := t0
	db := clockDB(t, &now)
	c, err := db.SaveConfirmation(t.Context(), questions.Confirmation{GuildID: guild, UserID: 7, Action: questions.ConfirmImportReplace,
		Stamp: "s1", Banks: []questions.BankFile{bankFile("Net", "bank: Net"), bankFile("Sec", "bank: Sec")}})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID == 0 || !c.CreatedAt.Equal(t0) || !c.ExpiresAt.Equal(t0.Add(questions.ConfirmExpiry)) {
		t.Fatalf("saved %+v: want an ID, created at t0, expiring ConfirmExpiry later", c)
	}
	got, err := db.Confirmation(guild, c.ID)
	if err != nil || got.UserID != 7 || got.Action != questions.ConfirmImportReplace || got.Stamp != "s1" ||
		len(got.Banks) != 2 || string(got.Banks[1].Data) != "bank: Sec" || got.Banks[1].Name != "Sec" {
		t.Fatalf("Confirmation = %+v, %v; want it as saved", got, err)
	}
	if _, err := db.Confirmation(guild+1, c.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("another guild's confirmation: %v, want ErrNotFound", err)
	}
	// Taken once: the second take and a read find nothing.
	if took, err := db.TakeConfirmation(t.Context(), guild, c.ID); err != nil || took.Stamp != "s1" {
		t.Fatalf("TakeConfirmation = %+v, %v", took, err)
	}
	if _, err := db.TakeConfirmation(t.Context(), guild, c.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("second take: %v, want ErrNotFound", err)
	}
	if _, err := db.Confirmation(guild, c.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("read after take: %v, want ErrNotFound", err)
	}
	// Expired: read and take say not found, and the take deletes it.
	c2, err := db.SaveConfirmation(t.Context(), questions.Confirmation{GuildID: guild, UserID: 7, Action: questions.ConfirmBankRemove, Bank: "Net"})
	if err != nil {
		t.Fatal(err)
	}
	if c2.ID <= c.ID {
		t.Errorf("second confirmation has ID %d, want above %d (IDs are never reused)", c2.ID, c.ID)
	}
	now = c2.ExpiresAt
	if _, err := db.Confirmation(guild, c2.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("expired read: %v, want ErrNotFound", err)
	}
	if _, err := db.TakeConfirmation(t.Context(), guild, c2.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("expired take: %v, want ErrNotFound", err)
	}
	now = t0
	if _, err := db.Confirmation(guild, c2.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("the expired take did not delete it: %v", err)
	}
}

// TestConfirmationsOneTake: of many takes of one confirmation at once,
// exactly one gets it.
func TestConfirmationsOneTake(t *testing.T) {
	t.Parallel()
	now := t0
	db := clockDB(t, &now)
	c, err := db.SaveConfirmation(t.Context(), questions.Confirmation{GuildID: guild, UserID: 7, Action: questions.ConfirmReset})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 20 {
		wg.Go(func() {
			_, err := db.TakeConfirmation(t.Context(), guild, c.ID)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case !errors.Is(err, questions.ErrNotFound):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d takes got the confirmation, want 1", won)
	}
}

func TestConfirmationBounds(t *testing.T) {
	t.Parallel()
	now := t0
	db := clockDB(t, &now)
	var ids []questions.ConfirmationID
	for i := range questions.MaxConfirmations + 2 {
		c, err := db.SaveConfirmation(t.Context(), questions.Confirmation{GuildID: guild, UserID: questions.UserID(7 + i%2),
			Action: questions.ConfirmBankRemove, Bank: fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	// The oldest two were replaced, whoever made them.
	for i, id := range ids {
		_, err := db.Confirmation(guild, id)
		if want := i >= 2; (err == nil) != want {
			t.Errorf("confirmation %d of %d: err %v, want kept %v", i+1, len(ids), err, want)
		}
	}
	// One too large alone is refused, and deletes nothing.
	huge := questions.Confirmation{GuildID: guild, UserID: 7, Action: questions.ConfirmImportReplace,
		Banks: []questions.BankFile{{Name: "Big", Format: questions.FormatYAML, Data: make([]byte, questions.MaxConfirmBytes+1), ImportedAt: t0, ImportedBy: 7}}}
	if _, err := db.SaveConfirmation(t.Context(), huge); !errors.Is(err, questions.ErrTooLarge) {
		t.Errorf("a confirmation above MaxConfirmBytes: %v, want ErrTooLarge", err)
	}
	if _, err := db.Confirmation(guild, ids[len(ids)-1]); err != nil {
		t.Errorf("the refused one deleted another (%v)", err)
	}
}

// TestTrimExpiring: the bounds of confirms/ and undo/ (their byte bounds
// are tens of MiB, so the rule is tested here on small records).
func TestTrimExpiring(t *testing.T) {
	t.Parallel()
	type rec struct {
		size    int
		expired bool
	}
	tests := []struct {
		name        string
		recs        []rec
		maxN, maxB  int
		keepNewest  bool
		wantLeft    []int // indexes of recs left
		wantDeleted int
	}{
		{"within bounds", []rec{{10, false}, {10, false}}, 5, 100, true, []int{0, 1}, 0},
		{"expired go first", []rec{{10, true}, {10, false}, {10, true}}, 5, 100, true, []int{1}, 2},
		{"count: the oldest go", []rec{{1, false}, {1, false}, {1, false}, {1, false}}, 2, 100, true, []int{2, 3}, 2},
		{"bytes: the oldest go until they fit", []rec{{40, false}, {40, false}, {40, false}}, 5, 90, true, []int{1, 2}, 1},
		{"the newest stays alone above the bound", []rec{{40, false}, {200, false}}, 5, 100, true, []int{1}, 1},
		{"room for a new one: everything may go", []rec{{40, false}, {40, false}}, 4, 30, false, nil, 2},
		{"room for a new one: count", []rec{{1, false}, {1, false}, {1, false}}, 2, 100, false, []int{1, 2}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := newDB(t)
			err := db.bolt.Update(func(tx *bbolt.Tx) error {
				b, err := tx.CreateBucket([]byte("t"))
				if err != nil {
					return err
				}
				for i, r := range tt.recs {
					exp := t0.Add(time.Hour)
					if r.expired {
						exp = t0
					}
					v, _ := json.Marshal(expiring{Size: r.size, ExpiresAt: exp})
					if err := b.Put(u64(uint64(i+1)), v); err != nil {
						return err
					}
				}
				n, err := trimExpiring(b, t0, tt.maxN, tt.maxB, tt.keepNewest)
				if err != nil {
					return err
				}
				if n != tt.wantDeleted {
					t.Errorf("deleted %d, want %d", n, tt.wantDeleted)
				}
				var left []int
				b.ForEach(func(k, _ []byte) error { left = append(left, int(getU64(k))-1); return nil })
				if fmt.Sprint(left) != fmt.Sprint(tt.wantLeft) && !(len(left) == 0 && len(tt.wantLeft) == 0) {
					t.Errorf("left %v, want %v", left, tt.wantLeft)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestEditBanksKeepsVersions(t *testing.T) {
	t.Parallel()
	now := t0
	db := clockDB(t, &now)
	ctx := t.Context()
	if err := db.SaveBanks(ctx, guild, []questions.BankFile{bankFile("Net", "v1"), bankFile("Sec", "s1")}, 0); err != nil {
		t.Fatal(err)
	}
	// Replace Net: its v1 is kept, with the digest of what replaced it.
	at := t0.Add(time.Minute)
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{bankFile("net", "v2")}, Keep: []string{"NET"},
		Change: questions.ChangeReplaced, By: 8, At: at}); err != nil {
		t.Fatal(err)
	}
	if got := bankData(t, db, guild); got["net"] != "v2" || got["Sec"] != "s1" || len(got) != 2 {
		t.Fatalf("banks after the replace: %v", got)
	}
	vs, err := db.BankVersions(guild)
	if err != nil || len(vs) != 1 {
		t.Fatalf("BankVersions = %+v, %v; want one", vs, err)
	}
	v := vs[0]
	if v.File.Name != "Net" || string(v.File.Data) != "v1" || v.Change != questions.ChangeReplaced || v.By != 8 ||
		!v.At.Equal(at) || v.After != questions.Digest([]byte("v2")) || !v.ExpiresAt.Equal(at.Add(questions.UndoKeep)) ||
		!v.File.ImportedAt.Equal(t0) || v.File.ImportedBy != 7 {
		t.Errorf("kept version %+v", v)
	}
	// Remove Sec: kept with no digest after; removing a bank that is not
	// there stores nothing.
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Remove: []string{"Sec", "Gone"}, Keep: []string{"Sec"},
		Change: questions.ChangeRemoved, By: 8, At: at}); !errors.Is(err, questions.ErrNotFound) {
		t.Fatalf("removing a bank that is not there: %v, want ErrNotFound", err)
	}
	if vs, _ := db.BankVersions(guild); len(vs) != 1 || len(bankData(t, db, guild)) != 2 {
		t.Fatalf("a refused edit wrote: %d versions, banks %v", len(vs), bankData(t, db, guild))
	}
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Remove: []string{"sec"}, Keep: []string{"sec"},
		Change: questions.ChangeRemoved, By: 8, At: at}); err != nil {
		t.Fatal(err)
	}
	vs, _ = db.BankVersions(guild)
	if len(vs) != 2 || vs[1].File.Name != "Sec" || vs[1].After != "" || vs[1].ID <= vs[0].ID {
		t.Fatalf("versions after the remove: %+v", vs)
	}
	// Restore Sec: the version goes with the edit; a second restore of it
	// finds nothing and stores nothing.
	restore := questions.BankEdit{Save: []questions.BankFile{bankFile("Sec", "s1")}, Restore: vs[1].ID}
	if err := db.EditBanks(ctx, guild, restore); err != nil {
		t.Fatal(err)
	}
	if got := bankData(t, db, guild); got["Sec"] != "s1" {
		t.Errorf("Sec after restore: %v", got)
	}
	restore.Save = []questions.BankFile{bankFile("Sec", "other")}
	if err := db.EditBanks(ctx, guild, restore); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("second restore: %v, want ErrNotFound", err)
	}
	if got := bankData(t, db, guild); got["Sec"] != "s1" {
		t.Errorf("a refused restore wrote: %v", got)
	}
	// Expired versions read as gone and are pruned; a restore of one is
	// refused.
	now = at.Add(questions.UndoKeep)
	if vs, err := db.BankVersions(guild); err != nil || len(vs) != 0 {
		t.Errorf("BankVersions after UndoKeep = %+v, %v; want none", vs, err)
	}
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{bankFile("Net", "v1")}, Restore: vs[0].ID}); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("restoring an expired version: %v, want ErrNotFound", err)
	}
	res, err := db.PruneExpired(ctx, now)
	if err != nil || res.Versions != 1 {
		t.Errorf("PruneExpired = %+v, %v; want 1 version", res, err)
	}
}

func TestKeptVersionBounds(t *testing.T) {
	t.Parallel()
	now := t0
	db := clockDB(t, &now)
	ctx := t.Context()
	keep := func(name string, size int) {
		t.Helper()
		if err := db.SaveBanks(ctx, guild, []questions.BankFile{bankFile(name, string(bytes.Repeat([]byte("x"), size)))}, 0); err != nil {
			t.Fatal(err)
		}
		if err := db.EditBanks(ctx, guild, questions.BankEdit{Remove: []string{name}, Keep: []string{name},
			Change: questions.ChangeRemoved, By: 7, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range questions.MaxKeptVersions + 3 {
		keep(fmt.Sprint("b", i), 10)
	}
	vs, err := db.BankVersions(guild)
	if err != nil || len(vs) != questions.MaxKeptVersions || vs[0].File.Name != "b3" {
		t.Fatalf("%d versions, first %q (%v); want %d from b3", len(vs), vs[0].File.Name, err, questions.MaxKeptVersions)
	}
}

// TestPruneExpiredConfirmations: PruneExpired deletes confirmations
// nobody clicked and writes nothing when nothing expired.
func TestPruneExpiredConfirmations(t *testing.T) {
	t.Parallel()
	now := t0
	db := clockDB(t, &now)
	c, err := db.SaveConfirmation(t.Context(), questions.Confirmation{GuildID: guild, UserID: 7, Action: questions.ConfirmReset})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := db.PruneExpired(t.Context(), c.ExpiresAt.Add(-time.Second)); err != nil || res != (ExpiredResult{}) {
		t.Errorf("PruneExpired before the expiry = %+v, %v; want nothing", res, err)
	}
	if res, err := db.PruneExpired(t.Context(), c.ExpiresAt); err != nil || res.Confirmations != 1 {
		t.Errorf("PruneExpired at the expiry = %+v, %v; want 1 confirmation", res, err)
	}
}
