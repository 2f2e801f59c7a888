package storage

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

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
