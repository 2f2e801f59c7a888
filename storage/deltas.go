package storage

// This file is the counter buffer of the group commit.

import (
	"bytes"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// deltas holds the changes to counters (the rank histograms ph and ah, a
// period's n and na) and to posts' tallies (Tallies, Answers, Right) that
// the functions of one write transaction make, and flush writes each
// touched counter and post once, before the commit. The answers of a
// group commit mostly move the same counters (few point values, few time
// slices) and answer the same few posts, so the transaction reads and
// writes each of them once rather than once per answer (a post is JSON:
// encoding it is the dear part). A nil *deltas writes through.
//
// A deltas belongs to one transaction attempt: a retried attempt starts
// from a new one. Nothing in that transaction may read a histogram
// counter before flush (rank and nth run in read transactions only); a
// period's n and na read through count see what is pending, and so does
// a post read through DB.postIn (the only reader of posts in the
// transactions that have a deltas: RecordAnswer's and RecordReview's).
type deltas struct {
	buckets map[*bbolt.Bucket]*bucketDeltas
	order   []*bucketDeltas // first touched first: flush writes in a fixed order
	// posts are the posts whose tallies changed, as they will be stored,
	// first touched first; flush writes them to postsB and tells postMemo.
	posts    []*pendingPost
	postsB   *bbolt.Bucket
	postMemo *memo[questions.PostID, questions.Post]
}

// pendingPost is a post with the tallies of the transaction's answers.
type pendingPost struct {
	p      questions.Post // its slices belong to the deltas until flush
	topics []string       // topicsOf(p), worked out once
}

// bucketDeltas are the pending counter changes of one bucket.
type bucketDeltas struct {
	b     *bbolt.Bucket
	index map[string]int // counter key → its place in list
	list  []counterDelta
}

type counterDelta struct {
	key []byte
	n   int64
}

func newDeltas() *deltas {
	return &deltas{buckets: make(map[*bbolt.Bucket]*bucketDeltas)}
}

// of returns the pending changes of b's counters; nil (write through)
// when d is nil. Within a write transaction bbolt hands out one *Bucket
// per bucket, so the pointer names the bucket.
func (d *deltas) of(b *bbolt.Bucket) *bucketDeltas {
	if d == nil || b == nil {
		return nil
	}
	bd := d.buckets[b]
	if bd == nil {
		bd = &bucketDeltas{b: b, index: make(map[string]int)}
		d.buckets[b] = bd
		d.order = append(d.order, bd)
	}
	return bd
}

// add adds n to the counter key (copied if new).
func (bd *bucketDeltas) add(key []byte, n int64) {
	if i, ok := bd.index[string(key)]; ok {
		bd.list[i].n += n
		return
	}
	k := bytes.Clone(key)
	bd.index[string(k)] = len(bd.list)
	bd.list = append(bd.list, counterDelta{key: k, n: n})
}

// pending returns the change waiting for the counter key (0 when bd is nil).
func (bd *bucketDeltas) pending(key []byte) int64 {
	if bd == nil {
		return 0
	}
	if i, ok := bd.index[string(key)]; ok {
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
func (d *deltas) addPost(b *bbolt.Bucket, m *memo[questions.PostID, questions.Post], p questions.Post) *pendingPost {
	pp := &pendingPost{p: p, topics: topicsOf(p)}
	d.posts = append(d.posts, pp)
	d.postsB, d.postMemo = b, m
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
		d.postMemo.put(pp.p.ID, v, pp.p) // the memo keeps pp.p's slices: d lets go of them
	}
	clear(d.posts)
	d.posts = d.posts[:0]
	for _, bd := range d.order {
		c := bd.b.Cursor() // one search stack for every lookup in the bucket
		for _, cd := range bd.list {
			if cd.n == 0 {
				continue
			}
			n := cd.n
			if k, v := c.Seek(cd.key); bytes.Equal(k, cd.key) {
				n += int64(getU64(v))
			}
			var err error
			if n <= 0 {
				err = bd.b.Delete(cd.key)
			} else {
				err = bd.b.Put(cd.key, u64(uint64(n)))
			}
			if err != nil {
				return err
			}
		}
	}
	clear(d.buckets)
	d.order = d.order[:0]
	return nil
}
