package storage

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// Bucket names and fixed keys. doc.go draws the tree they form; change both
// together. legacy.go names the buckets of earlier schema versions that
// only migrations read.
var (
	bMeta     = []byte("meta")
	bSettings = []byte("settings")
	bPosts    = []byte("posts")
	bOpen     = []byte("open")
	bGuilds   = []byte("guilds")
	// Closed posts whose reveal has not been sent (schema version 3).
	bUnrevealed = []byte("unrevealed")
	// Mock exams the scheduler acts on at their deadline (created on the
	// first mock exam, no schema version).
	bMockDue = []byte("mockdue")

	// Inside guilds/<guild>/.
	bInfo    = []byte("info")
	bAnswers = []byte("answers") // schema version 8: <user><question number>, the member's answers and memory
	bAsked   = []byte("asked")
	bBanks   = []byte("banks")
	bResets  = []byte("resets")
	bStreaks = []byte("streaks")
	bPeriods = []byte("periods")
	bDrafts  = []byte("drafts") // schema version 4
	// Schema version 5: exams and reviews.
	bExams   = []byte("exams")
	bReviews = []byte("reviews")
	// Schema version 6: the review questions shown and not answered.
	bShown = []byte("shown")
	// Created on the first report (no schema version).
	bReports = []byte("reports")
	// Created on a member's first /quiz ask (no schema version).
	bAsks = []byte("asks")
	// Created on first use (no schema version): the confirmations waiting
	// for a click, and the kept versions of banks.
	bConfirms = []byte("confirms")
	bUndo     = []byte("undo")
	// Schema version 7: per imported bank, its file and what the quota
	// counts of it.
	bBankData = []byte("bankdata")
	bBankInfo = []byte("bankinfo")
	// Schema version 8: one record per member (scores, streak, topics),
	// and the numbers the guild's answer records name questions by.
	bMembers = []byte("members")
	bQids    = []byte("qids")   // <question ID> → number (4 bytes); sequence = last number
	bQnames  = []byte("qnames") // <number> → question ID
	// Schema version 9: the item analysis (insights.go): each question's
	// statistics, each member's answers per bank; the dismissed flags
	// (created on first use).
	bQstats     = []byte("qstats")
	bQbanks     = []byte("qbanks")
	bQdismissed = []byte("qdismissed")
	// Created on first use (no schema version): members' mock exams, the
	// exam settings admins set for banks, and members' drills.
	bMocks     = []byte("mocks")
	bBankExams = []byte("bankexams")
	bDrills    = []byte("drills")

	// Inside guilds/<guild>/periods/<period>/ (schema version 8), beside
	// the rankings' groups (see rank.go).
	bPtsBlocks = []byte("pb")
	bAccBlocks = []byte("ab")

	kSchema     = []byte("schema")  // meta: schema version
	kReset      = []byte("reset")   // info: answer sequence at the last ResetGuild
	kMembers    = []byte("n")       // period: members on the points ranking
	kAccMembers = []byte("na")      // period: members on the accuracy ranking
	kAllTime    = []byte(periodAll) // periods: the all-time period
)

// guildSubBuckets are created with every guild bucket.
var guildSubBuckets = [][]byte{bInfo, bAnswers, bAsked, bBanks, bResets, bStreaks, bPeriods, bDrafts,
	bExams, bReviews, bShown, bBankData, bBankInfo, bMembers, bQids, bQnames, bQstats, bQbanks}

const (
	dateLayout  = "2006-01-02"
	monthLayout = "2006-01"
	periodAll   = "all"
)

// u64 encodes v (an ID or a counter) as an 8-byte big-endian key, so keys
// sort as numbers.
func u64[T ~uint64](v T) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	return b
}

// getU64 decodes an 8-byte big-endian integer; 0 for a missing value.
func getU64(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// getID decodes an 8-byte big-endian ID of type T; 0 for a missing value.
func getID[T ~uint64](b []byte) T { return T(getU64(b)) }

// cat concatenates parts into a fresh slice (a fixed-width composite key).
func cat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// timeKey maps t to a uint64 that sorts like t (Unix nanoseconds with the
// sign bit flipped, so times before 1970 sort first too).
func timeKey(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano()) ^ (1 << 63)
}

// keyTime is the inverse of timeKey; times come back in UTC.
func keyTime(v uint64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(v^(1<<63))).UTC()
}

// accBits maps an accuracy in [0, 1] to a uint64 that sorts like it: the
// IEEE bits of a non-negative float64 order as the float does.
func accBits(s questions.Score) uint64 { return math.Float64bits(s.Accuracy()) }

// pointsKey is a member's key in a period's points ranking:
// ^points | ^accuracy | reachedAt | user (32 bytes), so a forward cursor
// walks best first and every member has exactly one key.
func pointsKey(s questions.Score) []byte { return putPointsKey(make([]byte, 32), s) }

// putPointsKey writes pointsKey(s) into k (32 bytes) and returns k.
func putPointsKey(k []byte, s questions.Score) []byte {
	k = k[:32]
	binary.BigEndian.PutUint64(k[0:], ^uint64(s.Points))
	binary.BigEndian.PutUint64(k[8:], ^accBits(s))
	binary.BigEndian.PutUint64(k[16:], timeKey(s.ReachedAt))
	binary.BigEndian.PutUint64(k[24:], uint64(s.UserID))
	return k
}

// accKey is a member's key in a period's accuracy ranking:
// ^accuracy | ^answered | reachedAt | user (32 bytes).
func accKey(s questions.Score) []byte { return putAccKey(make([]byte, 32), s) }

// putAccKey writes accKey(s) into k (32 bytes) and returns k.
func putAccKey(k []byte, s questions.Score) []byte {
	k = k[:32]
	binary.BigEndian.PutUint64(k[0:], ^accBits(s))
	binary.BigEndian.PutUint64(k[8:], ^uint64(s.Answered))
	binary.BigEndian.PutUint64(k[16:], timeKey(s.ReachedAt))
	binary.BigEndian.PutUint64(k[24:], uint64(s.UserID))
	return k
}

// rankKeyUser is the user ID at the end of a ranking key.
func rankKeyUser(k []byte) questions.UserID { return getID[questions.UserID](k[24:32]) }

// pointsEntryScore is the score a points ranking's key k (32 bytes) and
// value v (answered, correct) hold.
func pointsEntryScore(k, v []byte) questions.Score {
	s := questions.Score{UserID: rankKeyUser(k), Points: int(^getU64(k[0:])), ReachedAt: keyTime(getU64(k[16:]))}
	a, n := binary.Uvarint(v)
	c, _ := binary.Uvarint(v[max(n, 0):])
	s.Answered, s.Correct = int(a), int(c)
	return s
}

// accEntryScore is the score an accuracy ranking's key k and value v
// (points, correct) hold.
func accEntryScore(k, v []byte) questions.Score {
	s := questions.Score{UserID: rankKeyUser(k), Answered: int(^getU64(k[8:])), ReachedAt: keyTime(getU64(k[16:]))}
	p, n := binary.Uvarint(v)
	c, _ := binary.Uvarint(v[max(n, 0):])
	s.Points, s.Correct = int(p), int(c)
	return s
}

// streakKey is a member's key in guilds/<g>/streaks: last study day (the
// day number, 4 bytes, sign bit flipped) | ^current streak (4 bytes) |
// user, so the members who last studied on one day come out longest streak
// first; nil when s has no last study day.
func streakKey(s questions.Score) []byte { return appendStreakKey(make([]byte, 0, streakKeyLen), s) }

const streakKeyLen = 16

// appendStreakKey appends streakKey(s) to dst and returns it; nil (dst
// unchanged) when s has no last study day.
func appendStreakKey(dst []byte, s questions.Score) []byte {
	if len(s.LastStudyDay) != len(dateLayout) {
		return nil
	}
	k := append(dst, streakDay(dayNumber(s.LastStudyDay))...)
	k = binary.BigEndian.AppendUint32(k, ^uint32(min(s.CurrentStreak, math.MaxUint32)))
	return binary.BigEndian.AppendUint64(k, uint64(s.UserID))
}

// streakDay is the 4-byte prefix of the streak keys of a day number.
func streakDay(day int64) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(int32(day))^(1<<31))
}

// appendUvarints appends each of vs as an unsigned varint.
func appendUvarints(b []byte, vs ...uint64) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// reader decodes a record written with binary.AppendUvarint and fixed
// 8-byte fields; past the end (a damaged record) it yields zeros and
// remembers it.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) int() int { return int(r.uvarint()) }

func (r *reader) u64() uint64 {
	if len(r.b) < 8 {
		r.bad = true
		r.b = nil
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.bad = true
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// bytes returns the next n bytes (of r's buffer: copy to keep).
func (r *reader) bytes(n int) []byte {
	if n < 0 || len(r.b) < n {
		r.bad = true
		r.b = nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// str reads a string written as its length (uvarint) then its bytes.
func (r *reader) str() string { return string(r.bytes(r.int())) }

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// dayNumber is the number of days from 1970-01-01 to the date day
// ("2006-01-02"): calendar days, whatever their length in any time zone.
func dayNumber(day string) int64 {
	t, err := time.Parse(dateLayout, day)
	if err != nil {
		return 0
	}
	return t.Unix() / 86400
}

// dayOf is the date ("2006-01-02") of a day number.
func dayOf(n int64) string { return time.Unix(n*86400, 0).UTC().Format(dateLayout) }

// hasPrefix reports whether k is non-nil and starts with prefix.
func hasPrefix(k, prefix []byte) bool { return k != nil && bytes.HasPrefix(k, prefix) }
