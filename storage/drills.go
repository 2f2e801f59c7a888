package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Drills (/quiz drill): guilds/<g>/drills/<user> holds the member's drill,
// one at a time, created on the first (no schema version). Its questions
// are shown and answered as reviews (StartReview, RecordReview); the
// record is only the plan and how far the member got.

// drillRec is how a drill is stored (JSON).
type drillRec struct {
	Topic     string    `json:"topic,omitempty"`
	Questions []string  `json:"questions"`
	Shown     int       `json:"shown"`
	StartedAt time.Time `json:"startedAt"`
	Review    uint64    `json:"review,omitempty"` // absent in drills stored before it was kept
}

// SaveDrill stores the member's drill, replacing theirs. It refuses a
// drill without guild or member, and a Shown outside 0..len(Questions).
// Safe for concurrent use.
func (db *DB) SaveDrill(ctx context.Context, d questions.Drill) error {
	if d.GuildID == 0 || d.UserID == 0 {
		return errors.New("save drill: no guild or member")
	}
	if d.Shown < 0 || d.Shown > len(d.Questions) {
		return fmt.Errorf("save drill: %d of %d questions shown", d.Shown, len(d.Questions))
	}
	v, err := json.Marshal(drillRec{Topic: d.Topic, Questions: d.Questions, Shown: d.Shown, StartedAt: d.StartedAt.UTC(), Review: uint64(d.Review)})
	if err != nil {
		return fmt.Errorf("save drill: %w", err)
	}
	err = db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, d.GuildID)
		if err != nil {
			return err
		}
		b, err := g.CreateBucketIfNotExists(bDrills)
		if err != nil {
			return err
		}
		return b.Put(u64(d.UserID), v)
	})
	if err != nil {
		return fmt.Errorf("save drill: %w", err)
	}
	return nil
}

// Drill returns the member's drill in the guild; an error wrapping
// questions.ErrNotFound when they have none. The slice is the caller's.
// Safe for concurrent use.
func (db *DB) Drill(guildID questions.GuildID, userID questions.UserID) (questions.Drill, error) {
	d := questions.Drill{GuildID: guildID, UserID: userID}
	err := db.view(func(tx *bbolt.Tx) error {
		v := getIn(sub(guildRO(tx, guildID), bDrills), u64(userID))
		if v == nil {
			return fmt.Errorf("drill of member %d: %w", userID, questions.ErrNotFound)
		}
		var r drillRec
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("drill of member %d: %w", userID, err)
		}
		if r.Shown < 0 || r.Shown > len(r.Questions) {
			return fmt.Errorf("drill of member %d: damaged record (%d of %d shown)", userID, r.Shown, len(r.Questions))
		}
		d.Topic, d.Questions, d.Shown, d.StartedAt, d.Review = r.Topic, r.Questions, r.Shown, r.StartedAt, questions.ReviewID(r.Review)
		return nil
	})
	if err != nil {
		return questions.Drill{}, fmt.Errorf("drill: %w", err)
	}
	return d, nil
}
