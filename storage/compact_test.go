package storage

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// dumpFile returns every bucket (with its sequence), key and value of the
// closed file at path.
func dumpFile(t testing.TB, path string) string {
	t.Helper()
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out string
	b.View(func(tx *bbolt.Tx) error { out = dumpTx(tx); return nil })
	return out
}

// dumpDB is dumpFile of an open database.
func dumpDB(db *DB) string {
	var out string
	db.bolt.View(func(tx *bbolt.Tx) error { out = dumpTx(tx); return nil })
	return out
}

func dumpTx(tx *bbolt.Tx) string {
	var out strings.Builder
	var walk func(b *bbolt.Bucket, path string)
	walk = func(b *bbolt.Bucket, path string) {
		fmt.Fprintf(&out, "%s seq=%d\n", path, b.Sequence())
		b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(b.Bucket(k), path+"/"+hex.EncodeToString(k))
				return nil
			}
			fmt.Fprintf(&out, "%s/%x=%x\n", path, k, v)
			return nil
		})
	}
	tx.ForEach(func(name []byte, b *bbolt.Bucket) error { walk(b, hex.EncodeToString(name)); return nil })
	return out.String()
}

// freedFile returns a copy of freedFixture.
func freedFile(t *testing.T) string {
	t.Helper()
	path, _ := freedFixture.copy(t)
	return path
}

// freedFixture is a database whose history freed many pages: answers over
// two months (each post's in one transaction), then their day, week and
// month scores pruned, and a large bank imported and removed.
var freedFixture = fileFixture[struct{}]{build: func(t *testing.T, path string) struct{} {
	db := openPath(t, path)
	for i := range 20 {
		p := mustPost(t, db, questions.Post{QuestionID: fmt.Sprintf("q#%d", i), Tags: []string{"t"}})
		var as []questions.Answer
		for u := questions.UserID(1); u <= 20; u++ {
			as = append(as, questions.Answer{PostID: p.ID, GuildID: guild, UserID: u, InteractionID: uint64(u)*1000 + uint64(p.ID),
				Choice: []string{questions.Letter(int(u) % 3)}, At: t0.Add(time.Duration(i)*36*time.Hour + time.Duration(u)*time.Minute)})
		}
		answerTogether(t, db, as)
	}
	if _, err := db.PruneScores(t.Context(), t0.AddDate(0, 3, 0), 0); err != nil {
		t.Fatal(err)
	}
	big := questions.BankFile{Name: "Big", Format: questions.FormatYAML, Data: bytes.Repeat([]byte("# padding\n"), 200_000)}
	if err := db.SaveBank(t.Context(), guild, big); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteBank(t.Context(), guild, "Big"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return struct{}{}
}}

// TestCompactFile: a file with many freed pages shrinks, and every bucket,
// sequence, key and value is as it was; the copy opens and reads alike.
func TestCompactFile(t *testing.T) {
	t.Parallel()
	path := freedFile(t)
	before := dumpFile(t, path)
	st, _ := os.Stat(path)
	res, err := CompactFile(t.Context(), path, "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if res.Path != path || res.Before != st.Size() || res.After != after.Size() || res.After*3 > res.Before {
		t.Errorf("compacted: got %+v (file now %d bytes), want the file itself at most a third of %d bytes", res, after.Size(), st.Size())
	}
	if got := dumpFile(t, path); got != before {
		t.Errorf("the compacted file holds other data: %s", firstDiff(got, before))
	}
	// Keys: every value, and every bucket but the top-level ones.
	buckets := strings.Count(before, " seq=")
	values := strings.Count(before, "\n") - buckets
	if want := values + buckets - len(mustTopBuckets(t, path)); res.Keys != want {
		t.Errorf("compacted: %d keys, want %d", res.Keys, want)
	}
	db := openPath(t, path)
	if lb, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 3); err != nil || lb.Total != 20 {
		t.Errorf("leaderboard of the compacted file: got %+v, %v", lb, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func mustTopBuckets(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out [][]byte
	b.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bbolt.Bucket) error { out = append(out, name); return nil })
	})
	return out
}

// TestCompactFileOut writes the copy to another file and leaves the
// database as it was; it refuses an output that exists or is the database.
func TestCompactFileOut(t *testing.T) {
	t.Parallel()
	path := freedFile(t)
	data, _ := os.ReadFile(path)
	out := filepath.Join(t.TempDir(), "small.db")
	res, err := CompactFile(t.Context(), path, out, time.Second)
	if err != nil || res.Path != out {
		t.Fatalf("CompactFile to %s: got %+v, %v", out, res, err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
		t.Error("the database changed")
	}
	if got, want := dumpFile(t, out), dumpFile(t, path); got != want {
		t.Errorf("the copy holds other data: %s", firstDiff(got, want))
	}
	for _, dest := range []string{out, path} {
		if _, err := CompactFile(t.Context(), path, dest, time.Second); err == nil {
			t.Errorf("CompactFile to %s: got nil error, want a refusal", dest)
		}
	}
}

// TestCompactFileRefuses: a database in use (the bot running) or damaged
// is left as it was; a compaction stopped by its context renames nothing.
func TestCompactFileRefuses(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	answer(t, db, mustPost(t, db, questions.Post{}), 1, t0, "B")
	if _, err := CompactFile(t.Context(), path, "", 50*time.Millisecond); !errors.Is(err, ErrInUse) {
		t.Errorf("CompactFile of an open database: got %v, want ErrInUse", err)
	}
	db.Close()

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	data, _ := os.ReadFile(path)
	if _, err := CompactFile(ctx, path, "", time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("CompactFile with its context ended: got %v, want context.Canceled", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
		t.Error("a stopped compaction changed the database")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	damaged := filepath.Join(t.TempDir(), "cut.db")
	if err := os.WriteFile(damaged, data[:len(data)/2+1], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := CompactFile(t.Context(), damaged, "", time.Second); !errors.Is(err, ErrDamaged) {
		t.Errorf("CompactFile of a cut file: got %v, want ErrDamaged", err)
	}
}
