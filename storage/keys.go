package storage

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// Bucket names and fixed keys. doc.go draws the tree they form; change both
// together.
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
	bAnswers = []byte("answers")
	bAsked   = []byte("asked")
	bBanks   = []byte("banks")
	bResets  = []byte("resets")
	bTopics  = []byte("topics")
	bStreaks = []byte("streaks")
	bPeriods = []byte("periods")
	bDrafts  = []byte("drafts") // schema version 4
	// Schema version 5: the memory model and reviews.
	bMemory  = []byte("memory")
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
	// Created on first use (no schema version): members' mock exams, and
	// the exam settings admins set for banks.
	bMocks     = []byte("mocks")
	bBankExams = []byte("bankexams")

	// Inside guilds/<guild>/periods/<period>/.
	bRows    = []byte("rows")
	bPts     = []byte("pts")
	bPtsHist = []byte("ph")
	bAcc     = []byte("acc")
	bAccHist = []byte("ah")

	kSchema     = []byte("schema")  // meta: schema version
	kReset      = []byte("reset")   // info: answer sequence at the last ResetGuild
	kMembers    = []byte("n")       // period: members on the points ranking
	kAccMembers = []byte("na")      // period: members on the accuracy ranking
	kAllTime    = []byte(periodAll) // periods: the all-time period
)

// guildSubBuckets are created with every guild bucket.
var guildSubBuckets = [][]byte{bInfo, bAnswers, bAsked, bBanks, bResets, bTopics, bStreaks, bPeriods, bDrafts,
	bMemory, bExams, bReviews, bShown, bBankData, bBankInfo}

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

// streakKey is a member's key in guilds/<g>/streaks:
// lastStudyDay (10 bytes) | ^currentStreak | user, so the members who last
// studied on one day come out longest streak first.
func streakKey(s questions.Score) []byte { return appendStreakKey(make([]byte, 0, streakKeyLen), s) }

const streakKeyLen = len(dateLayout) + 16

// appendStreakKey appends streakKey(s) to dst and returns it; nil (dst
// unchanged) when s has no last study day.
func appendStreakKey(dst []byte, s questions.Score) []byte {
	if len(s.LastStudyDay) != len(dateLayout) {
		return nil
	}
	k := append(dst, s.LastStudyDay...)
	k = binary.BigEndian.AppendUint64(k, ^uint64(s.CurrentStreak))
	return binary.BigEndian.AppendUint64(k, uint64(s.UserID))
}

// Score rows: points, answered, correct, reachedAt, current streak, best
// streak (8 bytes each), then the last study day ("" or 10 bytes).
const scoreFixed = 48

func encodeScore(s questions.Score) []byte {
	return appendScore(make([]byte, 0, scoreLen(s)), s)
}

func scoreLen(s questions.Score) int { return scoreFixed + len(s.LastStudyDay) }

// appendScore appends encodeScore(s) to b.
func appendScore(b []byte, s questions.Score) []byte {
	at := len(b)
	b = append(b, make([]byte, scoreFixed)...)
	binary.BigEndian.PutUint64(b[at+0:], uint64(s.Points))
	binary.BigEndian.PutUint64(b[at+8:], uint64(s.Answered))
	binary.BigEndian.PutUint64(b[at+16:], uint64(s.Correct))
	binary.BigEndian.PutUint64(b[at+24:], timeKey(s.ReachedAt))
	binary.BigEndian.PutUint64(b[at+32:], uint64(s.CurrentStreak))
	binary.BigEndian.PutUint64(b[at+40:], uint64(s.BestStreak))
	return append(b, s.LastStudyDay...)
}

// decodeScore copies a score row out of b (which may be bbolt memory).
func decodeScore(user questions.UserID, b []byte) questions.Score {
	if len(b) < scoreFixed {
		return questions.Score{UserID: user}
	}
	return questions.Score{
		UserID:        user,
		Points:        int(getU64(b[0:])),
		Answered:      int(getU64(b[8:])),
		Correct:       int(getU64(b[16:])),
		ReachedAt:     keyTime(getU64(b[24:])),
		CurrentStreak: int(getU64(b[32:])),
		BestStreak:    int(getU64(b[40:])),
		LastStudyDay:  string(b[scoreFixed:]),
	}
}

// Answer values: sequence, interaction, at (8 bytes each), right (1),
// right picks (1), points (2), number of letters (1), the letters. The
// guild, post and member are in the bucket and key.
func encodeAnswer(seq uint64, a questions.Answer) []byte {
	return appendAnswer(make([]byte, 0, answerLen(a)), seq, a)
}

func answerLen(a questions.Answer) int { return 29 + len(a.Choice) }

// appendAnswer appends encodeAnswer(seq, a) to b.
func appendAnswer(b []byte, seq uint64, a questions.Answer) []byte {
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint64(b, a.InteractionID)
	b = binary.BigEndian.AppendUint64(b, timeKey(a.At))
	var right byte
	if a.Right {
		right = 1
	}
	b = append(b, right, byte(a.RightPicks))
	b = binary.BigEndian.AppendUint16(b, uint16(a.Points))
	b = append(b, byte(len(a.Choice)))
	for _, l := range a.Choice {
		b = append(b, l[0])
	}
	return b
}

// decodeAnswer copies an answer out of v; it returns the answer's sequence
// number too.
func decodeAnswer(guildID questions.GuildID, key, v []byte) (questions.Answer, uint64) {
	a := questions.Answer{GuildID: guildID, PostID: getID[questions.PostID](key[0:8]), UserID: getID[questions.UserID](key[8:16])}
	if len(v) < 29 {
		return a, 0
	}
	seq := getU64(v[0:])
	a.InteractionID = getU64(v[8:])
	a.At = keyTime(getU64(v[16:]))
	a.Right = v[24] == 1
	a.RightPicks = int(v[25])
	a.Points = int(binary.BigEndian.Uint16(v[26:]))
	n := int(v[28])
	for i := 0; i < n && 29+i < len(v); i++ {
		a.Choice = append(a.Choice, string(v[29+i]))
	}
	return a, seq
}

// hasPrefix reports whether k is non-nil and starts with prefix.
func hasPrefix(k, prefix []byte) bool { return k != nil && bytes.HasPrefix(k, prefix) }
