package storage

// This file holds the layout of schema version 7 and before, which only
// the migrations read (and migration 5 writes): the per-period score rows
// and their histograms, topic stats apart, answers keyed by post and
// member apart from the members' memories. Migration 8 (migrate.go) turns
// it into this build's layout. Nothing else may use these names.

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// The buckets of schema version 7 that version 8 removed.
var (
	bTopicsV7  = []byte("topics")  // guilds/<g>/topics/<user><topic> → answered, correct (8 bytes each)
	bMemoryV7  = []byte("memory")  // guilds/<g>/memory/<user><question ID> → FSRS card and history (memoryFormatV7)
	bRowsV7    = []byte("rows")    // periods/<p>/rows/<user> → score row (decodeScoreV7)
	bPtsHistV7 = []byte("ph")      // periods/<p>/ph/<level><prefix> → count
	bAccHistV7 = []byte("ah")      // periods/<p>/ah/<level><prefix> → count
	bPtsV7     = []byte("pts")     // periods/<p>/pts/<32-byte key> → ∅ (flat, not grouped)
	bAccV7     = []byte("acc")     // periods/<p>/acc/<32-byte key> → ∅
	bAnswersV7 = []byte("answers") // guilds/<g>/answers/<post><user> → decodeAnswerV7
)

// streakKeyV7 is a member's key in guilds/<g>/streaks up to version 7:
// last study day (10 bytes) | ^current streak (8) | user (8).
func streakKeyV7(s questions.Score) []byte {
	if len(s.LastStudyDay) != len(dateLayout) {
		return nil
	}
	k := append([]byte(s.LastStudyDay), make([]byte, 16)...)
	binary.BigEndian.PutUint64(k[10:], ^uint64(s.CurrentStreak))
	binary.BigEndian.PutUint64(k[18:], uint64(s.UserID))
	return k
}

// scoreFixedV7 is the fixed part of a version-7 score row: points,
// answered, correct, reachedAt, current streak, best streak (8 bytes
// each), then the last study day ("" or 10 bytes).
const scoreFixedV7 = 48

// decodeScoreV7 copies a version-7 score row out of b.
func decodeScoreV7(user questions.UserID, b []byte) questions.Score {
	if len(b) < scoreFixedV7 {
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
		LastStudyDay:  string(b[scoreFixedV7:]),
	}
}

// decodeAnswerV7 copies a version-7 answer (key <post><user>; value
// sequence, interaction, at (8 bytes each), right (1), right picks (1),
// points (2), number of letters (1), the letters) out of key and v, with
// its sequence number.
func decodeAnswerV7(guildID questions.GuildID, key, v []byte) (questions.Answer, uint64) {
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

// Version-7 memory records: a format byte (1), due and last review
// (timeKey), stability and difficulty (float64 bits), elapsed days,
// scheduled days, reps and lapses (8 bytes each), the state (1 byte); then
// each attempt: its time (timeKey, 8 bytes) and flags (1 byte: 1 right, 2
// review).
const (
	memoryFormatV7 = 1
	memoryFixedV7  = 1 + 8*8 + 1
	attemptLenV7   = 9
)

func encodeMemoryV7(m questions.Memory) []byte {
	b := make([]byte, 0, memoryFixedV7+attemptLenV7*len(m.History))
	b = append(b, memoryFormatV7)
	for _, v := range []uint64{timeKey(m.Due), timeKey(m.LastReview), math.Float64bits(m.Stability),
		math.Float64bits(m.Difficulty), m.ElapsedDays, m.ScheduledDays, m.Reps, m.Lapses} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	b = append(b, byte(m.State))
	for _, a := range m.History {
		b = binary.BigEndian.AppendUint64(b, timeKey(a.At))
		var f byte
		if a.Right {
			f |= 1
		}
		if a.Review {
			f |= 2
		}
		b = append(b, f)
	}
	return b
}

// decodeMemoryV7 copies a version-7 memory record out of k and v.
func decodeMemoryV7(k, v []byte) (questions.Memory, error) {
	if len(k) < 8 {
		return questions.Memory{}, fmt.Errorf("memory key %x: too short", k)
	}
	m := questions.Memory{UserID: getID[questions.UserID](k), QuestionID: string(k[8:])}
	if len(v) < memoryFixedV7 || v[0] != memoryFormatV7 || (len(v)-memoryFixedV7)%attemptLenV7 != 0 {
		return m, fmt.Errorf("memory of member %d, question %q: damaged record (%d bytes)", m.UserID, m.QuestionID, len(v))
	}
	f := func(i int) uint64 { return getU64(v[1+8*i:]) }
	m.Due, m.LastReview = keyTime(f(0)), keyTime(f(1))
	m.Stability, m.Difficulty = math.Float64frombits(f(2)), math.Float64frombits(f(3))
	m.ElapsedDays, m.ScheduledDays, m.Reps, m.Lapses = f(4), f(5), f(6), f(7)
	m.State = questions.MemoryState(v[memoryFixedV7-1])
	for i := memoryFixedV7; i < len(v); i += attemptLenV7 {
		m.History = append(m.History, questions.Attempt{At: keyTime(getU64(v[i:])), Right: v[i+8]&1 != 0, Review: v[i+8]&2 != 0})
	}
	return m, nil
}

// sourceV7 is what a version-7 answer (guilds/<g>/answers/<id><user>)
// answers: a post, or a review.
type sourceV7 struct {
	questionID string
	closesAt   time.Time // the post's close for the memory model (memoryClose); zero for a review
	review     bool
	found      bool
}

// sourceOfV7 looks up what the answers stored under id answer, caching
// by id; found is false when id is neither a post nor a review of g.
func sourceOfV7(tx *bbolt.Tx, g *bbolt.Bucket, id questions.PostID, cache map[questions.PostID]sourceV7) (sourceV7, error) {
	if s, ok := cache[id]; ok {
		return s, nil
	}
	var s sourceV7
	if v := getIn(sub(g, bReviews), u64(id)); v != nil {
		r, err := decodeReview(0, questions.ReviewID(id), v)
		if err != nil {
			return sourceV7{}, err
		}
		s = sourceV7{questionID: r.QuestionID, review: true, found: true}
	} else {
		p, err := getPost(tx, id)
		if errors.Is(err, questions.ErrNotFound) {
			cache[id] = s
			return s, nil
		}
		if err != nil {
			return sourceV7{}, err
		}
		s = sourceV7{questionID: p.QuestionID, closesAt: memoryClose(p), found: true}
	}
	cache[id] = s
	return s, nil
}

// rebuildMemoryV7 is migration 5's recount of every memory of guild g in
// the version-7 layout: from every answer of guilds/<g>/answers, in
// recording order, into guilds/<g>/memory (emptied first). Answers whose
// post is gone are skipped.
func rebuildMemoryV7(tx *bbolt.Tx, g *bbolt.Bucket) error {
	type item struct {
		seq      uint64
		user     questions.UserID
		qid      string
		attempt  questions.Attempt
		closesAt time.Time
	}
	var items []item
	sources := map[questions.PostID]sourceV7{}
	c := g.Bucket(bAnswersV7).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 16 {
			continue
		}
		a, seq := decodeAnswerV7(0, k, v)
		src, err := sourceOfV7(tx, g, a.PostID, sources)
		if err != nil {
			return err
		}
		if !src.found || src.questionID == "" {
			continue
		}
		items = append(items, item{seq, a.UserID, src.questionID, questions.Attempt{At: a.At, Right: a.Right, Review: src.review}, src.closesAt})
	}
	slices.SortFunc(items, func(x, y item) int { return cmp.Compare(x.seq, y.seq) })
	if g.Bucket(bMemoryV7) != nil {
		if err := g.DeleteBucket(bMemoryV7); err != nil {
			return err
		}
	}
	b, err := g.CreateBucket(bMemoryV7)
	if err != nil {
		return err
	}
	type memKey struct {
		user questions.UserID
		qid  string
	}
	mems := map[memKey]questions.Memory{}
	for _, it := range items {
		mk := memKey{it.user, it.qid}
		m, ok := mems[mk]
		if !ok {
			m = questions.Memory{UserID: it.user, QuestionID: it.qid}
		}
		mems[mk] = questions.Remember(m, it.attempt, it.closesAt)
	}
	for mk, m := range mems {
		if err := b.Put(cat(u64(mk.user), []byte(mk.qid)), encodeMemoryV7(m)); err != nil {
			return err
		}
	}
	return nil
}
