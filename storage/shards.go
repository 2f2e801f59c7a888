package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/quizhost/quizhost/questions"

	"go.etcd.io/bbolt"
)

// kShards is the meta key of the shard layout the file was written for
// ("i-j/N" as text); absent means an unsharded file, 0-0/1.
var kShards = []byte("shards")

// postIDStride is the size of the post ID range each shard's file
// allocates from after a reshard or a first claim (see doc.go, "Shards"):
// post IDs travel in Discord custom IDs, so they stay unique across the
// files of one deployment and no reshard ever renumbers a post.
const postIDStride = 1_000_000_000

// ErrShardLayout is returned (wrapped, with what to do) when a database
// file was written for another shard layout than the one asked for, and by
// Reshard when its input files do not form one whole layout.
var ErrShardLayout = errors.New("database was written for another shard layout")

// ShardLayout is the contiguous range of gateway shards First..Last (0-based,
// inclusive) out of Count that one quizhost process runs, and so the servers
// its database file holds: a server belongs to shard ShardOf(id, Count).
// The zero value means every shard, with the count decided at start.
type ShardLayout struct {
	First, Last, Count int
}

// ParseShardLayout parses QUIZHOST_SHARDS: "" is the zero layout (every
// shard), "i-j/N" is shards i through j of N (0 <= i <= j < N).
func ParseShardLayout(s string) (ShardLayout, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ShardLayout{}, nil
	}
	bad := fmt.Errorf("shard layout %q: want i-j/N, shards i through j of N (for example 0-1/4)", s)
	rng, count, ok := strings.Cut(s, "/")
	if !ok {
		return ShardLayout{}, bad
	}
	first, last, ok := strings.Cut(rng, "-")
	if !ok {
		return ShardLayout{}, bad
	}
	var l ShardLayout
	for _, f := range []struct {
		s string
		v *int
	}{{first, &l.First}, {last, &l.Last}, {count, &l.Count}} {
		n, err := strconv.Atoi(f.s)
		if err != nil || strconv.Itoa(n) != f.s {
			return ShardLayout{}, bad
		}
		*f.v = n
	}
	if err := l.check(); err != nil {
		return ShardLayout{}, fmt.Errorf("shard layout %q: %w", s, err)
	}
	return l, nil
}

// check refuses a non-zero layout whose range is empty or outside 0..Count-1.
func (l ShardLayout) check() error {
	if l.IsZero() {
		return nil
	}
	switch {
	case l.Count < 1:
		return fmt.Errorf("the shard count must be at least 1, got %d", l.Count)
	case l.First < 0 || l.First > l.Last:
		return fmt.Errorf("the first shard (%d) must be between 0 and the last (%d)", l.First, l.Last)
	case l.Last >= l.Count:
		return fmt.Errorf("shard %d does not exist: shards are numbered 0 to %d", l.Last, l.Count-1)
	}
	return nil
}

// String is "i-j/N", or "all" for the zero layout.
func (l ShardLayout) String() string {
	if l.IsZero() {
		return "all"
	}
	return fmt.Sprintf("%d-%d/%d", l.First, l.Last, l.Count)
}

// IsZero reports whether l is the zero layout: every shard, count decided
// at start.
func (l ShardLayout) IsZero() bool { return l == ShardLayout{} }

// AllShards reports whether l covers every shard (the zero layout, or
// 0-(N-1)/N): a file of such a layout holds every server.
func (l ShardLayout) AllShards() bool {
	return l.IsZero() || l.First == 0 && l.Last == l.Count-1
}

// Owns reports whether the server guildID belongs to one of l's shards
// (always true for a layout that covers every shard).
func (l ShardLayout) Owns(guildID questions.GuildID) bool {
	if l.AllShards() {
		return true
	}
	s := ShardOf(guildID, l.Count)
	return s >= l.First && s <= l.Last
}

// ShardOf is the gateway shard that Discord routes the events of server
// guildID to among count shards: (guild_id >> 22) % count. count must be
// at least 1.
func ShardOf(guildID questions.GuildID, count int) int {
	return int((uint64(guildID) >> 22) % uint64(count))
}

// unsharded is the layout of a file with no layout recorded.
var unsharded = ShardLayout{0, 0, 1}

// readLayout returns the layout recorded in tx (unsharded when none) and
// whether one was recorded.
func readLayout(tx *bbolt.Tx) (ShardLayout, bool, error) {
	v := tx.Bucket(bMeta).Get(kShards)
	if v == nil {
		return unsharded, false, nil
	}
	l, err := ParseShardLayout(string(v))
	if err != nil || l.IsZero() {
		return ShardLayout{}, true, fmt.Errorf("meta/shards: %q is not a shard layout", v)
	}
	return l, true, nil
}

func writeLayout(tx *bbolt.Tx, l ShardLayout) error {
	return tx.Bucket(bMeta).Put(kShards, []byte(l.String()))
}

// ShardLayout returns the shard layout the file was written for: the one
// recorded by ClaimShardLayout or Reshard, or 0-0/1 (every server) for a
// file that has none. Safe for concurrent use.
func (db *DB) ShardLayout() (ShardLayout, error) {
	var l ShardLayout
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		l, _, err = readLayout(tx)
		return err
	})
	if err != nil {
		return ShardLayout{}, fmt.Errorf("shard layout: %w", err)
	}
	return l, nil
}

// ClaimShardLayout checks, at start, that the file holds the servers of the
// shards l runs, and records l. It accepts:
//   - the layout the file records;
//   - any layout that covers every shard (the zero layout included) for a
//     file that covers every shard (an unsharded file, or 0-(M-1)/M for any
//     M): it holds every server either way;
//   - any layout for a file that holds no server yet (a new file), whose
//     posts then take their IDs from shard First's range, so that the
//     files of one deployment never hand out the same post ID.
//
// Anything else is refused with an error wrapping ErrShardLayout that says
// which layout the file was written for and what to do (use that file, or
// stop quizhost and run `quizhost reshard`); the file is left unchanged.
// The zero layout is recorded as nothing (the file keeps what it records).
// It refuses an invalid layout. Safe for concurrent use.
func (db *DB) ClaimShardLayout(ctx context.Context, l ShardLayout) error {
	if err := l.check(); err != nil {
		return fmt.Errorf("claim shard layout: %w", err)
	}
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		have, recorded, err := readLayout(tx)
		if err != nil {
			return err
		}
		switch {
		case recorded && have == l, l.IsZero() && have.AllShards():
			return nil
		case holdsNoServer(tx):
			posts := tx.Bucket(bPosts)
			if base := uint64(l.First) * postIDStride; posts.Sequence() < base {
				if err := posts.SetSequence(base); err != nil {
					return err
				}
			}
			if l.IsZero() {
				return nil
			}
			return writeLayout(tx, l)
		case have.AllShards() && l.AllShards():
			return writeLayout(tx, l)
		}
		return fmt.Errorf("%w: %s holds the servers of shards %s and this process runs shards %s; "+
			"start it with the database file written for shards %s, or stop every quizhost process and run "+
			"\"quizhost reshard --to %d --out DIR\" on the files of the old layout (see README.md, \"Sharding\")",
			ErrShardLayout, db.path, have, l, l, max(l.Count, 1))
	})
	if err != nil {
		return fmt.Errorf("claim shard layout: %w", err)
	}
	return nil
}

// holdsNoServer reports whether the file has no state of any server yet.
func holdsNoServer(tx *bbolt.Tx) bool {
	for _, name := range [][]byte{bGuilds, bSettings, bPosts, bOpen, bUnrevealed} {
		if b := tx.Bucket(name); b != nil {
			if k, _ := b.Cursor().First(); k != nil {
				return false
			}
		}
	}
	return true
}
