package bot

import (
	"fmt"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

// TestGuildCache: past its bounds the cache drops the least recently used
// value, the server's own when it holds its share, so that one busy
// server never pushes out another's values.
func TestGuildCache(t *testing.T) {
	t.Parallel()
	type put struct {
		guild questions.GuildID
		key   string
	}
	tests := []struct {
		name          string
		max, perGuild int
		puts          []put
		use           []string // got between the puts and the last put, in order
		last          put
		kept, dropped []string
	}{
		{"within the bounds nothing is dropped", 4, 3,
			[]put{{1, "a"}, {1, "b"}, {2, "c"}}, nil, put{2, "d"},
			[]string{"a", "b", "c", "d"}, nil},
		{"a busy server drops its own oldest, not another's", 8, 3,
			[]put{{2, "x"}, {1, "a"}, {1, "b"}, {1, "c"}}, nil, put{1, "d"},
			[]string{"x", "b", "c", "d"}, []string{"a"}},
		{"a value used lately is kept over an older one of the server", 8, 3,
			[]put{{1, "a"}, {1, "b"}, {1, "c"}}, []string{"a"}, put{1, "d"},
			[]string{"a", "c", "d"}, []string{"b"}},
		{"full: the least recently used of all goes", 4, 3,
			[]put{{1, "a"}, {2, "b"}, {3, "c"}, {4, "e"}}, []string{"a"}, put{5, "f"},
			[]string{"a", "c", "e", "f"}, []string{"b"}},
		{"put again: replaced in place, nothing dropped", 2, 2,
			[]put{{1, "a"}, {2, "b"}}, nil, put{1, "a"},
			[]string{"a", "b"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newGuildCache[string, string](tt.max, tt.perGuild)
			for _, p := range tt.puts {
				c.put(p.guild, p.key, "v"+p.key)
			}
			for _, k := range tt.use {
				if _, ok := c.get(k); !ok {
					t.Fatalf("%q not kept before the last put", k)
				}
			}
			c.put(tt.last.guild, tt.last.key, "new")
			for _, k := range tt.kept {
				if v, ok := c.get(k); !ok || v == "" {
					t.Errorf("%q: dropped, want kept", k)
				}
			}
			for _, k := range tt.dropped {
				if _, ok := c.get(k); ok {
					t.Errorf("%q: kept, want dropped", k)
				}
			}
			if v, _ := c.get(tt.last.key); v != "new" {
				t.Errorf("the last value put: got %q, want %q", v, "new")
			}
			if all, _ := c.len(0); all > tt.max {
				t.Errorf("%d values kept, want at most %d", all, tt.max)
			}
		})
	}
}

// TestGuildCacheShares: many servers putting at once never keep more than
// the bounds, and each server keeps its most recent values.
func TestGuildCacheShares(t *testing.T) {
	t.Parallel()
	c := newGuildCache[string, int](64, 8)
	for i := range 1000 {
		g := questions.GuildID(1 + i%20)
		c.put(g, fmt.Sprintf("%d/%d", g, i), i)
		if all, mine := c.len(g); all > 64 || mine > 8 {
			t.Fatalf("after put %d: %d kept, %d of server %d; want at most 64 and 8", i, all, mine, g)
		}
	}
	// The last put of server 20 (i = 999) is kept.
	if v, ok := c.get("20/999"); !ok || v != 999 {
		t.Errorf("the last value of server 20: got %v, %v; want 999", v, ok)
	}
}

// len returns how many values c keeps, and how many of them are guild's.
func (c *guildCache[K, V]) len(guild questions.GuildID) (all, ofGuild int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.count[guild]
}
