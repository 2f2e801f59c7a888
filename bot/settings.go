package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quizhost/quizhost/questions"
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
