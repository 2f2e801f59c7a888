package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"

	"go.etcd.io/bbolt"
)

// answersIn reads every stored answer of the files straight from bbolt
// (not through Reshard's code): "guild/post/user" → the files holding it
// and its value.
func answersIn(t testing.TB, paths ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, path := range paths {
		b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = b.View(func(tx *bbolt.Tx) error {
			return tx.Bucket(bGuilds).ForEachBucket(func(g []byte) error {
				return tx.Bucket(bGuilds).Bucket(g).Bucket(bAnswers).ForEach(func(k, v []byte) error {
					key := fmt.Sprintf("%d/%d/%q", getU64(g), getU64(k[:8]), k[8:]) // a member's answers to a question
					out[key] = append(out[key], fmt.Sprintf("%s %x", filepath.Base(path), v))
					return nil
				})
			})
		})
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// answerCountIn counts the answers the files hold (in their members'
// answer records).
func answerCountIn(t testing.TB, paths ...string) int {
	t.Helper()
	n := 0
	for _, path := range paths {
		b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		b.View(func(tx *bbolt.Tx) error {
			return tx.Bucket(bGuilds).ForEachBucket(func(g []byte) error {
				n += answerCount(tx.Bucket(bGuilds).Bucket(g).Bucket(bAnswers))
				return nil
			})
		})
		b.Close()
	}
	return n
}

// checkExactlyOnce compares the answers of the old and new files: every
// answer in exactly one new file, the one of its server's shard, with the
// same bytes.
func checkExactlyOnce(t *testing.T, before, after map[string][]string, to int) {
	t.Helper()
	checkExactlyOnceIn(t, before, after, func(g questions.GuildID) string { return ShardFileName(sharding.ShardOf(uint64(g), to), to) })
}

func checkExactlyOnceIn(t *testing.T, before, after map[string][]string, fileOf func(questions.GuildID) string) {
	t.Helper()
	if len(after) != len(before) {
		t.Errorf("answers: got %d after, want %d", len(after), len(before))
	}
	for k, b := range before {
		a := after[k]
		if len(a) != 1 {
			t.Errorf("answer %s: in %d files after (%v), want exactly 1", k, len(a), a)
			continue
		}
		var g, p, u uint64
		fmt.Sscanf(k, "%d/%d/%d", &g, &p, &u)
		file, val, _ := bytes.Cut([]byte(a[0]), []byte(" "))
		if want := fileOf(questions.GuildID(g)); string(file) != want {
			t.Errorf("answer %s: in %s, want %s", k, file, want)
		}
		if _, bval, _ := bytes.Cut([]byte(b[0]), []byte(" ")); !bytes.Equal(val, bval) {
			t.Errorf("answer %s: got %s, want %s", k, val, bval)
		}
	}
}

// views opens each file, takes the view of every server in it, and closes
// it; a server in two files fails the test.
func views(t *testing.T, guilds []questions.GuildID, paths ...string) map[questions.GuildID]string {
	t.Helper()
	out := map[questions.GuildID]string{}
	for i, path := range paths {
		db := openPath(t, path)
		l, err := db.ShardLayout()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range guilds {
			if !l.Owns(uint64(g)) {
				continue
			}
			if _, dup := out[g]; dup {
				t.Fatalf("server %d is owned by two files", g)
			}
			out[g] = view(t, db, g)
		}
		if err := db.Close(); err != nil {
			t.Fatalf("close %d: %v", i, err)
		}
	}
	return out
}

func outputs(dir string, to int) []string {
	var out []string
	for i := range to {
		out = append(out, filepath.Join(dir, ShardFileName(i, to)))
	}
	return out
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestReshard splits an unsharded file in 2, adds state in both (new posts
// whose IDs would collide without per-shard ranges), reshards 2 → 3, then
// merges 3 → 1, checking at each step every answer exactly once and every
// server's settings, banks, suggestions, asked history, posts, answers,
// leaderboards, member stats and streaks unchanged.
func TestReshard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guilds := []questions.GuildID{shardGuild(0), shardGuild(1), shardGuild(2), shardGuild(3), shardGuild(4), shardGuild(5)}
	src := filepath.Join(dir, "quiz.db")
	db := openPath(t, src)
	for _, g := range guilds {
		populate(t, db, g, 0)
	}
	db.Close()
	before := views(t, guilds, src)
	answersBefore := answersIn(t, src)

	// 1 → 2
	a := filepath.Join(dir, "a")
	rep, err := Reshard(t.Context(), 2, a, []string{src})
	if err != nil {
		t.Fatalf("Reshard 1 → 2: %v", err)
	}
	if got, want := dirNames(t, a), []string{ShardFileName(0, 2), ShardFileName(1, 2)}; !slices.Equal(got, want) {
		t.Fatalf("files written: got %v, want %v", got, want)
	}
	checkReport(t, rep, answerCountIn(t, src), []int{6}, []int{3, 3})
	checkExactlyOnce(t, answersBefore, answersIn(t, outputs(a, 2)...), 2)
	if after := views(t, guilds, outputs(a, 2)...); !mapsEqual(after, before) {
		t.Fatalf("1 → 2 changed a server:\n%s", diffViews(after, before))
	}

	// Each half runs on its own and gets new posts and answers.
	var newIDs [2][]questions.PostID
	for i, path := range outputs(a, 2) {
		db := openPath(t, path)
		if err := db.ClaimShardLayout(t.Context(), layout(i, i, 2)); err != nil {
			t.Fatalf("ClaimShardLayout(%d-%d/2): %v", i, i, err)
		}
		if err := db.ClaimShardLayout(t.Context(), layout(0, 1, 2)); !errors.Is(err, ErrShardLayout) {
			t.Fatalf("ClaimShardLayout(0-1/2) of shard %d's file: got %v, want ErrShardLayout", i, err)
		}
		for _, g := range guilds {
			if sharding.ShardOf(uint64(g), 2) != i {
				continue
			}
			for _, p := range populate(t, db, g, 1) {
				newIDs[i] = append(newIDs[i], p.ID)
			}
		}
		db.Close()
	}
	for i, ids := range newIDs {
		lo := questions.PostID(postIDStride*uint64(1+i) + 1) // the base above 1e9-aligned IDs used, then shard i's range
		if ids[0] != lo {
			t.Errorf("first new post ID in shard %d's file: got %d, want %d", i, ids[0], lo)
		}
	}
	before = views(t, guilds, outputs(a, 2)...)
	answersBefore = answersIn(t, outputs(a, 2)...)

	// 2 → 3
	b := filepath.Join(dir, "b")
	rep, err = Reshard(t.Context(), 3, b, outputs(a, 2))
	if err != nil {
		t.Fatalf("Reshard 2 → 3: %v", err)
	}
	checkReport(t, rep, answerCountIn(t, outputs(a, 2)...), []int{3, 3}, []int{2, 2, 2})
	checkExactlyOnce(t, answersBefore, answersIn(t, outputs(b, 3)...), 3)
	if after := views(t, guilds, outputs(b, 3)...); !mapsEqual(after, before) {
		t.Fatalf("2 → 3 changed a server:\n%s", diffViews(after, before))
	}
	db = openPath(t, outputs(b, 3)[1])
	if _, err := postIn(db, newIDs[0][0]); !errorsIsNotFound(err) { // a post of shard 0 of 3's server
		t.Errorf("post %d of server %d in shard 1 of 3's file: got %v, want not found", newIDs[0][0], guilds[0], err)
	}
	p := newPost(t, db, shardGuild(1), "q#after")
	if want := questions.PostID(3*postIDStride + postIDStride + 1); p.ID != want {
		t.Errorf("first post ID of shard 1 of 3: got %d, want %d", p.ID, want)
	}
	answerNew(t, db, p, 9)
	db.Close()
	before = views(t, guilds, outputs(b, 3)...)
	answersBefore = answersIn(t, outputs(b, 3)...)

	// 3 → 1
	c := filepath.Join(dir, "c")
	rep, err = Reshard(t.Context(), 1, c, outputs(b, 3))
	if err != nil {
		t.Fatalf("Reshard 3 → 1: %v", err)
	}
	checkReport(t, rep, answerCountIn(t, outputs(b, 3)...), []int{2, 2, 2}, []int{6})
	checkExactlyOnce(t, answersBefore, answersIn(t, outputs(c, 1)...), 1)
	if after := views(t, guilds, outputs(c, 1)...); !mapsEqual(after, before) {
		t.Fatalf("3 → 1 changed a server:\n%s", diffViews(after, before))
	}
	db = openPath(t, outputs(c, 1)[0])
	if l, err := db.ShardLayout(); err != nil || l != (layout(0, 0, 1)) {
		t.Errorf("merged file's layout: got %v, %v; want 0-0/1", l, err)
	}
	if err := db.ClaimShardLayout(t.Context(), sharding.Layout{}); err != nil {
		t.Errorf("merged file, claim every shard: %v", err)
	}
}

// TestReshardRanges splits an unsharded file for two processes of two
// shards each: files of layouts 0-1/4 and 2-3/4 that those processes run.
func TestReshardRanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guilds := []questions.GuildID{shardGuild(0), shardGuild(1), shardGuild(2), shardGuild(3), shardGuild(5), shardGuild(6)}
	src := filepath.Join(dir, "quiz.db")
	db := openPath(t, src)
	for _, g := range guilds {
		populate(t, db, g, 0)
	}
	db.Close()
	before := views(t, guilds, src)
	answersBefore := answersIn(t, src)

	layouts, err := EvenRanges(4, 2)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := ReshardRanges(t.Context(), layouts, out, []string{src})
	if err != nil {
		t.Fatalf("ReshardRanges: %v", err)
	}
	files := []string{filepath.Join(out, "quizhost-shards-0-1-of-4.db"), filepath.Join(out, "quizhost-shards-2-3-of-4.db")}
	if got := dirNames(t, out); !slices.Equal(got, []string{filepath.Base(files[0]), filepath.Base(files[1])}) {
		t.Fatalf("files written: got %v", got)
	}
	if rep.Outputs[0].Guilds != 3 || rep.Outputs[1].Guilds != 3 || rep.Outputs[1].Layout != layout(2, 3, 4) {
		t.Errorf("report: got %+v, want 3 servers in 0-1/4 (shards 0, 1, 1) and 3 in 2-3/4 (2, 3, 2)", rep.Outputs)
	}
	checkExactlyOnceIn(t, answersBefore, answersIn(t, files...), func(g questions.GuildID) string {
		if sharding.ShardOf(uint64(g), 4) <= 1 {
			return filepath.Base(files[0])
		}
		return filepath.Base(files[1])
	})
	if after := views(t, guilds, files...); !mapsEqual(after, before) {
		t.Fatalf("ReshardRanges changed a server:\n%s", diffViews(after, before))
	}
	for i, f := range files {
		db := openPath(t, f)
		if err := db.ClaimShardLayout(t.Context(), layouts[i]); err != nil {
			t.Errorf("ClaimShardLayout(%v) of %s: %v", layouts[i], f, err)
		}
		db.Close()
	}
	for _, bad := range [][]sharding.Layout{{layout(0, 1, 4)}, {layout(0, 1, 4), layout(3, 3, 4)}, {layout(0, 1, 4), layout(2, 3, 5)}, {layout(2, 3, 4), layout(0, 1, 4)}} {
		if _, err := ReshardRanges(t.Context(), bad, filepath.Join(dir, "bad"), []string{src}); err == nil {
			t.Errorf("ReshardRanges(%v): got nil, want an error", bad)
		}
	}
	if _, err := EvenRanges(6, 4); err == nil {
		t.Errorf("EvenRanges(6, 4): got nil, want an error")
	}
}

// stopAt is a context that is canceled by its n-th Err call: a stop that
// lands at one of Reshard's checks in turn.
type stopAt struct {
	context.Context
	cancel context.CancelFunc
	n      int
}

func (s *stopAt) Err() error {
	if s.n--; s.n == 0 {
		s.cancel()
	}
	return s.Context.Err()
}

// TestReshardStops stops a reshard at each of the points where it checks
// its context in turn (opening the inputs, copying each server, verifying
// each file, before the renames): each stop returns context.Canceled and
// leaves the output directory empty and the input as it was, so that the
// next attempt, into the same directory, goes on where the last stopped.
func TestReshardStops(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guilds := []questions.GuildID{shardGuild(0), shardGuild(1), shardGuild(2), shardGuild(3)}
	src := filepath.Join(dir, "quiz.db")
	db := openPath(t, src)
	for _, g := range guilds {
		populate(t, db, g, 0)
	}
	db.Close()
	answersBefore := answersIn(t, src)
	out := filepath.Join(dir, "out")
	stops := 0
	for n := 1; ; n++ {
		ctx, cancel := context.WithCancel(t.Context())
		_, err := Reshard(&stopAt{Context: ctx, cancel: cancel, n: n}, 2, out, []string{src})
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped at check %d: got %v, want context.Canceled", n, err)
		}
		stops++
		if got := dirNames(t, out); len(got) != 0 {
			t.Fatalf("stopped at check %d: output directory holds %v, want nothing", n, got)
		}
		if n > 100 {
			t.Fatal("Reshard never finished")
		}
	}
	// A stop before opening the input, before planning, before copying each
	// server, before digesting the input, before verifying each output and
	// before the renames.
	if want := 1 + 1 + len(guilds) + 1 + 2 + 1; stops != want {
		t.Errorf("Reshard stopped at %d points, want %d", stops, want)
	}
	checkExactlyOnce(t, answersBefore, answersIn(t, outputs(out, 2)...), 2)
	if got := answersIn(t, src); !maps.EqualFunc(got, answersBefore, slices.Equal) {
		t.Errorf("the input's answers changed: got %d, want %d as they were", len(got), len(answersBefore))
	}
}

func checkReport(t *testing.T, rep ReshardReport, answers int, inGuilds, outGuilds []int) {
	t.Helper()
	sum := func(fs []ReshardFile) (guilds []int, answers int) {
		for _, f := range fs {
			guilds = append(guilds, f.Guilds)
			answers += f.Answers
		}
		return guilds, answers
	}
	if g, a := sum(rep.Inputs); !slices.Equal(g, inGuilds) || a != answers {
		t.Errorf("report inputs: got servers %v, %d answers; want %v, %d", g, a, inGuilds, answers)
	}
	if g, a := sum(rep.Outputs); !slices.Equal(g, outGuilds) || a != answers {
		t.Errorf("report outputs: got servers %v, %d answers; want %v, %d", g, a, outGuilds, answers)
	}
	for i, f := range rep.Outputs {
		if f.Layout != layout(i, i, len(rep.Outputs)) || filepath.Base(f.Path) != ShardFileName(i, len(rep.Outputs)) {
			t.Errorf("output %d: got %s %v", i, f.Path, f.Layout)
		}
	}
}

func mapsEqual(a, b map[questions.GuildID]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func diffViews(got, want map[questions.GuildID]string) string {
	var buf bytes.Buffer
	for g, w := range want {
		if got[g] != w {
			fmt.Fprintf(&buf, "server %d:\ngot:\n%s\nwant:\n%s\n", g, got[g], w)
		}
	}
	for g := range got {
		if _, ok := want[g]; !ok {
			fmt.Fprintf(&buf, "server %d: got, want none\n", g)
		}
	}
	return buf.String()
}

// TestReshardRefuses: inputs that are not one whole layout, a busy file,
// an unknown bucket, colliding post IDs and a non-empty output directory
// are refused, and no output file is left.
func TestReshardRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "quiz.db")
	db := openPath(t, src)
	for k := range 4 {
		newPost(t, db, shardGuild(k), "q#1")
	}
	db.Close()
	halves := filepath.Join(dir, "halves")
	if _, err := Reshard(t.Context(), 2, halves, []string{src}); err != nil {
		t.Fatal(err)
	}
	h := outputs(halves, 2)
	copyOf := filepath.Join(dir, "copy.db")
	copyFile(t, h[0], copyOf)

	mystery := filepath.Join(dir, "mystery.db")
	copyFile(t, src, mystery)
	editBolt(t, mystery, func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket([]byte("mystery"))
		return err
	})
	metaKey := filepath.Join(dir, "metakey.db")
	copyFile(t, src, metaKey)
	editBolt(t, metaKey, func(tx *bbolt.Tx) error { return tx.Bucket(bMeta).Put([]byte("novel"), []byte{1}) })

	// Two files of one layout whose posts share IDs: made apart (each
	// started from post 1), not by reshard.
	var apart []string
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("apart%d.db", i))
		db := openPath(t, p)
		if err := db.ClaimShardLayout(t.Context(), layout(i, i, 2)); err != nil {
			t.Fatal(err)
		}
		db.Close()
		editBolt(t, p, func(tx *bbolt.Tx) error { return tx.Bucket(bPosts).SetSequence(0) })
		db = openPath(t, p)
		newPost(t, db, shardGuild(i), "q#1")
		db.Close()
		apart = append(apart, p)
	}

	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(full, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		to     int
		out    string
		inputs []string
		want   error
		says   string
	}{
		{name: "a file and its copy", to: 3, inputs: []string{h[0], copyOf, h[1]}, want: ErrShardLayout, says: "both hold shard 0 of 2"},
		{name: "a shard missing", to: 3, inputs: []string{h[1]}, want: ErrShardLayout, says: "no file holds shard 0 of 2"},
		{name: "an unsharded file with others", to: 2, inputs: []string{src, h[1]}, want: ErrShardLayout, says: "reshard it alone"},
		{name: "the same file twice", to: 2, inputs: []string{h[0], h[0], h[1]}, says: "are the same file"},
		{name: "an unknown bucket", to: 2, inputs: []string{mystery}, want: errUnsplittable, says: `bucket "mystery"`},
		{name: "an unknown meta key", to: 2, inputs: []string{metaKey}, want: errUnsplittable, says: "meta/novel"},
		{name: "colliding post IDs", to: 1, inputs: apart, says: "post 1 is in"},
		{name: "output directory with files", to: 2, out: full, inputs: []string{src}, says: "is not empty"},
		{name: "zero shards", to: 0, inputs: []string{src}, says: "at least 1"},
		{name: "a missing file", to: 2, inputs: []string{filepath.Join(dir, "nope.db")}, want: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "out")
			}
			was := dirNames(t, out)
			_, err := Reshard(t.Context(), tt.to, out, tt.inputs)
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) || !bytes.Contains([]byte(err.Error()), []byte(tt.says)) {
				t.Fatalf("Reshard: got %v, want %v saying %q", err, tt.want, tt.says)
			}
			if got := dirNames(t, out); !slices.Equal(got, was) {
				t.Errorf("output directory after: got %v, want %v", got, was)
			}
		})
	}

	t.Run("a file in use", func(t *testing.T) {
		db := openPath(t, h[0])
		defer db.Close()
		out := filepath.Join(t.TempDir(), "out")
		// The same refusal as Reshard's after DefaultTimeout, sooner.
		layouts, _ := EvenRanges(2, 2)
		_, err := reshardRanges(t.Context(), layouts, out, h, 50*time.Millisecond)
		if !errors.Is(err, ErrInUse) {
			t.Fatalf("Reshard with %s open: got %v, want ErrInUse", h[0], err)
		}
		if got := dirNames(t, out); len(got) != 0 {
			t.Errorf("output directory after: got %v, want nothing", got)
		}
	})
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// editBolt changes a closed file behind DB's back.
func editBolt(t *testing.T, path string, fn func(*bbolt.Tx) error) {
	t.Helper()
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// TestReshardKnowsEveryBucket fails when the schema gains a top-level
// bucket or meta key that Reshard does not know how to split: add its rule
// to reshardBuckets (or metaKeys) so that no server's state is left behind.
func TestReshardKnowsEveryBucket(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if err := db.ClaimShardLayout(t.Context(), layout(0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	populate(t, db, shardGuild(1), 0)
	rules := reshardBuckets()
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			if bytes.Equal(name, bMeta) {
				return b.ForEach(func(k, _ []byte) error {
					if !slices.ContainsFunc(metaKeys, func(m []byte) bool { return bytes.Equal(m, k) }) {
						t.Errorf("meta key %q: reshard does not know it (add it to metaKeys)", k)
					}
					return nil
				})
			}
			if _, ok := rules[string(name)]; !ok {
				t.Errorf("top-level bucket %q: reshard does not know how to split it (add it to reshardBuckets)", name)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range rules {
		err := db.bolt.View(func(tx *bbolt.Tx) error {
			if tx.Bucket([]byte(name)) == nil {
				t.Errorf("reshardBuckets names %q, which this schema does not create", name)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
