package storage

// This file writes files in the layout of schema version 7, as the build
// before version 8 did (its write path, frozen: answers keyed by post and
// member, memories apart, per-period score rows, flat rankings and their
// histograms, topic stats, 26-byte streak keys, JSON reviews), so that the
// migrations are tested from genuine older files. TestV7WriterMatchesGolden
// holds it to a dump that build wrote (testdata/answers-v7.golden).

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// guildSubBucketsV7 are the buckets version 7 created with a guild.
var guildSubBucketsV7 = [][]byte{bInfo, bAnswersV7, bAsked, bBanks, bResets, bTopicsV7, bStreaks, bPeriods, bDrafts,
	bMemoryV7, bExams, bReviews, bShown, bBankData, bBankInfo}

// v7Guild returns guilds/<g>, creating it and the buckets version 7 kept
// in it when it is new (only those missing when it exists: a guild created
// through this build's API has its buckets).
func v7Guild(tx *bbolt.Tx, guildID questions.GuildID) (*bbolt.Bucket, error) {
	g, err := tx.Bucket(bGuilds).CreateBucketIfNotExists(u64(guildID))
	if err != nil {
		return nil, err
	}
	for _, name := range guildSubBucketsV7 {
		if bytes.Equal(name, bMemoryV7) {
			continue // created by the first answer (rememberAnswer), as version 7 did
		}
		if _, err := g.CreateBucketIfNotExists(name); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func encodeAnswerV7(seq uint64, a questions.Answer) []byte {
	b := binary.BigEndian.AppendUint64(nil, seq)
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

func encodeScoreV7(s questions.Score) []byte {
	b := make([]byte, scoreFixedV7, scoreFixedV7+len(s.LastStudyDay))
	binary.BigEndian.PutUint64(b[0:], uint64(s.Points))
	binary.BigEndian.PutUint64(b[8:], uint64(s.Answered))
	binary.BigEndian.PutUint64(b[16:], uint64(s.Correct))
	binary.BigEndian.PutUint64(b[24:], timeKey(s.ReachedAt))
	binary.BigEndian.PutUint64(b[32:], uint64(s.CurrentStreak))
	binary.BigEndian.PutUint64(b[40:], uint64(s.BestStreak))
	return append(b, s.LastStudyDay...)
}

// v7Period is a version-7 period: rows, flat rankings and histograms.
type v7Period struct {
	b, rows, pts, ph, acc, ah *bbolt.Bucket
}

func v7PeriodRW(g *bbolt.Bucket, key []byte) (v7Period, error) {
	periods := g.Bucket(bPeriods)
	b := periods.Bucket(key)
	if b == nil {
		var err error
		if b, err = periods.CreateBucket(key); err != nil {
			return v7Period{}, err
		}
		for _, name := range [][]byte{bRowsV7, bPtsV7, bPtsHistV7, bAccV7, bAccHistV7} {
			if _, err := b.CreateBucket(name); err != nil {
				return v7Period{}, err
			}
		}
	}
	return v7Period{b: b, rows: b.Bucket(bRowsV7), pts: b.Bucket(bPtsV7), ph: b.Bucket(bPtsHistV7), acc: b.Bucket(bAccV7), ah: b.Bucket(bAccHistV7)}, nil
}

func (p v7Period) row(user questions.UserID) (questions.Score, bool) {
	v := p.rows.Get(u64(user))
	if v == nil {
		return questions.Score{UserID: user}, false
	}
	return decodeScoreV7(user, v), true
}

func (p v7Period) addCount(key []byte, delta int) error {
	n := int(getU64(p.b.Get(key))) + delta
	if n <= 0 {
		return p.b.Delete(key)
	}
	return p.b.Put(key, u64(uint64(n)))
}

// v7RankLevels are version 7's histogram levels.
var v7RankLevels = [...]int{8, 16, 18, 19, 20}

// v7Move moves a key of a flat ranking and its histogram.
func v7Move(keys, hist *bbolt.Bucket, old, new []byte) error {
	if old != nil && new != nil && bytes.Equal(old, new) {
		return nil
	}
	if old != nil {
		if err := keys.Delete(old); err != nil {
			return err
		}
	}
	if new != nil {
		if err := keys.Put(new, nil); err != nil {
			return err
		}
	}
	bump := func(level int, key []byte, delta int) error {
		hk := append([]byte{byte(level)}, key[:v7RankLevels[level]]...)
		n := delta + int(getU64(hist.Get(hk)))
		if n <= 0 {
			return hist.Delete(hk)
		}
		return hist.Put(hk, u64(uint64(n)))
	}
	for level, n := range v7RankLevels {
		if old != nil && new != nil && bytes.Equal(old[:n], new[:n]) {
			continue
		}
		if old != nil {
			if err := bump(level, old, -1); err != nil {
				return err
			}
		}
		if new != nil {
			if err := bump(level, new, +1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p v7Period) set(old questions.Score, had bool, s questions.Score) error {
	if err := p.rows.Put(u64(s.UserID), encodeScoreV7(s)); err != nil {
		return err
	}
	var oldPts, oldAcc, newAcc []byte
	if had {
		oldPts = pointsKey(old)
		if onAccuracyBoard(old) {
			oldAcc = accKey(old)
		}
	} else if err := p.addCount(kMembers, 1); err != nil {
		return err
	}
	if err := v7Move(p.pts, p.ph, oldPts, pointsKey(s)); err != nil {
		return err
	}
	if onAccuracyBoard(s) {
		newAcc = accKey(s)
	}
	if (oldAcc == nil) != (newAcc == nil) {
		d := 1
		if newAcc == nil {
			d = -1
		}
		if err := p.addCount(kAccMembers, d); err != nil {
			return err
		}
	}
	return v7Move(p.acc, p.ah, oldAcc, newAcc)
}

func v7MoveStreak(b *bbolt.Bucket, old questions.Score, had bool, s questions.Score) error {
	nk := streakKeyV7(s)
	if had {
		if ok := streakKeyV7(old); ok != nil {
			if bytes.Equal(ok, nk) {
				return nil
			}
			if err := b.Delete(ok); err != nil {
				return err
			}
		}
	}
	return b.Put(nk, nil)
}

// v7CountAnswer is version 7's countAnswer.
func v7CountAnswer(g *bbolt.Bucket, user questions.UserID, gr questions.Grade, at time.Time, loc *time.Location, topics []string) error {
	keys, day := periodKeys(at, loc)
	var ps [4]v7Period
	for i, k := range keys {
		p, err := v7PeriodRW(g, k)
		if err != nil {
			return err
		}
		ps[i] = p
	}
	old, had := ps[0].row(user)
	s := old
	addGrade(&s, gr, at)
	study(&s, day)
	if err := ps[0].set(old, had, s); err != nil {
		return err
	}
	if err := v7MoveStreak(g.Bucket(bStreaks), old, had, s); err != nil {
		return err
	}
	for _, p := range ps[1:] {
		old, had := p.row(user)
		ns := old
		addGrade(&ns, gr, at)
		ns.CurrentStreak, ns.BestStreak, ns.LastStudyDay = 0, 0, ""
		if err := p.set(old, had, ns); err != nil {
			return err
		}
	}
	tb := g.Bucket(bTopicsV7)
	for _, topic := range topics {
		k := cat(u64(user), []byte(topic))
		v := tb.Get(k)
		answered, correct := getU64(v)+1, uint64(0)
		if len(v) == 16 {
			correct = getU64(v[8:])
		}
		if gr.Right {
			correct++
		}
		if err := tb.Put(k, cat(u64(answered), u64(correct))); err != nil {
			return err
		}
	}
	return nil
}

// v7Remember is version 7's rememberAnswer.
func v7Remember(g *bbolt.Bucket, user questions.UserID, qid string, a questions.Attempt, closesAt time.Time) error {
	if qid == "" {
		return nil
	}
	b, err := g.CreateBucketIfNotExists(bMemoryV7)
	if err != nil {
		return err
	}
	k := cat(u64(user), []byte(qid))
	m := questions.Memory{UserID: user, QuestionID: qid}
	if v := b.Get(k); v != nil {
		if m, err = decodeMemoryV7(k, v); err != nil {
			return err
		}
	}
	return b.Put(k, encodeMemoryV7(questions.Remember(m, a, closesAt)))
}

// v7RecordAnswer records a as version 7's RecordAnswer did in tx; it
// returns the answer, or a refusal.
func v7RecordAnswer(db *DB, tx *bbolt.Tx, a questions.Answer) (questions.Answer, error) {
	a.At = a.At.UTC()
	p, err := getPost(tx, a.PostID)
	if err != nil {
		return questions.Answer{}, err
	}
	if p.GuildID != a.GuildID {
		return questions.Answer{}, fmt.Errorf("post %d: %w", p.ID, questions.ErrWrongGuild)
	}
	key := cat(u64(p.ID), u64(a.UserID))
	if v := getIn(sub(guildRO(tx, p.GuildID), bAnswersV7), key); v != nil {
		stored, _ := decodeAnswerV7(p.GuildID, key, v)
		return stored, questions.ErrAlreadyAnswered
	}
	if p.Closed || !p.ClosesAt.IsZero() && !a.At.Before(p.ClosesAt) {
		return questions.Answer{}, questions.ErrClosed
	}
	choice, err := questions.NormalizeChoice(a.Choice, p.OptionCount, p.SelectCount)
	if err != nil {
		return questions.Answer{}, err
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(p.Correct, choice)
	g, err := v7Guild(tx, p.GuildID)
	if err != nil {
		return questions.Answer{}, err
	}
	answers := g.Bucket(bAnswersV7)
	seq, err := answers.NextSequence()
	if err != nil {
		return questions.Answer{}, err
	}
	if err := answers.Put(key, encodeAnswerV7(seq, a)); err != nil {
		return questions.Answer{}, err
	}
	for _, l := range a.Choice {
		p.Tallies[questions.LetterIndex(l)]++
	}
	p.Answers++
	if a.Right {
		p.Right++
	}
	if err := putPost(tx, p); err != nil {
		return questions.Answer{}, err
	}
	loc, err := db.guildLocation(tx, p.GuildID)
	if err != nil {
		return questions.Answer{}, err
	}
	if err := v7CountAnswer(g, a.UserID, a.Grade, a.At, loc, topicsOf(p)); err != nil {
		return questions.Answer{}, err
	}
	return a, v7Remember(g, a.UserID, p.QuestionID, questions.Attempt{At: a.At, Right: a.Right}, p.ClosesAt)
}

// v7StartReview stores r as version 7's StartReview did: a JSON record
// and the shown index, after deleting the member's reviews not answered
// that expired and the oldest beyond the cap.
func v7StartReview(t testing.TB, db *DB, r questions.Review) questions.Review {
	t.Helper()
	if r.OpenedAt.IsZero() {
		r.OpenedAt = db.now()
	}
	r.OpenedAt = r.OpenedAt.UTC()
	if r.ExpiresAt.IsZero() {
		r.ExpiresAt = r.OpenedAt.Add(questions.ReviewExpiry)
	}
	r.ExpiresAt = r.ExpiresAt.UTC()
	v, err := json.Marshal(reviewRec{UserID: r.UserID, QuestionID: r.QuestionID, Bank: r.Bank, Tags: r.Tags,
		Correct: r.Correct, OptionCount: r.OptionCount, SelectCount: r.SelectCount, OpenedAt: r.OpenedAt, ExpiresAt: r.ExpiresAt})
	if err != nil {
		t.Fatal(err)
	}
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		id, err := tx.Bucket(bPosts).NextSequence()
		if err != nil {
			return err
		}
		g, err := v7Guild(tx, r.GuildID)
		if err != nil {
			return err
		}
		if err := v7DeleteShown(g, r.UserID, r.OpenedAt, questions.MaxOpenReviews-1); err != nil {
			return err
		}
		r.ID = questions.ReviewID(id)
		if err := g.Bucket(bShown).Put(cat(u64(r.UserID), u64(id)), nil); err != nil {
			return err
		}
		return g.Bucket(bReviews).Put(u64(id), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// v7DeleteShown is version 7's deleteShown.
func v7DeleteShown(g *bbolt.Bucket, user questions.UserID, now time.Time, keep int) error {
	shown, reviews, answers := g.Bucket(bShown), g.Bucket(bReviews), g.Bucket(bAnswersV7)
	type entry struct{ key, id []byte }
	var stale, live []entry
	prefix := u64(user)
	c := shown.Cursor()
	for k, _ := c.Seek(prefix); hasPrefix(k, prefix); k, _ = c.Next() {
		e := entry{bytes.Clone(k), bytes.Clone(k[8:])}
		v := getIn(reviews, e.id)
		if v == nil || getIn(answers, cat(e.id, prefix)) != nil {
			stale = append(stale, entry{key: e.key})
			continue
		}
		var r reviewRec
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		if !now.Before(r.ExpiresAt) {
			stale = append(stale, e)
		} else {
			live = append(live, e)
		}
	}
	drop := stale
	if keep >= 0 && len(live) > keep {
		drop = append(drop, live[:len(live)-keep]...)
	}
	for _, e := range drop {
		if err := shown.Delete(e.key); err != nil {
			return err
		}
		if e.id != nil {
			if err := reviews.Delete(e.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// v7RecordReview records a review answer as version 7's RecordReview did
// in tx (without its check that the question is not open).
func v7RecordReview(db *DB, tx *bbolt.Tx, a questions.Answer) (questions.Answer, error) {
	a.At = a.At.UTC()
	r, err := getReview(tx, a.GuildID, questions.ReviewID(a.PostID))
	if err != nil {
		return questions.Answer{}, err
	}
	if r.UserID != a.UserID {
		return questions.Answer{}, questions.ErrNotYours
	}
	key := cat(u64(r.ID), u64(a.UserID))
	if v := getIn(sub(guildRO(tx, a.GuildID), bAnswersV7), key); v != nil {
		stored, _ := decodeAnswerV7(a.GuildID, key, v)
		return stored, questions.ErrAlreadyAnswered
	}
	if !a.At.Before(r.ExpiresAt) {
		return questions.Answer{}, questions.ErrClosed
	}
	open, err := db.questionOpen(tx, a.GuildID, r.QuestionID)
	if err != nil {
		return questions.Answer{}, err
	}
	if open {
		return questions.Answer{}, questions.ErrQuestionOpen
	}
	choice, err := questions.NormalizeChoice(a.Choice, r.OptionCount, r.SelectCount)
	if err != nil {
		return questions.Answer{}, err
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(r.Correct, choice)
	a.Points = 0
	g, err := v7Guild(tx, a.GuildID)
	if err != nil {
		return questions.Answer{}, err
	}
	answers := g.Bucket(bAnswersV7)
	seq, err := answers.NextSequence()
	if err != nil {
		return questions.Answer{}, err
	}
	if err := answers.Put(key, encodeAnswerV7(seq, a)); err != nil {
		return questions.Answer{}, err
	}
	if err := g.Bucket(bShown).Delete(cat(u64(a.UserID), u64(r.ID))); err != nil {
		return questions.Answer{}, err
	}
	loc, err := db.guildLocation(tx, a.GuildID)
	if err != nil {
		return questions.Answer{}, err
	}
	keys, day := periodKeys(a.At, loc)
	all, err := v7PeriodRW(g, keys[0])
	if err != nil {
		return questions.Answer{}, err
	}
	old, had := all.row(a.UserID)
	s := old
	study(&s, day)
	if !had || s != old {
		if err := all.set(old, had, s); err != nil {
			return questions.Answer{}, err
		}
		if err := v7MoveStreak(g.Bucket(bStreaks), old, had, s); err != nil {
			return questions.Answer{}, err
		}
	}
	return a, v7Remember(g, a.UserID, r.QuestionID, questions.Attempt{At: a.At, Right: a.Right, Review: true}, time.Time{})
}

// v7Answer records an answer in its own transaction as version 7 did and
// fails the test on a refusal.
func v7Answer(t testing.TB, db *DB, p questions.Post, user questions.UserID, at time.Time, choice ...string) questions.Answer {
	t.Helper()
	var a questions.Answer
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		var err error
		a, err = v7RecordAnswer(db, tx, questions.Answer{PostID: p.ID, GuildID: p.GuildID, UserID: user,
			InteractionID: uint64(user)*1000 + uint64(p.ID), Choice: choice, At: at})
		return err
	})
	if err != nil {
		t.Fatalf("v7 answer (post %d, user %d): %v", p.ID, user, err)
	}
	return a
}

// openV7 opens a new file at path at schema version n (7 or before), for
// writing with the functions above.
func openV7(t testing.TB, path string, n int) *DB {
	t.Helper()
	db, err := open(t.Context(), path, Options{Now: func() time.Time { return t0 }, NoSync: true}, migrations()[:n])
	if err != nil {
		t.Fatal(err)
	}
	return db
}
