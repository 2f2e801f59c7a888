package storage

// This file measures where the file's bytes go (Space), for the growth
// benchmark (bench/growth) and for operators wondering what a large file
// holds.

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.etcd.io/bbolt"
)

// Space is what the file holds and where its bytes go: its size, its free
// pages, and for each kind of bucket (guilds/<guild>/periods/d…/pts stands
// for every day period's points ranking of every guild) its keys, pages
// and the bytes in use on them.
type Space struct {
	// FileBytes is the size of the file.
	FileBytes int64
	// PageSize is bbolt's page size.
	PageSize int
	// Pages is how many pages the file holds data in (bbolt's high-water
	// mark); FreePages how many of them are free (reusable by later
	// writes, given back only by compaction: see Compact).
	Pages, FreePages int
	// Keys is the number of keys of every bucket, sub-bucket entries
	// included.
	Keys int
	// Kinds lists each kind of bucket, largest (bytes allocated) first.
	Kinds []BucketSpace
}

// BucketSpace is what the buckets of one kind take.
type BucketSpace struct {
	// Kind names the buckets: their path from the root, with
	// <guild> for any guild, all, d…, w… or m… for the periods and
	// <points group>, <accuracy group> for a ranking's groups.
	Kind string
	// Buckets is how many buckets of this kind there are; Inline how
	// many of those are small enough to live inside their parent's page.
	Buckets, Inline int
	// Keys is their keys, sub-bucket entries included.
	Keys int
	// Pages is their branch and leaf pages (overflow pages included).
	Pages int
	// Used is the bytes in use on those pages: page headers, element
	// headers, keys and values (an inline bucket's bytes among its
	// parent's).
	Used int
	// Alloc is the bytes of their pages (Pages × page size).
	Alloc int
	// InlineBytes is the bytes of the inline buckets of this kind, which
	// their parents' pages hold (and count as used).
	InlineBytes int
}

// Fill is the share of their pages' bytes in use (0 when they have no
// page: inline buckets only).
func (b BucketSpace) Fill() float64 {
	if b.Alloc == 0 {
		return 0
	}
	return float64(b.Used) / float64(b.Alloc)
}

// Space walks every bucket in one read transaction and returns what the
// file holds. Its cost is a read of every page: for benchmarks and
// operators, not for the bot's paths. Safe for concurrent use.
func (db *DB) Space() (Space, error) {
	var s Space
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		s, err = spaceOf(tx)
		return err
	})
	if err != nil {
		return Space{}, fmt.Errorf("space: %w", err)
	}
	db.releaseMap()
	st := db.bolt.Stats()
	s.FreePages = st.FreePageN + st.PendingPageN
	if fi, err := os.Stat(db.path); err == nil {
		s.FileBytes = fi.Size()
	}
	return s, nil
}

func spaceOf(tx *bbolt.Tx) (Space, error) {
	s := Space{PageSize: tx.DB().Info().PageSize}
	s.Pages = int(tx.Size() / int64(s.PageSize))
	kinds := map[string]*BucketSpace{}
	var walk func(b *bbolt.Bucket, kind, self string) error
	walk = func(b *bbolt.Bucket, kind, self string) error {
		own := b.Stats()
		err := b.ForEachBucket(func(name []byte) error {
			c := b.Bucket(name)
			subtract(&own, c.Stats())
			return walk(c, kind+"/"+kindName(self, name), string(name))
		})
		if err != nil {
			return err
		}
		k := kinds[kind]
		if k == nil {
			k = &BucketSpace{Kind: kind}
			kinds[kind] = k
		}
		k.Buckets++
		if b.RootPage() == 0 {
			k.Inline++
		}
		k.Keys += own.KeyN
		s.Keys += own.KeyN
		k.Pages += own.BranchPageN + own.BranchOverflowN + own.LeafPageN + own.LeafOverflowN
		k.Used += own.BranchInuse + own.LeafInuse
		k.InlineBytes += own.InlineBucketInuse
		k.Alloc += own.BranchAlloc + own.LeafAlloc
		return nil
	}
	err := tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
		return walk(b, string(name), string(name))
	})
	if err != nil {
		return Space{}, err
	}
	for _, k := range kinds {
		s.Kinds = append(s.Kinds, *k)
	}
	slices.SortFunc(s.Kinds, func(a, b BucketSpace) int {
		return cmp.Or(cmp.Compare(b.Alloc, a.Alloc), cmp.Compare(b.Used, a.Used), strings.Compare(a.Kind, b.Kind))
	})
	return s, nil
}

// kindName is how a bucket named name inside a bucket named parent shows
// in a kind: <guild> for a guild, the period's kind for a period.
func kindName(parent string, name []byte) string {
	if _, _, ok := periodNum(parent); ok && len(name) == 1+groupLen {
		switch name[0] {
		case tagPts:
			return "<points group>"
		case tagAcc:
			return "<accuracy group>"
		}
	}
	switch parent {
	case string(bGuilds):
		return "<guild>"
	case string(bPeriods):
		if string(name) == periodAll {
			return periodAll
		}
		if len(name) > 0 {
			return string(name[:1]) + "…"
		}
	}
	return string(name)
}

// subtract takes a sub-bucket's stats out of its parent's (bbolt's
// Bucket.Stats counts a bucket's sub-buckets in it).
func subtract(s *bbolt.BucketStats, c bbolt.BucketStats) {
	s.BranchPageN -= c.BranchPageN
	s.BranchOverflowN -= c.BranchOverflowN
	s.LeafPageN -= c.LeafPageN
	s.LeafOverflowN -= c.LeafOverflowN
	s.KeyN -= c.KeyN
	s.BucketN -= c.BucketN
	s.InlineBucketN -= c.InlineBucketN
	s.BranchAlloc -= c.BranchAlloc
	s.BranchInuse -= c.BranchInuse
	s.LeafAlloc -= c.LeafAlloc
	s.LeafInuse -= c.LeafInuse
	s.InlineBucketInuse -= c.InlineBucketInuse
}
