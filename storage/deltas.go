package storage

// This file is the group commit's buffer of one transaction: the counter
// changes and post tallies its answers make, and the lookups they share.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// deltas holds the changes to counters (the ranking blocks pb and ab, a
// period's n and na) and to posts' tallies (Tallies, Answers, Right) that
// the functions of one write transaction make, and flush writes each
// touched counter and post once, before the commit. The answers of a
// group commit mostly move the same counters (a ranking's keys are counted
// in blocks of hundreds) and answer the same few posts, so the transaction reads and
// writes each of them once rather than once per answer (a post is JSON:
// encoding it is the dear part). A nil *deltas writes through.
//
// A deltas belongs to one transaction attempt: a retried attempt starts
// from a new one. Nothing in that transaction may read a histogram
// counter before flush (rank and nth run in read transactions only); a
// period's n and na read through count see what is pending, and so does
// a post read through DB.postIn (the only reader of posts in the
// transactions that have a deltas: RecordAnswer's and RecordReview's).
//
// A deltas also spares the answers of its transaction repeated lookups:
// one cursor per bucket for get, has and del (bbolt's Get and Delete
// make a new cursor, and so a new search stack, each time), scratch for
// the keys of put, the periods of each guild and local date (periodsAt)
// and the guilds' time zones. What it caches (bucket handles, periods)
// stays valid for its transaction: the functions that run with a deltas
// create buckets but never delete one (a ranking's group left empty is
// deleted by the flush, see mayBeEmpty).
//
// And it chooses how full bbolt fills the pages it splits (FillPercent)
// for each bucket its transaction put keys into: completely when the keys
// put went past the last key the bucket held before (the bucket is
// appended to, as a ranking's group by the members reaching it: see
// fillState), else half (bbolt's default, best for keys landing anywhere).
type deltas struct {
	buckets map[*bbolt.Bucket]*bucketDeltas
	order   []*bucketDeltas // first touched first: flush writes in a fixed order
	// posts are the posts whose tallies changed, as they will be stored,
	// first touched first; flush writes them to postsB and tells postCache.
	posts     []*pendingPost
	postsB    *bbolt.Bucket
	postCache *decodeCache[questions.PostID, questions.Post]

	cursors map[*bbolt.Bucket]*bbolt.Cursor
	fills   map[*bbolt.Bucket]*fillState
	empty   []emptyGroup // ranking groups that may have lost their last entry
	key     []byte       // scratch for put's keys
	slab    []byte       // the chunk value hands out from
	spans   []periodSet  // periodsAt's cache
	locs    map[questions.GuildID]*time.Location
}

// appendFill is the FillPercent of a bucket a transaction only appended
// to: the pages it leaves behind are full.
const appendFill = 1.0

// slabSize is the size of the chunks value carves values from: an answer
// stores about 400 bytes of values.
const slabSize = 4096

// maxSpans bounds the periods a deltas remembers: the answers of one
// transaction mostly fall on one or two dates of a few guilds.
const maxSpans = 8

// pendingPost is a post with the tallies of the transaction's answers.
type pendingPost struct {
	p      questions.Post // its slices belong to the deltas until flush
	topics []string       // topicsOf(p), worked out once
}

// fillState is what put saw of one bucket: its last key when the
// transaction first put into it, and how many of the keys put since went
// past that one (in any order: bbolt splits pages at the commit).
type fillState struct {
	last          []byte
	puts, appends int
}

// appended reports whether the transaction appended to the bucket: at
// most one key in eight it put landed before the bucket's last key. Keys
// that come in time order (a ranking group's reached times) arrive a
// little out of order from members answering at once; the few that land
// just before the end split their page where no key will come again,
// whatever the fill.
func (f *fillState) appended() bool { return f.puts > 0 && (f.puts-f.appends)*8 <= f.puts }

// emptyGroup is a ranking's group that lost an entry: its period's
// bucket and its name.
type emptyGroup struct {
	groups *bbolt.Bucket
	name   [1 + groupLen]byte
}

// bucketDeltas are the pending counter changes of one bucket.
type bucketDeltas struct {
	b     *bbolt.Bucket
	index map[counterKey]int // counter key → its place in list
	list  []counterDelta
	// rank, when its groups are set, is the ranking whose blocks b
	// counts: the flush keeps its blocks within bounds (rankIndex.settle).
	rank rankIndex
}

type counterDelta struct {
	key counterKey
	n   int64
}

// counterKey holds a counter's key by value, so that buffering a change
// allocates nothing: the keys are short (n, na, or a histogram's level
// fence).
type counterKey struct {
	n uint8
	b [counterKeyMax]byte
}

// counterKeyMax is the longest counter key: a block's fence.
const counterKeyMax = rankLen

func counterKeyOf(key []byte) counterKey {
	if len(key) > counterKeyMax {
		panic(fmt.Sprintf("counter key of %d bytes, longer than %d", len(key), counterKeyMax)) // a programming error
	}
	ck := counterKey{n: uint8(len(key))}
	copy(ck.b[:], key)
	return ck
}

func (ck *counterKey) bytes() []byte { return ck.b[:ck.n] }

func newDeltas() *deltas {
	return &deltas{buckets: make(map[*bbolt.Bucket]*bucketDeltas)}
}

// of returns the pending changes of b's counters; nil (write through)
// when d is nil. rank is set when b is a ranking's blocks (see
// bucketDeltas). Within a write transaction bbolt hands out one *Bucket
// per bucket, so the pointer names the bucket.
func (d *deltas) of(b *bbolt.Bucket, rank rankIndex) *bucketDeltas {
	if d == nil || b == nil {
		return nil
	}
	bd := d.buckets[b]
	if bd == nil {
		bd = &bucketDeltas{b: b, index: make(map[counterKey]int), rank: rankIndex{groups: rank.groups, tag: rank.tag, blocks: b}}
		d.buckets[b] = bd
		d.order = append(d.order, bd)
	}
	return bd
}

// cursor returns the transaction's cursor on b, made on first use.
func (d *deltas) cursor(b *bbolt.Bucket) *bbolt.Cursor {
	c := d.cursors[b]
	if c == nil {
		if d.cursors == nil {
			d.cursors = make(map[*bbolt.Bucket]*bbolt.Cursor)
		}
		c = b.Cursor()
		d.cursors[b] = c
	}
	return c
}

// get is b.Get(key) (nil when b is nil) through the transaction's cursor
// on b: a Seek reuses the cursor's search stack. key may be the caller's
// scratch.
func (d *deltas) get(b *bbolt.Bucket, key []byte) []byte {
	if b == nil {
		return nil
	}
	if d == nil {
		return b.Get(key)
	}
	k, v := d.cursor(b).Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// has reports whether b holds key (with any value, an empty one too,
// which bbolt's Get reports as nil).
func (d *deltas) has(b *bbolt.Bucket, key []byte) bool {
	var c *bbolt.Cursor
	if d == nil {
		c = b.Cursor()
	} else {
		c = d.cursor(b)
	}
	k, _ := c.Seek(key)
	return bytes.Equal(k, key)
}

// del is b.Delete(key) through the transaction's cursor on b (bbolt's
// Delete lets key escape; a cursor does not).
func (d *deltas) del(b *bbolt.Bucket, key []byte) error {
	var c *bbolt.Cursor
	if d == nil {
		c = b.Cursor()
	} else {
		c = d.cursor(b)
	}
	if k, _ := c.Seek(key); !bytes.Equal(k, key) {
		return nil
	}
	return c.Delete()
}

// put is b.Put(key, value), key copied first (bbolt stores a copy of the
// key but lets it escape): the caller's key may live on its stack. value
// is kept by bbolt until the commit, as always. It notes whether key goes
// past every key of b (see fillState).
func (d *deltas) put(b *bbolt.Bucket, key, value []byte) error {
	if d == nil {
		return b.Put(bytes.Clone(key), value)
	}
	f := d.fills[b]
	if f == nil {
		if d.fills == nil {
			d.fills = make(map[*bbolt.Bucket]*fillState)
		}
		f = &fillState{last: bytes.Clone(lastKey(d.cursor(b)))}
		d.fills[b] = f
	}
	f.puts++
	if bytes.Compare(key, f.last) > 0 {
		f.appends++
	}
	d.key = append(d.key[:0], key...)
	return b.Put(d.key, value)
}

// lastKey is c's bucket's last key; nil when the bucket is empty.
// bbolt's Cursor.Last never returns on a bucket of several pages whose
// keys were all deleted in the transaction (it steps back over the empty
// pages, and from the first starts again at the last): First, which
// skips empty pages forward, tells that case apart.
func lastKey(c *bbolt.Cursor) []byte {
	if k, _ := c.First(); k == nil {
		return nil
	}
	k, _ := c.Last()
	return k
}

// appendPut is b.Put for a transaction's only put into b (outside a
// group commit): when key goes past b's last key, b's pages split full,
// as a deltas does for the buckets its transaction only appended to.
func appendPut(b *bbolt.Bucket, key, value []byte) error {
	if last := lastKey(b.Cursor()); last == nil || bytes.Compare(key, last) > 0 {
		b.FillPercent = appendFill
	}
	return b.Put(key, value)
}

// mayBeEmpty notes that the group bucket name of a period's bucket lost
// an entry: the flush deletes it if it is empty then.
func (d *deltas) mayBeEmpty(groups *bbolt.Bucket, name []byte) {
	e := emptyGroup{groups: groups}
	copy(e.name[:], name)
	d.empty = append(d.empty, e)
}

// value returns an empty slice of capacity n to encode a value for put
// into: bbolt keeps a value until the commit, and d never hands the same
// bytes out twice. Values are carved from shared chunks, so an
// answer's several values cost an allocation now and then, not one each.
func (d *deltas) value(n int) []byte {
	if d == nil || n > slabSize/8 {
		return make([]byte, 0, n)
	}
	if len(d.slab)+n > cap(d.slab) {
		d.slab = make([]byte, 0, slabSize)
	}
	at := len(d.slab)
	d.slab = d.slab[:at+n]
	return d.slab[at : at : at+n]
}

// add adds n to the counter key (copied if new).
func (bd *bucketDeltas) add(key []byte, n int64) {
	ck := counterKeyOf(key)
	if i, ok := bd.index[ck]; ok {
		bd.list[i].n += n
		return
	}
	bd.index[ck] = len(bd.list)
	bd.list = append(bd.list, counterDelta{key: ck, n: n})
}

// pending returns the change waiting for the counter key (0 when bd is nil).
func (bd *bucketDeltas) pending(key []byte) int64 {
	if bd == nil {
		return 0
	}
	if i, ok := bd.index[counterKeyOf(key)]; ok {
		return bd.list[i].n
	}
	return 0
}

// post returns the pending post id; nil when no answer of the
// transaction has changed it (or d is nil). A transaction answers few
// posts: a list beats a map.
func (d *deltas) post(id questions.PostID) *pendingPost {
	if d == nil {
		return nil
	}
	for _, pp := range d.posts {
		if pp.p.ID == id {
			return pp
		}
	}
	return nil
}

// addPost makes p (the caller's: d keeps its slices) pending in the
// posts bucket b, and returns it; flush tells m what it writes.
func (d *deltas) addPost(b *bbolt.Bucket, m *decodeCache[questions.PostID, questions.Post], p questions.Post) *pendingPost {
	pp := &pendingPost{p: p, topics: topicsOf(p)}
	d.posts = append(d.posts, pp)
	d.postsB, d.postCache = b, m
	return pp
}

// flush writes every pending post once, and every counter whose net
// change is not 0: its stored value plus the change, deleted when that
// is 0 or less. That is what adding the changes one at a time writes,
// since a count (of keys under a prefix, of members in a ranking) never
// falls below 0 on the way; a counter that went to 0 and back is left as
// it was. d is empty after.
func (d *deltas) flush() error {
	if d == nil {
		return nil
	}
	for _, pp := range d.posts {
		v, err := encodePost(pp.p)
		if err != nil {
			return err
		}
		if err := d.postsB.Put(u64(pp.p.ID), v); err != nil {
			return err
		}
		d.postCache.put(pp.p.ID, v, pp.p) // the cache keeps pp.p's slices: d lets go of them
	}
	clear(d.posts)
	d.posts = d.posts[:0]
	for _, bd := range d.order {
		c := d.cursor(bd.b) // one search stack for every lookup in the bucket
		var touched [][]byte
		for _, cd := range bd.list {
			if cd.n == 0 {
				continue
			}
			d.key = append(d.key[:0], cd.key.bytes()...)
			n, found := cd.n, false
			if k, v := c.Seek(d.key); bytes.Equal(k, d.key) {
				n += int64(getU64(v))
				found = true
			}
			var err error
			switch {
			case bd.rank.groups != nil:
				// A block: its count is written even when 0, then settled.
				touched = append(touched, bytes.Clone(d.key))
				err = bd.b.Put(d.key, binary.BigEndian.AppendUint64(d.value(8), uint64(max(n, 0))))
			case n > 0:
				err = bd.b.Put(d.key, binary.BigEndian.AppendUint64(d.value(8), uint64(n)))
			case found:
				err = c.Delete()
			}
			if err != nil {
				return err
			}
		}
		if len(touched) > 0 {
			slices.SortFunc(touched, bytes.Compare)
			for _, f := range touched {
				if err := bd.rank.settle(f); err != nil {
					return err
				}
			}
		}
	}
	for _, e := range d.empty {
		if gb := e.groups.Bucket(e.name[:]); gb != nil {
			if k, _ := gb.Cursor().First(); k == nil {
				if err := e.groups.DeleteBucket(e.name[:]); err != nil {
					return err
				}
			}
		}
	}
	d.empty = d.empty[:0]
	for b, f := range d.fills {
		if f.appended() {
			b.FillPercent = appendFill
		}
	}
	clear(d.fills)
	clear(d.buckets)
	d.order = d.order[:0]
	clear(d.spans) // their periods point at the counter changes just cleared
	d.spans = d.spans[:0]
	return nil
}
