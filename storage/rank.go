package storage

// This file is a period's rankings (schema version 8): the members' keys
// in ranking order, grouped by their first 16 bytes, and the blocks that
// count them so that a rank or a page at an offset costs a few hundred
// counters, never a pass over every member.

import (
	"bytes"

	"go.etcd.io/bbolt"
)

// A ranking key is 32 bytes: a group (16 bytes: ^points|^accuracy, or
// ^accuracy|^answered) then an entry (reached | user). The period's bucket
// holds one sub-bucket per group of each ranking, named by the ranking's
// tag byte (tagPts, tagAcc) and the group, holding the group's entries;
// the value of an entry is the rest of the member's score (see
// pointsEntryScore, accEntryScore). The groups sit in the period's bucket
// itself, not in a bucket of their own: a bucket holding buckets takes a
// page of its own, and a small server's period fits in one. A member who reaches a
// group gets the latest reached time in it, mostly: so entries are
// appended at the end of their group's bucket, which bbolt then fills
// completely (see deltas' append detection), where one flat bucket of
// 32-byte keys would split its pages half full in the middle.
const (
	groupLen = 16
	rankLen  = 32

	tagPts byte = 1 // a points ranking's group (sorts before the period's other keys)
	tagAcc byte = 2 // an accuracy ranking's group
)

// Blocks: the ranking's keys in order are cut into blocks of consecutive
// keys; the blocks bucket (pb, ab) maps each block's first possible key
// (its fence; the first block's is 32 zero bytes) to how many keys it
// holds. A key belongs to the block of the greatest fence not after it. A
// block is split in blocks of blockSplit keys when it passes blockMax, and
// merged into the one before it when it falls under blockMin, so a rank
// reads about n/500 counters and then at most blockMax keys.
const (
	blockMax   = 1024
	blockSplit = 512
	blockMin   = 128
)

var firstFence = make([]byte, rankLen)

// rankIndex is one ranking of a period.
type rankIndex struct {
	groups *bbolt.Bucket // the period: <tag><group>/<entry> → value
	tag    byte
	blocks *bbolt.Bucket // <fence> → count (8 bytes)
	// pend, when set, takes the blocks' count changes until the
	// transaction flushes them (see deltas), which then splits and merges
	// blocks; nil: at once.
	pend *bucketDeltas
	d    *deltas // the transaction's lookups; nil: bbolt's own
}

// groupName writes the name of key's group bucket into n and returns it.
func (ri rankIndex) groupName(n *[1 + groupLen]byte, key []byte) []byte {
	n[0] = ri.tag
	copy(n[1:], key[:groupLen])
	return n[:]
}

// group returns the group bucket of key, creating it when create is set;
// nil if there is none.
func (ri rankIndex) group(key []byte, create bool) (*bbolt.Bucket, error) {
	var n [1 + groupLen]byte
	name := ri.groupName(&n, key)
	if gb := ri.groups.Bucket(name); gb != nil || !create {
		return gb, nil
	}
	return ri.groups.CreateBucket(bytes.Clone(name))
}

// move replaces the member's key old (nil: none) by new (nil: none) with
// value val, and counts the change in the blocks. It keeps none of its
// arguments.
func (ri rankIndex) move(old, new, val []byte) error {
	if old != nil && new != nil && bytes.Equal(old, new) {
		gb, err := ri.group(new, true)
		if err != nil {
			return err
		}
		return ri.d.put(gb, new[groupLen:], val)
	}
	if old != nil {
		if err := ri.remove(old); err != nil {
			return err
		}
		if err := ri.count(old, -1); err != nil {
			return err
		}
	}
	if new != nil {
		gb, err := ri.group(new, true)
		if err != nil {
			return err
		}
		if err := ri.d.put(gb, new[groupLen:], val); err != nil {
			return err
		}
		if err := ri.count(new, +1); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes key's entry; a group left empty is deleted (by the flush
// when the transaction has a deltas: its handles stay valid until then).
func (ri rankIndex) remove(key []byte) error {
	gb, err := ri.group(key, false)
	if err != nil || gb == nil {
		return err
	}
	if err := ri.d.del(gb, key[groupLen:]); err != nil {
		return err
	}
	var n [1 + groupLen]byte
	name := ri.groupName(&n, key)
	if ri.d != nil {
		ri.d.mayBeEmpty(ri.groups, name)
		return nil
	}
	if k, _ := gb.Cursor().First(); k == nil {
		return ri.groups.DeleteBucket(name)
	}
	return nil
}

// fence returns the fence of the block key belongs to (a copy), the first
// fence when there is no block yet.
func (ri rankIndex) fence(c *bbolt.Cursor, key []byte) []byte {
	k, _ := c.Seek(key)
	if !bytes.Equal(k, key) {
		k, _ = c.Prev()
	}
	if k == nil {
		return firstFence
	}
	return k
}

// count adds delta to the count of the block of key: pending in the
// transaction's deltas, or at once (then splitting or merging the block).
func (ri rankIndex) count(key []byte, delta int64) error {
	var c *bbolt.Cursor
	if ri.d != nil {
		c = ri.d.cursor(ri.blocks)
	} else {
		c = ri.blocks.Cursor()
	}
	f := ri.fence(c, key)
	if ri.pend != nil {
		ri.pend.add(f, delta)
		return nil
	}
	f = bytes.Clone(f)
	n := int64(getU64(ri.blocks.Get(f))) + delta
	if err := ri.blocks.Put(f, u64(uint64(max(n, 0)))); err != nil {
		return err
	}
	return ri.settle(f)
}

// settle keeps the block of fence f within bounds after its count changed:
// an empty block is deleted (the first block takes the next one's keys
// and fence), a small one merged into the block before it, and a large
// one split. The counts must be stored (not pending).
func (ri rankIndex) settle(f []byte) error {
	c := ri.blocks.Cursor()
	k, v := c.Seek(f)
	if !bytes.Equal(k, f) {
		return nil // merged away already
	}
	f = bytes.Clone(k)
	n := getU64(v)
	pk, pv := c.Prev()
	switch {
	case n == 0 && pk == nil:
		// The first block emptied: the next block becomes the first.
		c.Seek(f)
		nk, nv := c.Next()
		if nk == nil {
			return ri.blocks.Delete(f) // the ranking is empty
		}
		next, count := bytes.Clone(nk), bytes.Clone(nv)
		if err := ri.blocks.Delete(next); err != nil {
			return err
		}
		if err := ri.blocks.Put(f, count); err != nil {
			return err
		}
		return ri.settle(f)
	case n < blockMin && pk != nil:
		prev, pn := bytes.Clone(pk), getU64(pv)
		if err := ri.blocks.Delete(f); err != nil {
			return err
		}
		if err := ri.blocks.Put(prev, u64(pn+n)); err != nil {
			return err
		}
		return ri.settle(prev)
	case n > blockMax:
		return ri.split(f, n)
	}
	return nil
}

// split cuts the block of fence f, holding n keys, into blocks of
// blockSplit keys (the last one at least blockMin).
func (ri rankIndex) split(f []byte, n uint64) error {
	var cuts [][]byte
	rc := ri.cursor()
	i := uint64(0)
	for k, _ := rc.seek(f); k != nil && i < n; k, _ = rc.next() {
		if i > 0 && i%blockSplit == 0 && n-i >= blockMin {
			cuts = append(cuts, bytes.Clone(k))
		}
		i++
	}
	sizes := make([]uint64, 0, len(cuts)+1)
	for range cuts {
		sizes = append(sizes, blockSplit)
	}
	sizes = append(sizes, n-uint64(len(cuts))*blockSplit)
	if err := ri.blocks.Put(f, u64(sizes[0])); err != nil {
		return err
	}
	for j, k := range cuts {
		if err := ri.blocks.Put(k, u64(sizes[j+1])); err != nil {
			return err
		}
	}
	return nil
}

// rank returns the 1-based position of key: one plus the number of keys
// before it. It reads the stored counts: never with changes pending.
func (ri rankIndex) rank(key []byte) int {
	c := ri.blocks.Cursor()
	f := bytes.Clone(ri.fence(c, key))
	before := 0
	for k, v := c.First(); k != nil && bytes.Compare(k, f) < 0; k, v = c.Next() {
		before += int(getU64(v))
	}
	rc := ri.cursor()
	for k, _ := rc.seek(f); k != nil && bytes.Compare(k, key) < 0; k, _ = rc.next() {
		before++
	}
	return before + 1
}

// nth returns a cursor on the ranking positioned at the key of 0-based
// position n, and that key and its value; a nil key when n is past the
// end. Like rank, it reads the stored counts.
func (ri rankIndex) nth(n int) (*rankCursor, []byte, []byte) {
	rc := ri.cursor()
	if n <= 0 {
		k, v := rc.seek(firstFence)
		return rc, k, v
	}
	c := ri.blocks.Cursor()
	for f, cnt := c.First(); f != nil; f, cnt = c.Next() {
		m := int(getU64(cnt))
		if n >= m {
			n -= m
			continue
		}
		k, v := rc.seek(f)
		for ; n > 0 && k != nil; n-- {
			k, v = rc.next()
		}
		return rc, k, v
	}
	return rc, nil, nil
}

// rankCursor walks a ranking's keys in order across its groups; the keys
// it returns are its own (valid until its next move), the values bbolt's.
type rankCursor struct {
	parent *bbolt.Bucket
	tag    byte
	outer  *bbolt.Cursor
	inner  *bbolt.Cursor
	key    [rankLen]byte
}

// cursor returns a cursor on the ranking; the ranking must exist (its
// period's bucket).
func (ri rankIndex) cursor() *rankCursor {
	return &rankCursor{parent: ri.groups, tag: ri.tag, outer: ri.groups.Cursor()}
}

// seek moves to the first key not before k (32 bytes).
func (c *rankCursor) seek(k []byte) ([]byte, []byte) {
	var n [1 + groupLen]byte
	n[0] = c.tag
	copy(n[1:], k[:groupLen])
	g, _ := c.outer.Seek(n[:])
	if bytes.Equal(g, n[:]) {
		return c.enter(g, k[groupLen:])
	}
	return c.enter(g, nil)
}

// enter positions the inner cursor in group g (a group bucket's name) at
// the first entry not before from (nil: the first), moving on to later
// groups while g has none.
func (c *rankCursor) enter(g, from []byte) ([]byte, []byte) {
	for ; len(g) == 1+groupLen && g[0] == c.tag; g, _ = c.outer.Next() {
		gb := c.parent.Bucket(g)
		if gb == nil {
			from = nil
			continue
		}
		c.inner = gb.Cursor()
		var e, v []byte
		if from != nil {
			e, v = c.inner.Seek(from)
		} else {
			e, v = c.inner.First()
		}
		from = nil
		if e != nil {
			copy(c.key[:], g[1:])
			copy(c.key[groupLen:], e)
			return c.key[:], v
		}
	}
	c.inner = nil
	return nil, nil
}

// next moves to the next key.
func (c *rankCursor) next() ([]byte, []byte) {
	if c.inner == nil {
		return nil, nil
	}
	if e, v := c.inner.Next(); e != nil {
		copy(c.key[groupLen:], e)
		return c.key[:], v
	}
	g, _ := c.outer.Next()
	return c.enter(g, nil)
}
