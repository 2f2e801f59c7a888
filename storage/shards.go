package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/quizhost/quizhost/internal/sharding"

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

// unsharded is the layout of a file with no layout recorded.
var unsharded = sharding.Layout{First: 0, Last: 0, Count: 1}

// readLayout returns the layout recorded in tx (unsharded when none) and
// whether one was recorded.
func readLayout(tx *bbolt.Tx) (sharding.Layout, bool, error) {
	v := tx.Bucket(bMeta).Get(kShards)
	if v == nil {
		return unsharded, false, nil
	}
	l, err := sharding.ParseLayout(string(v))
	if err != nil || l.IsZero() {
		return sharding.Layout{}, true, fmt.Errorf("meta/shards: %q is not a shard layout", v)
	}
	return l, true, nil
}

func writeLayout(tx *bbolt.Tx, l sharding.Layout) error {
	return tx.Bucket(bMeta).Put(kShards, []byte(l.String()))
}

// ShardLayout returns the shard layout the file was written for: the one
// recorded by ClaimShardLayout or Reshard, or 0-0/1 (every server) for a
// file that has none. Safe for concurrent use.
func (db *DB) ShardLayout() (sharding.Layout, error) {
	var l sharding.Layout
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		l, _, err = readLayout(tx)
		return err
	})
	if err != nil {
		return sharding.Layout{}, fmt.Errorf("shard layout: %w", err)
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
func (db *DB) ClaimShardLayout(ctx context.Context, l sharding.Layout) error {
	if err := l.Check(); err != nil {
		return fmt.Errorf("claim shard layout: %w", err)
	}
	// The usual start (the layout accepted as it is) only reads: a write
	// would wait for a large file's background check (see Open).
	accepted := false
	err := db.view(func(tx *bbolt.Tx) error {
		have, recorded, err := readLayout(tx)
		accepted = err == nil && (recorded && have == l || l.IsZero() && have.AllShards())
		return err
	})
	if err != nil {
		return fmt.Errorf("claim shard layout: %w", err)
	}
	if accepted {
		return nil
	}
	err = db.update(ctx, func(tx *bbolt.Tx) error {
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
