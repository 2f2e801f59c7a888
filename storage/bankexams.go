package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// The exam settings a guild's admins set for banks (/quizadmin bank exam):
// guilds/<g>/bankexams/<lower-case bank name> → JSON, created on first
// use. They apply in that guild over what the bank's files say.

// bankExamRec is how a bank's exam settings are stored (JSON).
type bankExamRec struct {
	Bank      string           `json:"bank"` // as spelled when set
	Questions int              `json:"questions,omitempty"`
	Minutes   int              `json:"minutes,omitempty"`
	Pass      string           `json:"pass,omitempty"` // questions.PassMark.String; "" for none
	Domains   []bankExamDomRec `json:"domains,omitempty"`
}

type bankExamDomRec struct {
	Name   string `json:"name"`
	Weight int    `json:"weight"`
}

// BankExams returns the exam settings the guild's admins set, by bank
// name in lower case (empty when none). Safe for concurrent use.
func (db *DB) BankExams(guildID questions.GuildID) (map[string]questions.Exam, error) {
	out := map[string]questions.Exam{}
	err := db.view(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bBankExams)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r bankExamRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("exam settings of %q: %w", k, err)
			}
			e := questions.Exam{Questions: r.Questions, Minutes: r.Minutes}
			if r.Pass != "" {
				p, err := questions.ParsePassMark(r.Pass, questions.PassMark{})
				if err != nil {
					return fmt.Errorf("exam settings of %q: %w", k, err)
				}
				e.Pass = p
			}
			for _, d := range r.Domains {
				e.Domains = append(e.Domains, questions.Domain{Name: d.Name, Weight: d.Weight})
			}
			out[string(k)] = e
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("bank exams: %w", err)
	}
	return out, nil
}

// SetBankExam stores the exam settings of the guild's bank named bank
// (matched case-insensitively), replacing any; settings that set nothing
// (questions.Exam.IsZero) remove them. It refuses a guild of 0, an empty
// bank name and settings questions.CheckExam refuses. Safe for concurrent
// use.
func (db *DB) SetBankExam(ctx context.Context, guildID questions.GuildID, bank string, e questions.Exam) error {
	bank = strings.TrimSpace(bank)
	if guildID == 0 || bank == "" {
		return errors.New("set bank exam: no guild or bank")
	}
	if err := questions.CheckExam(e); err != nil {
		return fmt.Errorf("set bank exam: %w", err)
	}
	var v []byte
	if !e.IsZero() {
		r := bankExamRec{Bank: bank, Questions: e.Questions, Minutes: e.Minutes}
		if !e.Pass.IsZero() {
			r.Pass = e.Pass.String()
		}
		for _, d := range e.Domains {
			r.Domains = append(r.Domains, bankExamDomRec{Name: d.Name, Weight: d.Weight})
		}
		var err error
		if v, err = json.Marshal(r); err != nil {
			return fmt.Errorf("set bank exam: %w", err)
		}
	}
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guildID)
		if err != nil {
			return err
		}
		key := []byte(strings.ToLower(bank))
		if v == nil {
			return deleteIn(g.Bucket(bBankExams), key)
		}
		b, err := g.CreateBucketIfNotExists(bBankExams)
		if err != nil {
			return err
		}
		return b.Put(key, v)
	})
	if err != nil {
		return fmt.Errorf("set bank exam: %w", err)
	}
	return nil
}
