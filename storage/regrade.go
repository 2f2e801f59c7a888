package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Regrade grades every stored answer to one question of the guild (to its
// posts, to its reviews and in mock exams, whatever the resets) again
// against correct,
// the question's current key, for a question with optionCount options. In
// one transaction it sets the key of the posts that have answers and of
// the question's reviews, answered or still waiting for their answer, of
// optionCount options (Correct, SelectCount, and each post's count of
// right answers) and of its questions in mock exams, ended or open,
// re-grades the stored answers (right, right picks, points; a review
// answer still earns no points), then recounts the guild's scores,
// streaks, topic stats and leaderboards from every counted answer (as
// RebuildScores does) and the members' memories of the question (as
// RebuildMemory does): everything becomes what it would have been had the
// answers been graded against correct from the start.
//
// It refuses, changing nothing, a key that is not 1 to optionCount
// distinct letters among the options, a question open in the guild
// (questions.ErrQuestionOpen: close it first), and a question whose stored posts or
// reviews, or answered mock questions, have another number of options
// (questions.ErrOptionsChanged). It returns what
// changed. Its cost is a pass over the guild's answers plus a rebuild of
// its scores. Safe for concurrent use.
func (db *DB) Regrade(ctx context.Context, guildID questions.GuildID, questionID string, correct []string, optionCount int) (questions.Regraded, error) {
	key, err := questions.NormalizeChoice(correct, optionCount, len(correct))
	if err != nil || len(key) == 0 || optionCount < 1 || optionCount > questions.MaxOptions {
		return questions.Regraded{}, fmt.Errorf("regrade %q: key %v of %d options: %w", questionID, correct, optionCount, questions.ErrBadChoice)
	}
	var out questions.Regraded
	err = db.update(ctx, func(tx *bbolt.Tx) error {
		out = questions.Regraded{}
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		open, err := db.questionOpen(tx, guildID, questionID)
		if err != nil {
			return err
		}
		if open {
			return fmt.Errorf("question %q: %w", questionID, questions.ErrQuestionOpen)
		}
		// The posts and reviews of the question that have answers.
		sources := map[questions.PostID]answerSource{}
		answers := g.Bucket(bAnswers)
		type stored struct {
			key [16]byte
			a   questions.Answer
			seq uint64
		}
		var mine []stored
		c := answers.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(k) != 16 {
				continue
			}
			id := getID[questions.PostID](k)
			src, err := sourceOf(tx, g, id, sources)
			if errors.Is(err, questions.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if src.questionID != questionID {
				continue
			}
			a, seq := decodeAnswer(guildID, k, v)
			mine = append(mine, stored{[16]byte(k), a, seq})
		}
		posts := map[questions.PostID]*questions.Post{}
		reviews := map[questions.PostID]*questions.Review{}
		for _, s := range mine {
			id := s.a.PostID
			if sources[id].review {
				if reviews[id] == nil {
					r, err := getReview(tx, guildID, questions.ReviewID(id))
					if err != nil {
						return err
					}
					if r.OptionCount != optionCount {
						return fmt.Errorf("question %q: review %d had %d options, the question has %d: %w", questionID, id, r.OptionCount, optionCount, questions.ErrOptionsChanged)
					}
					reviews[id] = &r
				}
				continue
			}
			if posts[id] == nil {
				p, err := getPost(tx, id)
				if err != nil {
					return err
				}
				if p.OptionCount != optionCount {
					return fmt.Errorf("question %q: post %d had %d options, the question has %d: %w", questionID, id, p.OptionCount, optionCount, questions.ErrOptionsChanged)
				}
				if !slices.Equal(p.Correct, key) {
					out.Posts++
				}
				p.Right = 0
				posts[id] = &p
			}
		}
		// Grade again.
		for _, s := range mine {
			a := s.a
			gr := questions.GradeChoice(key, a.Choice)
			if p := posts[a.PostID]; p != nil {
				if gr.Right {
					p.Right++
				}
			} else {
				gr.Points = 0 // reviews never score
			}
			out.Answers++
			if gr != a.Grade {
				out.Changed++
				a.Grade = gr
				if err := answers.Put(s.key[:], encodeAnswer(s.seq, a)); err != nil {
					return err
				}
			}
		}
		for _, p := range posts {
			p.Correct, p.SelectCount = key, len(key)
			if err := putPost(tx, *p); err != nil {
				return err
			}
		}
		// Reviews shown but not answered yet are graded, when answered,
		// against the key they hold: give them the new one (those of
		// another option count show other options and keep theirs).
		if rb := g.Bucket(bReviews); rb != nil {
			if err := rb.ForEach(func(k, v []byte) error {
				id := getID[questions.PostID](k)
				if reviews[id] != nil {
					return nil
				}
				r, err := decodeReview(guildID, questions.ReviewID(id), v)
				if err != nil {
					return err
				}
				if r.QuestionID == questionID && r.OptionCount == optionCount {
					reviews[id] = &r
				}
				return nil
			}); err != nil {
				return err
			}
		}
		if len(reviews) > 0 {
			b := g.Bucket(bReviews)
			for _, r := range reviews {
				v := b.Get(u64(r.ID))
				var rec reviewRec
				if err := json.Unmarshal(v, &rec); err != nil {
					return fmt.Errorf("review %d: %w", r.ID, err)
				}
				rec.Correct, rec.SelectCount = key, len(key)
				nv, err := json.Marshal(rec)
				if err != nil {
					return err
				}
				if err := b.Put(u64(r.ID), nv); err != nil {
					return err
				}
			}
		}
		// Mock exams' questions: their answers are graded against the
		// key their attempt holds.
		n, changed, err := regradeMocks(g, guildID, questionID, key, optionCount)
		if err != nil {
			return err
		}
		out.Answers += n
		out.Changed += changed
		if out.Changed == 0 {
			return nil // the scores and memories are what they were
		}
		if err := db.rebuild(tx, guildID); err != nil {
			return err
		}
		return rebuildMemory(tx, g, func(_ questions.UserID, qid string) bool { return qid == questionID })
	})
	if err != nil {
		return questions.Regraded{}, fmt.Errorf("regrade: %w", err)
	}
	return out, nil
}
