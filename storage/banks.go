package storage

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/quizhost/quizhost/questions"
)

// Asked returns the IDs of the questions asked in the guild in the current
// round (since they were last forgotten). The map is the caller's. Safe
// for concurrent use.
func (db *DB) Asked(guildID questions.GuildID) (map[string]bool, error) {
	out := map[string]bool{}
	err := db.view(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bAsked)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			out[string(k)] = true
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("asked: %w", err)
	}
	return out, nil
}

// ForgetAsked starts a new round for the given questions of the guild
// (typically every question of a bank once all were asked). Unknown IDs
// are ignored. Safe for concurrent use.
func (db *DB) ForgetAsked(ctx context.Context, guildID questions.GuildID, questionIDs []string) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bAsked)
		if b == nil {
			return nil
		}
		for _, id := range questionIDs {
			if id == "" {
				continue
			}
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget asked: %w", err)
	}
	return nil
}

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

// clearScores empties the guild's derived data: periods, topics, streaks.
func clearScores(g *bbolt.Bucket) error {
	for _, name := range [][]byte{bPeriods, bTopics, bStreaks} {
		if err := g.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if _, err := g.CreateBucket(name); err != nil {
			return err
		}
	}
	return nil
}

// ResetGuild starts a new term: it clears the guild's scores, streaks,
// leaderboards, topic stats and asked history. Posts and answers stay as
// history (Post, Answer and Answers still return them, and a member who
// answered a still-open post cannot answer it again) but no longer count:
// the reset remembers the last answer sequence number, and RebuildScores
// counts only answers recorded after it. Settings and banks stay. Safe for
// concurrent use.
func (db *DB) ResetGuild(ctx context.Context, guildID questions.GuildID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		if err := g.Bucket(bInfo).Put(kReset, u64(g.Bucket(bAnswers).Sequence())); err != nil {
			return err
		}
		if err := clearScores(g); err != nil {
			return err
		}
		for _, name := range [][]byte{bAsked, bResets} {
			if err := g.DeleteBucket(name); err != nil {
				return err
			}
			if _, err := g.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reset guild: %w", err)
	}
	return nil
}

// ResetMember clears one member's scores in every period, their streaks,
// index entries and topic stats. Their answers stay as history but no
// longer count (as for ResetGuild). Safe for concurrent use.
func (db *DB) ResetMember(ctx context.Context, guildID questions.GuildID, userID questions.UserID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		if err := g.Bucket(bResets).Put(u64(userID), u64(g.Bucket(bAnswers).Sequence())); err != nil {
			return err
		}
		return removeMember(g, userID)
	})
	if err != nil {
		return fmt.Errorf("reset member: %w", err)
	}
	return nil
}

// RebuildScores recounts every score, streak, topic stat and leaderboard
// index of the guild from its stored answers (those recorded after the
// last ResetGuild, and after the member's last ResetMember), in recording
// order, in the guild's current time zone. It is the repair path and the
// tests' oracle: on an intact file it changes nothing. One transaction;
// its cost grows with the guild's answers, and it holds 24 bytes per
// counted answer in memory (each answer is read again as it is counted).
// Safe for concurrent use.
func (db *DB) RebuildScores(ctx context.Context, guildID questions.GuildID) error {
	if err := db.update(ctx, func(tx *bbolt.Tx) error { return db.rebuild(tx, guildID) }); err != nil {
		return fmt.Errorf("rebuild scores: %w", err)
	}
	return nil
}

func (db *DB) rebuild(tx *bbolt.Tx, guildID questions.GuildID) error {
	g := guildRO(tx, guildID)
	if g == nil {
		return nil
	}
	if err := clearScores(g); err != nil {
		return err
	}
	return db.recount(tx, g, guildID, countedAnswers(g, nil))
}

// answerRef points at an answer to recount: its sequence number and key
// (post, user). A rebuild holds one per answer, 24 bytes, and reads the
// answer itself again only when it counts it.
type answerRef struct {
	seq uint64
	key [16]byte
}

// countedAnswers returns the guild's answers that count (recorded after
// the last ResetGuild and the member's last ResetMember), of the members
// in users (every member when users is nil), in recording order.
func countedAnswers(g *bbolt.Bucket, users map[questions.UserID]bool) []answerRef {
	counts := countsFilter(g)
	var refs []answerRef
	c := g.Bucket(bAnswers).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 16 || users != nil && !users[getID[questions.UserID](k[8:16])] {
			continue
		}
		if counts(k, v) {
			refs = append(refs, answerRef{seq: getU64(v), key: [16]byte(k)})
		}
	}
	slices.SortFunc(refs, func(x, y answerRef) int { return cmp.Compare(x.seq, y.seq) })
	return refs
}

// countsFilter returns a function that tells whether the answer stored
// under k with value v counts: recorded after the guild's last ResetGuild
// and its member's last ResetMember.
func countsFilter(g *bbolt.Bucket) func(k, v []byte) bool {
	guildReset := getU64(g.Bucket(bInfo).Get(kReset))
	resets := g.Bucket(bResets)
	return func(k, v []byte) bool {
		seq := getU64(v)
		return seq > guildReset && seq > getU64(resets.Get(k[8:16]))
	}
}

// recount counts the answers refs points at, in order, into the guild's
// scores, in the guild's current time zone.
func (db *DB) recount(tx *bbolt.Tx, g *bbolt.Bucket, guildID questions.GuildID, refs []answerRef) error {
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return err
	}
	answers := g.Bucket(bAnswers)
	sources := map[questions.PostID]answerSource{} // post or review → what its answers count for
	for _, r := range refs {
		a, _ := decodeAnswer(guildID, r.key[:], answers.Get(r.key[:]))
		if err := countStored(tx, g, loc, a, sources); err != nil {
			return err
		}
	}
	return nil
}

// removeMember deletes a member's rows and ranking keys in every period
// (and the periods left without members, as a rebuild would not create
// them), their streak index entry and their topic stats.
func removeMember(g *bbolt.Bucket, userID questions.UserID) error {
	if all, ok := periodRO(g, periodAll).row(userID); ok {
		if k := streakKey(all); k != nil {
			if err := g.Bucket(bStreaks).Delete(k); err != nil {
				return err
			}
		}
	}
	periods := g.Bucket(bPeriods)
	var names [][]byte
	if err := periods.ForEachBucket(func(k []byte) error {
		names = append(names, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	for _, name := range names {
		p := periodOf(periods.Bucket(name))
		if err := p.remove(userID); err != nil {
			return err
		}
		if p.count(kMembers) == 0 {
			if err := periods.DeleteBucket(name); err != nil {
				return err
			}
		}
	}
	_, err := deletePrefix(g.Bucket(bTopics), u64(userID))
	return err
}
