package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// CreateAsk is CreatePost for a member's /quiz ask, held to lim in the
// same write transaction, so that asks made at once cannot all pass. It
// refuses, writing nothing: an ask at p.OpenedAt (zero: now) less than
// lim.Cooldown after lim.Member's last ask in the guild
// (questions.ErrCooldown; LastAsk says when that was), into a channel
// with lim.MaxOpen or more open posts (questions.ErrChannelFull), and a
// question already asked in the current round (questions.ErrAlreadyAsked).
// Otherwise it stores the post as CreatePost does and records it as the
// member's last ask (DeletePost of the post forgets that again). Safe for
// concurrent use.
func (db *DB) CreateAsk(ctx context.Context, p questions.Post, lim questions.AskLimits) (questions.Post, error) {
	if lim.Member == 0 {
		return questions.Post{}, errors.New("create ask: no member")
	}
	return db.createPost(ctx, "create ask", p, &lim)
}

// LastAsk returns when the member last asked a question with /quiz ask in
// the guild (the OpenedAt of the post CreateAsk stored), or the zero time
// if never. Safe for concurrent use.
func (db *DB) LastAsk(guildID questions.GuildID, userID questions.UserID) (time.Time, error) {
	var at time.Time
	err := db.view(func(tx *bbolt.Tx) error {
		at, _ = decodeAsk(getIn(sub(guildRO(tx, guildID), bAsks), u64(userID)))
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("last ask: %w", err)
	}
	return at, nil
}

// An ask record (guilds/<g>/asks/<user>) is the time of the member's last
// /quiz ask (timeKey) then its post ID.
func encodeAsk(at time.Time, post questions.PostID) []byte { return cat(u64(timeKey(at)), u64(post)) }

func decodeAsk(v []byte) (time.Time, questions.PostID) {
	if len(v) < 16 {
		return time.Time{}, 0
	}
	return keyTime(getU64(v[:8])), getID[questions.PostID](v[8:16])
}

// checkAsk refuses a member's ask that lim does not allow (see CreateAsk).
func checkAsk(tx *bbolt.Tx, p questions.Post, lim questions.AskLimits) error {
	g := guildRO(tx, p.GuildID)
	if lim.Cooldown > 0 {
		last, _ := decodeAsk(getIn(sub(g, bAsks), u64(lim.Member)))
		if !last.IsZero() && p.OpenedAt.Before(last.Add(lim.Cooldown)) {
			return fmt.Errorf("member %d asked at %v: %w", lim.Member, last, questions.ErrCooldown)
		}
	}
	if lim.MaxOpen > 0 {
		prefix, n := cat(u64(p.GuildID), u64(p.ChannelID)), 0
		c := tx.Bucket(bOpen).Cursor()
		for k, _ := c.Seek(prefix); hasPrefix(k, prefix) && n < lim.MaxOpen; k, _ = c.Next() {
			n++
		}
		if n >= lim.MaxOpen {
			return fmt.Errorf("channel %d has %d open: %w", p.ChannelID, n, questions.ErrChannelFull)
		}
	}
	if p.QuestionID != "" && getIn(sub(g, bAsked), []byte(p.QuestionID)) != nil {
		return fmt.Errorf("question %q: %w", p.QuestionID, questions.ErrAlreadyAsked)
	}
	return nil
}

// forgetAsk deletes the ask record (guilds/<g>/asks) that names postID,
// if any: a pass over the guild's askers, for DeletePost's rare calls.
func forgetAsk(g *bbolt.Bucket, postID questions.PostID) error {
	asks := g.Bucket(bAsks)
	if asks == nil {
		return nil
	}
	var who []byte
	err := asks.ForEach(func(k, v []byte) error {
		if _, p := decodeAsk(v); p == postID {
			who = append([]byte(nil), k...)
		}
		return nil
	})
	if err != nil || who == nil {
		return err
	}
	return asks.Delete(who)
}
