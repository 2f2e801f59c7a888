package storage

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// RebuildScores recounts every score, streak, topic stat and leaderboard
// index of the guild from its stored answers (those recorded after the
// last ResetGuild, and after the member's last ResetMember), in recording
// order, in the guild's current time zone. It is the repair path and the
// tests' oracle: on an intact file it changes nothing (but how the
// rankings' keys are cut into blocks, see rank.go). One transaction; its
// cost grows with the guild's answers, and it holds about 80 bytes per
// counted answer in memory. Safe for concurrent use.
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
	refs, err := countedAnswers(g, nil)
	if err != nil {
		return err
	}
	return db.recount(tx, g, guildID, refs)
}

// countedAnswers returns the guild's answers that count (recorded after
// the last ResetGuild and the member's last ResetMember), of the members
// in users (every member when users is nil), in recording order; mock
// answers are not among them.
func countedAnswers(g *bbolt.Bucket, users map[questions.UserID]bool) ([]answerRef, error) {
	counts := countsFilter(g)
	var refs []answerRef
	b := g.Bucket(bAnswers)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		if len(k) < 8 {
			return nil
		}
		user := getID[questions.UserID](k)
		if users != nil && !users[user] {
			return nil
		}
		rec, err := decodeRecord(k, v, "")
		if err != nil {
			return err
		}
		for _, ra := range rec.answers {
			if !ra.mock && counts(user, ra.seq) { // mock answers never count for scores
				refs = append(refs, answerRef{user: user, ra: ra})
			}
		}
		return nil
	})
	sortRefs(refs)
	return refs, err
}

// countsFilter returns a function that tells whether the answer of user
// with sequence number seq counts: recorded after the guild's last
// ResetGuild and the member's last ResetMember.
func countsFilter(g *bbolt.Bucket) func(user questions.UserID, seq uint64) bool {
	guildReset := getU64(g.Bucket(bInfo).Get(kReset))
	resets := g.Bucket(bResets)
	return func(user questions.UserID, seq uint64) bool {
		return seq > guildReset && seq > getU64(resets.Get(u64(user)))
	}
}

// recount counts the answers refs, in order, into the guild's scores, in
// the guild's current time zone. Its counter changes are buffered and
// written once at the end, as a group commit's are.
func (db *DB) recount(tx *bbolt.Tx, g *bbolt.Bucket, guildID questions.GuildID, refs []answerRef) error {
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return err
	}
	d := newDeltas()
	sources := map[questions.PostID]postSource{}
	for _, r := range refs {
		if err := countStored(tx, g, d, loc, r.user, r.ra, sources); err != nil {
			return err
		}
	}
	return d.flush()
}
