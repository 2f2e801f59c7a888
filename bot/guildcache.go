package bot

import (
	"container/list"
	"sync"

	"github.com/quizhost/quizhost/questions"
)

// guildCache keeps the values the bot worked out for servers (charts,
// insights lists): at most max of them in all and perGuild of any one
// server, so that one busy server cannot push every other server's out.
// A value put past a bound replaces the least recently used: the server's
// own when it holds its share, else the least recently used of all. Safe
// for concurrent use; its mutex is held only for the map and list
// operations, never while a value is worked out.
type guildCache[K comparable, V any] struct {
	max, perGuild int

	mu    sync.Mutex
	order *list.List // of *guildCacheItem[K, V], most recently used first
	items map[K]*list.Element
	count map[questions.GuildID]int
}

type guildCacheItem[K comparable, V any] struct {
	guild questions.GuildID
	key   K
	value V
}

// newGuildCache is a cache of at most max values, perGuild of one server.
func newGuildCache[K comparable, V any](max, perGuild int) *guildCache[K, V] {
	return &guildCache[K, V]{max: max, perGuild: perGuild, order: list.New(),
		items: map[K]*list.Element{}, count: map[questions.GuildID]int{}}
}

// get returns the value kept for k, marking it recently used.
func (c *guildCache[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*guildCacheItem[K, V]).value, true
}

// put keeps v for k, a value of guild's, making room as the type's
// comment says.
func (c *guildCache[K, V]) put(guild questions.GuildID, k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		e.Value.(*guildCacheItem[K, V]).value = v
		c.order.MoveToFront(e)
		return
	}
	switch {
	case c.count[guild] >= c.perGuild:
		for e := c.order.Back(); e != nil; e = e.Prev() {
			if e.Value.(*guildCacheItem[K, V]).guild == guild {
				c.remove(e)
				break
			}
		}
	case len(c.items) >= c.max:
		c.remove(c.order.Back())
	}
	c.items[k] = c.order.PushFront(&guildCacheItem[K, V]{guild: guild, key: k, value: v})
	c.count[guild]++
}

func (c *guildCache[K, V]) remove(e *list.Element) {
	it := c.order.Remove(e).(*guildCacheItem[K, V])
	delete(c.items, it.key)
	if c.count[it.guild]--; c.count[it.guild] == 0 {
		delete(c.count, it.guild)
	}
}
