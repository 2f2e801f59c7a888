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
	p       period
	idx     rankIndex
	total   int
	start   time.Time
	today   string
	members *bbolt.Bucket // the member records: all-time scores and live streaks
	ranked  func(questions.Score) bool
	key     func(questions.Score) []byte
	entry   func(k, v []byte) questions.Score
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
	b := board{p: periodRO(g, string(name)), start: start, today: at.In(loc).Format(dateLayout), members: sub(g, bMembers)}
	switch r {
	case questions.ByPoints:
		b.idx, b.total, b.key, b.entry = b.p.pts, b.p.count(kMembers), pointsKey, pointsEntryScore
		b.ranked = func(questions.Score) bool { return true }
	case questions.ByAccuracy:
		b.idx, b.total, b.key, b.ranked, b.entry = b.p.acc, b.p.count(kAccMembers), accKey, onAccuracyBoard, accEntryScore
	default:
		return board{}, fmt.Errorf("unknown ranking %q", r)
	}
	return b, nil
}

// member returns the member's record; ok is false when they have none.
func (b board) member(user questions.UserID) (memberRec, bool) {
	if b.members == nil {
		return memberRec{all: questions.Score{UserID: user}}, false
	}
	m, ok, err := getMember(b.members, nil, user)
	if err != nil {
		return memberRec{all: questions.Score{UserID: user}}, false
	}
	return m, ok
}

// show returns the member's score as a reader sees it: streaks from the
// all-time score, the current streak 0 once broken.
func (b board) show(s questions.Score) questions.Score {
	m, ok := b.member(s.UserID)
	return b.showOf(s, m, ok)
}

// showOf is show with the member's record read already (ok: they have
// one).
func (b board) showOf(s questions.Score, m memberRec, ok bool) questions.Score {
	if ok {
		s.CurrentStreak, s.BestStreak, s.LastStudyDay = m.all.CurrentStreak, m.all.BestStreak, m.all.LastStudyDay
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
// first. Cost: a few hundred block counters plus the page, whatever the
// number of members. It refuses unknown periods and rankings. Safe for
// concurrent use.
func (db *DB) Leaderboard(guildID questions.GuildID, p questions.Period, r questions.Ranking, at time.Time, offset, limit int) (questions.Leaderboard, error) {
	lb := questions.Leaderboard{Period: p, Ranking: r}
	err := db.view(func(tx *bbolt.Tx) error {
		b, err := db.board(tx, guildID, p, r, at)
		if err != nil {
			return err
		}
		lb.Start, lb.Total, lb.Entries = b.start, b.total, nil
		if b.idx.groups == nil || limit <= 0 {
			return nil
		}
		offset = max(offset, 0)
		rc, k, v := b.idx.nth(offset)
		for ; k != nil && len(lb.Entries) < limit; k, v = rc.next() {
			lb.Entries = append(lb.Entries, questions.Standing{Rank: offset + len(lb.Entries) + 1, Score: b.show(b.entry(k, v))})
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
		m, ok := b.member(userID)
		s, had := scoreIn(b.p, m, ok)
		if !had || !b.ranked(s) || b.idx.groups == nil {
			return fmt.Errorf("member %d in %s by %s: %w", userID, p, r, questions.ErrNotFound)
		}
		st = questions.Standing{Rank: b.idx.rank(b.key(s)), Score: b.showOf(s, m, ok)}
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
		m, ok := b.member(userID)
		ms = questions.MemberStats{All: b.showOf(m.all, m, ok)}
		if ok && b.idx.groups != nil {
			ms.Rank = b.idx.rank(pointsKey(m.all))
		}
		for _, t := range m.topics {
			ms.Topics = append(ms.Topics, questions.TopicStats{Topic: t.topic, Answered: t.answered, Correct: t.correct})
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
		day := dayNumber(b.today)
		today := collect(st, streakDay(day), limit)
		yday := collect(st, streakDay(day-1), limit)
		// Merge two lists sorted by ^streak|user (the key's tail).
		for len(today)+len(yday) > 0 && (limit <= 0 || len(out) < limit) {
			var k []byte
			if len(yday) == 0 || len(today) > 0 && bytes.Compare(today[0][4:], yday[0][4:]) <= 0 {
				k, today = today[0], today[1:]
			} else {
				k, yday = yday[0], yday[1:]
			}
			m, ok := b.member(getID[questions.UserID](k[8:]))
			out = append(out, b.showOf(m.all, m, ok))
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
