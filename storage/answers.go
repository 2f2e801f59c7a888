package storage

import (
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// RecordAnswer records a member's answer to a post: the hot path, called
// by many members at once. a carries PostID, GuildID, UserID,
// InteractionID, Choice and At (zero: now).
//
// In one transaction it checks the post exists (error wrapping
// questions.ErrNotFound) and belongs to a.GuildID (questions.ErrWrongGuild);
// if the member has answered this post already, it changes nothing and
// returns the STORED answer with an error wrapping
// questions.ErrAlreadyAnswered (compare InteractionID to tell a redelivery
// of the same interaction from a second answer); this comes before the
// checks below, so a redelivery after the close is still recognised. Then
// the post must be open and a.At before ClosesAt when set
// (questions.ErrClosed), and the choice valid (questions.ErrBadChoice).
// Otherwise it grades the choice, stores the answer, and updates the
// post's tallies, the member's scores for the day, week, month and all
// time (in the guild's time zone at a.At), streaks, topic stats
// ("bank:<bank>", "tag:<tag>") and the leaderboard indexes, and returns the
// stored answer with Grade filled and Choice sorted.
//
// RecordAnswer returns after the commit is durable (fsync). Concurrent calls
// share commits (group commit); it is safe for concurrent use.
func (db *DB) RecordAnswer(a questions.Answer) (questions.Answer, error) {
	if a.At.IsZero() {
		a.At = db.now()
	}
	a.At = a.At.UTC()
	var out questions.Answer
	var refused error
	fn := func(tx *bbolt.Tx) error {
		// May run more than once: reset the outputs, write nothing before
		// every refusal is decided, and report refusals as outputs (a nil
		// return) so they do not force the shared transaction to be retried.
		out, refused = questions.Answer{}, nil
		var err error
		out, refused, err = db.recordAnswer(tx, a)
		return err
	}
	var err error
	if db.boltBatch {
		err = db.bolt.Batch(fn)
	} else {
		err = db.group.do(fn)
	}
	if err != nil {
		return questions.Answer{}, fmt.Errorf("record answer: %w", err)
	}
	if refused != nil {
		return out, fmt.Errorf("record answer: %w", refused)
	}
	return out, nil
}

// recordAnswer returns the stored answer, a refusal (domain error, nothing
// written) or a storage error.
func (db *DB) recordAnswer(tx *bbolt.Tx, a questions.Answer) (questions.Answer, error, error) {
	p, err := getPost(tx, a.PostID)
	if err != nil {
		return questions.Answer{}, err, nil
	}
	if p.GuildID != a.GuildID {
		return questions.Answer{}, fmt.Errorf("post %d: %w", p.ID, questions.ErrWrongGuild), nil
	}
	key := cat(u64(p.ID), u64(a.UserID))
	if v := sub(guildRO(tx, p.GuildID), bAnswers).Get(key); v != nil {
		stored, _ := decodeAnswer(p.GuildID, key, v)
		return stored, fmt.Errorf("post %d, member %d: %w", p.ID, a.UserID, questions.ErrAlreadyAnswered), nil
	}
	if p.Closed || !p.ClosesAt.IsZero() && !a.At.Before(p.ClosesAt) {
		return questions.Answer{}, fmt.Errorf("post %d: %w", p.ID, questions.ErrClosed), nil
	}
	choice, err := questions.NormalizeChoice(a.Choice, p.OptionCount, p.SelectCount)
	if err != nil {
		return questions.Answer{}, err, nil
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(p.Correct, choice)

	// Accepted: from here on, write.
	g, err := guildRW(tx, p.GuildID)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	answers := g.Bucket(bAnswers)
	seq, err := answers.NextSequence()
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if err := answers.Put(key, encodeAnswer(seq, a)); err != nil {
		return questions.Answer{}, nil, err
	}
	for _, l := range choice {
		p.Tallies[questions.LetterIndex(l)]++
	}
	p.Answers++
	if a.Right {
		p.Right++
	}
	if err := putPost(tx, p); err != nil {
		return questions.Answer{}, nil, err
	}
	loc, err := db.guildLocation(tx, p.GuildID)
	if err != nil {
		return questions.Answer{}, nil, err
	}
	if err := countAnswer(g, a.UserID, a.Grade, a.At, loc, topicsOf(p)); err != nil {
		return questions.Answer{}, nil, err
	}
	return a, nil, nil
}

// Answer returns a member's answer to a post. It returns an error wrapping
// questions.ErrNotFound if the post does not exist or the member has not
// answered it. Safe for concurrent use.
func (db *DB) Answer(postID, userID uint64) (questions.Answer, error) {
	var a questions.Answer
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		key := cat(u64(postID), u64(userID))
		v := sub(guildRO(tx, p.GuildID), bAnswers).Get(key)
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
func (db *DB) Answers(postID uint64) ([]questions.Answer, error) {
	var out []questions.Answer
	err := db.bolt.View(func(tx *bbolt.Tx) error {
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
