package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// RebuildScores recounts every score, streak, topic stat and leaderboard
// index of the guild from its stored answers (those recorded after the
// last ResetGuild, and after the member's last ResetMember), in recording
// order, in the guild's current time zone. It is the repair path and the
// tests' oracle: on an intact file it changes nothing. One transaction;
// its cost grows with the guild's answers, and it holds 24 bytes per
// counted answer in memory (each answer is read again as it is counted).
// Safe for concurrent use.
func (db *DB) RebuildScores(ctx context.Context, guildID questions.GuildID) error {
	if err := db.update(ctx, func(tx *bbolt.Tx) error { return db.rebuild(tx, guildID) }); err != nil {
		return fmt.Errorf("rebuild scores: %w", err)
	}
	return nil
}

func (db *DB) rebuild(tx *bbolt.Tx, guildID questions.GuildID) error {
	g := guildRO(tx, guildID)
	if g == nil {
		return nil
	}
	if err := clearScores(g); err != nil {
		return err
	}
	return db.recount(tx, g, guildID, countedAnswers(g, nil))
}

// answerRef points at an answer to recount: its sequence number and key
// (post, user). A rebuild holds one per answer, 24 bytes, and reads the
// answer itself again only when it counts it.
type answerRef struct {
	seq uint64
	key [16]byte
}

// countedAnswers returns the guild's answers that count (recorded after
// the last ResetGuild and the member's last ResetMember), of the members
// in users (every member when users is nil), in recording order.
func countedAnswers(g *bbolt.Bucket, users map[questions.UserID]bool) []answerRef {
	counts := countsFilter(g)
	var refs []answerRef
	c := g.Bucket(bAnswers).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 16 || users != nil && !users[getID[questions.UserID](k[8:16])] {
			continue
		}
		if counts(k, v) {
			refs = append(refs, answerRef{seq: getU64(v), key: [16]byte(k)})
		}
	}
	slices.SortFunc(refs, func(x, y answerRef) int { return cmp.Compare(x.seq, y.seq) })
	return refs
}

// countsFilter returns a function that tells whether the answer stored
// under k with value v counts: recorded after the guild's last ResetGuild
// and its member's last ResetMember.
func countsFilter(g *bbolt.Bucket) func(k, v []byte) bool {
	guildReset := getU64(g.Bucket(bInfo).Get(kReset))
	resets := g.Bucket(bResets)
	return func(k, v []byte) bool {
		seq := getU64(v)
		return seq > guildReset && seq > getU64(resets.Get(k[8:16]))
	}
}

// recount counts the answers refs points at, in order, into the guild's
// scores, in the guild's current time zone.
func (db *DB) recount(tx *bbolt.Tx, g *bbolt.Bucket, guildID questions.GuildID, refs []answerRef) error {
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return err
	}
	answers := g.Bucket(bAnswers)
	sources := map[questions.PostID]answerSource{} // post or review → what its answers count for
	for _, r := range refs {
		a, _ := decodeAnswer(guildID, r.key[:], answers.Get(r.key[:]))
		if err := countStored(tx, g, loc, a, sources); err != nil {
			return err
		}
	}
	return nil
}
