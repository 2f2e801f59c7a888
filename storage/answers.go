package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// RecordAnswer records a member's answer to a post: the hot path, called
// by many members at once. a carries PostID, GuildID, UserID,
// InteractionID, Choice and At (zero: now). It refuses, with a plain error,
// an At that cannot be stored (a year outside 1..9999, or outside the
// range of Unix nanoseconds, about 1678 to 2262).
//
// It checks the post exists (error wrapping questions.ErrNotFound) and
// belongs to a.GuildID (questions.ErrWrongGuild); if the member has
// answered this post already, it changes nothing and returns the STORED
// answer with an error wrapping questions.ErrAlreadyAnswered (compare
// InteractionID to tell a redelivery of the same interaction from a second
// answer); this comes before the checks below, so a redelivery after the
// close is still recognised. Then the post must be open and a.At before
// ClosesAt when set (questions.ErrClosed), and the choice valid
// (questions.ErrBadChoice). Otherwise, in one transaction, it grades the
// choice, stores the answer, and updates the post's tallies, the member's
// scores for the day, week, month and all time (in the guild's time zone
// at a.At), streaks, topic stats ("bank:<bank>", "tag:<tag>") and the
// leaderboard indexes, and returns the stored answer with Grade filled and
// Choice sorted.
//
// The checks run first in a read transaction, so a refused answer costs
// no commit; they run again in the write transaction, which decides.
// RecordAnswer returns after the commit is durable (fsync). Concurrent calls
// share commits (group commit); it is safe for concurrent use.
func (db *DB) RecordAnswer(ctx context.Context, a questions.Answer) (questions.Answer, error) {
	return db.record(ctx, "record answer", a,
		func(tx *bbolt.Tx, a questions.Answer) (questions.Answer, error) {
			_, out, refused := db.checkAnswer(tx, nil, a)
			return out, refused
		},
		db.recordAnswer)
}

// record is the hot path shared by RecordAnswer and RecordReview: it
// stamps and checks a's time, decides refusals with check in a read
// transaction (no commit for them), then records with write in the group
// commit, where check runs again and decides. write returns the stored
// answer, a refusal (a domain error, nothing written) or a storage error;
// its ranking counters change in the transaction's deltas.
func (db *DB) record(ctx context.Context, op string, a questions.Answer,
	check func(*bbolt.Tx, questions.Answer) (questions.Answer, error),
	write func(*bbolt.Tx, *deltas, questions.Answer) (questions.Answer, error, error)) (questions.Answer, error) {
	if a.At.IsZero() {
		a.At = db.now()
	}
	a.At = a.At.UTC()
	// Times are stored as Unix nanoseconds, 0 meaning "no time": refuse what
	// that cannot hold, and the one instant that would encode as 0.
	if y := a.At.Year(); y < 1 || y > 9999 || !time.Unix(0, a.At.UnixNano()).Equal(a.At) || a.At.UnixNano() == math.MinInt64 {
		return questions.Answer{}, fmt.Errorf("%s: time %s out of range", op, a.At.Format(time.RFC3339))
	}
	var out questions.Answer
	var refused error
	err := db.view(func(tx *bbolt.Tx) error {
		out, refused = check(tx, a)
		return nil
	})
	if err == nil && refused == nil {
		err = db.write(ctx, func(tx *bbolt.Tx, d *deltas) error {
			// May run more than once: reset the outputs, write nothing before
			// every refusal is decided, and report refusals as outputs (a nil
			// return) so they do not force the shared transaction to be retried.
			out, refused = questions.Answer{}, nil
			var err error
			out, refused, err = write(tx, d, a)
			return err
		})
	}
	if err != nil {
		return questions.Answer{}, fmt.Errorf("%s: %w", op, err)
	}
	if refused != nil {
		return out, fmt.Errorf("%s: %w", op, refused)
	}
	return out, nil
}

// checkAnswer decides, reading only, whether a may be recorded. It returns
// the post (as the transaction of d leaves it: see postIn) and a graded
// with its choice normalised; or a refusal (a domain error), with the
// stored answer when the refusal is ErrAlreadyAnswered.
func (db *DB) checkAnswer(tx *bbolt.Tx, d *deltas, a questions.Answer) (questions.Post, questions.Answer, error) {
	p, err := db.postIn(tx, d, a.PostID)
	if err != nil {
		return questions.Post{}, questions.Answer{}, err
	}
	if p.GuildID != a.GuildID {
		return questions.Post{}, questions.Answer{}, fmt.Errorf("post %d: %w", p.ID, questions.ErrWrongGuild)
	}
	var kb [16]byte
	key := answerKey(&kb, p.ID, a.UserID)
	if v := d.get(sub(guildRO(tx, p.GuildID), bAnswers), key); v != nil {
		stored, _ := decodeAnswer(p.GuildID, key, v)
		return questions.Post{}, stored, fmt.Errorf("post %d, member %d: %w", p.ID, a.UserID, questions.ErrAlreadyAnswered)
	}
	if p.Closed || !p.ClosesAt.IsZero() && !a.At.Before(p.ClosesAt) {
		return questions.Post{}, questions.Answer{}, fmt.Errorf("post %d: %w", p.ID, questions.ErrClosed)
	}
	choice, err := questions.NormalizeChoice(a.Choice, p.OptionCount, p.SelectCount)
	if err != nil {
		return questions.Post{}, questions.Answer{}, err
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(p.Correct, choice)
	return p, a, nil
}

// putAnswer stores a, the answer to post or review id, under the guild's
// next answer sequence number (which resets and rebuilds count by).
func putAnswer(g *bbolt.Bucket, d *deltas, id questions.PostID, a questions.Answer) error {
	answers := g.Bucket(bAnswers)
	seq, err := answers.NextSequence()
	if err != nil {
		return err
	}
	var kb [16]byte
	return d.put(answers, answerKey(&kb, id, a.UserID), appendAnswer(d.value(answerLen(a)), seq, a))
}

// answerKey writes the key of user's answer to post (or review) id into
// kb and returns it: <id><user>.
func answerKey(kb *[16]byte, id questions.PostID, user questions.UserID) []byte {
	binary.BigEndian.PutUint64(kb[:8], uint64(id))
	binary.BigEndian.PutUint64(kb[8:], uint64(user))
	return kb[:]
}

// recordAnswer returns the stored answer, a refusal (domain error, nothing
// written) or a storage error.
func (db *DB) recordAnswer(tx *bbolt.Tx, d *deltas, a questions.Answer) (questions.Answer, error, error) {
	p, a, refused := db.checkAnswer(tx, d, a)
	if refused != nil {
		return a, refused, nil
	}

	// Accepted: from here on, write.
	g, err := guildRW(tx, p.GuildID)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if err := putAnswer(g, d, p.ID, a); err != nil {
		return questions.Answer{}, nil, err
	}
	topics, err := db.tally(tx, d, p, a)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	loc, err := db.locationIn(tx, d, p.GuildID)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if err := countAnswer(g, d, a.UserID, a.Grade, a.At, loc, topics); err != nil {
		return questions.Answer{}, nil, err
	}
	if err := rememberAnswer(g, d, a.UserID, p.QuestionID, questions.Attempt{At: a.At, Right: a.Right}, p.ClosesAt); err != nil {
		return questions.Answer{}, nil, err
	}
	return a, nil, nil
}

// postIn returns post id as the transaction of d leaves it: with the
// tallies of its answers so far (pending in d) if any; as stored else.
// The post's slices may be d's: the caller must not change them (tally
// does).
func (db *DB) postIn(tx *bbolt.Tx, d *deltas, id questions.PostID) (questions.Post, error) {
	if pp := d.post(id); pp != nil {
		return pp.p, nil
	}
	return db.post(tx, id)
}

// tally counts a's choice into the tallies of p (as postIn returned it)
// and returns the topic keys an answer to p counts toward. With d the
// post is written once, when d flushes; with nil at once.
func (db *DB) tally(tx *bbolt.Tx, d *deltas, p questions.Post, a questions.Answer) ([]string, error) {
	pp := d.post(p.ID)
	if pp == nil {
		if d == nil {
			pp = &pendingPost{p: p, topics: topicsOf(p)}
		} else {
			pp = d.addPost(tx.Bucket(bPosts), &db.postCache, p)
		}
	}
	for _, l := range a.Choice {
		pp.p.Tallies[questions.LetterIndex(l)]++
	}
	pp.p.Answers++
	if a.Right {
		pp.p.Right++
	}
	if d == nil {
		return pp.topics, db.putPost(tx, pp.p)
	}
	return pp.topics, nil
}

// Answer returns a member's answer to a post. It returns an error wrapping
// questions.ErrNotFound if the post does not exist or the member has not
// answered it. Safe for concurrent use.
func (db *DB) Answer(postID questions.PostID, userID questions.UserID) (questions.Answer, error) {
	var a questions.Answer
	err := db.view(func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		key := cat(u64(postID), u64(userID))
		v := getIn(sub(guildRO(tx, p.GuildID), bAnswers), key)
		if v == nil {
			return fmt.Errorf("answer of member %d to post %d: %w", userID, postID, questions.ErrNotFound)
		}
		a, _ = decodeAnswer(p.GuildID, key, v)
		return nil
	})
	if err != nil {
		return questions.Answer{}, fmt.Errorf("answer: %w", err)
	}
	return a, nil
}

// Answers returns every answer to a post, in user ID order. It returns an
// error wrapping questions.ErrNotFound for an unknown post. Safe for
// concurrent use.
func (db *DB) Answers(postID questions.PostID) ([]questions.Answer, error) {
	var out []questions.Answer
	err := db.view(func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		b := sub(guildRO(tx, p.GuildID), bAnswers)
		if b == nil {
			return nil
		}
		prefix := u64(postID)
		c := b.Cursor()
		for k, v := c.Seek(prefix); hasPrefix(k, prefix); k, v = c.Next() {
			a, _ := decodeAnswer(p.GuildID, k, v)
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("answers: %w", err)
	}
	return out, nil
}
