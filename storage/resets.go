package storage

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/quizhost/quizhost/questions"
)

// clearScores empties the guild's derived data: periods, topics, streaks.
func clearScores(g *bbolt.Bucket) error {
	for _, name := range [][]byte{bPeriods, bTopics, bStreaks} {
		if err := g.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if _, err := g.CreateBucket(name); err != nil {
			return err
		}
	}
	return nil
}

// ResetGuild starts a new term: it clears the guild's scores, streaks,
// leaderboards, topic stats and asked history. Posts and answers stay as
// history (Post, Answer and Answers still return them, and a member who
// answered a still-open post cannot answer it again) but no longer count:
// the reset remembers the last answer sequence number, and RebuildScores
// counts only answers recorded after it. Settings and banks stay. Safe for
// concurrent use.
func (db *DB) ResetGuild(ctx context.Context, guildID questions.GuildID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		if err := g.Bucket(bInfo).Put(kReset, u64(g.Bucket(bAnswers).Sequence())); err != nil {
			return err
		}
		if err := clearScores(g); err != nil {
			return err
		}
		for _, name := range [][]byte{bAsked, bResets} {
			if err := g.DeleteBucket(name); err != nil {
				return err
			}
			if _, err := g.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reset guild: %w", err)
	}
	return nil
}

// ResetMember clears one member's scores in every period, their streaks,
// index entries and topic stats. Their answers stay as history but no
// longer count (as for ResetGuild). Safe for concurrent use.
func (db *DB) ResetMember(ctx context.Context, guildID questions.GuildID, userID questions.UserID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		if err := g.Bucket(bResets).Put(u64(userID), u64(g.Bucket(bAnswers).Sequence())); err != nil {
			return err
		}
		return removeMember(g, userID)
	})
	if err != nil {
		return fmt.Errorf("reset member: %w", err)
	}
	return nil
}

// removeMember deletes a member's rows and ranking keys in every period
// (and the periods left without members, as a rebuild would not create
// them), their streak index entry and their topic stats.
func removeMember(g *bbolt.Bucket, userID questions.UserID) error {
	if all, ok := periodRO(g, periodAll).row(userID); ok {
		if k := streakKey(all); k != nil {
			if err := g.Bucket(bStreaks).Delete(k); err != nil {
				return err
			}
		}
	}
	periods := g.Bucket(bPeriods)
	var names [][]byte
	if err := periods.ForEachBucket(func(k []byte) error {
		names = append(names, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	for _, name := range names {
		p := periodOf(periods.Bucket(name))
		if err := p.remove(userID); err != nil {
			return err
		}
		if p.count(kMembers) == 0 {
			if err := periods.DeleteBucket(name); err != nil {
				return err
			}
		}
	}
	_, err := deletePrefix(g.Bucket(bTopics), u64(userID))
	return err
}
