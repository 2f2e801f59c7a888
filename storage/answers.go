package storage

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
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
	if stored, ok := storedAnswer(guildRO(tx, p.GuildID), d, p.GuildID, a.UserID, p.QuestionID, p.ID); ok {
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
	num, prior, priorRight, err := storeAnswer(g, d, p.QuestionID, p.ID, a, false, p.ClosesAt)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if err := countStats(g, d, num, p, a, prior, priorRight); err != nil {
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
		p, err := db.post(tx, postID)
		if err != nil {
			return err
		}
		stored, ok := storedAnswer(guildRO(tx, p.GuildID), nil, p.GuildID, userID, p.QuestionID, postID)
		if !ok {
			return fmt.Errorf("answer of member %d to post %d: %w", userID, postID, questions.ErrNotFound)
		}
		a = stored
		return nil
	})
	if err != nil {
		return questions.Answer{}, fmt.Errorf("answer: %w", err)
	}
	return a, nil
}

// Answers returns every answer to a post, in user ID order. It returns an
// error wrapping questions.ErrNotFound for an unknown post. Its cost is a
// pass over the guild's answer records (answers are kept by member and
// question: see doc.go), for tests and tools rather than the bot. Safe for
// concurrent use.
func (db *DB) Answers(postID questions.PostID) ([]questions.Answer, error) {
	var out []questions.Answer
	err := db.view(func(tx *bbolt.Tx) error {
		p, err := db.post(tx, postID)
		if err != nil {
			return err
		}
		return eachRecordOf(guildRO(tx, p.GuildID), p.QuestionID, func(_ []byte, rec record) error {
			for _, ra := range rec.answers {
				if ra.id == postID && !ra.mock {
					out = append(out, ra.answer(p.GuildID, rec.user))
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("answers: %w", err)
	}
	slices.SortFunc(out, func(x, y questions.Answer) int { return cmp.Compare(x.UserID, y.UserID) })
	return out, nil
}
