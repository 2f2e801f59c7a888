package storage

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Asked returns the IDs of the questions asked in the guild in the current
// round (since they were last forgotten). The map is the caller's. Safe
// for concurrent use.
func (db *DB) Asked(guildID uint64) (map[string]bool, error) {
	out := map[string]bool{}
	err := db.bolt.View(func(tx *bbolt.Tx) error {
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
func (db *DB) ForgetAsked(guildID uint64, questionIDs []string) error {
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
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

// bankRec is how an imported bank is stored (JSON; Data as base64).
type bankRec struct {
	Name       string    `json:"name"`
	Format     string    `json:"format"`
	Data       []byte    `json:"data"`
	ImportedAt time.Time `json:"importedAt"`
	ImportedBy uint64    `json:"importedBy"`
}

// SaveBank stores an imported bank file of the guild, replacing the bank of
// the same name compared case-insensitively (whose stored name then
// becomes f.Name). It refuses an empty name. Safe for concurrent use.
func (db *DB) SaveBank(guildID uint64, f questions.BankFile) error {
	if f.Name == "" {
		return errors.New("save bank: no name")
	}
	v, err := json.Marshal(bankRec{Name: f.Name, Format: string(f.Format), Data: f.Data, ImportedAt: utc(f.ImportedAt), ImportedBy: f.ImportedBy})
	if err != nil {
		return fmt.Errorf("save bank: %w", err)
	}
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guildID)
		if err != nil {
			return err
		}
		return g.Bucket(bBanks).Put(normBank(f.Name), v)
	})
	if err != nil {
		return fmt.Errorf("save bank: %w", err)
	}
	return nil
}

// Banks returns the guild's imported banks sorted by name
// (case-insensitively); the slices are the caller's. Safe for concurrent use.
func (db *DB) Banks(guildID uint64) ([]questions.BankFile, error) {
	var out []questions.BankFile
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bBanks)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r bankRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("bank %q: %w", k, err)
			}
			out = append(out, questions.BankFile{Name: r.Name, Format: questions.Format(r.Format), Data: r.Data,
				ImportedAt: r.ImportedAt, ImportedBy: r.ImportedBy})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	return out, nil
}

// DeleteBank removes the guild's bank of that name (case-insensitive). It
// returns an error wrapping questions.ErrNotFound if there is none. Safe
// for concurrent use.
func (db *DB) DeleteBank(guildID uint64, name string) error {
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		b := sub(guildRO(tx, guildID), bBanks)
		if b == nil || b.Get(normBank(name)) == nil {
			return fmt.Errorf("bank %q: %w", name, questions.ErrNotFound)
		}
		return b.Delete(normBank(name))
	})
	if err != nil {
		return fmt.Errorf("delete bank: %w", err)
	}
	return nil
}

// clearScores empties the guild's derived data: periods, topics, streaks.
func clearScores(g *bbolt.Bucket) error {
	for _, name := range [][]byte{bPeriods, bTopics, bStreaks} {
		if err := g.DeleteBucket(name); err != nil && !errors.Is(err, bbolt.ErrBucketNotFound) {
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
func (db *DB) ResetGuild(guildID uint64) error {
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
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
func (db *DB) ResetMember(guildID, userID uint64) error {
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		user := u64(userID)
		if err := g.Bucket(bResets).Put(user, u64(g.Bucket(bAnswers).Sequence())); err != nil {
			return err
		}
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
			if err := periodOf(periods.Bucket(name)).remove(userID); err != nil {
				return err
			}
		}
		_, err := deletePrefix(g.Bucket(bTopics), user)
		return err
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
// its cost grows with the guild's answers. Safe for concurrent use.
func (db *DB) RebuildScores(guildID uint64) error {
	if err := db.bolt.Update(func(tx *bbolt.Tx) error { return db.rebuild(tx, guildID) }); err != nil {
		return fmt.Errorf("rebuild scores: %w", err)
	}
	return nil
}

func (db *DB) rebuild(tx *bbolt.Tx, guildID uint64) error {
	g := guildRO(tx, guildID)
	if g == nil {
		return nil
	}
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return err
	}
	if err := clearScores(g); err != nil {
		return err
	}
	guildReset := getU64(g.Bucket(bInfo).Get(kReset))
	resets := g.Bucket(bResets)
	type counted struct {
		seq uint64
		a   questions.Answer
	}
	var list []counted
	err = g.Bucket(bAnswers).ForEach(func(k, v []byte) error {
		a, seq := decodeAnswer(guildID, k, v)
		if seq > guildReset && seq > getU64(resets.Get(k[8:16])) {
			list = append(list, counted{seq, a})
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(list, func(x, y counted) int { return cmp.Compare(x.seq, y.seq) })
	topics := map[uint64][]string{}
	for _, c := range list {
		t, ok := topics[c.a.PostID]
		if !ok {
			p, err := getPost(tx, c.a.PostID)
			if err != nil {
				return err
			}
			t = topicsOf(p)
			topics[c.a.PostID] = t
		}
		if err := countAnswer(g, c.a.UserID, c.a.Grade, c.a.At, loc, t); err != nil {
			return err
		}
	}
	return nil
}
