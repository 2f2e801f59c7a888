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

// draftRec is how a draft is stored (JSON) in guilds/<guild>/drafts/<id>.
type draftRec struct {
	UserID    questions.UserID `json:"user"`
	Kind      string           `json:"kind"`
	Bank      string           `json:"bank,omitempty"`
	Text      string           `json:"text"`
	Queued    bool             `json:"queued,omitempty"`
	CreatedAt time.Time        `json:"createdAt"`
	ExpiresAt time.Time        `json:"expiresAt,omitzero"`
}

func (r draftRec) draft(guildID questions.GuildID, id questions.DraftID) questions.Draft {
	return questions.Draft{ID: id, GuildID: guildID, UserID: r.UserID, Kind: questions.DraftKind(r.Kind),
		Bank: r.Bank, Text: r.Text, Queued: r.Queued, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}
}

// expired reports whether the draft is past its expiry at now.
func (r draftRec) expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

// SaveDraft stores a draft and returns it as stored. A draft with ID 0 is
// new: it gets the guild's next draft ID and, when CreatedAt is zero, the
// current time. A draft with an ID replaces that draft, which must exist
// and not have expired (else an error wrapping questions.ErrNotFound).
// The same transaction drops the guild's expired drafts and holds the
// member to the caps of questions/draft.go, whatever other saves run at
// once: a draft saved Queued when the member has
// questions.MaxQueuedSuggestions others queued is refused
// (questions.ErrQueueFull, nothing written), and a new unqueued draft
// deletes the member's oldest unqueued drafts (lowest IDs) beyond
// questions.MaxUnsentDrafts - 1. Safe for concurrent use.
func (db *DB) SaveDraft(ctx context.Context, d questions.Draft) (questions.Draft, error) {
	if d.GuildID == 0 || d.UserID == 0 {
		return questions.Draft{}, errors.New("save draft: no guild or user")
	}
	now := db.now()
	if d.CreatedAt.IsZero() {
		d.CreatedAt = now
	}
	d.CreatedAt, d.ExpiresAt = utc(d.CreatedAt), utc(d.ExpiresAt)
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, d.GuildID)
		if err != nil {
			return err
		}
		b, err := draftsRW(g)
		if err != nil {
			return err
		}
		if err := tidyDrafts(b, d, now); err != nil {
			return err
		}
		if d.ID == 0 {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			d.ID = questions.DraftID(seq)
		} else if _, err := getDraft(b, d.ID, now); err != nil {
			return err
		}
		v, err := json.Marshal(draftRec{UserID: d.UserID, Kind: string(d.Kind), Bank: d.Bank, Text: d.Text,
			Queued: d.Queued, CreatedAt: d.CreatedAt, ExpiresAt: d.ExpiresAt})
		if err != nil {
			return err
		}
		return b.Put(u64(d.ID), v)
	})
	if err != nil {
		return questions.Draft{}, fmt.Errorf("save draft: %w", err)
	}
	return d, nil
}

// Draft returns the guild's draft of that ID, or an error wrapping
// questions.ErrNotFound if there is none or it has expired. Safe for
// concurrent use.
func (db *DB) Draft(guildID questions.GuildID, id questions.DraftID) (questions.Draft, error) {
	var d questions.Draft
	err := db.view(func(tx *bbolt.Tx) error {
		r, err := getDraft(sub(guildRO(tx, guildID), bDrafts), id, db.now())
		d = r.draft(guildID, id)
		return err
	})
	if err != nil {
		return questions.Draft{}, fmt.Errorf("draft: %w", err)
	}
	return d, nil
}

// DeleteDraft removes the guild's draft of that ID; an error wrapping
// questions.ErrNotFound if there is none. Safe for concurrent use.
func (db *DB) DeleteDraft(ctx context.Context, guildID questions.GuildID, id questions.DraftID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bDrafts)
		if b == nil || b.Get(u64(id)) == nil {
			return fmt.Errorf("draft %d: %w", id, questions.ErrNotFound)
		}
		return b.Delete(u64(id))
	})
	if err != nil {
		return fmt.Errorf("delete draft: %w", err)
	}
	return nil
}

// Suggestions returns the guild's queued suggestions (drafts with Queued
// set), oldest first. The slice is the caller's. Safe for concurrent use.
func (db *DB) Suggestions(guildID questions.GuildID) ([]questions.Draft, error) {
	var out []questions.Draft
	now := db.now()
	err := db.view(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bDrafts)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r draftRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("draft %d: %w", getU64(k), err)
			}
			if r.Queued && !r.expired(now) {
				out = append(out, r.draft(guildID, getID[questions.DraftID](k)))
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("suggestions: %w", err)
	}
	return out, nil
}

// getDraft reads a draft out of b (which may be nil); ErrNotFound when
// there is none or it expired at now.
func getDraft(b *bbolt.Bucket, id questions.DraftID, now time.Time) (draftRec, error) {
	var r draftRec
	var v []byte
	if b != nil {
		v = b.Get(u64(id))
	}
	if v == nil {
		return r, fmt.Errorf("draft %d: %w", id, questions.ErrNotFound)
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return r, fmt.Errorf("draft %d: %w", id, err)
	}
	if r.expired(now) {
		return draftRec{}, fmt.Errorf("draft %d expired: %w", id, questions.ErrNotFound)
	}
	return r, nil
}

// draftsRW returns guilds/<g>/drafts, creating it.
func draftsRW(g *bbolt.Bucket) (*bbolt.Bucket, error) {
	return g.CreateBucketIfNotExists(bDrafts)
}

// dropExpiredDrafts deletes the drafts of b that expired at now and
// returns how many.
func dropExpiredDrafts(b *bbolt.Bucket, now time.Time) (int, error) {
	var old [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var r draftRec
		if json.Unmarshal(v, &r) == nil && r.expired(now) {
			old = append(old, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(old), nil
}

// tidyDrafts makes room for d, about to be saved in b: it deletes the
// expired drafts, refuses d queued when its member has
// questions.MaxQueuedSuggestions others queued (questions.ErrQueueFull),
// and when d is new and not queued deletes the member's oldest unqueued
// drafts so that, with d, there are at most questions.MaxUnsentDrafts.
func tidyDrafts(b *bbolt.Bucket, d questions.Draft, now time.Time) error {
	queued := 0
	var drop, unsent [][]byte // unsent: the member's other unqueued drafts, oldest first
	err := b.ForEach(func(k, v []byte) error {
		var r draftRec
		switch {
		case json.Unmarshal(v, &r) != nil:
			// Left for Draft to report; it counts for nobody.
		case r.expired(now):
			drop = append(drop, append([]byte(nil), k...))
		case r.UserID != d.UserID || getID[questions.DraftID](k) == d.ID:
		case r.Queued:
			queued++
		default:
			unsent = append(unsent, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if d.Queued && queued >= questions.MaxQueuedSuggestions {
		return fmt.Errorf("member %d has %d suggestions queued: %w", d.UserID, queued, questions.ErrQueueFull)
	}
	if !d.Queued && d.ID == 0 {
		drop = append(drop, unsent[:max(0, len(unsent)-(questions.MaxUnsentDrafts-1))]...)
	}
	for _, k := range drop {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
