// Package sharding is the gateway shard layout of a quizhost deployment,
// defined once for the bot, storage and the fake Discord. Discord sends
// every event of a server to gateway shard (server ID >> 22) % N
// ([ShardOf]); a quizhost process runs a contiguous range of shards, i
// through j of N ([Layout], QUIZHOST_SHARDS's "i-j/N"), serves exactly
// their servers and keeps them in its own database file, which records
// the layout in the same syntax.
//
// It lives apart from questions because it is Discord's routing and the
// deployment's partition of servers, not the quiz domain, and so that the
// fake Discord (internal/fakediscord) can share the formula without
// depending on the quiz domain. Standard library only: questions, storage
// and bot may all import it.
package sharding

import (
	"fmt"
	"strconv"
	"strings"
)

// Layout is the contiguous range of gateway shards First..Last (0-based,
// inclusive) out of Count that one quizhost process runs, and so the
// servers its database file holds: a server belongs to shard
// ShardOf(id, Count). The zero value means every shard, with the count
// decided at start (as many as Discord recommends).
type Layout struct {
	First, Last, Count int
}

// ParseLayout parses QUIZHOST_SHARDS's syntax: "" (or blanks) is the zero
// layout, every shard; "i-j/N" is shards i through j of N, in plain decimal
// (0 <= i <= j < N). String formats it back.
func ParseLayout(s string) (Layout, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Layout{}, nil
	}
	bad := fmt.Errorf("shard layout %q: want i-j/N, shards i through j of N (for example 0-1/4)", s)
	rng, count, ok := strings.Cut(s, "/")
	if !ok {
		return Layout{}, bad
	}
	first, last, ok := strings.Cut(rng, "-")
	if !ok {
		return Layout{}, bad
	}
	var l Layout
	for _, f := range []struct {
		s string
		v *int
	}{{first, &l.First}, {last, &l.Last}, {count, &l.Count}} {
		n, err := strconv.Atoi(f.s)
		if err != nil || strconv.Itoa(n) != f.s {
			return Layout{}, bad
		}
		*f.v = n
	}
	if err := l.Check(); err != nil {
		return Layout{}, fmt.Errorf("shard layout %q: %w", s, err)
	}
	return l, nil
}

// Check refuses a non-zero layout whose range is empty or outside
// 0..Count-1, saying what is wrong; the zero layout is valid.
func (l Layout) Check() error {
	if l.IsZero() {
		return nil
	}
	switch {
	case l.Count < 1:
		return fmt.Errorf("the shard count must be at least 1, got %d", l.Count)
	case l.First < 0 || l.First > l.Last:
		return fmt.Errorf("the first shard (%d) must be between 0 and the last (%d)", l.First, l.Last)
	case l.Last >= l.Count:
		return fmt.Errorf("shard %d does not exist: shards are numbered 0 to %d", l.Last, l.Count-1)
	}
	return nil
}

// String is "i-j/N" (what ParseLayout reads), or "all" for the zero layout.
func (l Layout) String() string {
	if l.IsZero() {
		return "all"
	}
	return fmt.Sprintf("%d-%d/%d", l.First, l.Last, l.Count)
}

// IsZero reports whether l is the zero layout: every shard, count decided
// at start.
func (l Layout) IsZero() bool { return l == Layout{} }

// AllShards reports whether l covers every shard (the zero layout, or
// 0-(N-1)/N): a process of such a layout serves every server.
func (l Layout) AllShards() bool {
	return l.IsZero() || l.First == 0 && l.Last == l.Count-1
}

// Owns reports whether the server guildID belongs to one of l's shards
// (always true for a layout that covers every shard).
func (l Layout) Owns(guildID uint64) bool {
	if l.AllShards() {
		return true
	}
	s := ShardOf(guildID, l.Count)
	return s >= l.First && s <= l.Last
}

// ShardOf is the gateway shard that Discord sends the events of server
// guildID to among count shards: (guild_id >> 22) % count. A count below 1
// counts as 1 (shard 0).
func ShardOf(guildID uint64, count int) int {
	return int((guildID >> 22) % uint64(max(count, 1)))
}
