package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// examRec is how an exam date is stored (JSON).
type examRec struct {
	Date string `json:"date"`
	Bank string `json:"bank,omitempty"`
}

// SetExamDate stores the member's exam date (and bank) in the guild,
// replacing theirs; an empty Date removes it. It refuses a zero guild or
// member and a Date that questions.ParseExamDate refuses. Safe for
// concurrent use.
func (db *DB) SetExamDate(ctx context.Context, e questions.ExamDate) error {
	if e.GuildID == 0 || e.UserID == 0 {
		return errors.New("set exam date: no guild or member")
	}
	var v []byte
	if e.Date != "" {
		d, err := questions.ParseExamDate(e.Date)
		if err != nil {
			return fmt.Errorf("set exam date: %w", err)
		}
		if v, err = json.Marshal(examRec{Date: d, Bank: e.Bank}); err != nil {
			return fmt.Errorf("set exam date: %w", err)
		}
	}
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, e.GuildID)
		if err != nil {
			return err
		}
		b, err := g.CreateBucketIfNotExists(bExams)
		if err != nil {
			return err
		}
		if v == nil {
			return b.Delete(u64(e.UserID))
		}
		return b.Put(u64(e.UserID), v)
	})
	if err != nil {
		return fmt.Errorf("set exam date: %w", err)
	}
	return nil
}

// ExamDate returns the member's exam date in the guild; an error wrapping
// questions.ErrNotFound when they have set none. Safe for concurrent use.
func (db *DB) ExamDate(guildID questions.GuildID, userID questions.UserID) (questions.ExamDate, error) {
	e := questions.ExamDate{GuildID: guildID, UserID: userID}
	err := db.view(func(tx *bbolt.Tx) error {
		var v []byte
		if b := sub(guildRO(tx, guildID), bExams); b != nil {
			v = b.Get(u64(userID))
		}
		if v == nil {
			return fmt.Errorf("exam date of member %d: %w", userID, questions.ErrNotFound)
		}
		var r examRec
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("exam date of member %d: %w", userID, err)
		}
		e.Date, e.Bank = r.Date, r.Bank
		return nil
	})
	if err != nil {
		return questions.ExamDate{}, fmt.Errorf("exam date: %w", err)
	}
	return e, nil
}
