package storage

import (
	"context"
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
		// The answers to the question: its posts' and its reviews'.
		answers := g.Bucket(bAnswers)
		var recs []record
		err = eachRecordOf(g, questionID, func(_ []byte, rec record) error {
			recs = append(recs, rec)
			return nil
		})
		if err != nil {
			return err
		}
		posts := map[questions.PostID]*questions.Post{}
		reviews := map[questions.PostID]*questions.Review{}
		for _, rec := range recs {
			for _, ra := range rec.answers {
				id := ra.id
				if ra.mock {
					continue
				}
				if ra.review {
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
					if errors.Is(err, questions.ErrNotFound) {
						continue
					}
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
		}
		// Mock exams' questions: their answers are graded against the
		// key their attempt holds; the mock answers in the records follow
		// them (below); after the posts' and reviews' checks.
		mockAnswers, mockChanged, err := regradeMocks(g, guildID, questionID, key, optionCount)
		if err != nil {
			return err
		}
		// Grade again.
		rescored := map[questions.UserID]bool{} // the members whose grades changed
		for _, rec := range recs {
			changed := false
			for i := range rec.answers {
				ra := &rec.answers[i]
				if ra.mock {
					right, err := mockRight(g, rec.user, questions.MockID(ra.id), questionID)
					if err != nil {
						return err
					}
					if right != ra.right {
						ra.right, changed = right, true
					}
					continue // counted with its attempt
				}
				gr := questions.GradeChoice(key, ra.choice)
				if p := posts[ra.id]; p != nil {
					if gr.Right {
						p.Right++
					}
				} else if ra.review {
					gr.Points = 0 // reviews never score
				} else {
					continue // its post is gone
				}
				out.Answers++
				if gr != (questions.Grade{Right: ra.right, RightPicks: ra.picks, Points: ra.points}) {
					out.Changed++
					ra.right, ra.picks, ra.points = gr.Right, gr.RightPicks, gr.Points
					changed, rescored[rec.user] = true, true
				}
			}
			if changed {
				if err := answers.Put(recordKey(nil, rec.user, rec.num), encodeRecord(rec)); err != nil {
					return err // the cards are recomputed below
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
				r.Correct, r.SelectCount = key, len(key)
				if err := b.Put(u64(r.ID), encodeReview(*r)); err != nil {
					return err
				}
			}
		}
		out.Answers += mockAnswers
		out.Changed += mockChanged
		// The statistics follow the key (and the grades, and through them
		// every later answer's rest-of-bank accuracy).
		if len(posts) > 0 {
			if err := rebuildStats(tx, g); err != nil {
				return err
			}
		}
		if out.Changed == 0 {
			return nil // the scores and memories are what they were
		}
		if err := db.rescore(tx, g, guildID, rescored); err != nil {
			return err
		}
		return rebuildMemory(tx, g, func(_ questions.UserID, qid string) bool { return qid == questionID })
	})
	if err != nil {
		return questions.Regraded{}, fmt.Errorf("regrade: %w", err)
	}
	return out, nil
}
