package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// openQuota opens a fresh database with quota q.
func openQuota(t *testing.T, q questions.Quota) *DB {
	t.Helper()
	path := newPath(t)
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return t0 }, Quota: q, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		checkFile(t, path)
	})
	return db
}

// qbank is a stored bank file of n questions and size bytes.
func qbank(name string, n, size int) questions.BankFile {
	return questions.BankFile{Name: name, Format: questions.FormatYAML, Data: []byte(strings.Repeat("x", size)), Questions: n}
}

func TestSaveBanksQuota(t *testing.T) {
	t.Parallel()
	quota := questions.Quota{Banks: 3, Questions: 100, Bytes: 1000}
	tests := []struct {
		name  string
		have  []questions.BankFile // stored first, within the quota
		save  []questions.BankFile
		want  string // the bound refused ("" for none)
		have2 int64  // and how much the change would have made of it
	}{
		{"within every bound", nil, []questions.BankFile{qbank("a", 50, 500), qbank("b", 50, 500)}, "", 0},
		{"one bank too many", []questions.BankFile{qbank("a", 1, 1), qbank("b", 1, 1)}, []questions.BankFile{qbank("c", 1, 1), qbank("d", 1, 1)}, "banks", 4},
		{"a replaced bank is not one more", []questions.BankFile{qbank("a", 1, 1), qbank("b", 1, 1), qbank("c", 1, 1)}, []questions.BankFile{qbank("B", 2, 2)}, "", 0},
		{"questions past the bound", []questions.BankFile{qbank("a", 60, 1)}, []questions.BankFile{qbank("b", 41, 1)}, "questions", 101},
		{"a replaced bank's questions count once", []questions.BankFile{qbank("a", 60, 1)}, []questions.BankFile{qbank("a", 100, 1)}, "", 0},
		{"bytes past the bound", []questions.BankFile{qbank("a", 1, 600)}, []questions.BankFile{qbank("b", 1, 401)}, "bytes", 1001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openQuota(t, quota)
			if err := db.SaveBanks(t.Context(), guild, tt.have, 0); err != nil {
				t.Fatal(err)
			}
			before, _ := db.Banks(guild)
			err := db.SaveBanks(t.Context(), guild, tt.save, 0)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("SaveBanks: %v, want stored", err)
				}
				return
			}
			var qe *questions.QuotaError
			if !errors.Is(err, questions.ErrOverQuota) || !errors.As(err, &qe) || qe.What != tt.want || qe.Have != tt.have2 {
				t.Fatalf("SaveBanks: got %v, want a quota error on %s at %d", err, tt.want, tt.have2)
			}
			if after, _ := db.Banks(guild); len(after) != len(before) {
				t.Errorf("a refused change stored banks: %d, want %d", len(after), len(before))
			}
		})
	}
}

// A guild past a bound the operator lowered may shrink, not grow; deleting
// a bank frees its share.
func TestQuotaLowered(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	db := openPath(t, path)
	if err := db.SaveBanks(t.Context(), guild, []questions.BankFile{qbank("a", 80, 10), qbank("b", 80, 10)}, 0); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err := Open(t.Context(), path, Options{Quota: questions.Quota{Banks: 1, Questions: 100}, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SaveBanks(t.Context(), guild, []questions.BankFile{qbank("a", 70, 10)}, 0); err != nil {
		t.Errorf("shrinking a bank of a guild past its quota: %v, want stored", err)
	}
	if err := db.SaveBanks(t.Context(), guild, []questions.BankFile{qbank("a", 71, 10)}, 0); !errors.Is(err, questions.ErrOverQuota) {
		t.Errorf("growing a bank of a guild past its quota: %v, want ErrOverQuota", err)
	}
	if err := db.DeleteBank(t.Context(), guild, "B"); err != nil {
		t.Fatal(err)
	}
	if u, err := db.BankUsage(guild); err != nil || u != (questions.BankUsage{Banks: 1, Questions: 70, Bytes: 10}) {
		t.Errorf("usage after the delete: %+v, %v; want 1 bank, 70 questions, 10 bytes", u, err)
	}
	if err := db.SaveBanks(t.Context(), guild, []questions.BankFile{qbank("a", 100, 10)}, 0); err != nil {
		t.Errorf("growing within the quota after a delete: %v", err)
	}
}

// Concurrent writes cannot pass the quota together: it is checked inside
// the transaction that stores.
func TestQuotaConcurrent(t *testing.T) {
	t.Parallel()
	db := openQuota(t, questions.Quota{Banks: 5})
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			errs[i] = db.SaveBanks(t.Context(), guild, []questions.BankFile{qbank(fmt.Sprintf("b%d", i), 1, 1)}, 0)
		})
	}
	wg.Wait()
	stored := 0
	for _, err := range errs {
		switch {
		case err == nil:
			stored++
		case !errors.Is(err, questions.ErrOverQuota):
			t.Errorf("SaveBanks: %v", err)
		}
	}
	got, _ := db.Banks(guild)
	if stored != 5 || len(got) != 5 {
		t.Errorf("%d writes stored, %d banks kept; want 5 of each", stored, len(got))
	}
}

// TestMigrateV6 opens a version-6 file with imported banks (each file in
// its record, no bankdata or bankinfo): migration 7 moves each file to
// bankdata, counts its questions by parsing it, and its bytes.
func TestMigrateV6(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v6 := openV7(t, path, 6)
	yaml := "bank: Net\nquestions:\n- question: A?\n  options: [{text: a, correct: true}, {text: b}]\n- question: B?\n  options: [{text: a, correct: true}, {text: b}]\n"
	text := "Old Question 1\nSelect 1Q?\n- A\na\n- B\nb\nCorrect answer: A\n"
	files := []questions.BankFile{
		{Name: "Net", Format: questions.FormatYAML, Data: []byte(yaml)},
		{Name: "Old", Format: questions.FormatText, Data: []byte(text)},
		{Name: "Broken", Format: questions.FormatYAML, Data: []byte("bank: [")},
	}
	// Written as a version-6 build did: the bank records only.
	err := v6.bolt.Update(func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guild)
		if err != nil {
			return err
		}
		for _, b := range [][]byte{bBankData, bBankInfo} {
			if err := g.DeleteBucket(b); err != nil {
				return err
			}
		}
		for _, f := range files {
			v, err := json.Marshal(bankRec{Name: f.Name, Format: string(f.Format), Data: f.Data})
			if err != nil {
				return err
			}
			if err := g.Bucket(bBanks).Put(normBank(f.Name), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v6.Close()

	db := openPath(t, path)
	var schema uint64
	db.bolt.View(func(tx *bbolt.Tx) error {
		schema = getU64(tx.Bucket(bMeta).Get(kSchema))
		return nil
	})
	if schema != SchemaVersion() {
		t.Errorf("schema after the migration: %d, want this build's %d", schema, SchemaVersion())
	}
	want := questions.BankUsage{Banks: 3, Questions: 3, Bytes: int64(len(yaml) + len(text) + len("bank: ["))}
	if u, err := db.BankUsage(guild); err != nil || u != want {
		t.Errorf("usage after the migration: %+v, %v; want %+v", u, err, want)
	}
	banks, err := db.Banks(guild)
	if err != nil || len(banks) != 3 || banks[1].Name != "Net" || banks[1].Questions != 2 || banks[2].Questions != 1 {
		t.Fatalf("banks after the migration: %+v, %v; want Broken, Net (2 questions), Old (1)", banks, err)
	}
	if string(banks[1].Data) != yaml || string(banks[2].Data) != text {
		t.Errorf("files after the migration: %q, %q; want them as stored", banks[1].Data, banks[2].Data)
	}
	db.bolt.View(func(tx *bbolt.Tx) error {
		if v := guildRO(tx, guild).Bucket(bBanks).Get([]byte("net")); bytes.Contains(v, []byte(`"data"`)) {
			t.Errorf("bank record after the migration still holds the file: %s", v)
		}
		return nil
	})
}

// bankLayout is what the guild keeps of each bank in bankdata/ and
// bankinfo/, as name → "file questions/bytes"; a record without its file
// or counts, or the other way round, shows as "missing".
func bankLayout(t *testing.T, db *DB, g questions.GuildID) map[string]string {
	t.Helper()
	out := map[string]string{}
	db.bolt.View(func(tx *bbolt.Tx) error {
		gb := guildRO(tx, g)
		seen := map[string]bool{}
		for _, b := range [][]byte{bBanks, bBankData, bBankInfo} {
			sub(gb, b).ForEach(func(k, _ []byte) error { seen[string(k)] = true; return nil })
		}
		for k := range seen {
			rec, data, info := getIn(sub(gb, bBanks), []byte(k)), getIn(sub(gb, bBankData), []byte(k)), getIn(sub(gb, bBankInfo), []byte(k))
			if rec == nil || data == nil || len(info) != 16 || bytes.Contains(rec, []byte(`"data"`)) {
				out[k] = "missing"
				continue
			}
			out[k] = fmt.Sprintf("%s %d/%d", data, getU64(info), getU64(info[8:]))
		}
		return nil
	})
	return out
}

// EditBanks (undo's keep and restore) stores a bank as SaveBanks does: the
// file in bankdata/, its counts in bankinfo/, and a removed bank's entries
// deleted; the version it keeps is the file as stored there.
func TestEditBanksLayout(t *testing.T) {
	t.Parallel()
	db := openQuota(t, questions.Quota{})
	ctx := t.Context()
	if err := db.SaveBanks(ctx, guild, []questions.BankFile{qbank("Net", 2, 4), qbank("Sec", 1, 3)}, 0); err != nil {
		t.Fatal(err)
	}
	next := qbank("Net", 3, 5)
	next.Data = []byte("net v2")
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{next}, Keep: []string{"net"},
		Change: questions.ChangeReplaced, By: 8, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Remove: []string{"SEC"}, Keep: []string{"sec"},
		Change: questions.ChangeRemoved, By: 8, At: t0}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"net": "net v2 3/6"}
	if got := bankLayout(t, db, guild); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("layout after a replace and a remove: %v, want %v", got, want)
	}
	if u, _ := db.BankUsage(guild); u != (questions.BankUsage{Banks: 1, Questions: 3, Bytes: 6}) {
		t.Errorf("usage: %+v, want 1 bank, 3 questions, 6 bytes", u)
	}
	vs, err := db.BankVersions(guild)
	if err != nil || len(vs) != 2 || string(vs[0].File.Data) != "xxxx" || string(vs[1].File.Data) != "xxx" {
		t.Fatalf("kept versions: %+v, %v; want Net's file xxxx and Sec's xxx", vs, err)
	}
	restore := qbank("Sec", 1, 3)
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{restore}, Restore: vs[1].ID}); err != nil {
		t.Fatal(err)
	}
	want["sec"] = "xxx 1/3"
	if got := bankLayout(t, db, guild); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("layout after the restore: %v, want %v", got, want)
	}
}

// An edit is held to the quota like SaveBanks, comparing the banks before
// and after the whole edit: a restore that would take the server past a
// bound stores nothing and keeps its version; one that fits, or a change
// that shrinks a server past a lowered bound, goes through.
func TestEditBanksQuota(t *testing.T) {
	t.Parallel()
	db := openQuota(t, questions.Quota{Banks: 2, Questions: 10})
	ctx := t.Context()
	if err := db.SaveBanks(ctx, guild, []questions.BankFile{qbank("a", 6, 1), qbank("b", 4, 1)}, 0); err != nil {
		t.Fatal(err)
	}
	// Remove a (kept), then fill its room with c.
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Remove: []string{"a"}, Keep: []string{"a"}, Change: questions.ChangeRemoved, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveBanks(ctx, guild, []questions.BankFile{qbank("c", 5, 1)}, 0); err != nil {
		t.Fatal(err)
	}
	vs, _ := db.BankVersions(guild)
	if len(vs) != 1 {
		t.Fatalf("versions: %+v, want a's", vs)
	}
	before := bankLayout(t, db, guild)
	err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{qbank("a", 6, 1)}, Restore: vs[0].ID})
	var qe *questions.QuotaError
	if !errors.As(err, &qe) || !errors.Is(err, questions.ErrOverQuota) || qe.What != "banks" || qe.Have != 3 || qe.Limit != 2 {
		t.Fatalf("restore past the quota: %v, want a QuotaError of 3 banks, at most 2", err)
	}
	if got := bankLayout(t, db, guild); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("a refused restore wrote: %v, want %v", got, before)
	}
	if vs, _ := db.BankVersions(guild); len(vs) != 1 {
		t.Errorf("a refused restore took its version: %+v", vs)
	}
	// Made room: the restore goes through and takes the version.
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Remove: []string{"c"}, Keep: []string{"c"}, Change: questions.ChangeRemoved, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{qbank("a", 6, 1)}, Restore: vs[0].ID}); err != nil {
		t.Fatalf("restore within the quota: %v", err)
	}
	// A replace that grows past the questions bound is refused; one that
	// shrinks a bank is not, even past a lowered bound.
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{qbank("b", 5, 1)}, Keep: []string{"b"},
		Change: questions.ChangeReplaced, At: t0}); !errors.Is(err, questions.ErrOverQuota) {
		t.Errorf("a replace to 11 questions: %v, want ErrOverQuota", err)
	}
	db.quota = questions.Quota{Questions: 5}
	if err := db.EditBanks(ctx, guild, questions.BankEdit{Save: []questions.BankFile{qbank("b", 3, 1)}, Keep: []string{"b"},
		Change: questions.ChangeQuestionRemoved, At: t0}); err != nil {
		t.Errorf("a question removed past a lowered bound: %v, want stored", err)
	}
}

// Versions kept by a version-6 build (the file in the version's record, as
// now) read back after migration 7 and restore into bankdata/ with their
// counts.
func TestMigrateV6KeptVersions(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v6 := openV7(t, path, 6)
	yaml := "bank: Net\nquestions:\n- question: A?\n  options: [{text: a, correct: true}, {text: b}]\n"
	err := v6.bolt.Update(func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guild)
		if err != nil {
			return err
		}
		for _, b := range [][]byte{bBankData, bBankInfo} {
			if err := g.DeleteBucket(b); err != nil {
				return err
			}
		}
		undo, err := g.CreateBucketIfNotExists(bUndo)
		if err != nil {
			return err
		}
		v, err := json.Marshal(versionRec{File: bankRec{Name: "Net", Format: "yaml", Data: []byte(yaml)}, Change: string(questions.ChangeRemoved),
			By: 8, At: t0, Size: len(yaml), ExpiresAt: t0.Add(questions.UndoKeep)})
		if err != nil {
			return err
		}
		return undo.Put(u64(uint64(1)), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	v6.Close()

	db := openPath(t, path)
	vs, err := db.BankVersions(guild)
	if err != nil || len(vs) != 1 || string(vs[0].File.Data) != yaml {
		t.Fatalf("versions after the migration: %+v, %v; want Net's file", vs, err)
	}
	f := vs[0].File
	f.Questions = 1
	if err := db.EditBanks(t.Context(), guild, questions.BankEdit{Save: []questions.BankFile{f}, Restore: vs[0].ID}); err != nil {
		t.Fatal(err)
	}
	if got := bankLayout(t, db, guild); got["net"] != fmt.Sprintf("%s 1/%d", yaml, len(yaml)) || len(got) != 1 {
		t.Errorf("layout after the restore: %v", got)
	}
}
