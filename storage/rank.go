package storage

import (
	"bytes"

	"go.etcd.io/bbolt"
)

// rankLevels are the key prefix lengths a ranking counts members under:
// 8 = the first component (points, or accuracy), 16 = the first two
// (points and accuracy, or accuracy and answers), then those plus the top
// 2, 3 and 4 bytes of reachedAt (slices of 2^48 ns ≈ 3.3 days, 2^40 ns ≈
// 18 minutes, 2^32 ns ≈ 4.3 s). Below the second level each level has at
// most 256 entries under one parent. See doc.go.
var rankLevels = [...]int{8, 16, 18, 19, 20}

// rankIndex is an order-statistics index over 32-byte ranking keys: the
// keys themselves (a cursor walks them best first) plus a histogram of how
// many keys share each prefix of each level. rank and nth use the
// histogram to skip whole groups, so they touch a few hundred counters and
// then scan only the members tied on points and accuracy who reached them
// within the same 4.3 seconds, never every member.
type rankIndex struct {
	keys *bbolt.Bucket // <key> → ∅
	hist *bbolt.Bucket // <level byte><key prefix> → count
	// pend, when set, takes move's counter changes until the transaction
	// flushes them (see deltas); nil: move writes them at once.
	pend *bucketDeltas
	d    *deltas // the transaction's lookups for the keys; nil: bbolt's own
}

func histKey(level int, key []byte) []byte {
	return cat([]byte{byte(level)}, key[:rankLevels[level]])
}

// bump adds delta to the count of key's prefix at level; a count that
// falls to 0 is deleted. c is a cursor on the histogram, reused from bump
// to bump so that a lookup allocates no new search stack; buf is scratch
// for the counter's key (Put copies its key).
func (ri rankIndex) bump(c *bbolt.Cursor, buf []byte, level int, key []byte, delta int64) error {
	hk := append(append(buf[:0], byte(level)), key[:rankLevels[level]]...)
	if ri.pend != nil {
		ri.pend.add(hk, delta)
		return nil
	}
	n := delta
	if k, v := c.Seek(hk); bytes.Equal(k, hk) {
		n += int64(getU64(v))
	}
	owned := bytes.Clone(hk) // bbolt lets its key escape: keep buf on the caller's stack
	if n <= 0 {
		return ri.hist.Delete(owned)
	}
	return ri.hist.Put(owned, u64(uint64(n)))
}

// move replaces old (nil: none) by new (nil: none) and adjusts only the
// histogram levels whose prefix changed. It keeps neither key.
func (ri rankIndex) move(old, new []byte) error {
	if old != nil && new != nil && bytes.Equal(old, new) {
		return nil
	}
	if old != nil {
		if err := ri.d.del(ri.keys, old); err != nil {
			return err
		}
	}
	if new != nil {
		if err := ri.d.put(ri.keys, new, nil); err != nil {
			return err
		}
	}
	var c *bbolt.Cursor
	var buf [1 + 20]byte // the longest histogram key: level byte, rankLevels' last
	for level, n := range rankLevels {
		if old != nil && new != nil && bytes.Equal(old[:n], new[:n]) {
			continue
		}
		if c == nil && ri.pend == nil {
			c = ri.hist.Cursor()
		}
		if old != nil {
			if err := ri.bump(c, buf[:], level, old, -1); err != nil {
				return err
			}
		}
		if new != nil {
			if err := ri.bump(c, buf[:], level, new, +1); err != nil {
				return err
			}
		}
	}
	return nil
}

// rank returns the 1-based position of key: one plus the number of keys
// that sort before it. It reads the stored counters: never on an index
// with pending changes.
func (ri rankIndex) rank(key []byte) int {
	before := 0
	var parent []byte
	c := ri.hist.Cursor()
	for level, n := range rankLevels {
		prefix := cat([]byte{byte(level)}, parent)
		own := histKey(level, key)
		for k, v := c.Seek(prefix); hasPrefix(k, prefix) && bytes.Compare(k, own) < 0; k, v = c.Next() {
			before += int(getU64(v))
		}
		parent = key[:n]
	}
	kc := ri.keys.Cursor()
	for k, _ := kc.Seek(parent); hasPrefix(k, parent) && bytes.Compare(k, key) < 0; k, _ = kc.Next() {
		before++
	}
	return before + 1
}

// nth returns a cursor on the keys bucket positioned at the key of 0-based
// position n, and that key; nil when n is past the end. Like rank, it
// reads the stored counters.
func (ri rankIndex) nth(n int) (*bbolt.Cursor, []byte) {
	kc := ri.keys.Cursor()
	if n <= 0 {
		k, _ := kc.First()
		return kc, k
	}
	var parent []byte
	c := ri.hist.Cursor()
	for level := range rankLevels {
		prefix := cat([]byte{byte(level)}, parent)
		found := false
		for k, v := c.Seek(prefix); hasPrefix(k, prefix); k, v = c.Next() {
			cnt := int(getU64(v))
			if n < cnt {
				parent = append([]byte(nil), k[1:]...)
				found = true
				break
			}
			n -= cnt
		}
		if !found {
			return kc, nil
		}
	}
	k, _ := kc.Seek(parent)
	for ; n > 0 && hasPrefix(k, parent); n-- {
		k, _ = kc.Next()
	}
	if !hasPrefix(k, parent) {
		return kc, nil
	}
	return kc, k
}
