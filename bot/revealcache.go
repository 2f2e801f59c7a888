package bot

import (
	"slices"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// revealCacheSize bounds the posts whose reveal is kept: more than the
// posts a large bot has open and answered at once. Past it, an entry is
// dropped to make room; a dropped post's next answer renders it again.
const revealCacheSize = 4096

// revealCache keeps, per post, the reveal the reply to an answer carries
// (answerReveal), rendered once and shared by every member's reply
// instead of rendered for each. An entry is used only while it was
// rendered from the same question (as the guild's banks have it now) and
// the same correct letters (a regrade changes them); otherwise it is
// rendered again. The zero value is ready; safe for concurrent use.
type revealCache struct {
	mu    sync.Mutex
	posts map[questions.PostID]revealEntry
}

type revealEntry struct {
	q       *questions.Question
	correct []string
	embeds  [][]*discordgo.MessageEmbed
}

// get returns post's reveal of q, rendering it if it is not kept. The
// result is shared: callers must not change it.
func (c *revealCache) get(p questions.Post, q *questions.Question) [][]*discordgo.MessageEmbed {
	c.mu.Lock()
	e, ok := c.posts[p.ID]
	c.mu.Unlock()
	if ok && e.q == q && slices.Equal(e.correct, p.Correct) {
		return e.embeds
	}
	e = revealEntry{q: q, correct: slices.Clone(p.Correct), embeds: answerReveal(q, p)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.posts == nil {
		c.posts = map[questions.PostID]revealEntry{}
	}
	if _, ok := c.posts[p.ID]; !ok && len(c.posts) >= revealCacheSize {
		for id := range c.posts { // any one: a random victim
			delete(c.posts, id)
			break
		}
	}
	c.posts[p.ID] = e
	return e.embeds
}

// forget drops post's reveal (it closed: no more answers come).
func (c *revealCache) forget(postID questions.PostID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.posts, postID)
}
