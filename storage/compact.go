package storage

// This file rewrites a database without its free pages: CompactFile (for
// `quizhost compact`), and the copy the backups write (compactTo).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Compacted is what CompactFile did.
type Compacted struct {
	// Path is the file written: the database itself, or the output asked
	// for.
	Path string
	// Before and After are the sizes of the database and of the copy.
	Before, After int64
	// Keys is how many keys the copy holds, as the database does.
	Keys int
}

// compactTxMax is how many bytes of keys and values a compaction writes
// per transaction: bbolt keeps a transaction's pages in memory.
const compactTxMax = 64 << 20

// CompactFile rewrites the database at path without its free pages, its
// pages filled, with bbolt's compaction: every bucket, key, value and
// sequence copied in key order into a new file. The copy is written next
// to its destination, synced, checked (bbolt's consistency check, and the
// same keys and sequences in every bucket as the database), and only then
// renamed into place: over path itself when out is "", else to out (which
// must not exist). It reads the database through a read-only open that
// holds the file's lock, so a running bot (which holds it for writing)
// makes it fail after timeout with an error wrapping ErrInUse, and a bot
// started meanwhile waits for it. A damaged database is refused with an
// error wrapping ErrDamaged; the schema version is not looked at (the copy
// is the same file, smaller). When ctx ends first, nothing is renamed and
// no temporary file is left (an error wrapping ctx.Err()).
func CompactFile(ctx context.Context, path, out string, timeout time.Duration) (Compacted, error) {
	res, err := compactFile(ctx, path, out, timeout)
	if err != nil {
		return Compacted{}, fmt.Errorf("compact %s: %w", path, err)
	}
	return res, nil
}

func compactFile(ctx context.Context, path, out string, timeout time.Duration) (Compacted, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	st, err := os.Stat(path)
	if err != nil {
		return Compacted{}, err
	}
	if err := plausibleFile(path); err != nil {
		return Compacted{}, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	dest := path
	if out != "" {
		dest = out
		if _, err := os.Lstat(out); err == nil {
			return Compacted{}, fmt.Errorf("%s exists", out)
		}
		if abs, err := filepath.Abs(out); err == nil {
			if own, err := filepath.Abs(path); err == nil && abs == own {
				return Compacted{}, fmt.Errorf("%s is the database itself", out)
			}
		}
	}
	var src *bbolt.DB
	err = protect(func() error {
		var err error
		src, err = bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: timeout})
		return err
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return Compacted{}, ErrInUse
	}
	if err != nil {
		return Compacted{}, err
	}
	defer src.Close()
	res := Compacted{Path: dest, Before: st.Size()}
	err = replaceWith(ctx, dest, func(tmp string) error {
		return protect(func() error {
			return src.View(func(tx *bbolt.Tx) error {
				var err error
				res.Keys, err = compactTo(ctx, tmp, tx)
				return err
			})
		})
	})
	if err != nil {
		return Compacted{}, err
	}
	if st, err := os.Stat(dest); err == nil {
		res.After = st.Size()
	}
	return res, nil
}

// compactTo writes tx's buckets, keys, values and sequences into a new
// bbolt file at path (fsynced, closed), with every page filled, and checks
// that the copy holds the same keys and sequences in every bucket as tx;
// it returns how many keys it holds. It stops with ctx.Err() when ctx ends
// (checked between buckets and every few thousand keys).
func compactTo(ctx context.Context, path string, tx *bbolt.Tx) (int, error) {
	dst, err := bbolt.Open(path, 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		return 0, err
	}
	closed := false
	defer func() {
		if !closed {
			dst.Close()
		}
	}()
	dst.AllocSize = allocSize
	if err := copyTx(ctx, dst, tx); err != nil {
		return 0, err
	}
	if err := dst.Sync(); err != nil {
		return 0, err
	}
	want := summaryOf(tx)
	var got map[string]bucketSummary
	if err := dst.View(func(ctx *bbolt.Tx) error { got = summaryOf(ctx); return nil }); err != nil {
		return 0, err
	}
	if err := sameSummary(got, want); err != nil {
		return 0, fmt.Errorf("verify copy: %w", err)
	}
	keys := 0
	for _, s := range want {
		keys += s.keys
	}
	closed = true
	return keys, dst.Close()
}

// copyTx copies every bucket, key, value and sequence of src into dst as
// bbolt.Compact does: in key order, pages filled, a commit every
// compactTxMax bytes. It checks ctx between buckets and every few
// thousand keys.
func copyTx(ctx context.Context, dst *bbolt.DB, src *bbolt.Tx) error {
	wtx, err := dst.Begin(true)
	if err != nil {
		return err
	}
	defer func() { wtx.Rollback() }()
	size, n := 0, 0
	// at returns the bucket at path in the current write transaction.
	at := func(path [][]byte) *bbolt.Bucket {
		b := wtx.Bucket(path[0])
		for _, k := range path[1:] {
			b = b.Bucket(k)
		}
		b.FillPercent = 1
		return b
	}
	var walk func(path [][]byte, from *bbolt.Bucket) error
	walk = func(path [][]byte, from *bbolt.Bucket) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := from.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if size > compactTxMax {
				if err := wtx.Commit(); err != nil {
					return err
				}
				if wtx, err = dst.Begin(true); err != nil {
					return err
				}
				size = 0
			}
			size += len(k) + len(v)
			if v == nil {
				child := from.Bucket(k)
				nb, err := at(path).CreateBucket(k)
				if err != nil {
					return err
				}
				if err := nb.SetSequence(child.Sequence()); err != nil {
					return err
				}
				if err := walk(append(path[:len(path):len(path)], k), child); err != nil {
					return err
				}
				continue
			}
			if err := at(path).Put(k, v); err != nil {
				return err
			}
		}
		return nil
	}
	err = src.ForEach(func(name []byte, b *bbolt.Bucket) error {
		nb, err := wtx.CreateBucket(name)
		if err != nil {
			return err
		}
		if err := nb.SetSequence(b.Sequence()); err != nil {
			return err
		}
		return walk([][]byte{name}, b)
	})
	if err != nil {
		return err
	}
	return wtx.Commit()
}

// bucketSummary is what the verification of a copy compares, bucket by
// bucket: the number of keys (sub-buckets included) and the sequence.
type bucketSummary struct {
	keys int
	seq  uint64
}

// summaryOf summarises every bucket of tx, by path.
func summaryOf(tx *bbolt.Tx) map[string]bucketSummary {
	out := map[string]bucketSummary{}
	var walk func(b *bbolt.Bucket, path string)
	walk = func(b *bbolt.Bucket, path string) {
		s := bucketSummary{seq: b.Sequence()}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			s.keys++
			if v == nil {
				if child := b.Bucket(k); child != nil {
					walk(child, path+"/"+fmt.Sprintf("%x", k))
				}
			}
		}
		out[path] = s
	}
	tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
		walk(b, fmt.Sprintf("%x", name))
		return nil
	})
	return out
}

// sameSummary describes the first difference between two summaries.
func sameSummary(got, want map[string]bucketSummary) error {
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		if g, w := got[p], want[p]; g != w {
			return fmt.Errorf("bucket %s: %d keys and sequence %d in the copy, %d and %d in the database", p, g.keys, g.seq, w.keys, w.seq)
		}
	}
	return nil
}
