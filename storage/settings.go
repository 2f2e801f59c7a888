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

// settingsRec is how settings are stored (JSON): the file format is ours,
// not the domain type's field names.
type settingsRec struct {
	TimeZone       string `json:"tz"`
	RevealOnAnswer bool   `json:"reveal"`
	AskMinutes     int    `json:"askMinutes"`
	// Absent in files written before the fair-play settings: the defaults.
	AskCooldownSec *int      `json:"askCooldown,omitempty"`
	AskMaxOpen     *int      `json:"askMaxOpen,omitempty"`
	Banks          []string  `json:"banks,omitempty"`
	Daily          *dailyRec `json:"daily,omitempty"`
	LastDaily      string    `json:"lastDaily,omitempty"`
	LastDailyTime  string    `json:"lastDailyTime,omitempty"`
}

// dailyRec is the stored daily schedule. Files written before the guild
// had a single time zone carry a "tz" field here too; decoding ignores it.
type dailyRec struct {
	ChannelID       questions.ChannelID `json:"channel"`
	Time            string              `json:"time"`
	Bank            string              `json:"bank,omitempty"`
	Count           int                 `json:"count"`
	CloseAfterHours int                 `json:"closeAfterHours,omitempty"`
	Next            time.Time           `json:"next,omitzero"`
	LastPosted      string              `json:"lastPosted,omitempty"`
	LastError       string              `json:"lastError,omitempty"`
}

func encodeSettings(s questions.Settings) ([]byte, error) {
	cooldown, maxOpen := int(s.AskCooldown/time.Second), s.AskMaxOpen
	r := settingsRec{TimeZone: s.TimeZone, RevealOnAnswer: s.RevealOnAnswer, AskMinutes: s.AskMinutes, Banks: s.Banks,
		AskCooldownSec: &cooldown, AskMaxOpen: &maxOpen, LastDaily: s.LastDaily, LastDailyTime: s.LastDailyTime}
	if d := s.Daily; d != nil {
		r.Daily = &dailyRec{ChannelID: d.ChannelID, Time: d.Time, Bank: d.Bank, Count: d.Count,
			CloseAfterHours: d.CloseAfterHours, Next: utc(d.Next), LastPosted: d.LastPosted, LastError: d.LastError}
	}
	return json.Marshal(r)
}

func decodeSettings(guildID questions.GuildID, v []byte) (questions.Settings, error) {
	var r settingsRec
	if err := json.Unmarshal(v, &r); err != nil {
		return questions.Settings{}, fmt.Errorf("settings of guild %d: %w", guildID, err)
	}
	s := questions.Settings{GuildID: guildID, TimeZone: r.TimeZone, RevealOnAnswer: r.RevealOnAnswer,
		AskMinutes: r.AskMinutes, Banks: r.Banks, LastDaily: r.LastDaily, LastDailyTime: r.LastDailyTime,
		AskCooldown: questions.DefaultAskCooldown, AskMaxOpen: questions.DefaultAskMaxOpen}
	if r.AskCooldownSec != nil {
		s.AskCooldown = time.Duration(*r.AskCooldownSec) * time.Second
	}
	if r.AskMaxOpen != nil {
		s.AskMaxOpen = *r.AskMaxOpen
	}
	if d := r.Daily; d != nil {
		s.Daily = &questions.Daily{ChannelID: d.ChannelID, Time: d.Time, Bank: d.Bank, Count: d.Count,
			CloseAfterHours: d.CloseAfterHours, Next: utc(d.Next), LastPosted: d.LastPosted, LastError: d.LastError}
	}
	return s, nil
}

// readSettings returns the guild's stored settings, or the defaults.
func readSettings(tx *bbolt.Tx, guildID questions.GuildID) (questions.Settings, error) {
	v := tx.Bucket(bSettings).Get(u64(guildID))
	if v == nil {
		return questions.DefaultSettings(guildID), nil
	}
	return decodeSettings(guildID, v)
}

func writeSettings(tx *bbolt.Tx, s questions.Settings) error {
	v, err := encodeSettings(s)
	if err != nil {
		return err
	}
	return tx.Bucket(bSettings).Put(u64(s.GuildID), v)
}

// guildLocation returns the guild's time zone.
func (db *DB) guildLocation(tx *bbolt.Tx, guildID questions.GuildID) (*time.Location, error) {
	s, err := db.settings(tx, guildID)
	if err != nil {
		return nil, err
	}
	return db.location(s.TimeZone), nil
}

// locationIn is guildLocation remembered in d for the rest of its
// transaction (where no settings change: see deltas).
func (db *DB) locationIn(tx *bbolt.Tx, d *deltas, guildID questions.GuildID) (*time.Location, error) {
	if d != nil && d.locs[guildID] != nil {
		return d.locs[guildID], nil
	}
	loc, err := db.guildLocation(tx, guildID)
	if err != nil || d == nil {
		return loc, err
	}
	if d.locs == nil {
		d.locs = make(map[questions.GuildID]*time.Location)
	}
	d.locs[guildID] = loc
	return loc, nil
}

// Settings returns a guild's settings, or questions.DefaultSettings(guildID)
// when it has saved none. Safe for concurrent use.
func (db *DB) Settings(guildID questions.GuildID) (questions.Settings, error) {
	var s questions.Settings
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		s, err = db.settings(tx, guildID)
		return err
	})
	if err != nil {
		return questions.Settings{}, fmt.Errorf("settings: %w", err)
	}
	return s, nil
}

// SaveSettings stores s as the settings of s.GuildID, replacing what was
// there. It refuses a zero GuildID and a TimeZone that time.LoadLocation
// does not know. When TimeZone changes, the guild's periods, streaks and
// leaderboards are recounted in the new zone in the same transaction (as
// RebuildScores does; its cost grows with the guild's answers), so they
// never mix zones. A read-modify-write of settings should use
// UpdateSettings instead, which cannot undo a concurrent ClaimDaily. Safe
// for concurrent use.
func (db *DB) SaveSettings(ctx context.Context, s questions.Settings) error {
	if err := validateSettings(s); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		old, err := readSettings(tx, s.GuildID)
		if err != nil {
			return err
		}
		return db.replaceSettings(tx, old, s)
	})
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// UpdateSettings changes a guild's settings in one write transaction: it
// reads them (questions.DefaultSettings(guildID) when none are stored),
// calls fn on a copy, validates the result as SaveSettings does, stores it
// (recounting scores if TimeZone changed, as SaveSettings does) and returns
// it. fn runs exactly once, inside the transaction that writes, so it sees
// the current settings and no concurrent change (a ClaimDaily, say) can be
// lost between the read and the write. fn must be pure and quick: no I/O,
// no calls to the DB (that would deadlock), no effects outside the
// settings it is given (the commit may still fail after it returned). It
// must not change GuildID.
//
// If fn returns an error, nothing is written and UpdateSettings returns an
// error wrapping it (test it with errors.Is or errors.As). Safe for
// concurrent use.
func (db *DB) UpdateSettings(ctx context.Context, guildID questions.GuildID, fn func(*questions.Settings) error) (questions.Settings, error) {
	var out questions.Settings
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		old, err := readSettings(tx, guildID)
		if err != nil {
			return err
		}
		// fn gets its own copy: decoding again shares no slice or pointer
		// with old.
		s, err := readSettings(tx, guildID)
		if err != nil {
			return err
		}
		if err := fn(&s); err != nil {
			return err
		}
		if s.GuildID != guildID {
			return fmt.Errorf("guild ID changed from %d to %d", guildID, s.GuildID)
		}
		if err := validateSettings(s); err != nil {
			return err
		}
		out = s
		return db.replaceSettings(tx, old, s)
	})
	if err != nil {
		return questions.Settings{}, fmt.Errorf("update settings: %w", err)
	}
	return out, nil
}

// replaceSettings writes s over old and, when the time zone changed,
// recounts the guild's scores in the new one.
func (db *DB) replaceSettings(tx *bbolt.Tx, old, s questions.Settings) error {
	if err := writeSettings(tx, s); err != nil {
		return err
	}
	if old.TimeZone == s.TimeZone {
		return nil
	}
	return db.rebuild(tx, s.GuildID)
}

func validateSettings(s questions.Settings) error {
	if s.GuildID == 0 {
		return errors.New("no guild ID")
	}
	// An IANA name: not "Local", which would follow the host's TZ.
	if _, err := time.LoadLocation(s.TimeZone); err != nil || s.TimeZone == "" || s.TimeZone == "Local" {
		return fmt.Errorf("unknown time zone %q", s.TimeZone)
	}
	if s.AskCooldown < 0 || s.AskCooldown%time.Second != 0 || s.AskMaxOpen < 0 {
		return fmt.Errorf("ask cooldown %v, max open %d: want whole seconds and counts, not negative", s.AskCooldown, s.AskMaxOpen)
	}
	return nil
}

// DailyGuilds returns the settings of every guild with a daily schedule
// (Settings.Daily != nil), in guild ID order. Safe for concurrent use.
func (db *DB) DailyGuilds() ([]questions.Settings, error) {
	var out []questions.Settings
	err := db.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bSettings).ForEach(func(k, v []byte) error {
			s, err := decodeSettings(getID[questions.GuildID](k), v)
			if err != nil {
				return err
			}
			if s.Daily != nil {
				out = append(out, s)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("daily guilds: %w", err)
	}
	return out, nil
}

// ClaimDaily is a compare-and-set on the guild's Daily.Next: if it equals
// due (time.Equal), ClaimDaily sets Next to next, LastPosted to localDate
// and clears LastError, and returns true (the caller posts the questions
// due then); otherwise it changes nothing and returns false (another claim
// won, or the schedule was changed since the caller read it). It returns
// an error wrapping questions.ErrNotFound when the guild has no daily
// schedule. Safe for concurrent use: of concurrent claims of one due time,
// one wins.
func (db *DB) ClaimDaily(ctx context.Context, guildID questions.GuildID, due, next time.Time, localDate string) (bool, error) {
	claimed := false
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		claimed = false
		s, err := readSettings(tx, guildID)
		if err != nil {
			return err
		}
		if s.Daily == nil {
			return fmt.Errorf("daily schedule of guild %d: %w", guildID, questions.ErrNotFound)
		}
		if !s.Daily.Next.Equal(due) {
			return nil
		}
		s.Daily.Next, s.Daily.LastPosted, s.Daily.LastError = utc(next), localDate, ""
		claimed = true
		return writeSettings(tx, s)
	})
	if err != nil {
		return false, fmt.Errorf("claim daily: %w", err)
	}
	return claimed, nil
}

// DailyFailed records why the guild's last daily post failed
// (Daily.LastError; the next successful ClaimDaily clears it). It does
// nothing when the guild has no daily schedule. Safe for concurrent use.
func (db *DB) DailyFailed(ctx context.Context, guildID questions.GuildID, msg string) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		s, err := readSettings(tx, guildID)
		if err != nil || s.Daily == nil || s.Daily.LastError == msg {
			return err
		}
		s.Daily.LastError = msg
		return writeSettings(tx, s)
	})
	if err != nil {
		return fmt.Errorf("daily failed: %w", err)
	}
	return nil
}
