package storage

// This file is the member record (guilds/<g>/members/<user>, schema
// version 8): a member's all-time score and streak, their scores in the
// day, week and month of their latest answer, and their topic stats, in
// one small binary record written by each of their answers. A period's
// rankings (rank.go) hold every member's score in that period; the record
// finds a member's entry there without a per-period row.

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// The kinds of period a member record keeps a row of, in periodKeys' order
// after the all-time period.
const (
	kindDay = iota
	kindWeek
	kindMonth
	kinds
)

// periodRow is a member's score in one period of a kind: num names the
// period (see periodNum), ok says whether there is one.
type periodRow struct {
	ok    bool
	num   int64
	score questions.Score // streak fields zero
}

// topicStat is a member's answers to the posts of one topic ("bank:<bank>",
// "tag:<tag>").
type topicStat struct {
	topic             string
	answered, correct int
}

// memberRec is a member record, decoded.
type memberRec struct {
	all    questions.Score // streaks included; UserID set
	cur    [kinds]periodRow
	topics []topicStat // by topic
}

// Member records: a format byte (memberFormat); the all-time score:
// points, answered, correct (uvarints), reached (8 bytes, timeKey),
// current and best streak (uvarints), last study day (uvarint: 0 none,
// else the day number, zig-zag, plus 1); then for the day, the week and
// the month of the latest answer: 0, or 1 and the period's number (varint),
// points, answered, correct (uvarints) and reached (8 bytes); then the
// number of topics and each topic (its length, its bytes, answered and
// correct), sorted.
const memberFormat = 1

func appendMember(b []byte, m memberRec) []byte {
	s := m.all
	b = append(b, memberFormat)
	b = appendUvarints(b, uint64(s.Points), uint64(s.Answered), uint64(s.Correct))
	b = binary.BigEndian.AppendUint64(b, timeKey(s.ReachedAt))
	b = appendUvarints(b, uint64(s.CurrentStreak), uint64(s.BestStreak))
	var last uint64
	if s.LastStudyDay != "" {
		last = zigzag(dayNumber(s.LastStudyDay)) + 1
	}
	b = binary.AppendUvarint(b, last)
	for _, r := range m.cur {
		if !r.ok {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, r.num)
		b = appendUvarints(b, uint64(r.score.Points), uint64(r.score.Answered), uint64(r.score.Correct))
		b = binary.BigEndian.AppendUint64(b, timeKey(r.score.ReachedAt))
	}
	b = binary.AppendUvarint(b, uint64(len(m.topics)))
	for _, t := range m.topics {
		b = appendStr(b, t.topic)
		b = appendUvarints(b, uint64(t.answered), uint64(t.correct))
	}
	return b
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// decodeMember copies a member record out of v (which may be bbolt
// memory).
func decodeMember(user questions.UserID, v []byte) (memberRec, error) {
	m := memberRec{all: questions.Score{UserID: user}}
	if len(v) < 1 || v[0] != memberFormat {
		return m, fmt.Errorf("member %d: damaged record (%d bytes; RebuildScores recounts it)", user, len(v))
	}
	r := reader{b: v[1:]}
	s := &m.all
	s.Points, s.Answered, s.Correct = r.int(), r.int(), r.int()
	s.ReachedAt = keyTime(r.u64())
	s.CurrentStreak, s.BestStreak = r.int(), r.int()
	if last := r.uvarint(); last > 0 {
		s.LastStudyDay = dayOf(unzigzag(last - 1))
	}
	for i := range m.cur {
		if r.byte() == 0 {
			continue
		}
		num, n := binary.Varint(r.b)
		if n <= 0 {
			r.bad = true
			break
		}
		r.b = r.b[n:]
		row := periodRow{ok: true, num: num, score: questions.Score{UserID: user}}
		row.score.Points, row.score.Answered, row.score.Correct = r.int(), r.int(), r.int()
		row.score.ReachedAt = keyTime(r.u64())
		m.cur[i] = row
	}
	n := r.int()
	if n > len(r.b) {
		r.bad = true
		n = 0
	}
	if n > 0 {
		m.topics = make([]topicStat, 0, n)
	}
	for range n {
		t := topicStat{topic: r.str()}
		t.answered, t.correct = r.int(), r.int()
		m.topics = append(m.topics, t)
	}
	if r.bad {
		return m, fmt.Errorf("member %d: damaged record (%d bytes; RebuildScores recounts it)", user, len(v))
	}
	return m, nil
}

// getMember reads a member's record from b (guilds/<g>/members, may be
// nil) through d (nil: bbolt's own lookups); ok is false when there is
// none (a member without an all-time score).
func getMember(b *bbolt.Bucket, d *deltas, user questions.UserID) (m memberRec, ok bool, err error) {
	var kb [8]byte
	binary.BigEndian.PutUint64(kb[:], uint64(user))
	v := d.get(b, kb[:])
	if v == nil {
		return memberRec{all: questions.Score{UserID: user}}, false, nil
	}
	m, err = decodeMember(user, v)
	return m, err == nil, err
}

// putMember writes a member's record to b through d.
func putMember(b *bbolt.Bucket, d *deltas, m memberRec) error {
	var kb [8]byte
	binary.BigEndian.PutUint64(kb[:], uint64(m.all.UserID))
	return d.put(b, kb[:], appendMember(d.value(memberLen(m)), m))
}

// memberLen is an upper bound of the size of m's record.
func memberLen(m memberRec) int {
	n := 1 + 3*10 + 8 + 3*10 + 10 + kinds*(1+10+3*10+8) + 10
	for _, t := range m.topics {
		n += 10 + len(t.topic) + 20
	}
	return n
}

// addTopic counts one answer (right or not) to topic into m's stats.
func (m *memberRec) addTopic(topic string, right bool) {
	i, found := slices.BinarySearchFunc(m.topics, topic, func(t topicStat, topic string) int { return strings.Compare(t.topic, topic) })
	if !found {
		m.topics = slices.Insert(m.topics, i, topicStat{topic: topic})
	}
	m.topics[i].answered++
	if right {
		m.topics[i].correct++
	}
}

// members returns guilds/<g>/members, creating it (in a guild bucket
// created before version 8, the migration did).
func membersRW(g *bbolt.Bucket) (*bbolt.Bucket, error) {
	if b := g.Bucket(bMembers); b != nil {
		return b, nil
	}
	return g.CreateBucket(bMembers)
}
