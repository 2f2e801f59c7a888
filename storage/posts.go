package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// postRec is how a post is stored (JSON).
type postRec struct {
	GuildID     questions.GuildID   `json:"guild"`
	ChannelID   questions.ChannelID `json:"channel"`
	MessageID   questions.MessageID `json:"message,omitempty"`
	QuestionID  string              `json:"question"`
	Bank        string              `json:"bank,omitempty"`
	Tags        []string            `json:"tags,omitempty"`
	Correct     []string            `json:"correct"`
	OptionCount int                 `json:"options"`
	SelectCount int                 `json:"select"`
	Daily       bool                `json:"daily,omitempty"`
	OpenedAt    time.Time           `json:"openedAt"`
	ClosesAt    time.Time           `json:"closesAt"`
	Closed      bool                `json:"closed,omitempty"`
	ClosedAt    time.Time           `json:"closedAt"`
	Revealed    bool                `json:"revealed,omitempty"`
	RevealSent  int                 `json:"revealSent,omitempty"`
	Tallies     []int               `json:"tallies"`
	Answers     int                 `json:"answers"`
	Right       int                 `json:"right"`
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

func encodePost(p questions.Post) ([]byte, error) {
	return json.Marshal(postRec{
		GuildID: p.GuildID, ChannelID: p.ChannelID, MessageID: p.MessageID, QuestionID: p.QuestionID,
		Bank: p.Bank, Tags: p.Tags, Correct: p.Correct, OptionCount: p.OptionCount, SelectCount: p.SelectCount,
		Daily: p.Daily, OpenedAt: utc(p.OpenedAt), ClosesAt: utc(p.ClosesAt), Closed: p.Closed,
		ClosedAt: utc(p.ClosedAt), Revealed: p.Revealed, RevealSent: p.RevealSent, Tallies: p.Tallies, Answers: p.Answers, Right: p.Right,
	})
}

func decodePost(id questions.PostID, v []byte) (questions.Post, error) {
	var r postRec
	if err := json.Unmarshal(v, &r); err != nil {
		return questions.Post{}, fmt.Errorf("post %d: %w", id, err)
	}
	return questions.Post{
		ID: id, GuildID: r.GuildID, ChannelID: r.ChannelID, MessageID: r.MessageID, QuestionID: r.QuestionID,
		Bank: r.Bank, Tags: r.Tags, Correct: r.Correct, OptionCount: r.OptionCount, SelectCount: r.SelectCount,
		Daily: r.Daily, OpenedAt: r.OpenedAt, ClosesAt: r.ClosesAt, Closed: r.Closed, ClosedAt: r.ClosedAt,
		Revealed: r.Revealed, RevealSent: r.RevealSent, Tallies: r.Tallies, Answers: r.Answers, Right: r.Right,
	}, nil
}

// getPost reads a post; the error wraps questions.ErrNotFound if none.
func getPost(tx *bbolt.Tx, id questions.PostID) (questions.Post, error) {
	v := tx.Bucket(bPosts).Get(u64(id))
	if v == nil {
		return questions.Post{}, fmt.Errorf("post %d: %w", id, questions.ErrNotFound)
	}
	return decodePost(id, v)
}

func putPost(tx *bbolt.Tx, p questions.Post) error {
	v, err := encodePost(p)
	if err != nil {
		return err
	}
	return tx.Bucket(bPosts).Put(u64(p.ID), v)
}

func openKey(p questions.Post) []byte { return cat(u64(p.GuildID), u64(p.ChannelID), u64(p.ID)) }

// CreatePost stores a new post and returns it with its ID (the next
// value of the posts sequence, > 0), Tallies sized to OptionCount and
// OpenedAt set to now if zero; in the same transaction it marks
// p.QuestionID as asked in p.GuildID. A post created closed and not
// Revealed is listed by UnrevealedPosts. It refuses a post without guild, or
// whose OptionCount or SelectCount is out of range. Safe for concurrent use.
func (db *DB) CreatePost(ctx context.Context, p questions.Post) (questions.Post, error) {
	return db.createPost(ctx, "create post", p, nil)
}

// createPost is CreatePost, held to lim when it is not nil (CreateAsk).
func (db *DB) createPost(ctx context.Context, op string, p questions.Post, lim *questions.AskLimits) (questions.Post, error) {
	if p.GuildID == 0 {
		return questions.Post{}, fmt.Errorf("%s: no guild ID", op)
	}
	if p.OptionCount < 1 || p.OptionCount > questions.MaxOptions || p.SelectCount < 1 || p.SelectCount > p.OptionCount {
		return questions.Post{}, fmt.Errorf("%s: %d options, select %d: out of range", op, p.OptionCount, p.SelectCount)
	}
	if p.OpenedAt.IsZero() {
		p.OpenedAt = db.now()
	}
	p.Tallies = make([]int, p.OptionCount)
	p.Answers, p.Right = 0, 0
	in := p
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		p = in
		if lim != nil {
			if err := checkAsk(tx, p, *lim); err != nil {
				return err
			}
		}
		id, err := tx.Bucket(bPosts).NextSequence()
		if err != nil {
			return err
		}
		p.ID = questions.PostID(id)
		if err := putPost(tx, p); err != nil {
			return err
		}
		if !p.Closed {
			if err := tx.Bucket(bOpen).Put(openKey(p), nil); err != nil {
				return err
			}
		} else if !p.Revealed {
			if err := tx.Bucket(bUnrevealed).Put(u64(p.ID), nil); err != nil {
				return err
			}
		}
		if p.QuestionID == "" && lim == nil {
			return nil
		}
		g, err := guildRW(tx, p.GuildID)
		if err != nil {
			return err
		}
		if lim != nil {
			asks, err := g.CreateBucketIfNotExists(bAsks)
			if err != nil {
				return err
			}
			if err := asks.Put(u64(lim.Member), encodeAsk(p.OpenedAt, p.ID)); err != nil {
				return err
			}
		}
		if p.QuestionID == "" {
			return nil
		}
		if _, _, err := questionNum(g, nil, p.QuestionID, true); err != nil {
			return err
		}
		return g.Bucket(bAsked).Put([]byte(p.QuestionID), u64(p.ID))
	})
	if err != nil {
		return questions.Post{}, fmt.Errorf("%s: %w", op, err)
	}
	return p, nil
}

// SetPostMessage records the Discord message that shows the post. It
// returns an error wrapping questions.ErrNotFound for an unknown post.
// Safe for concurrent use.
func (db *DB) SetPostMessage(ctx context.Context, postID questions.PostID, messageID questions.MessageID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		p.MessageID = messageID
		return putPost(tx, p)
	})
	if err != nil {
		return fmt.Errorf("set post message: %w", err)
	}
	return nil
}

// DeletePost removes a post (meant for one whose message could not be
// sent) and forgets its asked mark, so the question can be drawn again. If
// members had answered it, their answers go too and, in the same
// transaction, the scores, streaks and topic stats of those members (only)
// are recounted from their remaining answers; the cost is a pass over the
// keys of the guild's answers plus those members' answers. It returns
// an error wrapping questions.ErrNotFound for an unknown post. Safe for
// concurrent use.
func (db *DB) DeletePost(ctx context.Context, postID questions.PostID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bPosts).Delete(u64(postID)); err != nil {
			return err
		}
		if err := tx.Bucket(bOpen).Delete(openKey(p)); err != nil {
			return err
		}
		if err := tx.Bucket(bUnrevealed).Delete(u64(postID)); err != nil {
			return err
		}
		g := guildRO(tx, p.GuildID)
		if g == nil {
			return nil
		}
		asked := g.Bucket(bAsked)
		if p.QuestionID != "" && getID[questions.PostID](asked.Get([]byte(p.QuestionID))) == postID {
			if err := asked.Delete([]byte(p.QuestionID)); err != nil {
				return err
			}
		}
		// A member's ask that posted nothing does not hold their cooldown.
		if err := forgetAsk(g, postID); err != nil {
			return err
		}
		// The members whose answer counted must be recounted; scores are
		// per member, so the others' keys, and the counts of the rankings,
		// stay right.
		users, err := deleteAnswersTo(g, p)
		if err != nil {
			return err
		}
		// Memories of the question are recomputed from the answers left.
		if err := rebuildMemory(tx, g, func(_ questions.UserID, q string) bool { return q == p.QuestionID }); err != nil {
			return err
		}
		if p.Answers > 0 {
			// The statistics of every answer after the deleted ones depend on them.
			if err := rebuildStats(tx, g); err != nil {
				return err
			}
		}
		return db.rescore(tx, g, p.GuildID, users)
	})
	if err != nil {
		return fmt.Errorf("delete post: %w", err)
	}
	return nil
}

// deleteAnswersTo deletes every answer to post p from the guild's answer
// records and returns the members whose deleted answer counted. A post
// without answers costs nothing; else a pass over the guild's answer
// records.
func deleteAnswersTo(g *bbolt.Bucket, p questions.Post) (map[questions.UserID]bool, error) {
	users := map[questions.UserID]bool{}
	b := g.Bucket(bAnswers)
	if b == nil || p.Answers == 0 {
		return users, nil
	}
	counts := countsFilter(g)
	type change struct{ k, v []byte }
	var changes []change
	err := eachRecordOf(g, p.QuestionID, func(k []byte, rec record) error {
		kept := rec.answers[:0]
		for _, ra := range rec.answers {
			if ra.id != p.ID || ra.mock {
				kept = append(kept, ra)
				continue
			}
			if counts(rec.user, ra.seq) {
				users[rec.user] = true
			}
		}
		if len(kept) == len(rec.answers) {
			return nil
		}
		rec.answers = kept
		var nv []byte
		if len(kept) > 0 {
			nv = encodeRecord(rec) // its card is recomputed after
		}
		changes = append(changes, change{bytes.Clone(k), nv})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		if c.v == nil {
			err = b.Delete(c.k)
		} else {
			err = b.Put(c.k, c.v)
		}
		if err != nil {
			return nil, err
		}
	}
	return users, nil
}

// Post returns a post. It returns an error wrapping questions.ErrNotFound
// for an unknown post. Safe for concurrent use.
func (db *DB) Post(postID questions.PostID) (questions.Post, error) {
	var p questions.Post
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		p, err = db.post(tx, postID)
		return err
	})
	if err != nil {
		return questions.Post{}, fmt.Errorf("post: %w", err)
	}
	return p, nil
}

// OpenPosts returns every open post of every guild (to re-arm close timers
// at start), ordered by guild, channel, then ID. Safe for concurrent use.
func (db *DB) OpenPosts() ([]questions.Post, error) {
	ps, err := db.openPosts(nil)
	if err != nil {
		return nil, fmt.Errorf("open posts: %w", err)
	}
	return ps, nil
}

// OpenPostsIn returns the open posts of a channel, or of the whole guild
// when channelID is 0, ordered by channel then ID. Safe for concurrent use.
func (db *DB) OpenPostsIn(guildID questions.GuildID, channelID questions.ChannelID) ([]questions.Post, error) {
	prefix := u64(guildID)
	if channelID != 0 {
		prefix = cat(prefix, u64(channelID))
	}
	ps, err := db.openPosts(prefix)
	if err != nil {
		return nil, fmt.Errorf("open posts in: %w", err)
	}
	return ps, nil
}

func (db *DB) openPosts(prefix []byte) ([]questions.Post, error) {
	var out []questions.Post
	err := db.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bOpen).Cursor()
		k, _ := c.First()
		if prefix != nil {
			k, _ = c.Seek(prefix)
		}
		for ; hasPrefix(k, prefix); k, _ = c.Next() {
			p, err := getPost(tx, getID[questions.PostID](k[16:]))
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// ClosePost closes a post at `at` (now if zero): no answer is accepted
// after, and UnrevealedPosts lists it until MarkRevealed. A close before
// the post's ClosesAt moves the review schedules of its answers in the
// same transaction, so that they count from the actual close (see
// questions.Memory.Reclosed). It returns the post and true if this call
// closed it, or the post and false if it was closed already (then
// ClosedAt is unchanged). It returns an error wrapping
// questions.ErrNotFound for an unknown post.
// Safe for concurrent use: of concurrent calls, exactly one gets true.
func (db *DB) ClosePost(ctx context.Context, postID questions.PostID, at time.Time) (questions.Post, bool, error) {
	if at.IsZero() {
		at = db.now()
	}
	var p questions.Post
	closed := false
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		closed = false
		if p, err = getPost(tx, postID); err != nil || p.Closed {
			return err
		}
		p.Closed, p.ClosedAt, closed = true, utc(at), true
		if err := tx.Bucket(bOpen).Delete(openKey(p)); err != nil {
			return err
		}
		if !p.Revealed {
			if err := tx.Bucket(bUnrevealed).Put(u64(p.ID), nil); err != nil {
				return err
			}
		}
		if err := rescheduleClosed(tx, p); err != nil {
			return err
		}
		return putPost(tx, p)
	})
	if err != nil {
		return questions.Post{}, false, fmt.Errorf("close post: %w", err)
	}
	return p, closed, nil
}

// MarkRevealed records that a closed post's message now shows the reveal:
// it sets Revealed and takes the post off UnrevealedPosts. Marking a post
// revealed again changes nothing. It returns an error wrapping
// questions.ErrNotFound for an unknown post, and refuses an open post (its
// reveal comes after the close). Safe for concurrent use.
func (db *DB) MarkRevealed(ctx context.Context, postID questions.PostID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		if !p.Closed {
			return fmt.Errorf("post %d is still open", postID)
		}
		if err := tx.Bucket(bUnrevealed).Delete(u64(postID)); err != nil {
			return err
		}
		if p.Revealed {
			return nil
		}
		p.Revealed = true
		return putPost(tx, p)
	})
	if err != nil {
		return fmt.Errorf("mark revealed: %w", err)
	}
	return nil
}

// SetRevealSent records that the first sent messages of a closed post's
// reveal reached its channel (the post's edit and the messages that
// continue it; see questions.Post.RevealSent), so that a reveal retried
// after a failure goes on after them. It never lowers the count, and
// changes nothing for a post revealed already. It returns an error
// wrapping questions.ErrNotFound for an unknown post, and refuses an open
// post. Safe for concurrent use.
func (db *DB) SetRevealSent(ctx context.Context, postID questions.PostID, sent int) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		p, err := getPost(tx, postID)
		if err != nil {
			return err
		}
		if !p.Closed {
			return fmt.Errorf("post %d is still open", postID)
		}
		if p.Revealed || sent <= p.RevealSent {
			return nil
		}
		p.RevealSent = sent
		return putPost(tx, p)
	})
	if err != nil {
		return fmt.Errorf("set reveal sent: %w", err)
	}
	return nil
}

// UnrevealedPosts returns the closed posts of every guild whose reveal has
// not been recorded by MarkRevealed, in ID order (to retry the reveal at
// start or after a failed edit). It reads an index of those posts only,
// never every post. Safe for concurrent use.
func (db *DB) UnrevealedPosts() ([]questions.Post, error) {
	var out []questions.Post
	err := db.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bUnrevealed).ForEach(func(k, _ []byte) error {
			p, err := getPost(tx, getID[questions.PostID](k))
			if err != nil {
				return err
			}
			out = append(out, p)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("unrevealed posts: %w", err)
	}
	return out, nil
}

// eachOpenQuestion calls fn with the question ID of each open post of the
// guild (posted and not closed: listed in the open bucket), in channel then
// post order, until fn returns false. It is the one definition of "open in
// the guild" that OpenQuestions, ReviewQueue, RecordReview and Regrade
// share. A guild has few open posts, and each is read through the posts'
// decode cache, so this is cheap enough for the answer path. A post's question
// never changes, so in a group commit the post as stored in tx will do
// (its pending tallies do not matter here).
func (db *DB) eachOpenQuestion(tx *bbolt.Tx, guildID questions.GuildID, fn func(questionID string) bool) error {
	prefix := u64(guildID)
	c := tx.Bucket(bOpen).Cursor()
	for k, _ := c.Seek(prefix); hasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != 24 {
			continue
		}
		p, err := db.post(tx, getID[questions.PostID](k[16:]))
		if err != nil {
			return err
		}
		if !fn(p.QuestionID) {
			return nil
		}
	}
	return nil
}

// openQuestions returns the question IDs of the guild's open posts.
func (db *DB) openQuestions(tx *bbolt.Tx, guildID questions.GuildID) (map[string]bool, error) {
	out := map[string]bool{}
	err := db.eachOpenQuestion(tx, guildID, func(id string) bool {
		out[id] = true
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// questionOpen reports whether a post of the question is open in the
// guild, stopping at the first.
func (db *DB) questionOpen(tx *bbolt.Tx, guildID questions.GuildID, questionID string) (bool, error) {
	open := false
	err := db.eachOpenQuestion(tx, guildID, func(id string) bool {
		open = id == questionID
		return !open
	})
	return open, err
}

// OpenQuestions returns the IDs of the questions open in the guild now
// (posted and not closed); the map is the caller's. Reviews and "due"
// counts leave them out: reviewing one would reveal its answer before the
// close. Safe for concurrent use.
func (db *DB) OpenQuestions(guildID questions.GuildID) (map[string]bool, error) {
	var out map[string]bool
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		out, err = db.openQuestions(tx, guildID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open questions: %w", err)
	}
	return out, nil
}
