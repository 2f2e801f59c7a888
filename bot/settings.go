package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// Bounds of the fair-play settings (/quizadmin settings).
const (
	maxAskCooldown = 86400 // seconds: a day
	maxAskMaxOpen  = 25
)

// errZoneMoved aborts a settings update whose guild changed time zone
// between reading it and the update's transaction.
var errZoneMoved = errors.New("time zone changed meanwhile")

// updateSettings changes a guild's settings in one storage transaction.
// fn gets the settings and their time zone, loaded before the transaction
// opens (nil when the stored zone does not load): the closure only
// assigns. Should the zone change between that read and the transaction,
// it reads again and retries.
func (b *Bot) updateSettings(ctx context.Context, guild questions.GuildID, fn func(s *questions.Settings, zone *time.Location) error) (questions.Settings, error) {
	for try := 0; ; try++ {
		cur, err := b.store.Settings(guild)
		if err != nil {
			return questions.Settings{}, fmt.Errorf("settings: %w", err)
		}
		zone, err := questions.LoadZone(cur.TimeZone)
		if err != nil {
			zone = nil
		}
		set, err := b.store.UpdateSettings(ctx, guild, func(s *questions.Settings) error {
			if s.TimeZone != cur.TimeZone {
				return errZoneMoved
			}
			return fn(s, zone)
		})
		if errors.Is(err, errZoneMoved) && try < 10 {
			continue
		}
		return set, err
	}
}

// settingsCmd shows or changes the server's settings (/quizadmin settings).
// The options are checked first; the change is one storage transaction, so
// it cannot undo a daily post claimed meanwhile.
func (b *Bot) settingsCmd(c *call, opts options) (response, error) {
	var edits []func(s *questions.Settings, zone *time.Location) error
	rezone := false
	if v, ok := opts.bool("reveal_on_answer"); ok {
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.RevealOnAnswer = v; return nil })
	}
	if v, ok := opts.int("ask_minutes"); ok {
		if v < 1 || v > 10080 {
			return response{}, userErr("ask_minutes must be between 1 and 10080 (a week).")
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.AskMinutes = v; return nil })
	}
	if v, ok := opts.int("ask_cooldown_seconds"); ok {
		if v < 0 || v > maxAskCooldown {
			return response{}, userErr("ask_cooldown_seconds must be between 0 (none) and %d (a day).", maxAskCooldown)
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error {
			s.AskCooldown = time.Duration(v) * time.Second
			return nil
		})
	}
	if v, ok := opts.int("ask_max_open"); ok {
		if v < 0 || v > maxAskMaxOpen {
			return response{}, userErr("ask_max_open must be between 0 (no cap) and %d.", maxAskMaxOpen)
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.AskMaxOpen = v; return nil })
	}
	if v, ok := opts.str("timezone"); ok {
		loc, err := questions.LoadZone(v)
		if err != nil {
			return response{}, userErr("%q is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.", truncate(v, 60))
		}
		now := b.clock.Now()
		edits = append(edits, func(s *questions.Settings, from *time.Location) error {
			return s.SetTimeZone(from, loc, now)
		})
		rezone = true
	}
	if v, ok := opts.int("daily_close_hours"); ok {
		if v < 0 || v > 168 {
			return response{}, userErr("daily_close_hours must be between 0 and 168.")
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error {
			if s.Daily == nil {
				return userErr("Set up the daily quiz first with `/quizadmin daily set`.")
			}
			s.Daily.CloseAfterHours = v
			return nil
		})
	}
	if v, ok := opts.str("banks"); ok {
		names, err := b.bankList(c.guild, v)
		if err != nil {
			return response{}, err
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.Banks = names; return nil })
	}
	if rezone {
		// Scores are recounted in the new zone: that can take a moment.
		return later(func() (response, error) { return b.saveSettings(c, edits) }), nil
	}
	return b.saveSettings(c, edits)
}

// saveSettings makes the edits of settingsCmd, if any, and shows the
// settings.
func (b *Bot) saveSettings(c *call, edits []func(s *questions.Settings, zone *time.Location) error) (response, error) {
	var set questions.Settings
	var err error
	if len(edits) == 0 {
		set, err = b.store.Settings(c.guild)
	} else {
		set, err = b.updateSettings(c.ctx, c.guild, func(s *questions.Settings, zone *time.Location) error {
			for _, edit := range edits {
				if err := edit(s, zone); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return response{}, fmt.Errorf("settings: %w", err)
	}
	changed := len(edits) > 0
	if changed {
		b.poke()
	}
	return asReply(settingsMessage(set, changed)), nil
}

// settingsMessage shows a server's settings; changed: just saved.
func settingsMessage(set questions.Settings, changed bool) message {
	reveal := "at once, in the private answer reply"
	if !set.RevealOnAnswer {
		reveal = "only when the question closes"
	}
	banks := "every bank"
	if len(set.Banks) > 0 {
		banks = strings.Join(set.Banks, ", ")
	}
	head := "⚙️ **Settings**"
	if changed {
		head = "⚙️ **Settings saved**"
	}
	cooldown := "no cooldown"
	if set.AskCooldown > 0 {
		cooldown = "one per member every " + secondsText(set.AskCooldown)
	}
	maxOpen := "no cap on open questions"
	if set.AskMaxOpen > 0 {
		maxOpen = "none while " + plural(set.AskMaxOpen, "question is", "questions are") + " open in the channel"
	}
	return message{ephemeral: true, content: truncate(fmt.Sprintf(
		"%s\nAnswer and explanation shown: %s\n`/quiz ask` stays open: %s\nMembers' `/quiz ask` (admins exempt): %s; %s\nQuestions drawn from: %s\nTime zone: %s",
		head, reveal, plural(set.AskMinutes, "minute", "minutes"), cooldown, maxOpen, banks, set.TimeZone), 2000)}
}

// bankList reads "all" or a comma-separated list of existing bank names.
func (b *Bot) bankList(guild questions.GuildID, v string) ([]string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "all") || strings.TrimSpace(v) == "" {
		return nil, nil
	}
	banks, err := b.guildBanks(guild)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		bk := findBank(banks, n)
		if bk == nil {
			return nil, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(n, 100))
		}
		names = append(names, bk.Name)
	}
	return names, nil
}
