package storage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Reviews (schema version 5): guilds/<g>/reviews/<review> holds each
// question shown to a member in a private review session; the member's
// answer is stored with their answers to the question's posts, in their
// answer record of the question (answerrec.go), under the review's ID and
// the same sequence (so resets, rebuilds and regrades see every answer in
// recording order). Review IDs come from the posts sequence, so they never
// equal a post ID.
//
// guilds/<g>/shown/<user><review> indexes the reviews not answered yet
// (schema version 6): StartReview puts the key, the answer's transaction
// deletes it. A review not answered by its ExpiresAt can take no answer
// any more, so it is deleted, record and key (deleteShown): when its
// member starts another (StartReview, which also keeps at most
// questions.MaxOpenReviews of them), or by PruneExpired. An answered
// review stays: it is what its answer answers (sourceOf), history like a
// post.

// reviewRec is how a review was stored up to schema version 7 (JSON);
// decodeReview still reads it.
type reviewRec struct {
	UserID      questions.UserID `json:"user"`
	QuestionID  string           `json:"question"`
	Bank        string           `json:"bank,omitempty"`
	Tags        []string         `json:"tags,omitempty"`
	Correct     []string         `json:"correct"`
	OptionCount int              `json:"options"`
	SelectCount int              `json:"select"`
	OpenedAt    time.Time        `json:"openedAt"`
	ExpiresAt   time.Time        `json:"expiresAt"`
}

// Review records (schema version 8): a format byte (reviewFormat; a JSON
// record of version 7 starts with '{'), the member (8 bytes), opened at
// and expires at (8 bytes each, timeKey), the number of options and of
// letters to select (1 byte each), the correct letters (their number, then
// the letters), then the question ID and the bank (each its length and its
// bytes) and the tags (their number, then each).
const reviewFormat = 1

func encodeReview(r questions.Review) []byte {
	b := make([]byte, 0, 40+len(r.Correct)+len(r.QuestionID)+len(r.Bank)+8*len(r.Tags))
	b = append(b, reviewFormat)
	b = binary.BigEndian.AppendUint64(b, uint64(r.UserID))
	b = binary.BigEndian.AppendUint64(b, timeKey(r.OpenedAt))
	b = binary.BigEndian.AppendUint64(b, timeKey(r.ExpiresAt))
	b = append(b, byte(r.OptionCount), byte(r.SelectCount))
	b = binary.AppendUvarint(b, uint64(len(r.Correct)))
	for _, l := range r.Correct {
		b = append(b, l[0])
	}
	b = appendStr(appendStr(b, r.QuestionID), r.Bank)
	b = binary.AppendUvarint(b, uint64(len(r.Tags)))
	for _, t := range r.Tags {
		b = appendStr(b, t)
	}
	return b
}

func decodeReview(guildID questions.GuildID, id questions.ReviewID, v []byte) (questions.Review, error) {
	if len(v) > 0 && v[0] == '{' {
		var r reviewRec
		if err := json.Unmarshal(v, &r); err != nil {
			return questions.Review{}, fmt.Errorf("review %d: %w", id, err)
		}
		return questions.Review{ID: id, GuildID: guildID, UserID: r.UserID, QuestionID: r.QuestionID, Bank: r.Bank,
			Tags: r.Tags, Correct: r.Correct, OptionCount: r.OptionCount, SelectCount: r.SelectCount,
			OpenedAt: r.OpenedAt, ExpiresAt: r.ExpiresAt}, nil
	}
	rd := reader{b: v}
	rv := questions.Review{ID: id, GuildID: guildID}
	if rd.byte() != reviewFormat {
		return questions.Review{}, fmt.Errorf("review %d: damaged record (%d bytes)", id, len(v))
	}
	rv.UserID = questions.UserID(rd.u64())
	rv.OpenedAt, rv.ExpiresAt = keyTime(rd.u64()), keyTime(rd.u64())
	rv.OptionCount, rv.SelectCount = int(rd.byte()), int(rd.byte())
	if n := rd.int(); n <= len(rd.b) {
		for _, l := range rd.bytes(n) {
			rv.Correct = append(rv.Correct, string(l))
		}
	} else {
		rd.bad = true
	}
	rv.QuestionID, rv.Bank = rd.str(), rd.str()
	if n := rd.int(); n <= len(rd.b) {
		for range n {
			rv.Tags = append(rv.Tags, rd.str())
		}
	} else {
		rd.bad = true
	}
	if rd.bad {
		return questions.Review{}, fmt.Errorf("review %d: damaged record (%d bytes)", id, len(v))
	}
	return rv, nil
}

// getReview reads a review of the guild; the error wraps
// questions.ErrNotFound if there is none.
func getReview(tx *bbolt.Tx, guildID questions.GuildID, id questions.ReviewID) (questions.Review, error) {
	v := getIn(sub(guildRO(tx, guildID), bReviews), u64(id))
	if v == nil {
		return questions.Review{}, fmt.Errorf("review %d: %w", id, questions.ErrNotFound)
	}
	return decodeReview(guildID, id, v)
}

// StartReview stores a question about to be shown to a member in a review
// session and returns it with its ID (from the posts sequence: never a
// post's ID, so a custom ID can carry it), OpenedAt set to now if zero and
// ExpiresAt to OpenedAt + questions.ReviewExpiry if zero. r carries the
// guild, member, question ID, bank, tags and the question's current key
// (Correct, OptionCount, SelectCount = len(Correct)); the answer is graded
// against that snapshot. It refuses a review without guild, member or
// question, or whose key is out of range. In the same transaction it
// deletes the member's reviews not answered that expired at r.OpenedAt,
// and the oldest of those left so that, with r, the member has at most
// questions.MaxOpenReviews unanswered (answering a deleted one is
// questions.ErrNotFound). Nothing else changes: the member's memory moves
// only when they answer (RecordReview). Safe for concurrent use.
func (db *DB) StartReview(ctx context.Context, r questions.Review) (questions.Review, error) {
	if r.GuildID == 0 || r.UserID == 0 || r.QuestionID == "" {
		return questions.Review{}, errors.New("start review: no guild, member or question")
	}
	if r.OptionCount < 1 || r.OptionCount > questions.MaxOptions || r.SelectCount < 1 || r.SelectCount > r.OptionCount || len(r.Correct) != r.SelectCount {
		return questions.Review{}, fmt.Errorf("start review: %d options, select %d, %d correct: out of range", r.OptionCount, r.SelectCount, len(r.Correct))
	}
	if _, err := questions.NormalizeChoice(r.Correct, r.OptionCount, r.SelectCount); err != nil {
		return questions.Review{}, fmt.Errorf("start review: key: %w", err)
	}
	if r.OpenedAt.IsZero() {
		r.OpenedAt = db.now()
	}
	r.OpenedAt = r.OpenedAt.UTC()
	if r.ExpiresAt.IsZero() {
		r.ExpiresAt = r.OpenedAt.Add(questions.ReviewExpiry)
	}
	r.ExpiresAt = r.ExpiresAt.UTC()
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		id, err := tx.Bucket(bPosts).NextSequence()
		if err != nil {
			return err
		}
		g, err := guildRW(tx, r.GuildID)
		if err != nil {
			return err
		}
		b, err := g.CreateBucketIfNotExists(bReviews)
		if err != nil {
			return err
		}
		shown, err := g.CreateBucketIfNotExists(bShown)
		if err != nil {
			return err
		}
		if _, err := deleteShown(g, r.UserID, r.OpenedAt, questions.MaxOpenReviews-1); err != nil {
			return err
		}
		if _, _, err := questionNum(g, nil, r.QuestionID, true); err != nil {
			return err
		}
		r.ID = questions.ReviewID(id)
		if err := shown.Put(cat(u64(r.UserID), u64(id)), nil); err != nil {
			return err
		}
		return appendPut(b, u64(id), encodeReview(r))
	})
	if err != nil {
		return questions.Review{}, fmt.Errorf("start review: %w", err)
	}
	return r, nil
}

// Review returns a review of the guild; an error wrapping
// questions.ErrNotFound if there is none. Safe for concurrent use.
func (db *DB) Review(guildID questions.GuildID, reviewID questions.ReviewID) (questions.Review, error) {
	var r questions.Review
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		r, err = getReview(tx, guildID, reviewID)
		return err
	})
	if err != nil {
		return questions.Review{}, fmt.Errorf("review: %w", err)
	}
	return r, nil
}

// RecordReview records a member's answer to a review: a.PostID is the
// review's ID, and a carries GuildID, UserID, InteractionID, Choice and At
// (zero: now). It refuses, like RecordAnswer: an unknown review of the
// guild (questions.ErrNotFound), a review started for another member
// (questions.ErrNotYours), a second answer (questions.ErrAlreadyAnswered,
// returning the STORED answer: compare InteractionID to tell a redelivery),
// an answer at or after ExpiresAt (questions.ErrClosed), an answer while a
// post of the review's question is open in the guild
// (questions.ErrQuestionOpen: its grading would give away the answer of
// an open question; the review takes the answer once the post closes, if
// it has not expired), and an invalid choice (questions.ErrBadChoice).
// Like RecordAnswer's, these checks run in a read transaction first and
// again in the write transaction, which decides: a post created before
// that transaction refuses the answer. Otherwise, in one transaction, it grades
// the choice against the review's key, stores the answer, counts the day
// for the member's streak, and updates the member's memory of the
// question (rated Again or Good at a.At); points, answer counts, accuracy,
// topic stats and leaderboards do not change. It returns the stored answer
// with Grade filled and Choice sorted, after the commit is durable. Safe
// for concurrent use; concurrent calls share commits with RecordAnswer's.
func (db *DB) RecordReview(ctx context.Context, a questions.Answer) (questions.Answer, error) {
	return db.record(ctx, "record review", a,
		func(tx *bbolt.Tx, a questions.Answer) (questions.Answer, error) {
			_, out, refused := db.checkReview(tx, a)
			return out, refused
		},
		db.recordReview)
}

// checkReview decides, reading only, whether a may be recorded; it returns
// the review and a graded, or a refusal (with the stored answer for
// ErrAlreadyAnswered).
func (db *DB) checkReview(tx *bbolt.Tx, a questions.Answer) (questions.Review, questions.Answer, error) {
	r, err := getReview(tx, a.GuildID, questions.ReviewID(a.PostID))
	if err != nil {
		return questions.Review{}, questions.Answer{}, err
	}
	if r.UserID != a.UserID {
		return questions.Review{}, questions.Answer{}, fmt.Errorf("review %d, member %d: %w", r.ID, a.UserID, questions.ErrNotYours)
	}
	if stored, ok := storedAnswer(guildRO(tx, a.GuildID), nil, a.GuildID, a.UserID, r.QuestionID, r.ID.Post()); ok {
		return questions.Review{}, stored, fmt.Errorf("review %d, member %d: %w", r.ID, a.UserID, questions.ErrAlreadyAnswered)
	}
	if !a.At.Before(r.ExpiresAt) {
		return questions.Review{}, questions.Answer{}, fmt.Errorf("review %d: %w", r.ID, questions.ErrClosed)
	}
	open, err := db.questionOpen(tx, a.GuildID, r.QuestionID)
	if err != nil {
		return questions.Review{}, questions.Answer{}, err
	}
	if open {
		return questions.Review{}, questions.Answer{}, fmt.Errorf("review %d, question %q: %w", r.ID, r.QuestionID, questions.ErrQuestionOpen)
	}
	choice, err := questions.NormalizeChoice(a.Choice, r.OptionCount, r.SelectCount)
	if err != nil {
		return questions.Review{}, questions.Answer{}, err
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(r.Correct, choice)
	a.Points = 0 // reviews never score
	return r, a, nil
}

// recordReview returns the stored answer, a refusal (nothing written) or a
// storage error.
func (db *DB) recordReview(tx *bbolt.Tx, d *deltas, a questions.Answer) (questions.Answer, error, error) {
	r, a, refused := db.checkReview(tx, a)
	if refused != nil {
		return a, refused, nil
	}
	g, err := guildRW(tx, a.GuildID)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if _, _, _, err := storeAnswer(g, d, r.QuestionID, r.ID.Post(), a, true, time.Time{}); err != nil {
		return questions.Answer{}, nil, err
	}
	if shown := g.Bucket(bShown); shown != nil {
		if err := shown.Delete(cat(u64(a.UserID), u64(r.ID))); err != nil {
			return questions.Answer{}, nil, err
		}
	}
	loc, err := db.locationIn(tx, d, a.GuildID)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if err := countReview(g, d, a.UserID, a.At, loc); err != nil {
		return questions.Answer{}, nil, err
	}
	return a, nil, nil
}

// deleteShown deletes the member's reviews not answered (guilds/<g>/shown)
// that expired at now, then, when keep >= 0, the oldest of the others
// beyond keep, record and key, and returns how many reviews it deleted. A key whose review has an answer after all, or no record, is
// dropped from the index and the record left alone.
func deleteShown(g *bbolt.Bucket, user questions.UserID, now time.Time, keep int) (int, error) {
	shown, reviews := g.Bucket(bShown), g.Bucket(bReviews)
	if shown == nil {
		return 0, nil
	}
	type entry struct{ key, id []byte }
	var stale, live []entry // live: oldest first
	prefix := u64(user)
	c := shown.Cursor()
	for k, _ := c.Seek(prefix); hasPrefix(k, prefix); k, _ = c.Next() {
		e := entry{append([]byte(nil), k...), append([]byte(nil), k[8:]...)}
		v := getIn(reviews, e.id)
		if v == nil {
			stale = append(stale, entry{key: e.key}) // not a review waiting for its answer
			continue
		}
		r, err := decodeReview(0, getID[questions.ReviewID](e.id), v)
		if err != nil {
			return 0, err
		}
		if _, answered := storedAnswer(g, nil, 0, user, r.QuestionID, r.ID.Post()); answered {
			stale = append(stale, entry{key: e.key})
			continue
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
	deleted := 0
	for _, e := range drop {
		if err := shown.Delete(e.key); err != nil {
			return 0, err
		}
		if e.id == nil {
			continue
		}
		if err := reviews.Delete(e.id); err != nil {
			return 0, err
		}
		deleted++
	}
	return deleted, nil
}
