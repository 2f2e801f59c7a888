package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/quizhost/quizhost/questions"

	"go.etcd.io/bbolt"
)

// PruneResult counts what PruneScores removed.
type PruneResult struct {
	// Guilds is how many guilds had periods removed.
	Guilds int
	// Periods is how many day, week and month periods were removed.
	Periods int
}

// PruneScores deletes the day, week and month score periods (their rows
// and rankings, guilds/<g>/periods/d…, w… and m…) of every guild that
// ended more than keep before now, in each guild's time zone; keep < 0 is
// taken as 0. Day periods stay at least questions.PlayerWindow after they
// end, whatever keep: Players reads who played from them. The all-time
// period, the current periods and every answer stay, so every
// leaderboard, standing, member's stats, streak and Players reads exactly
// as before: the other readers only ever read the period that contains
// the time they are given, and at that time the period has not ended.
//
// A pruned period comes back when RebuildScores (or a change of the
// guild's time zone) recounts the answers, and goes again at the next
// prune. Freed pages are reused by later writes, so the file stops
// growing with old periods; it does not shrink.
//
// Each guild is pruned in its own write transaction, so answers are never
// held up for longer than one guild's deletions. Safe for concurrent use.
func (db *DB) PruneScores(ctx context.Context, now time.Time, keep time.Duration) (PruneResult, error) {
	keep = max(keep, 0)
	var guilds []questions.GuildID
	err := db.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bGuilds).ForEachBucket(func(k []byte) error {
			guilds = append(guilds, getID[questions.GuildID](k))
			return nil
		})
	})
	if err != nil {
		return PruneResult{}, fmt.Errorf("prune scores: %w", err)
	}
	var res PruneResult
	for _, g := range guilds {
		n := 0
		err := db.update(ctx, func(tx *bbolt.Tx) error {
			var err error
			n, err = db.pruneGuild(tx, g, now, keep)
			return err
		})
		if err != nil {
			return res, fmt.Errorf("prune scores of guild %d: %w", g, err)
		}
		if n > 0 {
			res.Guilds++
			res.Periods += n
		}
	}
	return res, nil
}

// pruneGuild deletes the guild's periods that ended keep (day periods:
// at least questions.PlayerWindow) or more before now and returns how
// many.
func (db *DB) pruneGuild(tx *bbolt.Tx, guildID questions.GuildID, now time.Time, keep time.Duration) (int, error) {
	periods := sub(guildRO(tx, guildID), bPeriods)
	if periods == nil {
		return 0, nil
	}
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return 0, err
	}
	var old [][]byte
	err = periods.ForEachBucket(func(k []byte) error {
		k2 := keep
		if k[0] == 'd' {
			k2 = max(keep, questions.PlayerWindow) // Players reads the days of its window
		}
		if end, ok := periodEnd(string(k), loc); ok && !now.Before(end.Add(k2)) {
			old = append(old, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range old {
		if err := deleteBucket(periods, k); err != nil {
			return 0, err
		}
	}
	return len(old), nil
}

// periodEnd returns when the period bucket named name (d2006-01-02,
// w<Monday 2006-01-02>, m2006-01) ends in loc: the local midnight after
// its last day. ok is false for the all-time period and any other name.
func periodEnd(name string, loc *time.Location) (end time.Time, ok bool) {
	if len(name) < 2 {
		return time.Time{}, false
	}
	layout, days, months := dateLayout, 0, 0
	switch name[0] {
	case 'd':
		days = 1
	case 'w':
		days = 7
	case 'm':
		layout, months = monthLayout, 1
	default:
		return time.Time{}, false
	}
	t, err := time.Parse(layout, name[1:])
	if err != nil {
		return time.Time{}, false
	}
	y, m, d := t.Date()
	return time.Date(y, m+time.Month(months), d+days, 0, 0, 0, 0, loc), true
}

// ExpiredResult counts what PruneExpired deleted.
type ExpiredResult struct {
	// Reviews is how many review questions were deleted that had expired
	// unanswered (see StartReview).
	Reviews int
	// Drafts is how many drafts were deleted past their expiry (see
	// SaveDraft).
	Drafts int
	// Confirmations is how many confirmations were deleted that nobody
	// clicked before they expired (see SaveConfirmation).
	Confirmations int
	// Versions is how many kept versions of banks were deleted past
	// their expiry (see EditBanks).
	Versions int
}

// PruneExpired deletes, in every guild, what can no longer be used: the
// review questions shown to a member and not answered by their expiry
// (questions.ReviewExpiry after they were shown), the drafts and the
// confirmations past their ExpiresAt, and the kept versions of banks past
// theirs (questions.UndoKeep after the change). StartReview, SaveDraft,
// SaveConfirmation and EditBanks delete those of the guild or member they
// write for; PruneExpired catches those of members who do not come back. Answered reviews, queued suggestions and everything else stay.
// A read transaction finds the guilds with something to delete; each of
// those is pruned in its own write transaction (so a run over many guilds
// with nothing expired writes nothing). Safe for concurrent use.
func (db *DB) PruneExpired(ctx context.Context, now time.Time) (ExpiredResult, error) {
	var guilds []questions.GuildID
	err := db.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bGuilds).ForEachBucket(func(k []byte) error {
			if hasExpired(tx.Bucket(bGuilds).Bucket(k), now) {
				guilds = append(guilds, getID[questions.GuildID](k))
			}
			return nil
		})
	})
	if err != nil {
		return ExpiredResult{}, fmt.Errorf("prune expired: %w", err)
	}
	var res ExpiredResult
	for _, id := range guilds {
		var one ExpiredResult
		err := db.update(ctx, func(tx *bbolt.Tx) error {
			one = ExpiredResult{}
			g := guildRO(tx, id)
			if g == nil {
				return nil
			}
			if b := g.Bucket(bDrafts); b != nil {
				n, err := dropExpiredDrafts(b, now)
				if err != nil {
					return err
				}
				one.Drafts = n
			}
			var err error
			if one.Confirmations, err = countExpired(g.Bucket(bConfirms), now); err != nil {
				return err
			}
			if one.Versions, err = countExpired(g.Bucket(bUndo), now); err != nil {
				return err
			}
			var users []questions.UserID
			if shown := g.Bucket(bShown); shown != nil {
				c := shown.Cursor()
				for k, _ := c.First(); k != nil; k, _ = c.Seek(u64(getU64(k) + 1)) {
					users = append(users, getID[questions.UserID](k))
					if getU64(k) == math.MaxUint64 {
						break
					}
				}
			}
			for _, u := range users {
				n, err := deleteShown(g, u, now, -1)
				if err != nil {
					return err
				}
				one.Reviews += n
			}
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("prune expired of guild %d: %w", id, err)
		}
		res.Reviews += one.Reviews
		res.Drafts += one.Drafts
		res.Confirmations += one.Confirmations
		res.Versions += one.Versions
	}
	return res, nil
}

// hasExpired reports whether guild bucket g holds a draft, a
// confirmation or a kept version of a bank past its expiry, or a review not
// answered past its own (what PruneExpired deletes).
func hasExpired(g *bbolt.Bucket, now time.Time) bool {
	if anyExpired(g.Bucket(bConfirms), now) || anyExpired(g.Bucket(bUndo), now) {
		return true
	}
	found := errors.New("found")
	if b := g.Bucket(bDrafts); b != nil {
		if b.ForEach(func(_, v []byte) error {
			var r draftRec
			if json.Unmarshal(v, &r) == nil && r.expired(now) {
				return found
			}
			return nil
		}) != nil {
			return true
		}
	}
	shown, reviews := g.Bucket(bShown), g.Bucket(bReviews)
	if shown == nil {
		return false
	}
	return shown.ForEach(func(k, _ []byte) error {
		v := getIn(reviews, k[8:])
		if v == nil {
			return found // a key to drop
		}
		if r, err := decodeReview(0, getID[questions.ReviewID](k[8:]), v); err != nil || !now.Before(r.ExpiresAt) {
			return found // an expired review, or one to look at
		}
		return nil
	}) != nil
}
