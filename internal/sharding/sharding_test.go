package sharding

import (
	"strings"
	"testing"
)

func TestParseLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Layout
		wantErr string
	}{
		{in: "", want: Layout{}},
		{in: "  ", want: Layout{}},
		{in: "0-0/1", want: Layout{0, 0, 1}},
		{in: "0-1/4", want: Layout{0, 1, 4}},
		{in: " 2-3/4 ", want: Layout{2, 3, 4}},
		{in: "5-5/6", want: Layout{5, 5, 6}},
		{in: "2-3", wantErr: "want i-j/N"},
		{in: "2/4", wantErr: "want i-j/N"},
		{in: "a-1/4", wantErr: "want i-j/N"},
		{in: "01-1/4", wantErr: "want i-j/N"},
		{in: "+1-1/4", wantErr: "want i-j/N"},
		{in: "0-1/0", wantErr: `shard layout "0-1/0": the shard count must be at least 1, got 0`},
		{in: "2-1/4", wantErr: "between 0 and the last"},
		{in: "-1-1/4", wantErr: "want i-j/N"},
		{in: "3-4/4", wantErr: "shard 4 does not exist: shards are numbered 0 to 3"},
	}
	for _, tt := range tests {
		got, err := ParseLayout(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseLayout(%q): got %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLayout(%q): got %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, err := ParseLayout(got.String()); !got.IsZero() && (err != nil || back != got) {
			t.Errorf("ParseLayout(%q.String() = %q): got %v, %v", tt.in, got.String(), back, err)
		}
	}
	if got := (Layout{}).String(); got != "all" {
		t.Errorf("zero layout: got %q, want all", got)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, l := range []Layout{{}, {0, 0, 1}, {1, 2, 3}} {
		if err := l.Check(); err != nil {
			t.Errorf("%v.Check(): got %v, want nil", l, err)
		}
	}
	for _, l := range []Layout{{1, 1, 0}, {3, 1, 4}, {-1, 0, 1}, {0, 4, 4}} {
		if err := l.Check(); err == nil {
			t.Errorf("%v.Check(): got nil, want an error", l)
		}
	}
}

// shardGuild is a server ID on shard k % N for every N dividing 4.
func shardGuild(k int) uint64 { return uint64(k)<<22 | 12345 }

func TestShardOfAndOwns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		guild uint64
		count int
		want  int
	}{
		{guild: 0, count: 1, want: 0},
		{guild: 1<<22 - 1, count: 4, want: 0}, // the low 22 bits do not count
		{guild: 1 << 22, count: 4, want: 1},
		{guild: 7<<22 | 99, count: 4, want: 3},
		{guild: 7 << 22, count: 3, want: 1},
		{guild: 5<<22 | 4194303, count: 3, want: 2},
		{guild: 81384788765712384, count: 16, want: int((81384788765712384 >> 22) % 16)},
		{guild: 7 << 22, count: 0, want: 0},
	}
	for _, tt := range tests {
		if got := ShardOf(tt.guild, tt.count); got != tt.want {
			t.Errorf("ShardOf(%d, %d): got %d, want %d", tt.guild, tt.count, got, tt.want)
		}
	}
	l := Layout{2, 3, 4}
	for k, want := range []bool{false, false, true, true, false} {
		if got := l.Owns(shardGuild(k)); got != want {
			t.Errorf("%v.Owns(guild of shard %d): got %t, want %t", l, k%4, got, want)
		}
	}
	if !(Layout{}).Owns(shardGuild(3)) || !(Layout{0, 3, 4}).Owns(shardGuild(3)) {
		t.Errorf("a layout of every shard must own every server")
	}
	if (Layout{1, 1, 4}).AllShards() || !(Layout{0, 0, 1}).AllShards() || !(Layout{}).AllShards() {
		t.Errorf("AllShards: want true for the zero layout and 0-0/1 only")
	}
}
