package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Reports: guilds/<g>/reports/<report> holds the open reports of a
// guild's members about questions (JSON), created on the first report (no
// schema version: a file without the bucket simply has no reports).
// Closing a report deletes it.

// reportRec is how a report is stored (JSON).
type reportRec struct {
	QuestionID string           `json:"question"`
	PostID     questions.PostID `json:"post,omitempty"`
	UserID     questions.UserID `json:"user"`
	Text       string           `json:"text"`
	At         time.Time        `json:"at"`
}

// AddReport stores a member's report about a question and returns it with
// its ID and At (now if zero). A member has at most one open report per
// question: a second one replaces the first's text (and keeps its ID).
// It refuses a report without guild, member, question or text; a text
// longer than questions.MaxReportText characters is cut to it. Safe for
// concurrent use.
func (db *DB) AddReport(ctx context.Context, r questions.Report) (questions.Report, error) {
	if r.GuildID == 0 || r.UserID == 0 || r.QuestionID == "" || r.Text == "" {
		return questions.Report{}, errors.New("add report: no guild, member, question or text")
	}
	if utf8.RuneCountInString(r.Text) > questions.MaxReportText {
		r.Text = string([]rune(r.Text)[:questions.MaxReportText])
	}
	if r.At.IsZero() {
		r.At = db.now()
	}
	r.At = r.At.UTC()
	v, err := json.Marshal(reportRec{QuestionID: r.QuestionID, PostID: r.PostID, UserID: r.UserID, Text: r.Text, At: r.At})
	if err != nil {
		return questions.Report{}, fmt.Errorf("add report: %w", err)
	}
	err = db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, r.GuildID)
		if err != nil {
			return err
		}
		b, err := g.CreateBucketIfNotExists(bReports)
		if err != nil {
			return err
		}
		r.ID = 0
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			old, err := decodeReport(r.GuildID, k, v)
			if err != nil {
				return err
			}
			if old.UserID == r.UserID && old.QuestionID == r.QuestionID {
				r.ID = old.ID
				break
			}
		}
		if r.ID == 0 {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			r.ID = questions.ReportID(seq)
		}
		return b.Put(u64(r.ID), v)
	})
	if err != nil {
		return questions.Report{}, fmt.Errorf("add report: %w", err)
	}
	return r, nil
}

func decodeReport(guildID questions.GuildID, k, v []byte) (questions.Report, error) {
	id := getID[questions.ReportID](k)
	var r reportRec
	if err := json.Unmarshal(v, &r); err != nil {
		return questions.Report{}, fmt.Errorf("report %d: %w", id, err)
	}
	return questions.Report{ID: id, GuildID: guildID, QuestionID: r.QuestionID, PostID: r.PostID,
		UserID: r.UserID, Text: r.Text, At: r.At}, nil
}

// Reports returns the guild's open reports, oldest first (by ID). Safe for
// concurrent use.
func (db *DB) Reports(guildID questions.GuildID) ([]questions.Report, error) {
	var out []questions.Report
	err := db.view(func(tx *bbolt.Tx) error {
		out = nil
		b := sub(guildRO(tx, guildID), bReports)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			r, err := decodeReport(guildID, k, v)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	return out, nil
}

// CloseReport closes (deletes) one of the guild's reports; an error
// wrapping questions.ErrNotFound if it is not open. Safe for concurrent
// use.
func (db *DB) CloseReport(ctx context.Context, guildID questions.GuildID, reportID questions.ReportID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bReports)
		if b == nil || b.Get(u64(reportID)) == nil {
			return fmt.Errorf("report %d: %w", reportID, questions.ErrNotFound)
		}
		return b.Delete(u64(reportID))
	})
	if err != nil {
		return fmt.Errorf("close report: %w", err)
	}
	return nil
}
