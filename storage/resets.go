package storage

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/quizhost/quizhost/questions"
)

// clearScores empties the guild's derived data: periods, member records,
// streaks.
func clearScores(g *bbolt.Bucket) error {
	for _, name := range scoreBuckets {
		if err := deleteBucket(g, name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
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
			if err := deleteBucket(g, name); err != nil {
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
		return removeMembers(g, map[questions.UserID]bool{userID: true})
	})
	if err != nil {
		return fmt.Errorf("reset member: %w", err)
	}
	return nil
}

// removeMembers deletes the members' records (scores, streaks, topic
// stats), their streak index entries and their keys in every period (and
// the periods left without members, as a rebuild would not create them).
// Its cost is a pass over every period's points ranking.
func removeMembers(g *bbolt.Bucket, users map[questions.UserID]bool) error {
	mb, err := membersRW(g)
	if err != nil {
		return err
	}
	for u := range users {
		m, ok, err := getMember(mb, nil, u)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if k := streakKey(m.all); k != nil {
			if err := g.Bucket(bStreaks).Delete(k); err != nil {
				return err
			}
		}
		if err := mb.Delete(u64(u)); err != nil {
			return err
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
		p := periodOf(name, periods.Bucket(name))
		var gone []questions.Score
		if p.pts.groups != nil {
			rc := p.pts.cursor()
			for k, v := rc.seek(firstFence); k != nil; k, v = rc.next() {
				if users[rankKeyUser(k)] {
					gone = append(gone, pointsEntryScore(k, v))
				}
			}
		}
		for _, s := range gone {
			if err := p.remove(s); err != nil {
				return err
			}
		}
		if p.count(kMembers) == 0 {
			if err := deleteBucket(periods, name); err != nil {
				return err
			}
		}
	}
	return nil
}
