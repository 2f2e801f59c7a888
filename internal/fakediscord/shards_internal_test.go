package fakediscord

import (
	"fmt"
	"testing"
)

// TestShardOfGuild: the server routes a guild's events by Discord's
// formula (internal/sharding), and what has no guild, or no snowflake for
// one, to shard 0.
func TestShardOfGuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		guild  string
		shards int
		want   int
	}{
		{"", 4, 0},
		{"not a number", 4, 0},
		{"8001", 1, 0},
		{fmt.Sprint(uint64(5)<<22 | 4194303), 3, 2},
		{"81384788765712384", 16, int((uint64(81384788765712384) >> 22) % 16)},
	}
	for _, tt := range tests {
		s := newServer(Options{Shards: tt.shards})
		if got := s.shardOfGuild(tt.guild); got != tt.want {
			t.Errorf("shardOfGuild(%q) of %d shards: got %d, want %d", tt.guild, tt.shards, got, tt.want)
		}
	}
}
