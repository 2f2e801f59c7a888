package storage

// This file finds a guild's buckets: guilds/<guild> and the buckets inside
// it, created on the first write (guildRW) or nil until then (guildRO).

import (
	"bytes"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// guildRW returns guilds/<guildID>, creating it and its sub-buckets.
func guildRW(tx *bbolt.Tx, guildID questions.GuildID) (*bbolt.Bucket, error) {
	guilds := tx.Bucket(bGuilds)
	if g := guilds.Bucket(u64(guildID)); g != nil { // the key on the stack
		return g, nil
	}
	g, err := guilds.CreateBucket(u64(guildID))
	if err != nil {
		return nil, err
	}
	for _, name := range guildSubBuckets {
		if _, err := g.CreateBucket(name); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// guildRO returns guilds/<guildID>, or nil if the guild has no data.
func guildRO(tx *bbolt.Tx, guildID questions.GuildID) *bbolt.Bucket {
	return tx.Bucket(bGuilds).Bucket(u64(guildID))
}

// sub returns a sub-bucket of g; nil if g is nil or has none.
func sub(g *bbolt.Bucket, name []byte) *bbolt.Bucket {
	if g == nil {
		return nil
	}
	return g.Bucket(name)
}

// getIn is b.Get(k), nil when b is nil.
func getIn(b *bbolt.Bucket, k []byte) []byte {
	if b == nil {
		return nil
	}
	return b.Get(k)
}

// deleteBucket deletes b's sub-bucket name and everything in it, the
// buckets inside it first, deepest first: bbolt's DeleteBucket walks a
// bucket's sub-buckets with a cursor while it deletes them, and on a bucket
// changed earlier in the same transaction that walk skips every other one,
// leaving their pages neither in use nor free (tx.Check reports them
// "unreachable unfreed"). It returns bbolt's ErrBucketNotFound when there
// is no such bucket.
func deleteBucket(b *bbolt.Bucket, name []byte) error {
	child := b.Bucket(name)
	if child == nil {
		return b.DeleteBucket(name) // bbolt's error
	}
	var subs [][]byte
	if err := child.ForEachBucket(func(k []byte) error {
		subs = append(subs, bytes.Clone(k))
		return nil
	}); err != nil {
		return err
	}
	for _, k := range subs {
		if err := deleteBucket(child, k); err != nil {
			return err
		}
	}
	return b.DeleteBucket(name)
}
