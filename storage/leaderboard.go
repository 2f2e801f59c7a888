package storage

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// board is the ranking r of one period, read in tx.
type board struct {
	p      period
	idx    rankIndex
	total  int
	start  time.Time
	today  string
	all    period // all-time rows: the live streaks
	ranked func(questions.Score) bool
	key    func(questions.Score) []byte
}

func (db *DB) board(tx *bbolt.Tx, guildID questions.GuildID, p questions.Period, r questions.Ranking, at time.Time) (board, error) {
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return board{}, err
	}
	name, start, ok := periodOfAt(p, at, loc)
	if !ok {
		return board{}, fmt.Errorf("unknown period %q", p)
	}
	g := guildRO(tx, guildID)
	b := board{p: periodRO(g, string(name)), start: start, today: at.In(loc).Format(dateLayout), all: periodRO(g, periodAll)}
	switch r {
	case questions.ByPoints:
		b.idx, b.total, b.key = b.p.pts, b.p.count(kMembers), pointsKey
		b.ranked = func(questions.Score) bool { return true }
	case questions.ByAccuracy:
		b.idx, b.total, b.key, b.ranked = b.p.acc, b.p.count(kAccMembers), accKey, onAccuracyBoard
	default:
		return board{}, fmt.Errorf("unknown ranking %q", r)
	}
	return b, nil
}

// show returns the member's row as a reader sees it: streaks from the
// all-time row, the current streak 0 once broken.
func (b board) show(s questions.Score) questions.Score {
	if b.all.rows != nil {
		if all, ok := b.all.row(s.UserID); ok {
			s.CurrentStreak, s.BestStreak, s.LastStudyDay = all.CurrentStreak, all.BestStreak, all.LastStudyDay
		}
	}
	showStreak(&s, b.today)
	return s
}

// Leaderboard returns one page (limit entries from 0-based offset) of the
// ranking r of the period p that contains `at`, in the guild's time zone.
// Total is the number of members ranked in that period. By points: points,
// then accuracy, then who reached their points first, then user ID. By
// accuracy: members with at least questions.MinAnswersForAccuracy answers in
// the period, by accuracy, then answers, then who reached their points
// first. Cost: a few hundred histogram counters plus the page, whatever
// the number of members. It refuses unknown periods and rankings. Safe for
// concurrent use.
func (db *DB) Leaderboard(guildID questions.GuildID, p questions.Period, r questions.Ranking, at time.Time, offset, limit int) (questions.Leaderboard, error) {
	lb := questions.Leaderboard{Period: p, Ranking: r}
	err := db.view(func(tx *bbolt.Tx) error {
		b, err := db.board(tx, guildID, p, r, at)
		if err != nil {
			return err
		}
		lb.Start, lb.Total, lb.Entries = b.start, b.total, nil
		if b.idx.keys == nil || limit <= 0 {
			return nil
		}
		offset = max(offset, 0)
		c, k := b.idx.nth(offset)
		for ; k != nil && len(lb.Entries) < limit; k, _ = c.Next() {
			s, _ := b.p.row(rankKeyUser(k))
			lb.Entries = append(lb.Entries, questions.Standing{Rank: offset + len(lb.Entries) + 1, Score: b.show(s)})
		}
		return nil
	})
	if err != nil {
		return questions.Leaderboard{}, fmt.Errorf("leaderboard: %w", err)
	}
	return lb, nil
}

// Standing returns a member's place in the ranking r of the period p that
// contains `at`. It returns an error wrapping questions.ErrNotFound when the
// member is not ranked there (no answer in the period, or too few for the
// accuracy ranking). Cost as for Leaderboard. Safe for concurrent use.
func (db *DB) Standing(guildID questions.GuildID, userID questions.UserID, p questions.Period, r questions.Ranking, at time.Time) (questions.Standing, error) {
	var st questions.Standing
	err := db.view(func(tx *bbolt.Tx) error {
		b, err := db.board(tx, guildID, p, r, at)
		if err != nil {
			return err
		}
		s, ok := b.p.row(userID)
		if !ok || !b.ranked(s) {
			return fmt.Errorf("member %d in %s by %s: %w", userID, p, r, questions.ErrNotFound)
		}
		st = questions.Standing{Rank: b.idx.rank(b.key(s)), Score: b.show(s)}
		return nil
	})
	if err != nil {
		return questions.Standing{}, fmt.Errorf("standing: %w", err)
	}
	return st, nil
}

// MemberStats returns a member's all-time score (zero with UserID set if
// they never answered), their all-time rank by points (0 if unranked) and
// their topic stats sorted by topic; `at` decides whether the current
// streak is still alive. Safe for concurrent use.
func (db *DB) MemberStats(guildID questions.GuildID, userID questions.UserID, at time.Time) (questions.MemberStats, error) {
	var ms questions.MemberStats
	err := db.view(func(tx *bbolt.Tx) error {
		b, err := db.board(tx, guildID, questions.PeriodAll, questions.ByPoints, at)
		if err != nil {
			return err
		}
		s, ok := b.p.row(userID)
		ms = questions.MemberStats{All: b.show(s)}
		if ok {
			ms.Rank = b.idx.rank(pointsKey(s))
		}
		tb := sub(guildRO(tx, guildID), bTopics)
		if tb == nil {
			return nil
		}
		prefix := u64(userID)
		c := tb.Cursor()
		for k, v := c.Seek(prefix); hasPrefix(k, prefix); k, v = c.Next() {
			ms.Topics = append(ms.Topics, questions.TopicStats{
				Topic: string(k[8:]), Answered: int(getU64(v)), Correct: int(getU64(v[8:])),
			})
		}
		return nil
	})
	if err != nil {
		return questions.MemberStats{}, fmt.Errorf("member stats: %w", err)
	}
	return ms, nil
}

// ActiveStreaks returns the all-time scores of the members whose streak is
// alive at `at` (their last study day is today or yesterday in the guild's
// time zone), longest current streak first, then user ID; at most limit
// (all when limit <= 0). It reads only those members, through the streak
// index. Safe for concurrent use.
func (db *DB) ActiveStreaks(guildID questions.GuildID, at time.Time, limit int) ([]questions.Score, error) {
	var out []questions.Score
	err := db.view(func(tx *bbolt.Tx) error {
		b, err := db.board(tx, guildID, questions.PeriodAll, questions.ByPoints, at)
		if err != nil {
			return err
		}
		st := sub(guildRO(tx, guildID), bStreaks)
		if st == nil {
			return nil
		}
		t, _ := time.Parse(dateLayout, b.today)
		yesterday := t.AddDate(0, 0, -1).Format(dateLayout)
		today := collect(st, []byte(b.today), limit)
		yday := collect(st, []byte(yesterday), limit)
		// Merge two lists sorted by ^streak|user (the key's tail).
		for len(today)+len(yday) > 0 && (limit <= 0 || len(out) < limit) {
			var k []byte
			if len(yday) == 0 || len(today) > 0 && bytes.Compare(today[0][10:], yday[0][10:]) <= 0 {
				k, today = today[0], today[1:]
			} else {
				k, yday = yday[0], yday[1:]
			}
			s, _ := b.all.row(getID[questions.UserID](k[18:]))
			out = append(out, b.show(s))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("active streaks: %w", err)
	}
	return out, nil
}

// collect copies up to limit (all if <= 0) keys of b that start with prefix.
func collect(b *bbolt.Bucket, prefix []byte, limit int) [][]byte {
	var out [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); hasPrefix(k, prefix) && (limit <= 0 || len(out) < limit); k, _ = c.Next() {
		out = append(out, append([]byte(nil), k...))
	}
	return out
}

// normBank is the key of a bank name: names are unique case-insensitively.
func normBank(name string) []byte { return []byte(strings.ToLower(name)) }
