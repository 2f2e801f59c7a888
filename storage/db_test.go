package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

func TestOpenStampsSchemaVersion(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	var got uint64
	db.bolt.View(func(tx *bbolt.Tx) error {
		got = getU64(tx.Bucket(bMeta).Get(kSchema))
		return nil
	})
	if want := SchemaVersion(); got != want {
		t.Errorf("schema version: got %d, want %d", got, want)
	}
}

func TestOpenInUse(t *testing.T) {
	t.Parallel() // waits out a lock timeout
	_, path := newDB(t)
	start := time.Now()
	db2, err := Open(t.Context(), path, Options{Timeout: 50 * time.Millisecond})
	if err == nil {
		db2.Close()
		t.Fatal("second Open: got nil error, want ErrInUse")
	}
	wantErr(t, err, ErrInUse)
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("second Open took %v, want about the 50ms timeout", d)
	}
}

// A file that cannot be opened is named once: "open PATH: reason".
func TestOpenNamesThePathOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing", "quiz.db")
	db, err := Open(t.Context(), path, Options{})
	if err == nil {
		db.Close()
		t.Fatal("Open in a missing folder: got nil error")
	}
	if !errors.Is(err, fs.ErrNotExist) || strings.Count(err.Error(), path) != 1 {
		t.Errorf("got %q, want one naming %s once and wrapping fs.ErrNotExist", err, path)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	b, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bbolt.Tx) error {
		m, _ := tx.CreateBucket(bMeta)
		return m.Put(kSchema, u64(SchemaVersion()+1))
	})
	b.Close()
	db, err := Open(t.Context(), path, Options{})
	if err == nil {
		db.Close()
		t.Fatal("Open: got nil error, want ErrSchemaTooNew")
	}
	wantErr(t, err, ErrSchemaTooNew)
	// The file is untouched: still the newer version.
	b, _ = bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	defer b.Close()
	b.View(func(tx *bbolt.Tx) error {
		if got := getU64(tx.Bucket(bMeta).Get(kSchema)); got != SchemaVersion()+1 {
			t.Errorf("schema after refusal: got %d, want %d", got, SchemaVersion()+1)
		}
		return nil
	})
}

func TestOpenRefusesNonDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	if err := writeFile(path, bytes.Repeat([]byte("not a database "), 1000)); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(t.Context(), path, Options{}); err == nil {
		db.Close()
		t.Fatal("Open of garbage: got nil error")
	}
}

// TestMigrateV1 builds a version-1 file (no streak index), opens it with
// this build and checks the index was built and the version stamped.
func TestMigrateV1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v1 := openV7(t, path, 1)
	p := mustPost(t, v1, questions.Post{})
	v7Answer(t, v1, p, 1, t0.AddDate(0, 0, -1), "B")
	p2 := mustPost(t, v1, questions.Post{})
	v7Answer(t, v1, p2, 1, t0, "A")
	v7Answer(t, v1, p2, 2, t0, "B")
	// Make it a genuine v1 layout: no streaks bucket.
	v1.bolt.Update(func(tx *bbolt.Tx) error { return guildRO(tx, guild).DeleteBucket(bStreaks) })
	v1.Close()

	db := openPath(t, path)
	var got uint64
	db.bolt.View(func(tx *bbolt.Tx) error {
		got = getU64(tx.Bucket(bMeta).Get(kSchema))
		return nil
	})
	if got != SchemaVersion() {
		t.Errorf("schema after migration: got %d, want %d", got, SchemaVersion())
	}
	streaks, err := db.ActiveStreaks(guild, t0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(streaks) != 2 || streaks[0].UserID != 1 || streaks[0].CurrentStreak != 2 || streaks[1].UserID != 2 {
		t.Errorf("active streaks after migration: got %+v, want member 1 (2 days) then 2", streaks)
	}
	assertRebuildEqual(t, db, guild)
}

// TestMigrateV2 builds a version-2 file (no unrevealed index, post records
// without "revealed") with an open and two closed posts, opens it with this
// build and checks that the closed posts count as revealed, the open one
// does not, and closing it lists it.
func TestMigrateV2(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v2 := openV7(t, path, 2)
	open := mustPost(t, v2, questions.Post{})
	v7Answer(t, v2, open, 1, t0, "B")
	var closed []questions.Post
	for range 2 {
		closed = append(closed, mustPost(t, v2, questions.Post{}))
	}
	// Close as a version-2 build did: the record and the open index only.
	err := v2.bolt.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bUnrevealed) != nil {
			t.Error("version-2 file has the unrevealed bucket")
		}
		for _, p := range closed {
			if err := tx.Bucket(bOpen).Delete(openKey(p)); err != nil {
				return err
			}
			p.Closed, p.ClosedAt = true, t0
			if err := putPost(tx, p); err != nil {
				return err
			}
			if v := tx.Bucket(bPosts).Get(u64(p.ID)); bytes.Contains(v, []byte("revealed")) {
				t.Errorf("version-2 record mentions revealed: %s", v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v2.Close()

	db := openPath(t, path)
	var got uint64
	db.bolt.View(func(tx *bbolt.Tx) error {
		got = getU64(tx.Bucket(bMeta).Get(kSchema))
		return nil
	})
	if got != SchemaVersion() || got < 3 {
		t.Errorf("schema after migration: got %d, want %d", got, SchemaVersion())
	}
	for _, p := range closed {
		if gotP, err := db.Post(p.ID); err != nil || !gotP.Revealed || !gotP.Closed || gotP.QuestionID != p.QuestionID {
			t.Errorf("closed post %d after migration: got %+v, %v; want closed and revealed", p.ID, gotP, err)
		}
	}
	if gotP, _ := db.Post(open.ID); gotP.Revealed || gotP.Closed || gotP.Answers != 1 {
		t.Errorf("open post after migration: got %+v; want open, not revealed, 1 answer", gotP)
	}
	if ps, err := db.UnrevealedPosts(); err != nil || len(ps) != 0 {
		t.Errorf("UnrevealedPosts after migration: got %+v, %v; want none", ps, err)
	}
	if _, _, err := db.ClosePost(t.Context(), open.ID, t0); err != nil {
		t.Fatal(err)
	}
	if ps, err := db.UnrevealedPosts(); err != nil || len(ps) != 1 || ps[0].ID != open.ID {
		t.Errorf("UnrevealedPosts after a close: got %+v, %v; want post %d", ps, err, open.ID)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "Europe/Paris", AskMinutes: 5,
		Daily: &questions.Daily{ChannelID: 9, Time: "08:00", Count: 2}}); err != nil {
		t.Fatal(err)
	}
	p := mustPost(t, db, questions.Post{Tags: []string{"net"}})
	a := answer(t, db, p, 42, t0, "B")
	if err := db.SaveBank(t.Context(), guild, questions.BankFile{Name: "Net", Format: questions.FormatYAML, Data: []byte("x: 1")}); err != nil {
		t.Fatal(err)
	}
	before := dumpDerived(t, db, guild)
	lbBefore, _ := db.Leaderboard(guild, questions.PeriodWeek, questions.ByPoints, t0, 0, 10)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openPath(t, path)
	s, _ := db.Settings(guild)
	if s.TimeZone != "Europe/Paris" || s.Daily == nil || s.Daily.ChannelID != 9 {
		t.Errorf("settings after reopen: got %+v", s)
	}
	gotP, err := db.Post(p.ID)
	if err != nil || gotP.Answers != 1 || gotP.Tallies[1] != 1 {
		t.Errorf("post after reopen: got %+v, %v", gotP, err)
	}
	gotA, err := db.Answer(p.ID, 42)
	if err != nil || !gotA.At.Equal(a.At) || gotA.InteractionID != a.InteractionID || !gotA.Right {
		t.Errorf("answer after reopen: got %+v, %v; want %+v", gotA, err, a)
	}
	banks, _ := db.Banks(guild)
	if len(banks) != 1 || string(banks[0].Data) != "x: 1" {
		t.Errorf("banks after reopen: got %+v", banks)
	}
	if d := diffMaps(dumpDerived(t, db, guild), before); d != "" {
		t.Errorf("derived data after reopen differs:\n%s", d)
	}
	lb, _ := db.Leaderboard(guild, questions.PeriodWeek, questions.ByPoints, t0, 0, 10)
	if len(lb.Entries) != 1 || lb.Entries[0] != lbBefore.Entries[0] {
		t.Errorf("leaderboard after reopen: got %+v, want %+v", lb.Entries, lbBefore.Entries)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	if db.Path() != path {
		t.Errorf("Path: got %q, want %q", db.Path(), path)
	}
	if err := db.Check(); err != nil {
		t.Errorf("Check of a fresh file: %v", err)
	}
}

func TestGroupCommitRetriesWithoutFailingCall(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	boom := errors.New("boom")
	// A call that fails must not take the others down with it.
	errs := make(chan error, 3)
	for i := range 3 {
		go func() {
			errs <- db.group.do(t.Context(), func(tx *bbolt.Tx, _ *deltas) error {
				if i == 1 {
					return boom
				}
				if i == 2 {
					panic("kaboom")
				}
				return tx.Bucket(bSettings).Put(u64(uint64(100+i)), []byte("{}"))
			})
		}()
	}
	var got []error
	for range 3 {
		got = append(got, <-errs)
	}
	nBoom, nPanic, nOK := 0, 0, 0
	for _, err := range got {
		switch {
		case err == nil:
			nOK++
		case errors.Is(err, boom):
			nBoom++
		case strings.Contains(err.Error(), "kaboom"):
			nPanic++
		}
	}
	if nOK != 1 || nBoom != 1 || nPanic != 1 {
		t.Errorf("results: got %v, want one nil, one boom, one panic", got)
	}
	if s, err := db.Settings(100); err != nil || s.GuildID != 100 {
		t.Errorf("write of the good call: got %+v, %v", s, err)
	}
}

// TestWholeFile: a copy cut short anywhere is refused before bbolt maps it
// (mapping it could fault, which no recover catches); the whole copy passes.
func TestWholeFile(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	for u := questions.UserID(1); u <= 50; u++ {
		answer(t, db, p, u, t0, "B")
	}
	var good bytes.Buffer
	if _, err := db.Backup(&good); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.db")
	os.WriteFile(whole, good.Bytes(), 0o600)
	if err := wholeFile(whole); err != nil {
		t.Fatalf("whole copy: %v", err)
	}
	if err := checkFileAt(whole); err != nil {
		t.Fatalf("check of the whole copy: %v", err)
	}
	for n := 0; n < good.Len(); n += 4096 {
		cut := filepath.Join(dir, fmt.Sprintf("cut%d.db", n))
		os.WriteFile(cut, good.Bytes()[:n+100], 0o600)
		if n+100 >= good.Len() {
			continue
		}
		if err := checkFileAt(cut); err == nil {
			t.Errorf("a copy cut at %d of %d bytes passed the check", n+100, good.Len())
		}
	}
}

// TestOpenWritesNothingToACurrentFile: opening a file of this build's
// schema only reads it (the bytes are the same after Open and Close).
func TestOpenWritesNothingToACurrentFile(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	answer(t, db, mustPost(t, db, questions.Post{}), 1, t0, "B")
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db = openPath(t, path)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("Open and Close of a current file changed it")
	}
}
