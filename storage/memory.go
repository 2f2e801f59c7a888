package storage

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// The memory model's storage (schema version 5): guilds/<g>/memory holds
// one record per member and question, keyed <user><question ID>, written
// in the transaction of every graded answer (rememberAnswer) and
// recomputable from the stored answers (rebuildMemory); guilds/<g>/reviews
// holds the review questions shown to members (see review.go) and
// guilds/<g>/exams their exam dates (see exams.go). Memories are
// knowledge, not competition: ResetGuild and ResetMember leave them, and a
// rebuild counts every stored answer, whatever the resets.

// Memory records: a format byte (1), due and last review (timeKey),
// stability and difficulty (float64 bits), elapsed days, scheduled days,
// reps and lapses (8 bytes each), the state (1 byte); then each attempt:
// its time (timeKey, 8 bytes) and flags (1 byte: 1 right, 2 review).
const (
	memoryFormat = 1
	memoryFixed  = 1 + 8*8 + 1
	attemptLen   = 9
)

func memoryKey(user questions.UserID, questionID string) []byte {
	return cat(u64(user), []byte(questionID))
}

func encodeMemory(m questions.Memory) []byte {
	return appendMemory(make([]byte, 0, memoryLen(m)), m)
}

func memoryLen(m questions.Memory) int { return memoryFixed + attemptLen*len(m.History) }

// appendMemory appends encodeMemory(m) to b.
func appendMemory(b []byte, m questions.Memory) []byte {
	b = append(b, memoryFormat)
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

// decodeMemory copies a memory record out of k and v (which may be bbolt
// memory); it refuses a record of another format or length.
func decodeMemory(k, v []byte) (questions.Memory, error) {
	if len(k) < 9 {
		return questions.Memory{}, fmt.Errorf("memory key %x: too short", k)
	}
	m := questions.Memory{UserID: getID[questions.UserID](k), QuestionID: string(k[8:])}
	return m, decodeMemoryValue(&m, v)
}

// decodeMemoryValue copies the record v into m, whose UserID and
// QuestionID are set; it refuses a record of another format or length.
func decodeMemoryValue(m *questions.Memory, v []byte) error {
	if len(v) < memoryFixed || v[0] != memoryFormat || (len(v)-memoryFixed)%attemptLen != 0 {
		return fmt.Errorf("memory of member %d, question %q: damaged record (%d bytes)", m.UserID, m.QuestionID, len(v))
	}
	f := func(i int) uint64 { return getU64(v[1+8*i:]) }
	m.Due, m.LastReview = keyTime(f(0)), keyTime(f(1))
	m.Stability, m.Difficulty = math.Float64frombits(f(2)), math.Float64frombits(f(3))
	m.ElapsedDays, m.ScheduledDays, m.Reps, m.Lapses = f(4), f(5), f(6), f(7)
	m.State = questions.MemoryState(v[memoryFixed-1])
	if n := (len(v) - memoryFixed) / attemptLen; n > 0 {
		m.History = make([]questions.Attempt, 0, n)
	}
	for i := memoryFixed; i < len(v); i += attemptLen {
		m.History = append(m.History, questions.Attempt{At: keyTime(getU64(v[i:])), Right: v[i+8]&1 != 0, Review: v[i+8]&2 != 0})
	}
	return nil
}

// rememberAnswer counts one graded answer into the member's memory of the
// question (questions.Remember). It is the hook of the answer
// transactions: RecordAnswer calls it for every accepted answer to a post,
// with the post's ClosesAt (so a miss comes due after the close);
// RecordReview for every review answer, with closesAt zero. g is the
// guild's bucket from guildRW; d the transaction's lookups (nil: bbolt's
// own). An answer to a post without a question ID changes nothing.
func rememberAnswer(g *bbolt.Bucket, d *deltas, user questions.UserID, questionID string, a questions.Attempt, closesAt time.Time) error {
	if questionID == "" {
		return nil
	}
	b := g.Bucket(bMemory)
	if b == nil {
		var err error
		if b, err = g.CreateBucketIfNotExists(bMemory); err != nil {
			return err
		}
	}
	var kb [64]byte
	k := append(binary.BigEndian.AppendUint64(kb[:0], uint64(user)), questionID...) // memoryKey
	m := questions.Memory{UserID: user, QuestionID: questionID}
	if v := d.get(b, k); v != nil {
		if err := decodeMemoryValue(&m, v); err != nil {
			return fmt.Errorf("%w (RebuildMemory recomputes it)", err)
		}
	}
	m = questions.Remember(m, a, closesAt)
	return d.put(b, k, appendMemory(d.value(memoryLen(m)), m))
}

// answerSource is what a stored answer (guilds/<g>/answers/<id><user>)
// answers: a post, or a review (the IDs never collide: both come from the
// posts sequence).
type answerSource struct {
	questionID string
	closesAt   time.Time // the post's close for the memory model (memoryClose); zero for a review
	topics     []string  // the post's topic stats keys; none for a review
	review     bool
}

// sourceOf looks up what the answers stored under id answer, caching by
// id. The error wraps questions.ErrNotFound when it is neither a post nor
// a review of the guild.
func sourceOf(tx *bbolt.Tx, g *bbolt.Bucket, id questions.PostID, cache map[questions.PostID]answerSource) (answerSource, error) {
	if s, ok := cache[id]; ok {
		return s, nil
	}
	var s answerSource
	if v := getIn(sub(g, bReviews), u64(id)); v != nil {
		r, err := decodeReview(0, questions.ReviewID(id), v)
		if err != nil {
			return answerSource{}, err
		}
		s = answerSource{questionID: r.QuestionID, review: true}
	} else {
		p, err := getPost(tx, id)
		if err != nil {
			return answerSource{}, err
		}
		s = answerSource{questionID: p.QuestionID, closesAt: memoryClose(p), topics: topicsOf(p)}
	}
	cache[id] = s
	return s, nil
}

// memoryClose is the close a post's answers are scheduled from
// (questions.Remember's closesAt): its actual close when it closed before
// its ClosesAt (an admin's /quizadmin close), else its ClosesAt, so a
// close the scheduler makes a moment late moves nothing. While the post
// is open it is ClosesAt: what its answers are recorded with. A post
// without a ClosesAt (a daily question that closes with the next day's)
// keeps none: its misses come due a minute after the answer, which the
// review queue holds back until the close.
func memoryClose(p questions.Post) time.Time {
	if p.Closed && !p.ClosesAt.IsZero() && p.ClosedAt.Before(p.ClosesAt) {
		return p.ClosedAt
	}
	return p.ClosesAt
}

// rescheduleClosed moves the memories of the answers to p, a post just
// closed, from the close they were recorded with (ClosesAt) to
// memoryClose(p) (questions.Memory.Reclosed), so that a miss of a question
// closed early comes due minutes after the close rather than after its
// scheduled one; a rebuild (sourceOf) counts the same close. It changes
// nothing unless the post closed before its ClosesAt. Its cost is a pass
// over the post's answers.
func rescheduleClosed(tx *bbolt.Tx, p questions.Post) error {
	closed := memoryClose(p)
	if p.QuestionID == "" || closed.Equal(p.ClosesAt) {
		return nil
	}
	g := guildRO(tx, p.GuildID)
	answers, mem := sub(g, bAnswers), sub(g, bMemory)
	if answers == nil || mem == nil {
		return nil
	}
	prefix := u64(p.ID)
	c := answers.Cursor()
	for k, v := c.Seek(prefix); hasPrefix(k, prefix); k, v = c.Next() {
		a, _ := decodeAnswer(p.GuildID, k, v)
		mk := memoryKey(a.UserID, p.QuestionID)
		mv := mem.Get(mk)
		if mv == nil {
			continue
		}
		m := questions.Memory{UserID: a.UserID, QuestionID: p.QuestionID}
		if err := decodeMemoryValue(&m, mv); err != nil {
			return fmt.Errorf("%w (RebuildMemory recomputes it)", err)
		}
		if moved, ok := m.Reclosed(a.At, p.ClosesAt, closed); ok {
			if err := mem.Put(mk, encodeMemory(moved)); err != nil {
				return err
			}
		}
	}
	return nil
}

// countStored counts one stored answer into the guild's scores as it was
// counted when recorded: an answer to a post through countAnswer, a review
// answer through countReview (its streak only). RebuildScores' recount
// calls it for each counted answer, so that a rebuild reproduces reviews
// too; sources caches the lookups.
func countStored(tx *bbolt.Tx, g *bbolt.Bucket, loc *time.Location, a questions.Answer, sources map[questions.PostID]answerSource) error {
	src, err := sourceOf(tx, g, a.PostID, sources)
	if err != nil {
		return err
	}
	if src.review {
		return countReview(g, nil, a.UserID, a.At, loc)
	}
	return countAnswer(g, nil, a.UserID, a.Grade, a.At, loc, src.topics)
}

// countReview counts a review answer of user at `at` into the guild's
// scores: a study day for the streak (all-time row and streak index), and
// nothing else, so reviews never move points, answer counts, accuracy or
// any leaderboard order. A member without an all-time row gets one with 0
// points (as a rebuild would give them). The ranking counters change in d
// (nil: written at once).
func countReview(g *bbolt.Bucket, d *deltas, user questions.UserID, at time.Time, loc *time.Location) error {
	keys, day := periodKeys(at, loc)
	all, err := periodRW(g, keys[0], d)
	if err != nil {
		return err
	}
	old, had := all.row(user)
	s := old
	study(&s, day)
	if had && s == old {
		return nil
	}
	if err := all.set(old, had, s); err != nil {
		return err
	}
	return moveStreak(g.Bucket(bStreaks), d, old, had, s)
}

// rebuildMemory recomputes memories of the guild from every stored answer
// (to posts, to reviews and in ended mock exams, whatever the resets), in
// recording order, with
// questions.Remember as the answers did. With only nil it rebuilds every
// memory (the bucket is emptied first); otherwise it replaces just the
// memories for which only(user, questionID) is true (deleting those no
// answer is left for). Answers whose post is gone are skipped. Its cost is
// a pass over the guild's answers.
func rebuildMemory(tx *bbolt.Tx, g *bbolt.Bucket, only func(user questions.UserID, questionID string) bool) error {
	type item struct {
		seq      uint64
		user     questions.UserID
		qid      string
		attempt  questions.Attempt
		closesAt time.Time
	}
	var items []item
	sources := map[questions.PostID]answerSource{}
	answers := g.Bucket(bAnswers)
	c := answers.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 16 {
			continue
		}
		a, seq := decodeAnswer(0, k, v)
		src, err := sourceOf(tx, g, a.PostID, sources)
		if errors.Is(err, questions.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if src.questionID == "" || only != nil && !only(a.UserID, src.questionID) {
			continue
		}
		items = append(items, item{seq, a.UserID, src.questionID, questions.Attempt{At: a.At, Right: a.Right, Review: src.review}, src.closesAt})
	}
	// Mock exams' answers, each attempt's at the sequence number it took
	// when it ended (see mocks.go).
	if err := eachMockAnswer(g, func(seq uint64, user questions.UserID, qid string, a questions.Attempt) {
		if only == nil || only(user, qid) {
			items = append(items, item{seq, user, qid, a, time.Time{}})
		}
	}); err != nil {
		return err
	}
	slices.SortFunc(items, func(x, y item) int { return cmp.Compare(x.seq, y.seq) })

	b := g.Bucket(bMemory)
	switch {
	case only == nil || b == nil:
		if b != nil {
			if err := g.DeleteBucket(bMemory); err != nil {
				return err
			}
		}
		var err error
		if b, err = g.CreateBucket(bMemory); err != nil {
			return err
		}
	default:
		var stale [][]byte
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) > 8 && only(getID[questions.UserID](k), string(k[8:])) {
				stale = append(stale, slices.Clone(k))
			}
		}
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
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
		if err := b.Put(memoryKey(mk.user, mk.qid), encodeMemory(m)); err != nil {
			return err
		}
	}
	return nil
}

// buildMemory is version 5: guilds/<g>/memory, exams and reviews in every
// guild, and every member's memory of every question computed from the
// stored answers, so members who upgrade keep their history.
func buildMemory(tx *bbolt.Tx) error {
	guilds := tx.Bucket(bGuilds)
	var names [][]byte
	if err := guilds.ForEachBucket(func(name []byte) error {
		names = append(names, slices.Clone(name))
		return nil
	}); err != nil {
		return err
	}
	for _, name := range names {
		g := guilds.Bucket(name)
		for _, b := range [][]byte{bExams, bReviews} {
			if _, err := g.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if g.Bucket(bAnswers) == nil {
			if _, err := g.CreateBucketIfNotExists(bMemory); err != nil {
				return err
			}
			continue
		}
		if err := rebuildMemory(tx, g, nil); err != nil {
			return fmt.Errorf("guild %d: %w", getU64(name), err)
		}
	}
	return nil
}

// RebuildMemory recomputes the guild's memories from its stored answers:
// every memory when questionIDs is empty, else the memories of those
// questions (of every member). It is the repair path, and what a regrade
// runs after the stored grades change: the memories become what they
// would have been had the answers been graded so from the start. One
// transaction; its cost grows with the guild's answers. Safe for
// concurrent use.
func (db *DB) RebuildMemory(ctx context.Context, guildID questions.GuildID, questionIDs []string) error {
	var only func(questions.UserID, string) bool
	if len(questionIDs) > 0 {
		set := map[string]bool{}
		for _, id := range questionIDs {
			set[id] = true
		}
		only = func(_ questions.UserID, qid string) bool { return set[qid] }
	}
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		return rebuildMemory(tx, g, only)
	})
	if err != nil {
		return fmt.Errorf("rebuild memory: %w", err)
	}
	return nil
}

// Memories returns every memory one member has in the guild (the
// questions they answered at least once), sorted by question ID; the
// slice is the caller's. Safe for concurrent use.
func (db *DB) Memories(guildID questions.GuildID, userID questions.UserID) ([]questions.Memory, error) {
	var out []questions.Memory
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		out, err = memoriesOf(sub(guildRO(tx, guildID), bMemory), userID, nil, out)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("memories: %w", err)
	}
	return out, nil
}

// memoriesOf appends to out the user's memories in b, those of the
// questions in keep only when keep is not nil.
func memoriesOf(b *bbolt.Bucket, user questions.UserID, keep map[string]bool, out []questions.Memory) ([]questions.Memory, error) {
	if b == nil {
		return out, nil
	}
	prefix := u64(user)
	c := b.Cursor()
	for k, v := c.Seek(prefix); hasPrefix(k, prefix); k, v = c.Next() {
		if keep != nil && !keep[string(k[8:])] {
			continue
		}
		m, err := decodeMemory(k, v)
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// GroupMemories returns the memories the given members have of the given
// questions (every question when questionIDs is nil), member by member in
// the order given, each sorted by question ID: what the group-aware draw
// (questions.DrawForgotten) needs. It reads each member's memories once:
// its cost grows with the members' memories, not with the candidates.
// Safe for concurrent use.
func (db *DB) GroupMemories(guildID questions.GuildID, users []questions.UserID, questionIDs []string) ([]questions.Memory, error) {
	var keep map[string]bool
	if questionIDs != nil {
		keep = make(map[string]bool, len(questionIDs))
		for _, id := range questionIDs {
			keep[id] = true
		}
	}
	var out []questions.Memory
	err := db.view(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bMemory)
		out = out[:0]
		for _, u := range users {
			var err error
			if out, err = memoriesOf(b, u, keep, out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("group memories: %w", err)
	}
	return out, nil
}

// Players returns, in user ID order, the members who play in the guild at
// now: those who answered a question posted in the guild (ask or daily;
// reviews do not count) within questions.PlayerWindow before now, read
// from the daily leaderboards of those days (local days in the guild's
// time zone, today included). Safe for concurrent use.
func (db *DB) Players(guildID questions.GuildID, now time.Time) ([]questions.UserID, error) {
	var out []questions.UserID
	err := db.view(func(tx *bbolt.Tx) error {
		out = nil
		loc, err := db.guildLocation(tx, guildID)
		if err != nil {
			return err
		}
		periods := sub(guildRO(tx, guildID), bPeriods)
		if periods == nil {
			return nil
		}
		from := []byte("d" + now.Add(-questions.PlayerWindow).In(loc).Format(dateLayout))
		to := []byte("d" + now.In(loc).Format(dateLayout))
		seen := map[questions.UserID]bool{}
		c := periods.Cursor()
		for k, v := c.Seek(from); k != nil && string(k) <= string(to); k, v = c.Next() {
			if v != nil {
				continue
			}
			rows := periods.Bucket(k).Bucket(bRows)
			if rows == nil {
				continue
			}
			if err := rows.ForEach(func(u, _ []byte) error {
				seen[getID[questions.UserID](u)] = true
				return nil
			}); err != nil {
				return err
			}
		}
		for u := range seen {
			out = append(out, u)
		}
		slices.Sort(out)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("players: %w", err)
	}
	return out, nil
}

// ReviewQueue returns what the member has to review at now under their
// exam plan (questions.ReviewOrder; the zero plan without an exam): their
// due questions, misses first, then by due time, the next due time, and in
// the days before the exam its final pass. It leaves out the questions
// open in the guild, read in the same transaction, and those for which
// inBank is false (inBank may be nil; the bot passes "is in a bank the
// guild uses", so a deleted question is never offered). Safe for
// concurrent use.
func (db *DB) ReviewQueue(guildID questions.GuildID, userID questions.UserID, now time.Time, inBank func(questionID string) bool, exam questions.ExamPlan) (questions.ReviewQueue, error) {
	var q questions.ReviewQueue
	err := db.view(func(tx *bbolt.Tx) error {
		mems, err := memoriesOf(sub(guildRO(tx, guildID), bMemory), userID, nil, nil)
		if err != nil {
			return err
		}
		open, err := db.openQuestions(tx, guildID)
		if err != nil {
			return err
		}
		q = questions.ReviewOrder(mems, func(id string) bool { return open[id] || inBank != nil && !inBank(id) }, now, exam)
		return nil
	})
	if err != nil {
		return questions.ReviewQueue{}, fmt.Errorf("review queue: %w", err)
	}
	return q, nil
}
