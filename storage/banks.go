package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// bankRec is how an imported bank's record is stored (JSON): everything
// but the file, which guilds/<g>/bankdata holds as it is. In
// guilds/<g>/banks, Data holds the file (base64) only in a record written
// before schema 7, which migration 7 moves to bankdata; a kept version
// (undo/) and a confirmation (confirms/) hold their files in Data.
type bankRec struct {
	Name       string           `json:"name"`
	Format     string           `json:"format"`
	Data       []byte           `json:"data,omitempty"`
	ImportedAt time.Time        `json:"importedAt"`
	ImportedBy questions.UserID `json:"importedBy"`
}

// encodeBank is f's record in guilds/<g>/banks.
func encodeBank(f questions.BankFile) ([]byte, error) {
	if f.Name == "" {
		return nil, errors.New("no name")
	}
	return json.Marshal(bankRec{Name: f.Name, Format: string(f.Format), ImportedAt: utc(f.ImportedAt), ImportedBy: f.ImportedBy})
}

// bankInfo is guilds/<g>/bankinfo/<lower-case name>: the bank's questions
// and its stored bytes (what the quota counts), so that a write checks the
// quota without reading the banks.
func bankInfo(questions int, bytes int) []byte {
	return append(u64(uint64(questions)), u64(uint64(bytes))...)
}

// putBanks stores files (each with its record recs[i]) in the guild g
// (see writeBanks) and checks the guild's usage against quota, before and
// after: an error wrapping a *questions.QuotaError when they take it past
// a bound (the caller's transaction then rolls back).
func putBanks(g *bbolt.Bucket, files []questions.BankFile, recs [][]byte, quota questions.Quota) error {
	info, err := g.CreateBucketIfNotExists(bBankInfo)
	if err != nil {
		return err
	}
	before := bankUsage(info)
	if err := writeBanks(g, files, recs); err != nil {
		return err
	}
	return quota.Check(before, bankUsage(info))
}

// writeBanks stores files in the guild g, each replacing the bank of its
// name: its record recs[i] in banks/, the file as it is in bankdata/, its
// questions (f.Questions) and bytes in bankinfo/. It checks no quota.
func writeBanks(g *bbolt.Bucket, files []questions.BankFile, recs [][]byte) error {
	data, err := g.CreateBucketIfNotExists(bBankData)
	if err != nil {
		return err
	}
	info, err := g.CreateBucketIfNotExists(bBankInfo)
	if err != nil {
		return err
	}
	for i, f := range files {
		k := normBank(f.Name)
		if err := g.Bucket(bBanks).Put(k, recs[i]); err != nil {
			return err
		}
		file := f.Data // bbolt keeps it, unchanged, until the commit
		if file == nil {
			file = []byte{}
		}
		if err := data.Put(k, file); err != nil {
			return err
		}
		if err := info.Put(k, bankInfo(f.Questions, len(f.Data))); err != nil {
			return err
		}
	}
	return nil
}

// storedBank reads the guild g's bank of that name: its record with the
// file in Data (from bankdata/, or from the record itself as written
// before schema 7). ok is false when there is no such bank. Data is
// mapped memory, valid while the transaction lasts.
func storedBank(g *bbolt.Bucket, name string) (r bankRec, ok bool, err error) {
	k := normBank(name)
	v := getIn(sub(g, bBanks), k)
	if v == nil {
		return r, false, nil
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return r, false, fmt.Errorf("bank %q: %w", name, err)
	}
	if d := getIn(sub(g, bBankData), k); d != nil {
		r.Data = d
	}
	return r, true, nil
}

// removeBank deletes the guild g's bank of that name: its record, its
// file and its counts. An error wrapping questions.ErrNotFound when there
// is none.
func removeBank(g *bbolt.Bucket, name string) error {
	k := normBank(name)
	b := sub(g, bBanks)
	if b == nil || b.Get(k) == nil {
		return fmt.Errorf("bank %q: %w", name, questions.ErrNotFound)
	}
	for _, bucket := range [][]byte{bBankData, bBankInfo} {
		if other := sub(g, bucket); other != nil {
			if err := other.Delete(k); err != nil {
				return err
			}
		}
	}
	return b.Delete(k)
}

// bankUsage sums guilds/<g>/bankinfo.
func bankUsage(info *bbolt.Bucket) questions.BankUsage {
	var u questions.BankUsage
	if info == nil {
		return u
	}
	info.ForEach(func(_, v []byte) error {
		u.Banks++
		u.Questions += int(getU64(v))
		if len(v) >= 16 {
			u.Bytes += int64(getU64(v[8:]))
		}
		return nil
	})
	return u
}

// SaveBank stores an imported bank file of the guild, replacing the bank of
// the same name compared case-insensitively (whose stored name then
// becomes f.Name), within the quota (see SaveBanks). It refuses an empty
// name. Safe for concurrent use.
func (db *DB) SaveBank(ctx context.Context, guildID questions.GuildID, f questions.BankFile) error {
	v, err := encodeBank(f)
	if err != nil {
		return fmt.Errorf("save bank: %w", err)
	}
	err = db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guildID)
		if err != nil {
			return err
		}
		return putBanks(g, []questions.BankFile{f}, [][]byte{v}, db.quota)
	})
	if err != nil {
		return fmt.Errorf("save bank: %w", err)
	}
	return nil
}

// Banks returns the guild's imported banks sorted by name
// (case-insensitively); the slices are the caller's. Safe for concurrent use.
func (db *DB) Banks(guildID questions.GuildID) ([]questions.BankFile, error) {
	var out []questions.BankFile
	err := db.view(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		b, data, info := sub(g, bBanks), sub(g, bBankData), sub(g, bBankInfo)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r bankRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("bank %q: %w", k, err)
			}
			f := questions.BankFile{Name: r.Name, Format: questions.Format(r.Format), Data: r.Data,
				ImportedAt: r.ImportedAt, ImportedBy: r.ImportedBy}
			if data != nil {
				if d := data.Get(k); d != nil {
					f.Data = bytes.Clone(d) // the file is mapped only while the transaction lasts
				}
			}
			if info != nil {
				f.Questions = int(getU64(info.Get(k)))
			}
			out = append(out, f)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	return out, nil
}

// BankUsage returns what the guild's imported banks take, as its quota
// counts it. Safe for concurrent use.
func (db *DB) BankUsage(guildID questions.GuildID) (questions.BankUsage, error) {
	var u questions.BankUsage
	err := db.view(func(tx *bbolt.Tx) error {
		u = bankUsage(sub(guildRO(tx, guildID), bBankInfo))
		return nil
	})
	if err != nil {
		return u, fmt.Errorf("bank usage: %w", err)
	}
	return u, nil
}

// DeleteBank removes the guild's bank of that name (case-insensitive). It
// returns an error wrapping questions.ErrNotFound if there is none. Safe
// for concurrent use.
func (db *DB) DeleteBank(ctx context.Context, guildID questions.GuildID, name string) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		return removeBank(guildRO(tx, guildID), name)
	})
	if err != nil {
		return fmt.Errorf("delete bank: %w", err)
	}
	return nil
}

// SaveBanks stores imported banks of the guild in one transaction, each
// replacing the bank of the same name (see SaveBank), and when draftID is
// not 0 removes that draft in the same transaction: the draft's questions
// land in their banks exactly once. With a draftID that names no draft (or
// an expired one), nothing is stored and the error wraps
// questions.ErrNotFound. The guild's banks must stay within the DB's
// quota (Options.Quota, counting each file's Questions and the bytes of
// its Data), checked inside the transaction so that concurrent writes
// cannot pass it together: a change that takes the guild past a bound,
// and further past it than before, stores nothing and returns an error
// wrapping a *questions.QuotaError (questions.ErrOverQuota). Safe for
// concurrent use.
func (db *DB) SaveBanks(ctx context.Context, guildID questions.GuildID, files []questions.BankFile, draftID questions.DraftID) error {
	recs := make([][]byte, len(files))
	for i, f := range files {
		v, err := encodeBank(f)
		if err != nil {
			return fmt.Errorf("save banks: %w", err)
		}
		recs[i] = v
	}
	now := db.now()
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guildID)
		if err != nil {
			return err
		}
		if draftID != 0 {
			b := g.Bucket(bDrafts)
			if _, err := getDraft(b, draftID, now); err != nil {
				return err
			}
			if err := b.Delete(u64(draftID)); err != nil {
				return err
			}
		}
		return putBanks(g, files, recs, db.quota)
	})
	if err != nil {
		return fmt.Errorf("save banks: %w", err)
	}
	return nil
}
