package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/quizhost/quizhost/internal/sharding"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ReshardFile describes one database file read or written by Reshard.
type ReshardFile struct {
	Path    string
	Layout  sharding.Layout
	Guilds  int // servers with any state in the file
	Posts   int
	Answers int // every stored answer (those before a reset included)
}

// ReshardReport is what Reshard read and wrote, file by file.
type ReshardReport struct {
	Inputs, Outputs []ReshardFile
}

// ShardFileName is the name Reshard gives the file of shard i of count:
// quizhost-shard-<i>-of-<count>.db.
func ShardFileName(i, count int) string {
	return fmt.Sprintf("quizhost-shard-%d-of-%d.db", i, count)
}

// LayoutFileName is the name ReshardRanges gives the file of layout l:
// ShardFileName for one shard, quizhost-shards-<i>-<j>-of-<count>.db for
// a range.
func LayoutFileName(l sharding.Layout) string {
	if l.First == l.Last {
		return ShardFileName(l.First, l.Count)
	}
	return fmt.Sprintf("quizhost-shards-%d-%d-of-%d.db", l.First, l.Last, l.Count)
}

// EvenRanges divides count shards into procs contiguous ranges of equal
// size, in order: the layouts of procs processes. procs must divide count.
func EvenRanges(count, procs int) ([]sharding.Layout, error) {
	if count < 1 || procs < 1 || count%procs != 0 {
		return nil, fmt.Errorf("%d shards cannot be divided evenly between %d processes", count, procs)
	}
	per := count / procs
	var out []sharding.Layout
	for k := range procs {
		out = append(out, sharding.Layout{First: k * per, Last: k*per + per - 1, Count: count})
	}
	return out, nil
}

// errUnsplittable marks a file holding a bucket or key that Reshard does
// not know how to divide between servers: copying the file without it
// would silently drop data.
var errUnsplittable = errors.New("reshard does not know how to split it between servers; use the quizhost build that wrote the file")

// guildOfRecord finds the server a top-level record belongs to: k and v
// are its key and value (v nil for a bucket), tx the input's transaction.
type guildOfRecord func(tx *bbolt.Tx, k, v []byte) (uint64, error)

// reshardBuckets lists every top-level bucket that holds servers' state,
// with how to find the server of each of its records (doc.go draws them).
// meta/ is the file's own and is not listed. A top-level bucket missing
// here makes Reshard refuse the file (TestReshardKnowsEveryBucket fails
// first): add it here, with its rule, when adding it to the schema.
func reshardBuckets() map[string]guildOfRecord {
	byKey := func(_ *bbolt.Tx, k, _ []byte) (uint64, error) {
		if len(k) < 8 {
			return 0, fmt.Errorf("key %x is not a server's", k)
		}
		return getU64(k), nil
	}
	return map[string]guildOfRecord{
		string(bGuilds): func(tx *bbolt.Tx, k, v []byte) (uint64, error) {
			if len(k) != 8 || v != nil {
				return 0, fmt.Errorf("key %x is not a server's bucket", k)
			}
			return getU64(k), nil
		},
		string(bSettings): byKey,
		string(bOpen):     byKey, // <guild><channel><post>
		string(bMockDue):  byKey, // <guild><user><mock>
		string(bPosts): func(_ *bbolt.Tx, k, v []byte) (uint64, error) {
			return postGuild(k, v)
		},
		string(bUnrevealed): func(tx *bbolt.Tx, k, _ []byte) (uint64, error) {
			v := tx.Bucket(bPosts).Get(k)
			if v == nil {
				return 0, fmt.Errorf("post %d has no record", getU64(k))
			}
			return postGuild(k, v)
		},
	}
}

// postGuild reads the server of a stored post without decoding the rest,
// so the rule holds whatever else a post record gains.
func postGuild(k, v []byte) (uint64, error) {
	var p struct {
		Guild uint64 `json:"guild"`
	}
	if err := json.Unmarshal(v, &p); err != nil || p.Guild == 0 {
		return 0, fmt.Errorf("post %d: no server in its record", getU64(k))
	}
	return p.Guild, nil
}

// metaKeys are the keys of meta/ (the file's own: Reshard writes them
// afresh in every output). Another key makes Reshard refuse the file.
var metaKeys = [][]byte{kSchema, kShards}

// reshardInput is one input file, open read-only for the whole reshard.
type reshardInput struct {
	ReshardFile
	db *bbolt.DB
	tx *bbolt.Tx
}

// topRec is one top-level record of a server: its bucket and key.
type topRec struct {
	bucket string
	key    []byte
}

// reshardPlan is where every server's state comes from and goes.
type reshardPlan struct {
	layouts []sharding.Layout   // one per output
	owner   map[uint64]int      // server → input index
	recs    map[uint64][]topRec // server → its top-level records, by bucket then key
	seqs    map[string]uint64   // top-level bucket → sequence for every output (posts: the base)
	guilds  []uint64            // sorted
}

// Reshard splits or merges the database files of one shard layout into the
// files of a new layout of `to` shards, one shard per file, written to
// outDir as ShardFileName(i, to) and stamped with the layout i-i/to
// (ReshardRanges writes files of several shards each). It
// works offline: every input is opened read-only and refused (error
// wrapping ErrInUse) while a quizhost process holds it. outDir is created
// if missing and must be empty.
//
// The inputs must be exactly one file holding every server (an unsharded
// file, or one whose layout covers every shard), or files whose layouts
// share one shard count and cover every shard of it once; anything else is
// refused with an error wrapping ErrShardLayout. Each input must be whole
// (else ErrDamaged) and of this build's schema (ErrSchemaTooNew, or run
// quizhost once on an older file to upgrade it).
//
// Every server's whole state is copied byte for byte to the file of its
// shard, sharding.ShardOf(guild, to): its guilds/<guild> bucket with everything in
// it (settings, banks, answers, scores, leaderboards, streaks, drafts, and
// any bucket added later), and its top-level records (settings, posts,
// open and unrevealed posts). Post IDs are never renumbered, since live
// Discord messages carry them in their buttons: inputs in which two posts
// with the same ID would land in one output are refused. Each output's
// post sequence starts its own range of postIDStride IDs above every ID
// used so far, so the new files never allocate the same post ID.
//
// Before anything becomes visible the outputs are fsynced, reopened
// read-only, checked with bbolt's consistency check and verified against
// the inputs: every server in exactly one output (the one of its shard),
// every answer exactly once (the count and every (post, member) key and
// value per server), every leaderboard period, bucket and record of every
// server identical byte for byte. Only then are the temporary files renamed
// to their names. On error no output file is left.
//
// Reshard stops when ctx ends before the renames, between the files it
// opens, the servers it copies and the files it verifies: it returns an
// error wrapping ctx.Err() and leaves no output file (the inputs are only
// ever read).
func Reshard(ctx context.Context, to int, outDir string, files []string) (ReshardReport, error) {
	if to < 1 {
		return ReshardReport{}, fmt.Errorf("reshard: --to %d: want at least 1 shard", to)
	}
	layouts, _ := EvenRanges(to, to)
	return ReshardRanges(ctx, layouts, outDir, files)
}

// ReshardRanges is Reshard into one file per layout of a new layout whose
// processes run several shards each: layouts share one count, are
// contiguous and cover every shard once, in order (see EvenRanges). The
// file of layout l is outDir/LayoutFileName(l), stamped l, and holds the
// servers of l's shards.
func ReshardRanges(ctx context.Context, layouts []sharding.Layout, outDir string, files []string) (ReshardReport, error) {
	return reshardRanges(ctx, layouts, outDir, files, DefaultTimeout)
}

// reshardRanges is ReshardRanges waiting at most lockTimeout for each
// input's file lock.
func reshardRanges(ctx context.Context, layouts []sharding.Layout, outDir string, files []string, lockTimeout time.Duration) (ReshardReport, error) {
	var rep ReshardReport
	err := protect(func() error {
		var err error
		rep, err = reshard(ctx, layouts, outDir, files, lockTimeout)
		return err
	})
	if err != nil {
		return ReshardReport{}, fmt.Errorf("reshard: %w", err)
	}
	return rep, nil
}

func reshard(ctx context.Context, layouts []sharding.Layout, outDir string, files []string, lockTimeout time.Duration) (ReshardReport, error) {
	if len(layouts) == 0 {
		return ReshardReport{}, errors.New("no output layout")
	}
	next := 0
	for _, l := range layouts {
		if err := l.Check(); err != nil || l.IsZero() || l.Count != layouts[0].Count || l.First != next {
			return ReshardReport{}, fmt.Errorf("output layouts %v: want contiguous ranges of one count, from shard 0, in order", layouts)
		}
		next = l.Last + 1
	}
	if next != layouts[0].Count {
		return ReshardReport{}, fmt.Errorf("output layouts %v: shards %d to %d are in none", layouts, next, layouts[0].Count-1)
	}
	if len(files) == 0 {
		return ReshardReport{}, errors.New("no input file")
	}
	inputs, err := openInputs(ctx, files, lockTimeout)
	defer func() {
		for _, in := range inputs {
			in.tx.Rollback()
			in.db.Close()
		}
	}()
	if err != nil {
		return ReshardReport{}, err
	}
	if err := checkLayouts(inputs); err != nil {
		return ReshardReport{}, err
	}
	if err := emptyDir(outDir); err != nil {
		return ReshardReport{}, err
	}
	if err := ctx.Err(); err != nil {
		return ReshardReport{}, err
	}
	plan, err := planReshard(inputs, layouts)
	if err != nil {
		return ReshardReport{}, err
	}

	to := len(layouts)
	tmps := make([]string, to)
	finals := make([]string, to)
	for i, l := range layouts {
		finals[i] = filepath.Join(outDir, LayoutFileName(l))
		tmps[i] = filepath.Join(outDir, "."+LayoutFileName(l)+".tmp")
	}
	renamed := false
	defer func() {
		if !renamed {
			for _, p := range tmps {
				os.Remove(p)
			}
		}
	}()
	if err := writeOutputs(ctx, inputs, plan, tmps); err != nil {
		return ReshardReport{}, err
	}
	outs, err := verifyOutputs(ctx, inputs, plan, tmps)
	if err != nil {
		return ReshardReport{}, fmt.Errorf("verify: %w", err)
	}
	// The last point at which ctx stops it: once the first file has its
	// name, every file gets its own.
	if err := ctx.Err(); err != nil {
		return ReshardReport{}, err
	}
	for i := range to {
		if err := os.Rename(tmps[i], finals[i]); err != nil {
			for _, f := range finals[:i] {
				os.Remove(f)
			}
			return ReshardReport{}, err
		}
		outs[i].Path = finals[i]
	}
	renamed = true
	if err := syncDir(outDir); err != nil {
		return ReshardReport{}, err
	}
	rep := ReshardReport{Outputs: outs}
	for _, in := range inputs {
		rep.Inputs = append(rep.Inputs, in.ReshardFile)
	}
	return rep, nil
}

// openInputs opens every file read-only in one long read transaction each,
// after checking it is whole, of this schema and not the same file twice.
// The inputs opened so far are returned with an error too (to be closed).
// A file whose lock another process holds for lockTimeout is ErrInUse.
// It stops before the next file once ctx ends.
func openInputs(ctx context.Context, files []string, lockTimeout time.Duration) ([]*reshardInput, error) {
	var inputs []*reshardInput
	var stats []os.FileInfo
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return inputs, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return inputs, err
		}
		for i, o := range stats {
			if os.SameFile(st, o) {
				return inputs, fmt.Errorf("%s and %s are the same file", inputs[i].Path, path)
			}
		}
		stats = append(stats, st)
		if err := plausibleFile(path); err != nil {
			return inputs, fmt.Errorf("%s: %w: %w", path, ErrDamaged, err)
		}
		db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout})
		if errors.Is(err, berrors.ErrTimeout) {
			return inputs, fmt.Errorf("%s: %w: stop the quizhost process that uses it first", path, ErrInUse)
		}
		if err != nil {
			return inputs, fmt.Errorf("%s: %w", path, err)
		}
		tx, err := db.Begin(false)
		if err != nil {
			db.Close()
			return inputs, fmt.Errorf("%s: %w", path, err)
		}
		in := &reshardInput{ReshardFile: ReshardFile{Path: path}, db: db, tx: tx}
		inputs = append(inputs, in)
		if err := checkTx(tx); err != nil {
			return inputs, fmt.Errorf("%s: %w: %w", path, ErrDamaged, err)
		}
		meta := tx.Bucket(bMeta)
		if meta == nil {
			return inputs, fmt.Errorf("%s: not a quizhost database (no meta bucket)", path)
		}
		switch v := getU64(meta.Get(kSchema)); {
		case v > SchemaVersion():
			return inputs, fmt.Errorf("%s: %w (file schema version %d, this build knows up to %d)", path, ErrSchemaTooNew, v, SchemaVersion())
		case v < SchemaVersion():
			return inputs, fmt.Errorf("%s: schema version %d is older than this build's %d: "+
				"run this quizhost once on it (start the bot, or \"quizhost backup\") to upgrade it, then reshard", path, v, SchemaVersion())
		}
		if in.Layout, _, err = readLayout(tx); err != nil {
			return inputs, fmt.Errorf("%s: %w", path, err)
		}
	}
	return inputs, nil
}

// checkLayouts accepts one file holding every server, or files of one
// shard count covering each of its shards exactly once.
func checkLayouts(inputs []*reshardInput) error {
	if len(inputs) == 1 && inputs[0].Layout.AllShards() {
		return nil
	}
	count := inputs[0].Layout.Count
	owner := make([]string, count)
	for _, in := range inputs {
		l := in.Layout
		if l.AllShards() {
			return fmt.Errorf("%w: %s holds every server (shards %s): reshard it alone, not with other files", ErrShardLayout, in.Path, l)
		}
		if l.Count != count {
			return fmt.Errorf("%w: %s is of a layout of %d shards and %s of %d: pass the files of one layout",
				ErrShardLayout, inputs[0].Path, count, in.Path, l.Count)
		}
		for s := l.First; s <= l.Last; s++ {
			if owner[s] != "" {
				return fmt.Errorf("%w: %s and %s both hold shard %d of %d: pass each file of the layout once, not a file and its copy",
					ErrShardLayout, owner[s], in.Path, s, count)
			}
			owner[s] = in.Path
		}
	}
	var missing []string
	for s, p := range owner {
		if p == "" {
			missing = append(missing, fmt.Sprint(s))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: no file holds shard %s of %d: pass every file of the old layout, or its servers would be lost",
			ErrShardLayout, strings.Join(missing, ", "), count)
	}
	return nil
}

// emptyDir creates dir if missing and refuses it when it has any entry.
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("output directory %s is not empty (%s): reshard writes only into an empty directory, so it never replaces a database",
			dir, ents[0].Name())
	}
	return nil
}

// planReshard reads every input's top-level records: which server each
// belongs to, that every server's state is in one input only, and that
// no two posts of one output share an ID. It refuses unknown buckets and
// meta keys.
func planReshard(inputs []*reshardInput, layouts []sharding.Layout) (*reshardPlan, error) {
	rules := reshardBuckets()
	to := len(layouts)
	plan := &reshardPlan{layouts: layouts, owner: map[uint64]int{}, recs: map[uint64][]topRec{}, seqs: map[string]uint64{}}
	type postAt struct {
		input int
		guild uint64
	}
	postsOut := map[uint64][]postAt{}
	var maxPost uint64
	for i, in := range inputs {
		guilds := map[uint64]bool{}
		err := in.tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			if bytes.Equal(name, bMeta) {
				return b.ForEach(func(k, _ []byte) error {
					if !slices.ContainsFunc(metaKeys, func(m []byte) bool { return bytes.Equal(m, k) }) {
						return fmt.Errorf("meta/%s: %w", k, errUnsplittable)
					}
					return nil
				})
			}
			rule, ok := rules[string(name)]
			if !ok {
				return fmt.Errorf("bucket %q: %w", name, errUnsplittable)
			}
			plan.seqs[string(name)] = max(plan.seqs[string(name)], b.Sequence())
			return b.ForEach(func(k, v []byte) error {
				g, err := rule(in.tx, k, v)
				if err != nil {
					return fmt.Errorf("%s/: %w", name, err)
				}
				if o, ok := plan.owner[g]; ok && o != i {
					return fmt.Errorf("server %d has state in both %s and %s: its shard was run by two processes; "+
						"keep the file of the process that owns it (see README.md, \"Sharding\")", g, inputs[o].Path, in.Path)
				}
				plan.owner[g] = i
				guilds[g] = true
				plan.recs[g] = append(plan.recs[g], topRec{bucket: string(name), key: bytes.Clone(k)})
				if bytes.Equal(name, bPosts) {
					id := getU64(k)
					maxPost = max(maxPost, id)
					in.Posts++
					for _, o := range postsOut[id] {
						if plan.output(o.guild) != plan.output(g) {
							continue
						}
						return fmt.Errorf("post %d is in %s (server %d) and in %s (server %d), and both servers go to the file of shards %s: "+
							"these files were not made by quizhost reshard or by one deployment, and renumbering a post would break "+
							"the buttons of its Discord message; reshard them to a layout that keeps the two servers apart",
							id, inputs[o.input].Path, o.guild, in.Path, g, layouts[plan.output(g)])
					}
					postsOut[id] = append(postsOut[id], postAt{input: i, guild: g})
				}
				if bytes.Equal(name, bGuilds) {
					if a := b.Bucket(k).Bucket(bAnswers); a != nil {
						in.Answers += answerCount(a)
					}
				}
				return nil
			})
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		in.Guilds = len(guilds)
		maxPost = max(maxPost, in.tx.Bucket(bPosts).Sequence())
	}
	base := (maxPost/postIDStride + 1) * postIDStride
	if base > ^uint64(0)-uint64(to)*postIDStride {
		return nil, errors.New("post IDs are exhausted")
	}
	plan.seqs[string(bPosts)] = base
	plan.guilds = slices.Sorted(maps.Keys(plan.owner))
	return plan, nil
}

// output is the index of the output holding server g.
func (p *reshardPlan) output(g uint64) int {
	s := sharding.ShardOf(g, p.layouts[0].Count)
	i, _ := slices.BinarySearchFunc(p.layouts, s, func(l sharding.Layout, s int) int {
		switch {
		case l.Last < s:
			return -1
		case l.First > s:
			return 1
		}
		return 0
	})
	return i
}

// postSeq is the posts sequence of output i: its own range.
func (p *reshardPlan) postSeq(i int) uint64 {
	return p.seqs[string(bPosts)] + uint64(i)*postIDStride
}

// writeOutputs creates the output files at paths (schema, layout,
// sequences) and copies every server's state into the file of its shard,
// one transaction per server, then fsyncs each file once. It stops before
// the next server once ctx ends.
func writeOutputs(ctx context.Context, inputs []*reshardInput, plan *reshardPlan, paths []string) error {
	outs := make([]*bbolt.DB, len(paths))
	defer func() {
		for _, o := range outs {
			if o != nil {
				o.Close()
			}
		}
	}()
	for i, path := range paths {
		db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: DefaultTimeout, NoSync: true, FreelistType: bbolt.FreelistMapType})
		if err != nil {
			return err
		}
		outs[i] = db
		err = db.Update(func(tx *bbolt.Tx) error {
			if err := migrate(tx, migrations()); err != nil {
				return err
			}
			for name := range reshardBuckets() {
				b, err := tx.CreateBucketIfNotExists([]byte(name))
				if err != nil {
					return err
				}
				seq := plan.seqs[name]
				if name == string(bPosts) {
					seq = plan.postSeq(i)
				}
				if err := b.SetSequence(seq); err != nil {
					return err
				}
			}
			return writeLayout(tx, plan.layouts[i])
		})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	for _, g := range plan.guilds {
		if err := ctx.Err(); err != nil {
			return err
		}
		in := inputs[plan.owner[g]]
		out := outs[plan.output(g)]
		err := out.Update(func(tx *bbolt.Tx) error {
			for _, r := range plan.recs[g] {
				src, dst := in.tx.Bucket([]byte(r.bucket)), tx.Bucket([]byte(r.bucket))
				if sb := src.Bucket(r.key); sb != nil {
					db, err := dst.CreateBucket(r.key)
					if err != nil {
						return err
					}
					if err := copyBucket(sb, db); err != nil {
						return err
					}
					continue
				}
				if err := dst.Put(r.key, src.Get(r.key)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("copy server %d: %w", g, err)
		}
	}
	for i, o := range outs {
		if err := o.Sync(); err != nil {
			return fmt.Errorf("%s: %w", paths[i], err)
		}
		err := o.Close()
		outs[i] = nil
		if err != nil {
			return fmt.Errorf("%s: %w", paths[i], err)
		}
	}
	return nil
}

// copyBucket copies src's keys, values, nested buckets and sequences into
// the empty bucket dst. dst keeps src's keys and values until its
// transaction commits: src's transaction must stay open until then.
func copyBucket(src, dst *bbolt.Bucket) error { return copyBucketWith(src, dst, nil) }

// copyBucketWith is copyBucket, putting keep(k) and keep(v) into dst
// instead of src's own bytes when keep is not nil. The buckets it creates
// fill their pages as dst does (FillPercent).
func copyBucketWith(src, dst *bbolt.Bucket, keep func([]byte) []byte) error {
	if err := dst.SetSequence(src.Sequence()); err != nil {
		return err
	}
	c := src.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			if sb := src.Bucket(k); sb != nil {
				db, err := dst.CreateBucket(k)
				if err != nil {
					return err
				}
				db.FillPercent = dst.FillPercent
				if err := copyBucketWith(sb, db, keep); err != nil {
					return err
				}
				continue
			}
		}
		if keep != nil {
			k, v = keep(k), keep(v)
		}
		if err := dst.Put(k, v); err != nil {
			return err
		}
	}
	return nil
}

// serverState is a digest of each part of one server's state in one file,
// and its answer count.
type serverState struct {
	parts   map[string][sha256.Size]byte
	answers int
}

// digestServers digests every server's state in tx: each bucket under
// guilds/<guild> (each leaderboard period on its own) and the server's
// records in each top-level bucket.
func digestServers(tx *bbolt.Tx) (map[uint64]*serverState, error) {
	rules := reshardBuckets()
	out := map[uint64]*serverState{}
	state := func(g uint64) *serverState {
		s := out[g]
		if s == nil {
			s = &serverState{parts: map[string][sha256.Size]byte{}}
			out[g] = s
		}
		return s
	}
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		b := tx.Bucket([]byte(name))
		if b == nil {
			continue
		}
		rule := rules[name]
		hs := map[uint64]hash.Hash{}
		err := b.ForEach(func(k, v []byte) error {
			g, err := rule(tx, k, v)
			if err != nil {
				return fmt.Errorf("%s/: %w", name, err)
			}
			if name == string(bGuilds) {
				return digestGuild(b.Bucket(k), state(g))
			}
			h := hs[g]
			if h == nil {
				h = sha256.New()
				hs[g] = h
			}
			writeEntry(h, k, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for g, h := range hs {
			state(g).parts[name+"/"] = [sha256.Size]byte(h.Sum(nil))
		}
	}
	return out, nil
}

// digestGuild digests each bucket of guilds/<guild> (each period of
// periods/ separately) and the bucket's own keys.
func digestGuild(g *bbolt.Bucket, s *serverState) error {
	own := sha256.New()
	binary.Write(own, binary.BigEndian, g.Sequence())
	err := g.ForEach(func(k, v []byte) error {
		sb := g.Bucket(k)
		switch {
		case sb == nil:
			writeEntry(own, k, v)
		case bytes.Equal(k, bPeriods):
			return sb.ForEachBucket(func(p []byte) error {
				s.parts["leaderboard "+string(p)] = digestBucket(sb.Bucket(p))
				return nil
			})
		default:
			s.parts["guilds/<guild>/"+string(k)] = digestBucket(sb)
			if bytes.Equal(k, bAnswers) {
				s.answers = answerCount(sb)
			}
		}
		return nil
	})
	s.parts["guilds/<guild>"] = [sha256.Size]byte(own.Sum(nil))
	return err
}

func digestBucket(b *bbolt.Bucket) [sha256.Size]byte {
	h := sha256.New()
	var walk func(b *bbolt.Bucket)
	walk = func(b *bbolt.Bucket) {
		binary.Write(h, binary.BigEndian, b.Sequence())
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if sb := b.Bucket(k); v == nil && sb != nil {
				h.Write([]byte{'b'})
				writeEntry(h, k, nil)
				walk(sb)
				h.Write([]byte{'e'})
				continue
			}
			h.Write([]byte{'v'})
			writeEntry(h, k, v)
		}
	}
	walk(b)
	return [sha256.Size]byte(h.Sum(nil))
}

// writeEntry writes a length-prefixed key and value.
func writeEntry(h hash.Hash, k, v []byte) {
	binary.Write(h, binary.BigEndian, uint32(len(k)))
	h.Write(k)
	binary.Write(h, binary.BigEndian, uint32(len(v)))
	h.Write(v)
}

// verifyOutputs reopens the written files read-only, runs the consistency
// check and compares every server's state with the inputs'. It stops
// before the next file once ctx ends.
func verifyOutputs(ctx context.Context, inputs []*reshardInput, plan *reshardPlan, paths []string) ([]ReshardFile, error) {
	want := map[uint64]*serverState{}
	for _, in := range inputs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := digestServers(in.tx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		maps.Copy(want, s) // planReshard made sure no server is in two inputs
	}
	got := map[uint64]int{} // server → output
	outs := make([]ReshardFile, len(paths))
	for i, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := verifyOutput(path, i, plan, want, got)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		outs[i] = f
	}
	for _, g := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[g]; !ok {
			return nil, fmt.Errorf("server %d is in no output", g)
		}
	}
	return outs, nil
}

func verifyOutput(path string, i int, plan *reshardPlan, want map[uint64]*serverState, got map[uint64]int) (ReshardFile, error) {
	f := ReshardFile{Path: path, Layout: plan.layouts[i]}
	if err := wholeFile(path); err != nil {
		return f, err
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: DefaultTimeout})
	if err != nil {
		return f, err
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		if err := checkTx(tx); err != nil {
			return err
		}
		if l, _, err := readLayout(tx); err != nil || l != f.Layout {
			return fmt.Errorf("layout %s, want %s (%v)", l, f.Layout, err)
		}
		if v := getU64(tx.Bucket(bMeta).Get(kSchema)); v != SchemaVersion() {
			return fmt.Errorf("schema version %d, want %d", v, SchemaVersion())
		}
		if s := tx.Bucket(bPosts).Sequence(); s != plan.postSeq(i) {
			return fmt.Errorf("posts sequence %d, want %d", s, plan.postSeq(i))
		}
		have, err := digestServers(tx)
		if err != nil {
			return err
		}
		for _, g := range slices.Sorted(maps.Keys(have)) {
			h := have[g]
			if o, ok := got[g]; ok {
				return fmt.Errorf("server %d is in output %d too", g, o)
			}
			got[g] = i
			if !f.Layout.Owns(g) {
				return fmt.Errorf("server %d belongs to shard %d", g, sharding.ShardOf(g, f.Layout.Count))
			}
			w, ok := want[g]
			if !ok {
				return fmt.Errorf("server %d is in no input", g)
			}
			if h.answers != w.answers {
				return fmt.Errorf("server %d: %d answers, want %d", g, h.answers, w.answers)
			}
			for _, part := range slices.Sorted(maps.Keys(w.parts)) {
				if h.parts[part] != w.parts[part] {
					return fmt.Errorf("server %d: %s differs from the input's", g, part)
				}
			}
			for part := range h.parts {
				if _, ok := w.parts[part]; !ok {
					return fmt.Errorf("server %d: %s is not in the input", g, part)
				}
			}
			f.Guilds++
			f.Answers += h.answers
		}
		f.Posts = tx.Bucket(bPosts).Stats().KeyN
		return nil
	})
	return f, err
}
