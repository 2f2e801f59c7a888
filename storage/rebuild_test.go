package storage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// TestRebuildRepairs: derived data lost or damaged is recounted from the
// answers.
func TestRebuildRepairs(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{Tags: []string{"a"}})
	for u := questions.UserID(1); u <= 20; u++ {
		answer(t, db, p, u, t0.Add(time.Duration(u)*time.Hour), questions.Letter(int(u%2)))
	}
	want := dumpDerived(t, db, guild)
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guild)
		if err := g.Bucket(bPeriods).DeleteBucket(kAllTime); err != nil {
			return err
		}
		m, _, err := getMember(g.Bucket(bMembers), nil, 1)
		if err != nil {
			return err
		}
		m.topics = []topicStat{{topic: "tag:a", answered: 99, correct: 99}}
		return putMember(g.Bucket(bMembers), nil, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildScores(t.Context(), guild); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpDerived(t, db, guild), want); d != "" {
		t.Errorf("after rebuild:\n%s", d)
	}
	if err := db.RebuildScores(t.Context(), 4242); err != nil {
		t.Errorf("rebuild of an unknown guild: %v", err)
	}
}

// TestRebuildAside: a rebuild that counts aside (recountAside, the way of
// a guild of many answers), here seven answers a scratch transaction,
// writes what counting in its own transaction writes (every bucket, key and
// value but the block cuts, so every board, standing, streak and memory
// reads the same), before and after a change of time zone and a regrade
// (both rebuild); it leaves no scratch file, and Open removes one a dead
// process left.
func TestRebuildAside(t *testing.T) {
	t.Parallel()
	inPlace, path, sc := newRichDB(t)
	asidePath := filepath.Join(t.TempDir(), "aside.db")
	if err := inPlace.BackupFile(asidePath); err != nil {
		t.Fatal(err)
	}
	aside, err := Open(t.Context(), asidePath, Options{Now: func() time.Time { return t0 }, NoSync: true, recountInPlace: -1, recountChunk: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer aside.Close()
	// The two files start the same (a backup is a copy): counted aside,
	// each bucket, key and value but how the rankings are cut into blocks
	// (checked against their keys) stays the same as counted in place, so
	// every reader reads the same of both (see dumpAll).
	same := func(when string) {
		t.Helper()
		if d := diffMaps(dumpAll(t, aside), dumpAll(t, inPlace)); d != "" {
			t.Fatalf("%s: counted aside, the file differs from counted in place:\n%s", when, d)
		}
	}
	for _, db := range []*DB{inPlace, aside} {
		for _, g := range sc.guilds {
			if err := db.RebuildScores(t.Context(), g); err != nil {
				t.Fatal(err)
			}
		}
	}
	same("a rebuild")
	for _, db := range []*DB{inPlace, aside} {
		if _, err := db.UpdateSettings(t.Context(), guild, func(s *questions.Settings) error { s.TimeZone = "America/New_York"; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	regraded := 0
	for _, qid := range sc.questions {
		first, ok := sc.firstPost(guild, qid)
		if !ok {
			continue
		}
		r1, err1 := inPlace.Regrade(t.Context(), guild, qid, []string{"A"}, first.OptionCount)
		r2, err2 := aside.Regrade(t.Context(), guild, qid, []string{"A"}, first.OptionCount)
		if r1 != r2 || (err1 == nil) != (err2 == nil) {
			t.Fatalf("regrade of %q: in place %+v, %v; aside %+v, %v", qid, r1, err1, r2, err2)
		}
		if err1 == nil && r1.Changed > 0 {
			if regraded++; regraded == 2 {
				break
			}
		}
	}
	if regraded == 0 {
		t.Fatal("no regrade changed an answer")
	}
	same("a new time zone and regrades")

	entries, err := os.ReadDir(filepath.Dir(asidePath))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(asidePath) {
			t.Errorf("left beside the file after counting aside: %s", e.Name())
		}
	}
	// A scratch file of a process that died counting is removed by Open.
	inPlace.Close()
	stale := path + scratchSuffix + "123"
	if err := os.WriteFile(stale, []byte("half counted"), 0o600); err != nil {
		t.Fatal(err)
	}
	reopened := openPath(t, path)
	defer reopened.Close()
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dead process's scratch file after Open: %v, want removed", err)
	}
}
