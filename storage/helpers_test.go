package storage

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/internal/testenv"
	"github.com/quizhost/quizhost/questions"
)

// TestMain runs the tests with the collector letting the heap grow to five
// times what is live before a cycle (GOGC=400) instead of twice: the
// tests' live heap is a few megabytes and they allocate fast (every
// reader's result formatted, a bbolt transaction per call), so at the
// default the collector runs much of the time, its write barriers with it.
// An explicit GOGC wins, and benchmarks (-test.bench) keep the default.
// The tests' files go to memory (testenv.Run): a database a
// test, made and removed, each page write journalled on a disk.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("GOGC") == "" && flag.Lookup("test.bench").Value.String() == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(testenv.Run(m))
}

// t0 is the tests' clock: Friday 14 March 2025, 12:00 UTC.
var t0 = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

const guild = 1000

// newDB opens a fresh database in t.TempDir(); cleanup closes it (if the test
// has not) and runs bbolt's consistency check on the file.
func newDB(t testing.TB) (*DB, string) {
	t.Helper()
	path := newPath(t)
	db := openPath(t, path)
	return db, path
}

// newPath returns the path of a new database file in t.TempDir(), a copy
// of newFile.
func newPath(t testing.TB) string {
	t.Helper()
	data, err := newFile()
	if err != nil {
		t.Fatalf("a new database file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "quiz.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newFile is a database file as Open creates it (empty, at the current
// schema version), made once per test binary: newDB copies it rather than
// have bbolt create every test's file, which syncs the new file's first
// pages to disk, a few milliseconds each.
var newFile = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "quizhost-storage-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "quiz.db")
	db, err := Open(context.Background(), path, Options{NoSync: true})
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

// fileFixture is a database file written once per test binary, by the
// first test that asks for it (one asking meanwhile waits), and copied for
// each test that asks: for fixtures several tests start from, each test
// changing its own copy. build writes the file at path (a new database
// file) with that first test's t, opening it with openPath (whose cleanup
// checks it), closes it and returns what the tests need to know of it
// besides its bytes (which they only read); if it fails, that test fails
// and the next one to ask builds it again.
type fileFixture[X any] struct {
	build func(t *testing.T, path string) X

	mu    sync.Mutex
	data  []byte
	extra X
}

// get returns the fixture's bytes and extra, building them the first
// time.
func (f *fileFixture[X]) get(t *testing.T) ([]byte, X) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		path := newPath(t)
		extra := f.build(t, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f.data, f.extra = data, extra
	}
	return f.data, f.extra
}

// copy writes a copy of the fixture into t.TempDir() and returns its path.
func (f *fileFixture[X]) copy(t *testing.T) (string, X) {
	t.Helper()
	data, extra := f.get(t)
	path := filepath.Join(t.TempDir(), "quiz.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, extra
}

// openPath opens path with the test clock (without fsync in tests) and
// registers the cleanup.
func openPath(t testing.TB, path string) *DB {
	t.Helper()
	// Tests skip fsync: what they read back is in the page cache all the
	// same, and durability across a crash is crash_test.go's, which opens
	// its own files. Benchmarks measure durable commits.
	_, bench := t.(*testing.B)
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return t0 }, NoSync: !bench})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		db.Close() // may be closed already
		checkFile(t, path)
	})
	return db
}

// checkFile runs tx.Check on a closed database file.
func checkFile(t testing.TB, path string) {
	t.Helper()
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Errorf("open for check: %v", err)
		return
	}
	defer b.Close()
	if err := b.View(checkTx); err != nil {
		t.Errorf("consistency check: %v", err)
	}
}

// mustPost creates an open post in guild with the given correct letters.
func mustPost(t testing.TB, db *DB, p questions.Post) questions.Post {
	t.Helper()
	if p.GuildID == 0 {
		p.GuildID = guild
	}
	if p.ChannelID == 0 {
		p.ChannelID = 7
	}
	if p.OptionCount == 0 {
		p.OptionCount = 4
	}
	if p.Correct == nil {
		p.Correct = []string{"B"}
	}
	p.SelectCount = len(p.Correct)
	if p.QuestionID == "" {
		p.QuestionID = fmt.Sprintf("bank#%d", time.Now().UnixNano())
	}
	if p.Bank == "" {
		p.Bank = "bank"
	}
	got, err := db.CreatePost(t.Context(), p)
	if err != nil {
		t.Fatalf("CreatePost: %v", err)
	}
	return got
}

// answer records an answer and fails the test on error.
func answer(t testing.TB, db *DB, post questions.Post, user questions.UserID, at time.Time, choice ...string) questions.Answer {
	t.Helper()
	a, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: post.ID, GuildID: post.GuildID, UserID: user,
		InteractionID: uint64(user)*1000 + uint64(post.ID), Choice: choice, At: at})
	if err != nil {
		t.Fatalf("RecordAnswer(post %d, user %d): %v", post.ID, user, err)
	}
	return a
}

// recordTogether records the answers in one shared transaction, as the
// group commit records answers that arrive together, and returns for each,
// in order, what RecordAnswer returns: the stored answer and nil, or a
// refusal (a domain error: the later of two answers of a member to a post
// is refused). A zero At is now. It fails the test on a storage error.
//
// A shared transaction stores what one transaction per answer stores
// (TestSharedTransactionsWriteWhatSingleOnesDo) for one commit instead of
// one each: tests that build a history of many answers, and are not about
// how each answer is committed, record it with this.
func recordTogether(t testing.TB, db *DB, as []questions.Answer) ([]questions.Answer, []error) {
	t.Helper()
	out, refused := make([]questions.Answer, len(as)), make([]error, len(as))
	err := db.write(t.Context(), func(tx *bbolt.Tx, d *deltas) error {
		for i, a := range as {
			if a.At.IsZero() {
				a.At = db.now()
			}
			a.At = a.At.UTC()
			var err error
			if out[i], refused[i], err = db.recordAnswer(tx, d, a); err != nil {
				return fmt.Errorf("answer %d (post %d, member %d): %w", i, a.PostID, a.UserID, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("answers in one transaction: %v", err)
	}
	return out, refused
}

// answerTogether is recordTogether failing the test on a refusal.
func answerTogether(t testing.TB, db *DB, as []questions.Answer) []questions.Answer {
	t.Helper()
	out, refused := recordTogether(t, db, as)
	for i, err := range refused {
		if err != nil {
			t.Fatalf("answer of member %d to post %d: %v", as[i].UserID, as[i].PostID, err)
		}
	}
	return out
}

// dumpDerived returns every key and value of the guild's derived data
// (periods, member records, streaks), for comparing live writes with a
// rebuild. How a ranking's keys are cut into blocks depends on when its
// counts were settled (each group commit, or once for a rebuild): the
// blocks are checked (checkBlocks) and left out.
func dumpDerived(t testing.TB, db *DB, guildID questions.GuildID) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		for _, name := range [][]byte{bPeriods, bMembers, bStreaks} {
			if err := walk(g.Bucket(name), string(name)+"/", out); err != nil {
				return err
			}
		}
		checkBlocks(t, g)
		return nil
	})
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	return out
}

// walk records every key of b and of its sub-buckets, the sub-buckets
// themselves too (so an empty bucket left behind shows).
func walk(b *bbolt.Bucket, path string, out map[string]string) error {
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		if v == nil && (bytes.Equal(k, bPtsBlocks) || bytes.Equal(k, bAccBlocks)) {
			return nil // see dumpDerived
		}
		if v == nil {
			sub := path + hex.EncodeToString(k) + "/"
			out[sub] = "bucket"
			return walk(b.Bucket(k), sub, out)
		}
		out[path+hex.EncodeToString(k)] = hex.EncodeToString(v)
		return nil
	})
}

// dumpAll returns every bucket (and its sequence), key and value of db's
// file but the rankings' blocks, which it checks (checkBlocks) in every
// guild. Two files whose dumps are equal read the same through every
// reader, however their rankings are cut into blocks: the readers read
// nothing but the file (the decode caches are keyed by the stored bytes),
// and a ranking's blocks, counting its keys exactly, give the same ranks
// and pages whatever the cut.
func dumpAll(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	// periods: b is a guild's periods bucket; period: b is a period.
	var walkAll func(b *bbolt.Bucket, path string, periods, period bool) error
	walkAll = func(b *bbolt.Bucket, path string, periods, period bool) error {
		out[path] = fmt.Sprintf("bucket seq=%d", b.Sequence())
		return b.ForEach(func(k, v []byte) error {
			switch {
			case v != nil:
				out[path+hex.EncodeToString(k)] = hex.EncodeToString(v)
				return nil
			case period && (bytes.Equal(k, bPtsBlocks) || bytes.Equal(k, bAccBlocks)):
				return nil // see checkBlocks
			}
			return walkAll(b.Bucket(k), path+hex.EncodeToString(k)+"/", bytes.Equal(k, bPeriods), periods)
		})
	}
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		err := tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			return walkAll(b, hex.EncodeToString(name)+"/", false, false)
		})
		if err != nil {
			return err
		}
		guilds := tx.Bucket(bGuilds)
		return guilds.ForEachBucket(func(k []byte) error {
			checkBlocks(t, guilds.Bucket(k))
			return nil
		})
	})
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	return out
}

// checkBlocks checks every ranking of guild bucket g: its blocks count its
// keys exactly, the first block's fence is the first fence, and no block
// is empty or past blockMax.
func checkBlocks(t testing.TB, g *bbolt.Bucket) {
	t.Helper()
	periods := g.Bucket(bPeriods)
	if periods == nil {
		return
	}
	periods.ForEachBucket(func(name []byte) error {
		p := periodRO(g, string(name))
		for _, ri := range []rankIndex{p.pts, p.acc} {
			checkRanking(t, string(name), ri)
		}
		return nil
	})
}

// checkRanking checks one ranking's blocks against its keys.
func checkRanking(t testing.TB, name string, ri rankIndex) {
	t.Helper()
	type block struct {
		fence []byte
		n     uint64
	}
	var blocks []block
	ri.blocks.ForEach(func(k, v []byte) error {
		blocks = append(blocks, block{bytes.Clone(k), getU64(v)})
		return nil
	})
	var keys [][]byte
	rc := ri.cursor()
	for k, _ := rc.seek(firstFence); k != nil; k, _ = rc.next() {
		keys = append(keys, bytes.Clone(k))
	}
	ri.groups.ForEachBucket(func(k []byte) error {
		if len(k) != 1+groupLen || k[0] != ri.tag {
			return nil
		}
		if first, _ := ri.groups.Bucket(k).Cursor().First(); first == nil {
			t.Errorf("period %s: empty group %x left", name, k)
		}
		return nil
	})
	if len(keys) == 0 {
		if len(blocks) != 0 {
			t.Errorf("period %s: %d blocks over no keys", name, len(blocks))
		}
		return
	}
	if len(blocks) == 0 || !bytes.Equal(blocks[0].fence, firstFence) {
		t.Errorf("period %s: blocks %v do not start at the first fence", name, blocks)
		return
	}
	i := 0
	for j, b := range blocks {
		n := uint64(0)
		for i < len(keys) && (j+1 == len(blocks) || bytes.Compare(keys[i], blocks[j+1].fence) < 0) {
			n++
			i++
		}
		if n != b.n || n == 0 || n > blockMax {
			t.Errorf("period %s: block %d (fence %x) counts %d, holds %d keys (want 1 to %d)", name, j, b.fence, b.n, n, blockMax)
		}
	}
}

// diffMaps describes the first few differences between two dumps.
func diffMaps(got, want map[string]string) string {
	var buf bytes.Buffer
	n := 0
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			fmt.Fprintf(&buf, "  %s: got %q, want %q\n", k, g, w)
			n++
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&buf, "  %s: got %q, want none\n", k, g)
			n++
		}
		if n > 10 {
			break
		}
	}
	return buf.String()
}

// assertRebuildEqual checks that recounting the guild from its answers
// reproduces the derived data exactly.
func assertRebuildEqual(t testing.TB, db *DB, guildID questions.GuildID) {
	t.Helper()
	live := dumpDerived(t, db, guildID)
	if err := db.RebuildScores(t.Context(), guildID); err != nil {
		t.Fatalf("RebuildScores: %v", err)
	}
	rebuilt := dumpDerived(t, db, guildID)
	if d := diffMaps(rebuilt, live); d != "" {
		t.Errorf("rebuild differs from live writes:\n%s", d)
	}
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("got error %v, want %v", err, target)
	}
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o600) }

func errorsIsNotFound(err error) bool { return errors.Is(err, questions.ErrNotFound) }
