package storage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// The memory model's storage: a member's memory of a question (its FSRS
// card) lives in their answer record of the question (answerrec.go),
// written in the transaction of every graded answer (storeAnswer) and
// recomputable from the answers the record holds (rebuildMemory);
// guilds/<g>/reviews holds the review questions shown to members (see
// review.go) and guilds/<g>/exams their exam dates (see exams.go).
// Memories are knowledge, not competition: ResetGuild and ResetMember
// leave them, and a rebuild counts every stored answer, whatever the
// resets.

// postSource is what the answers to a post count for: its question's
// close for the memory model (memoryClose: a miss comes due after it) and
// its topics.
type postSource struct {
	closesAt time.Time
	topics   []string
}

// sourceOf looks up post id, caching by id. The error wraps
// questions.ErrNotFound when there is no such post.
func sourceOf(tx *bbolt.Tx, id questions.PostID, cache map[questions.PostID]postSource) (postSource, error) {
	if s, ok := cache[id]; ok {
		return s, nil
	}
	p, err := getPost(tx, id)
	if err != nil {
		return postSource{}, err
	}
	s := postSource{closesAt: memoryClose(p), topics: topicsOf(p)}
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

// rescheduleClosed moves the cards of the answers to p, a post just
// closed, from the close they were recorded with (ClosesAt) to
// memoryClose(p) (questions.Memory.Reclosed), so that a miss of a question
// closed early comes due minutes after the close rather than after its
// scheduled one; a rebuild (sourceOf) counts the same close. It changes
// nothing unless the post closed before its ClosesAt. A post without
// answers costs nothing; else a pass over the keys of the guild's answer
// records, reading those of the post's question (answers are kept by
// member and question, as for deleteAnswersTo).
func rescheduleClosed(tx *bbolt.Tx, p questions.Post) error {
	closed := memoryClose(p)
	if p.QuestionID == "" || p.Answers == 0 || closed.Equal(p.ClosesAt) {
		return nil
	}
	g := guildRO(tx, p.GuildID)
	type change struct{ k, v []byte }
	var changes []change
	err := eachRecordOf(g, p.QuestionID, func(k []byte, rec record) error {
		for _, ra := range rec.answers {
			if ra.id != p.ID || ra.review || ra.mock {
				continue
			}
			if moved, ok := rec.mem.Reclosed(ra.at, p.ClosesAt, closed); ok {
				rec.mem = moved
				changes = append(changes, change{slices.Clone(k), encodeRecord(rec)})
			}
			break
		}
		return nil
	})
	if err != nil {
		return err
	}
	b := sub(g, bAnswers)
	for _, c := range changes {
		if err := b.Put(c.k, c.v); err != nil {
			return err
		}
	}
	return nil
}

// countStored counts one stored answer (of user) into the guild's scores
// as it was counted when recorded: an answer to a post through
// countAnswer, a review answer through countReview (its streak only).
// RebuildScores' recount calls it for each counted answer, so that a
// rebuild reproduces reviews too; sources caches the lookups.
func countStored(tx *bbolt.Tx, g *bbolt.Bucket, d *deltas, loc *time.Location, user questions.UserID, ra recAnswer, sources map[questions.PostID]postSource) error {
	if ra.review {
		return countReview(g, d, user, ra.at, loc)
	}
	src, err := sourceOf(tx, ra.id, sources)
	if err != nil {
		return err
	}
	return countAnswer(g, d, user, questions.Grade{Right: ra.right, RightPicks: ra.picks, Points: ra.points}, ra.at, loc, src.topics)
}

// countReview counts a review answer of user at `at` into the guild's
// scores: a study day for the streak (all-time score and streak index),
// and nothing else, so reviews never move points, answer counts, accuracy
// or any leaderboard order. A member without an all-time score gets one
// with 0 points (as a rebuild would give them). The ranking counters
// change in d (nil: written at once).
func countReview(g *bbolt.Bucket, d *deltas, user questions.UserID, at time.Time, loc *time.Location) error {
	keys, day := periodKeys(at, loc)
	all, err := periodRW(g, keys[0], d)
	if err != nil {
		return err
	}
	mb, err := membersRW(g)
	if err != nil {
		return err
	}
	m, ok, err := getMember(mb, d, user)
	if err != nil {
		return err
	}
	s := m.all
	study(&s, day)
	if ok && s == m.all {
		return nil
	}
	if err := all.set(m.all, ok, s); err != nil {
		return err
	}
	if err := moveStreak(g.Bucket(bStreaks), d, m.all, ok, s); err != nil {
		return err
	}
	m.all = s
	return putMember(mb, d, m)
}

// rebuildMemory recomputes the cards of the guild's answer records from
// the answers they hold (to posts, to reviews and in ended mock exams,
// whatever the resets), in recording order, with questions.Remember as the answers did: those of
// every record, or only those for which only(user, questionID) is true.
// A record left without answers is deleted. Answers whose post is gone
// are skipped. Its cost is a pass over the guild's answer records.
func rebuildMemory(tx *bbolt.Tx, g *bbolt.Bucket, only func(user questions.UserID, questionID string) bool) error {
	b := g.Bucket(bAnswers)
	if b == nil {
		return nil
	}
	type change struct{ k, v []byte }
	var changes []change
	sources := map[questions.PostID]postSource{}
	names := namesOf(g)
	err := b.ForEach(func(k, v []byte) error {
		qid, err := names.of(recordNum(k))
		if err != nil {
			return err
		}
		if len(k) < 8 || only != nil && !only(getID[questions.UserID](k), qid) {
			return nil
		}
		rec, err := decodeRecord(k, v, qid)
		if err != nil {
			return err
		}
		if err := replay(tx, &rec, sources); err != nil {
			return err
		}
		var nv []byte
		if len(rec.answers) > 0 {
			nv = encodeRecord(rec)
		}
		changes = append(changes, change{slices.Clone(k), nv})
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range changes {
		if c.v == nil {
			err = b.Delete(c.k)
		} else {
			err = b.Put(c.k, c.v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// replay recomputes rec's card from its answers in order.
func replay(tx *bbolt.Tx, rec *record, sources map[questions.PostID]postSource) error {
	rec.mem = questions.Memory{}
	if rec.qid == "" {
		return nil
	}
	m := questions.Memory{UserID: rec.user, QuestionID: rec.qid}
	for _, ra := range rec.answers {
		var closes time.Time
		if !ra.review && !ra.mock {
			src, err := sourceOf(tx, ra.id, sources)
			if errors.Is(err, questions.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			closes = src.closesAt
		}
		m = questions.Remember(m, ra.attempt(), closes)
	}
	rec.mem = m
	return nil
}

// buildMemory is version 5: guilds/<g>/memory, exams and reviews in every
// guild, and every member's memory of every question computed from the
// stored answers, so members who upgrade keep their history. It works on
// the layout of version 7 (see legacy.go).
func buildMemory(tx *bbolt.Tx) error {
	return eachGuild(tx, func(tx *bbolt.Tx, g *bbolt.Bucket) error {
		for _, b := range [][]byte{bExams, bReviews} {
			if _, err := g.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if g.Bucket(bAnswersV7) == nil {
			_, err := g.CreateBucketIfNotExists(bMemoryV7)
			return err
		}
		return rebuildMemoryV7(tx, g)
	})
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
		out, err = memoriesOf(guildRO(tx, guildID), nil, userID, nil, out)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("memories: %w", err)
	}
	return out, nil
}

// memoriesOf appends to out the user's memories in guild bucket g, sorted
// by question ID, those of the questions in keep only when keep is not
// nil; names resolves question numbers (nil: a new one).
func memoriesOf(g *bbolt.Bucket, names *questionNames, user questions.UserID, keep map[string]bool, out []questions.Memory) ([]questions.Memory, error) {
	b := sub(g, bAnswers)
	if b == nil {
		return out, nil
	}
	if names == nil {
		names = namesOf(g)
	}
	from := len(out)
	prefix := u64(user)
	c := b.Cursor()
	for k, v := c.Seek(prefix); hasPrefix(k, prefix); k, v = c.Next() {
		if len(k) == 8 {
			continue // the answers to posts without a question ID: no memory
		}
		qid, err := names.of(recordNum(k))
		if err != nil {
			return out, err
		}
		if keep != nil && !keep[qid] {
			continue
		}
		rec, err := decodeRecord(k, v, qid)
		if err != nil {
			return out, err
		}
		out = append(out, rec.mem)
	}
	slices.SortFunc(out[from:], func(a, b questions.Memory) int { return strings.Compare(a.QuestionID, b.QuestionID) })
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
		g := guildRO(tx, guildID)
		names := namesOf(g)
		out = out[:0]
		for _, u := range users {
			var err error
			if out, err = memoriesOf(g, names, u, keep, out); err != nil {
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
			p := periodOf(k, periods.Bucket(k))
			if p.pts.groups == nil {
				continue
			}
			rc := p.pts.cursor()
			for k, _ := rc.seek(firstFence); k != nil; k, _ = rc.next() {
				seen[rankKeyUser(k)] = true
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
		mems, err := memoriesOf(guildRO(tx, guildID), nil, userID, nil, nil)
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

// answerRef is an answer to recount: its member, its answer, and the key
// of its record.
type answerRef struct {
	user questions.UserID
	ra   recAnswer
}

// sortRefs puts refs in recording order.
func sortRefs(refs []answerRef) {
	slices.SortFunc(refs, func(x, y answerRef) int { return cmp.Compare(x.ra.seq, y.ra.seq) })
}
