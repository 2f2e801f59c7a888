package storage

// This file keeps what makes a change to imported banks safe to confirm
// and to undo: the confirmations waiting for a click
// (guilds/<g>/confirms) and the kept versions of banks
// (guilds/<g>/undo), with the one transaction that changes banks and
// keeps their versions (EditBanks).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// confirmRec is how a confirmation is stored (JSON) in
// guilds/<guild>/confirms/<id>.
type confirmRec struct {
	UserID     questions.UserID `json:"user"`
	Action     string           `json:"action"`
	Bank       string           `json:"bank,omitempty"`
	QuestionID string           `json:"question,omitempty"`
	Member     questions.UserID `json:"member,omitempty"`
	Stamp      string           `json:"stamp,omitempty"`
	Banks      []bankRec        `json:"banks,omitempty"`
	// Size is the bytes of the banks' files (questions.Confirmation.Size),
	// read without decoding them.
	Size      int       `json:"size"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// versionRec is how a kept version of a bank is stored (JSON) in
// guilds/<guild>/undo/<id>.
type versionRec struct {
	File   bankRec          `json:"file"`
	Change string           `json:"change"`
	By     questions.UserID `json:"by"`
	At     time.Time        `json:"at"`
	After  string           `json:"after,omitempty"`
	// Size is the bytes of the file's data, read without decoding it.
	Size      int       `json:"size"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// expiring is what every record of confirms/ and undo/ has, decoded
// without the files they hold.
type expiring struct {
	Size      int       `json:"size"`
	ExpiresAt time.Time `json:"expiresAt"`
}

func (e expiring) expired(now time.Time) bool { return !now.Before(e.ExpiresAt) }

func (r bankRec) file() questions.BankFile {
	return questions.BankFile{Name: r.Name, Format: questions.Format(r.Format), Data: r.Data,
		ImportedAt: r.ImportedAt, ImportedBy: r.ImportedBy}
}

func recOf(f questions.BankFile) bankRec {
	return bankRec{Name: f.Name, Format: string(f.Format), Data: f.Data, ImportedAt: utc(f.ImportedAt), ImportedBy: f.ImportedBy}
}

func (r confirmRec) confirmation(guildID questions.GuildID, id questions.ConfirmationID) questions.Confirmation {
	c := questions.Confirmation{ID: id, GuildID: guildID, UserID: r.UserID, Action: questions.ConfirmAction(r.Action),
		Bank: r.Bank, QuestionID: r.QuestionID, Member: r.Member, Stamp: r.Stamp,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}
	for _, b := range r.Banks {
		c.Banks = append(c.Banks, b.file())
	}
	return c
}

func (r versionRec) version(guildID questions.GuildID, id questions.VersionID) questions.BankVersion {
	return questions.BankVersion{ID: id, GuildID: guildID, File: r.File.file(), Change: questions.BankChange(r.Change),
		By: r.By, At: r.At, After: r.After, ExpiresAt: r.ExpiresAt}
}

// SaveConfirmation stores a new confirmation and returns it with its ID
// (the guild's next) and, when zero, CreatedAt (now) and ExpiresAt
// (CreatedAt plus questions.ConfirmExpiry). The same transaction deletes
// the guild's expired confirmations and holds it to
// questions.MaxConfirmations and questions.MaxConfirmBytes, deleting the
// oldest first; a confirmation holding more than MaxConfirmBytes alone is
// refused (questions.ErrTooLarge, nothing written). Safe for concurrent
// use.
func (db *DB) SaveConfirmation(ctx context.Context, c questions.Confirmation) (questions.Confirmation, error) {
	if c.GuildID == 0 || c.UserID == 0 || c.Action == "" {
		return questions.Confirmation{}, errors.New("save confirmation: no guild, user or action")
	}
	if c.Size() > questions.MaxConfirmBytes {
		return questions.Confirmation{}, fmt.Errorf("save confirmation: %d bytes of banks: %w", c.Size(), questions.ErrTooLarge)
	}
	now := db.now()
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.ExpiresAt.IsZero() {
		c.ExpiresAt = c.CreatedAt.Add(questions.ConfirmExpiry)
	}
	c.CreatedAt, c.ExpiresAt = utc(c.CreatedAt), utc(c.ExpiresAt)
	rec := confirmRec{UserID: c.UserID, Action: string(c.Action), Bank: c.Bank, QuestionID: c.QuestionID,
		Member: c.Member, Stamp: c.Stamp, Size: c.Size(), CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt}
	for _, f := range c.Banks {
		rec.Banks = append(rec.Banks, recOf(f))
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return questions.Confirmation{}, fmt.Errorf("save confirmation: %w", err)
	}
	err = db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, c.GuildID)
		if err != nil {
			return err
		}
		b, err := g.CreateBucketIfNotExists(bConfirms)
		if err != nil {
			return err
		}
		if _, err := trimExpiring(b, now, questions.MaxConfirmations-1, questions.MaxConfirmBytes-c.Size(), false); err != nil {
			return err
		}
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		c.ID = questions.ConfirmationID(seq)
		return b.Put(u64(c.ID), v)
	})
	if err != nil {
		return questions.Confirmation{}, fmt.Errorf("save confirmation: %w", err)
	}
	return c, nil
}

// Confirmation returns the guild's confirmation of that ID, or an error
// wrapping questions.ErrNotFound if there is none (it was taken, replaced
// or never made) or it has expired. Safe for concurrent use.
func (db *DB) Confirmation(guildID questions.GuildID, id questions.ConfirmationID) (questions.Confirmation, error) {
	var c questions.Confirmation
	err := db.view(func(tx *bbolt.Tx) error {
		r, err := getConfirm(sub(guildRO(tx, guildID), bConfirms), id, db.now())
		c = r.confirmation(guildID, id)
		return err
	})
	if err != nil {
		return questions.Confirmation{}, fmt.Errorf("confirmation: %w", err)
	}
	return c, nil
}

// TakeConfirmation deletes the guild's confirmation of that ID and returns
// it: of several takes of one confirmation, one gets it and the others an
// error wrapping questions.ErrNotFound (as for a confirmation that is gone
// or has expired; an expired one is deleted too). Safe for concurrent use.
func (db *DB) TakeConfirmation(ctx context.Context, guildID questions.GuildID, id questions.ConfirmationID) (questions.Confirmation, error) {
	var c questions.Confirmation
	var gone error
	now := db.now()
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		c, gone = questions.Confirmation{}, nil
		b := sub(guildRO(tx, guildID), bConfirms)
		r, err := getConfirm(b, id, now)
		if err != nil {
			if b == nil || b.Get(u64(id)) == nil {
				return err
			}
			gone = err // expired: deleted all the same
		}
		c = r.confirmation(guildID, id)
		return b.Delete(u64(id))
	})
	if err == nil {
		err = gone
	}
	if err != nil {
		return questions.Confirmation{}, fmt.Errorf("take confirmation: %w", err)
	}
	return c, nil
}

// getConfirm reads a confirmation out of b (which may be nil);
// ErrNotFound when there is none or it expired at now.
func getConfirm(b *bbolt.Bucket, id questions.ConfirmationID, now time.Time) (confirmRec, error) {
	var r confirmRec
	v := getIn(b, u64(id))
	if v == nil {
		return r, fmt.Errorf("confirmation %d: %w", id, questions.ErrNotFound)
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return r, fmt.Errorf("confirmation %d: %w", id, err)
	}
	if !now.Before(r.ExpiresAt) {
		return confirmRec{}, fmt.Errorf("confirmation %d expired: %w", id, questions.ErrNotFound)
	}
	return r, nil
}

// EditBanks makes e in one transaction (see questions.BankEdit): it keeps
// the stored version of each bank e.Keep names (one the guild has not is
// skipped) for questions.UndoKeep, recording the Digest of the file e.Save
// stores under its name (none: the bank is removed), stores e.Save (the
// files in bankdata/, their Questions and bytes in bankinfo/, as SaveBanks
// does), deletes e.Remove (record, file and counts) and the version
// e.Restore, then deletes the guild's expired versions and holds it to
// questions.MaxKeptVersions and questions.MaxKeptBytes (the oldest go
// first; the newest stays). A bank of e.Remove that does not exist, or a
// version of e.Restore that does not (or has expired), stores nothing and
// returns an error wrapping questions.ErrNotFound. The guild's banks must
// stay within the DB's quota, as for SaveBanks, comparing them before and
// after the whole edit: a restore is held to it like any other change (an
// undo must not let a server keep a bank it removed next to the banks it
// imported meanwhile), so one that would take the guild past a bound, and
// further than before, stores nothing, keeps the version, and returns an
// error wrapping a *questions.QuotaError. Safe for concurrent use.
func (db *DB) EditBanks(ctx context.Context, guildID questions.GuildID, e questions.BankEdit) error {
	recs := make([][]byte, len(e.Save))
	after := map[string]string{} // lower-case name → digest of the file saved
	for i, f := range e.Save {
		v, err := encodeBank(f)
		if err != nil {
			return fmt.Errorf("edit banks: %w", err)
		}
		recs[i] = v
		after[string(normBank(f.Name))] = questions.Digest(f.Data)
	}
	now := db.now()
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guildID)
		if err != nil {
			return err
		}
		info, err := g.CreateBucketIfNotExists(bBankInfo)
		if err != nil {
			return err
		}
		before := bankUsage(info)
		var undo *bbolt.Bucket
		if len(e.Keep) > 0 || e.Restore != 0 {
			if undo, err = g.CreateBucketIfNotExists(bUndo); err != nil {
				return err
			}
		}
		if e.Restore != 0 {
			v := undo.Get(u64(e.Restore))
			var m expiring
			if v == nil || json.Unmarshal(v, &m) != nil || m.expired(now) {
				return fmt.Errorf("version %d: %w", e.Restore, questions.ErrNotFound)
			}
			if err := undo.Delete(u64(e.Restore)); err != nil {
				return err
			}
		}
		for _, name := range e.Keep {
			r, ok, err := storedBank(g, name)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			// Marshal copies the file out of the mapped memory it is read from.
			kept, err := json.Marshal(versionRec{File: r, Change: string(e.Change), By: e.By, At: utc(e.At),
				After: after[string(normBank(name))], Size: len(r.Data), ExpiresAt: utc(e.At.Add(questions.UndoKeep))})
			if err != nil {
				return err
			}
			id, err := undo.NextSequence()
			if err != nil {
				return err
			}
			if err := undo.Put(u64(id), kept); err != nil {
				return err
			}
		}
		if err := writeBanks(g, e.Save, recs); err != nil {
			return err
		}
		for _, name := range e.Remove {
			if err := removeBank(g, name); err != nil {
				return err
			}
		}
		if err := db.quota.Check(before, bankUsage(info)); err != nil {
			return err
		}
		if undo != nil {
			if _, err := trimExpiring(undo, now, questions.MaxKeptVersions, questions.MaxKeptBytes, true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("edit banks: %w", err)
	}
	return nil
}

// BankVersions returns the guild's kept versions of banks that have not
// expired, oldest first. The slice is the caller's. Safe for concurrent
// use.
func (db *DB) BankVersions(guildID questions.GuildID) ([]questions.BankVersion, error) {
	var out []questions.BankVersion
	now := db.now()
	err := db.view(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bUndo)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r versionRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("version %d: %w", getU64(k), err)
			}
			if now.Before(r.ExpiresAt) {
				out = append(out, r.version(guildID, getID[questions.VersionID](k)))
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("bank versions: %w", err)
	}
	return out, nil
}

// trimExpiring deletes the records of b (confirms/ or undo/, keyed by
// increasing IDs) that expired at now, then the oldest of the others
// while there are more than maxN or they hold more than maxBytes (with
// keepNewest, the newest stays whatever its size); it returns how many it
// deleted. A record that does not decode is left alone (its reader
// reports it).
func trimExpiring(b *bbolt.Bucket, now time.Time, maxN, maxBytes int, keepNewest bool) (int, error) {
	type rec struct {
		k    []byte
		size int
	}
	var drop [][]byte
	var live []rec
	total := 0
	err := b.ForEach(func(k, v []byte) error {
		var m expiring
		switch {
		case json.Unmarshal(v, &m) != nil:
		case m.expired(now):
			drop = append(drop, append([]byte(nil), k...))
		default:
			live = append(live, rec{append([]byte(nil), k...), m.Size})
			total += m.Size
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for len(live) > 0 && (len(live) > maxN || total > maxBytes) {
		if len(live) == 1 && keepNewest {
			break
		}
		drop = append(drop, live[0].k)
		total -= live[0].size
		live = live[1:]
	}
	for _, k := range drop {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(drop), nil
}

// countExpired is trimExpiring's first step alone, for PruneExpired: it
// deletes the records of b that expired at now and returns how many.
func countExpired(b *bbolt.Bucket, now time.Time) (int, error) {
	if b == nil {
		return 0, nil
	}
	return trimExpiring(b, now, math.MaxInt, math.MaxInt, true)
}

// anyExpired reports whether b (which may be nil) holds a record that
// expired at now.
func anyExpired(b *bbolt.Bucket, now time.Time) bool {
	if b == nil {
		return false
	}
	found := errors.New("found")
	return b.ForEach(func(_, v []byte) error {
		var m expiring
		if json.Unmarshal(v, &m) == nil && m.expired(now) {
			return found
		}
		return nil
	}) != nil
}
