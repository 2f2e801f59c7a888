package storage

// This file is the answer record (schema version 8): every answer a
// member gave to one question, to its posts and in reviews, and their
// memory of the question, in one record (guilds/<g>/answers/<user><question
// number>) written by each of those answers; and the question numbers,
// which spare every record its question's ID (IDs are bank names and
// numbers, often 20 bytes or more).

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Answer records: a format byte (answersFormat); a flags byte (recCard: the
// FSRS card follows; recLastReview: the card's last review time is stored,
// when it is not the last answer's time); the card: due (8 bytes, timeKey),
// stability and difficulty (8 bytes each, float64 bits), elapsed days,
// scheduled days, reps and lapses (uvarints), the state (1 byte), the last
// review when flagged (8 bytes); then each answer in recording order: the
// post or review ID and the answer's sequence number (uvarints), the
// interaction (8 bytes), the time (8 bytes, timeKey), flags (1 byte:
// ansRight, ansReview, ansMock), right picks and points (uvarints), the
// number of letters chosen and the letters. A mock answer (ansMock: an
// answered question of an ended mock exam, see mocks.go) has the attempt's
// ID in place of the post's, the sequence number the attempt took when it
// ended, the end as its time, no interaction, picks, points or letters: it
// is there for the card (a review answer of the memory model, History
// included) and nothing else reads it. A post without a question ID has
// no memory: its answers are kept under the member's ID alone, without a
// card.
const (
	answersFormat = 2 // a version-7 memory record starts with 1, an answer with 0

	recCard       = 1
	recLastReview = 2

	ansRight  = 1
	ansReview = 2
	ansMock   = 4
)

// recAnswer is one answer of a record.
type recAnswer struct {
	id          questions.PostID // the post, or the review
	seq         uint64
	interaction uint64
	at          time.Time
	right       bool
	review      bool
	mock        bool // id is a questions.MockID; review is false
	picks       int
	points      int
	choice      []string
}

// attempt is the answer as the memory model counts it: a mock answer as a
// review answer.
func (ra recAnswer) attempt() questions.Attempt {
	return questions.Attempt{At: ra.at, Right: ra.right, Review: ra.review || ra.mock}
}

// answer is the stored answer as the API returns it.
func (ra recAnswer) answer(guildID questions.GuildID, user questions.UserID) questions.Answer {
	return questions.Answer{PostID: ra.id, GuildID: guildID, UserID: user, InteractionID: ra.interaction,
		Choice: ra.choice, At: ra.at, Grade: questions.Grade{Right: ra.right, RightPicks: ra.picks, Points: ra.points}}
}

// record is an answer record, decoded.
type record struct {
	user    questions.UserID
	num     uint32 // the question's number; 0 for posts without a question ID
	qid     string
	mem     questions.Memory // the card, and History from answers; zero without a question ID
	answers []recAnswer
}

// recordKey appends <user><question number> to dst: the user alone for
// number 0 (posts without a question ID).
func recordKey(dst []byte, user questions.UserID, num uint32) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(user))
	if num == 0 {
		return dst
	}
	return binary.BigEndian.AppendUint32(dst, num)
}

// recordNum is the question number of a record's key; 0 for a key of
// another length (the records without a question ID).
func recordNum(k []byte) uint32 {
	if len(k) != 12 {
		return 0
	}
	return binary.BigEndian.Uint32(k[8:])
}

// questionNum returns the number of question qid in guild bucket g,
// through d: 0 for "", and, when qid has none yet, the next number (the
// qids bucket's sequence) when create is set, else ok false. Numbers are
// never reused: a question keeps its number for as long as the guild is
// kept.
func questionNum(g *bbolt.Bucket, d *deltas, qid string, create bool) (num uint32, ok bool, err error) {
	if qid == "" {
		return 0, true, nil
	}
	ids := g.Bucket(bQids)
	if v := d.get(ids, []byte(qid)); len(v) == 4 {
		return binary.BigEndian.Uint32(v), true, nil
	}
	if !create {
		return 0, false, nil
	}
	seq, err := ids.NextSequence()
	if err != nil {
		return 0, false, err
	}
	if seq > math.MaxUint32 {
		return 0, false, fmt.Errorf("question %q: the guild has numbered %d questions, the most it can", qid, seq-1)
	}
	num = uint32(seq)
	if err := ids.Put([]byte(qid), binary.BigEndian.AppendUint32(nil, num)); err != nil {
		return 0, false, err
	}
	return num, true, appendPut(g.Bucket(bQnames), binary.BigEndian.AppendUint32(nil, num), []byte(qid))
}

// questionNames resolves question numbers of guild bucket g to their IDs,
// remembering those it read.
type questionNames struct {
	names *bbolt.Bucket
	known map[uint32]string
}

func namesOf(g *bbolt.Bucket) *questionNames {
	return &questionNames{names: sub(g, bQnames), known: map[uint32]string{}}
}

// of returns the ID of question number num ("" for 0); an error for a
// number without a name (a damaged dictionary).
func (qn *questionNames) of(num uint32) (string, error) {
	if num == 0 {
		return "", nil
	}
	if id, ok := qn.known[num]; ok {
		return id, nil
	}
	v := getIn(qn.names, binary.BigEndian.AppendUint32(nil, num))
	if v == nil {
		return "", fmt.Errorf("question number %d has no question ID (RebuildMemory cannot repair this: restore a backup)", num)
	}
	id := string(v)
	qn.known[num] = id
	return id, nil
}

// appendRecAnswer appends one answer to a record.
func appendRecAnswer(b []byte, ra recAnswer) []byte {
	b = appendUvarints(b, uint64(ra.id), ra.seq)
	b = binary.BigEndian.AppendUint64(b, ra.interaction)
	b = binary.BigEndian.AppendUint64(b, timeKey(ra.at))
	var f byte
	if ra.right {
		f |= ansRight
	}
	if ra.review {
		f |= ansReview
	}
	if ra.mock {
		f |= ansMock
	}
	b = append(b, f)
	b = appendUvarints(b, uint64(ra.picks), uint64(ra.points), uint64(len(ra.choice)))
	for _, l := range ra.choice {
		b = append(b, l[0])
	}
	return b
}

// readRecAnswer reads one answer; letters is a string per letter chosen.
func readRecAnswer(r *reader) recAnswer {
	ra := recAnswer{id: questions.PostID(r.uvarint()), seq: r.uvarint(), interaction: r.u64(), at: keyTime(r.u64())}
	f := r.byte()
	ra.right, ra.review, ra.mock = f&ansRight != 0, f&ansReview != 0, f&ansMock != 0
	ra.picks, ra.points = r.int(), r.int()
	n := r.int()
	if n > len(r.b) {
		r.bad = true
		return ra
	}
	if n > 0 {
		ra.choice = make([]string, n)
		for i, l := range r.bytes(n) {
			if j := questions.LetterIndex(string(l)); j >= 0 {
				ra.choice[i] = questions.Letter(j) // no allocation per letter
			} else {
				ra.choice[i] = string(l)
			}
		}
	}
	return ra
}

// skipRecAnswer reads past one answer and returns its ID and whether it
// is a mock answer (whose ID is a mock exam's).
func skipRecAnswer(r *reader) (id questions.PostID, mock bool) {
	id = questions.PostID(r.uvarint())
	r.uvarint()
	f := r.bytes(17)
	r.uvarint()
	r.uvarint()
	r.bytes(r.int())
	return id, len(f) == 17 && f[16]&ansMock != 0
}

// appendHeader appends the format, flags and card of a record whose last
// answer is at last; hasCard is false without a question ID.
func appendHeader(b []byte, m questions.Memory, hasCard bool, last time.Time) []byte {
	b = append(b, answersFormat)
	if !hasCard {
		return append(b, 0)
	}
	var flags byte = recCard
	explicit := !m.LastReview.Equal(last)
	if explicit {
		flags |= recLastReview
	}
	b = append(b, flags)
	b = binary.BigEndian.AppendUint64(b, timeKey(m.Due))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(m.Stability))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(m.Difficulty))
	b = appendUvarints(b, m.ElapsedDays, m.ScheduledDays, m.Reps, m.Lapses)
	b = append(b, byte(m.State))
	if explicit {
		b = binary.BigEndian.AppendUint64(b, timeKey(m.LastReview))
	}
	return b
}

// readHeader reads the format, flags and card of a record into m (whose
// IDs are set); the last review is left zero when it is the last answer's
// time (see lastReview). It returns whether the record has a card and
// whether its last review is to be set from the last answer.
func readHeader(r *reader, m *questions.Memory) (hasCard, fromLast bool) {
	if r.byte() != answersFormat {
		r.bad = true
		return false, false
	}
	flags := r.byte()
	if flags&recCard == 0 {
		return false, false
	}
	m.Due = keyTime(r.u64())
	m.Stability = math.Float64frombits(r.u64())
	m.Difficulty = math.Float64frombits(r.u64())
	m.ElapsedDays, m.ScheduledDays, m.Reps, m.Lapses = r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint()
	m.State = questions.MemoryState(r.byte())
	if flags&recLastReview != 0 {
		m.LastReview = keyTime(r.u64())
		return true, false
	}
	return true, true
}

// decodeRecord copies an answer record out of k and v (which may be bbolt
// memory): the card with its History, and every answer; qid is its
// question's ID (see questionNames).
// eachRecordOf calls fn with each answer record of question qid in the
// guild's bucket g, decoded, and its key (valid only during fn): a pass
// over the keys of the guild's answer records, which are kept by member,
// then question (see doc.go). Nothing when the guild has none of qid. fn
// must not change the bucket (collect the changes, then write them).
func eachRecordOf(g *bbolt.Bucket, qid string, fn func(k []byte, rec record) error) error {
	b := sub(g, bAnswers)
	if b == nil {
		return nil
	}
	num, ok, err := questionNum(g, nil, qid, false)
	if err != nil || !ok {
		return err
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if recordNum(k) != num {
			continue
		}
		rec, err := decodeRecord(k, v, qid)
		if err != nil {
			return err
		}
		if err := fn(k, rec); err != nil {
			return err
		}
	}
	return nil
}

func decodeRecord(k, v []byte, qid string) (record, error) {
	if len(k) != 8 && len(k) != 12 {
		return record{}, fmt.Errorf("answer record key %x: not a member and a question number", k)
	}
	rec := record{user: getID[questions.UserID](k), num: recordNum(k), qid: qid}
	rec.mem = questions.Memory{UserID: rec.user, QuestionID: rec.qid}
	r := reader{b: v}
	hasCard, fromLast := readHeader(&r, &rec.mem)
	for len(r.b) > 0 && !r.bad {
		rec.answers = append(rec.answers, readRecAnswer(&r))
	}
	if r.bad {
		return rec, fmt.Errorf("answers of member %d to question %q: damaged record (%d bytes)", rec.user, rec.qid, len(v))
	}
	if hasCard {
		rec.mem.History = make([]questions.Attempt, len(rec.answers))
		for i, ra := range rec.answers {
			rec.mem.History[i] = ra.attempt()
		}
		if fromLast && len(rec.answers) > 0 {
			rec.mem.LastReview = rec.answers[len(rec.answers)-1].at
		}
	} else {
		rec.mem = questions.Memory{}
	}
	return rec, nil
}

// encodeRecord encodes rec: its card (when it has a question ID) and its
// answers.
func encodeRecord(rec record) []byte {
	var last time.Time
	if n := len(rec.answers); n > 0 {
		last = rec.answers[n-1].at
	}
	b := appendHeader(make([]byte, 0, 64+40*len(rec.answers)), rec.mem, rec.num != 0, last)
	for _, ra := range rec.answers {
		b = appendRecAnswer(b, ra)
	}
	return b
}

// storedAnswer finds the member's answer to post or review id, of the
// question qid, in guild bucket g (may be nil) through d.
func storedAnswer(g *bbolt.Bucket, d *deltas, guildID questions.GuildID, user questions.UserID, qid string, id questions.PostID) (questions.Answer, bool) {
	answers := sub(g, bAnswers)
	if answers == nil {
		return questions.Answer{}, false
	}
	num, ok, err := questionNum(g, d, qid, false)
	if err != nil || !ok {
		return questions.Answer{}, false
	}
	var kb [12]byte
	v := d.get(answers, recordKey(kb[:0], user, num))
	if v == nil {
		return questions.Answer{}, false
	}
	r := reader{b: v}
	var m questions.Memory
	readHeader(&r, &m)
	for len(r.b) > 0 && !r.bad {
		at := r
		if got, mock := skipRecAnswer(&r); got == id && !mock {
			return readRecAnswer(&at).answer(guildID, user), true
		}
	}
	return questions.Answer{}, false
}

// storeAnswer stores a, the member's answer to post or review id of the
// question qid, under the guild's next answer sequence number (which
// resets and rebuilds count by), in the member's record of the question,
// and counts it into their memory of it (questions.Remember, with the
// post's closesAt so that a miss comes due after the close; zero for a
// review). A post without a question ID keeps its answers under the
// member alone, without memory. It returns the question's number and the
// member's answers to its posts (not reviews, not mock answers) before a,
// and how many of them were right: what the statistics need (countStats).
func storeAnswer(g *bbolt.Bucket, d *deltas, qid string, id questions.PostID, a questions.Answer, review bool, closesAt time.Time) (num uint32, prior, priorRight int, err error) {
	seq, err := g.Bucket(bAnswers).NextSequence()
	if err != nil {
		return 0, 0, 0, err
	}
	ra := recAnswer{id: id, seq: seq, interaction: a.InteractionID, at: a.At, right: a.Right, review: review,
		picks: a.RightPicks, points: a.Points, choice: a.Choice}
	return addToRecord(g, d, a.UserID, qid, ra, closesAt)
}

// addToRecord appends ra, an answer of user to question qid, to their
// record of it (created, and the question numbered, when it has none) and
// counts it into their card (questions.Remember with closesAt, as
// storeAnswer says). ra's seq is set. It returns the question's number
// and, for an answer to a post (ra neither a review nor a mock answer),
// the member's earlier answers to the question's posts and how many were
// right (priorAnswers); 0 and 0 otherwise.
func addToRecord(g *bbolt.Bucket, d *deltas, user questions.UserID, qid string, ra recAnswer, closesAt time.Time) (num uint32, prior, priorRight int, err error) {
	b := g.Bucket(bAnswers)
	num, _, err = questionNum(g, d, qid, true)
	if err != nil {
		return 0, 0, 0, err
	}
	var kb [12]byte
	key := recordKey(kb[:0], user, num)
	v := d.get(b, key)
	m := questions.Memory{UserID: user, QuestionID: qid}
	var rest []byte
	if v != nil {
		r := reader{b: v}
		hasCard, fromLast := readHeader(&r, &m)
		if r.bad {
			return 0, 0, 0, fmt.Errorf("answers of member %d to question %q: damaged record (%d bytes)", user, qid, len(v))
		}
		rest = r.b
		if hasCard && fromLast {
			m.LastReview = lastAnswerAt(rest)
		}
		if !ra.review && !ra.mock {
			prior, priorRight = priorAnswers(rest)
		}
	}
	if qid != "" {
		m = questions.Remember(m, ra.attempt(), closesAt)
	}
	nv := appendHeader(d.value(len(rest)+96), m, qid != "", ra.at)
	nv = append(nv, rest...)
	nv = appendRecAnswer(nv, ra)
	return num, prior, priorRight, d.put(b, key, nv)
}

// lastAnswerAt is the time of the last answer of a record's answers.
func lastAnswerAt(answers []byte) time.Time {
	r := reader{b: answers}
	var last time.Time
	for len(r.b) > 0 && !r.bad {
		last = readRecAnswer(&r).at
	}
	return last
}

// answerCount counts the answers of every record of b (guilds/<g>/answers).
func answerCount(b *bbolt.Bucket) int {
	n := 0
	if b == nil {
		return 0
	}
	b.ForEach(func(_, v []byte) error {
		r := reader{b: v}
		var m questions.Memory
		readHeader(&r, &m)
		for len(r.b) > 0 && !r.bad {
			if _, mock := skipRecAnswer(&r); !mock {
				n++
			}
		}
		return nil
	})
	return n
}
