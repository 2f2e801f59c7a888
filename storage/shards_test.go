package storage

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestParseShardLayout(t *testing.T) {
	tests := []struct {
		in      string
		want    ShardLayout
		wantErr string
	}{
		{in: "", want: ShardLayout{}},
		{in: "0-0/1", want: ShardLayout{0, 0, 1}},
		{in: "0-1/4", want: ShardLayout{0, 1, 4}},
		{in: " 2-3/4 ", want: ShardLayout{2, 3, 4}},
		{in: "5-5/6", want: ShardLayout{5, 5, 6}},
		{in: "2-3", wantErr: "want i-j/N"},
		{in: "2/4", wantErr: "want i-j/N"},
		{in: "a-1/4", wantErr: "want i-j/N"},
		{in: "01-1/4", wantErr: "want i-j/N"},
		{in: "+1-1/4", wantErr: "want i-j/N"},
		{in: "0-1/0", wantErr: "at least 1"},
		{in: "2-1/4", wantErr: "between 0 and the last"},
		{in: "-1-1/4", wantErr: "want i-j/N"},
		{in: "3-4/4", wantErr: "shard 4 does not exist"},
	}
	for _, tt := range tests {
		got, err := ParseShardLayout(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseShardLayout(%q): got %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseShardLayout(%q): got %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if !got.IsZero() {
			if back, err := ParseShardLayout(got.String()); err != nil || back != got {
				t.Errorf("ParseShardLayout(%q.String() = %q): got %v, %v", tt.in, got.String(), back, err)
			}
		}
	}
}

func TestShardOfAndOwns(t *testing.T) {
	tests := []struct {
		guild questions.GuildID
		count int
		want  int
	}{
		{guild: 0, count: 1, want: 0},
		{guild: 1<<22 - 1, count: 4, want: 0}, // the low 22 bits do not count
		{guild: 1 << 22, count: 4, want: 1},
		{guild: 7<<22 | 99, count: 4, want: 3},
		{guild: 7 << 22, count: 3, want: 1},
		{guild: 81384788765712384, count: 16, want: int((81384788765712384 >> 22) % 16)},
	}
	for _, tt := range tests {
		if got := ShardOf(tt.guild, tt.count); got != tt.want {
			t.Errorf("ShardOf(%d, %d): got %d, want %d", tt.guild, tt.count, got, tt.want)
		}
	}
	l := ShardLayout{2, 3, 4}
	for k, want := range []bool{false, false, true, true, false} {
		if got := l.Owns(shardGuild(k)); got != want {
			t.Errorf("%v.Owns(guild of shard %d): got %t, want %t", l, k%4, got, want)
		}
	}
	if !(ShardLayout{}).Owns(shardGuild(3)) || !(ShardLayout{0, 3, 4}).Owns(shardGuild(3)) {
		t.Errorf("a layout of every shard must own every server")
	}
}

func TestClaimShardLayout(t *testing.T) {
	tests := []struct {
		name    string
		record  string // layout claimed first ("": none)
		data    bool   // the file holds a server
		claim   ShardLayout
		wantErr bool
		want    ShardLayout // recorded after
	}{
		{name: "new file, zero", claim: ShardLayout{}, want: unsharded},
		{name: "new file, a range", claim: ShardLayout{2, 3, 4}, want: ShardLayout{2, 3, 4}},
		{name: "new file recorded for another range", record: "0-1/4", claim: ShardLayout{2, 3, 4}, want: ShardLayout{2, 3, 4}},
		{name: "unsharded with data, zero", data: true, claim: ShardLayout{}, want: unsharded},
		{name: "unsharded with data, every shard of 4", data: true, claim: ShardLayout{0, 3, 4}, want: ShardLayout{0, 3, 4}},
		{name: "unsharded with data, a range", data: true, claim: ShardLayout{0, 1, 4}, wantErr: true, want: unsharded},
		{name: "same range", record: "2-3/4", data: true, claim: ShardLayout{2, 3, 4}, want: ShardLayout{2, 3, 4}},
		{name: "other range", record: "2-3/4", data: true, claim: ShardLayout{0, 1, 4}, wantErr: true, want: ShardLayout{2, 3, 4}},
		{name: "other count", record: "2-3/4", data: true, claim: ShardLayout{2, 3, 8}, wantErr: true, want: ShardLayout{2, 3, 4}},
		{name: "a range, then zero", record: "2-3/4", data: true, claim: ShardLayout{}, wantErr: true, want: ShardLayout{2, 3, 4}},
		{name: "every shard, then every shard of 2", record: "0-3/4", data: true, claim: ShardLayout{0, 1, 2}, want: ShardLayout{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, path := newDB(t)
			if tt.record != "" {
				l, err := ParseShardLayout(tt.record)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.ClaimShardLayout(t.Context(), l); err != nil {
					t.Fatalf("first claim %v: %v", l, err)
				}
			}
			if tt.data {
				newPost(t, db, shardGuild(2), "q#1")
			}
			err := db.ClaimShardLayout(t.Context(), tt.claim)
			if tt.wantErr {
				if !errors.Is(err, ErrShardLayout) {
					t.Fatalf("ClaimShardLayout(%v): got %v, want ErrShardLayout", tt.claim, err)
				}
				for _, s := range []string{path, "quizhost reshard", tt.want.String()} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
			} else if err != nil {
				t.Fatalf("ClaimShardLayout(%v): %v", tt.claim, err)
			}
			got, err := db.ShardLayout()
			if err != nil || got != tt.want {
				t.Errorf("ShardLayout after: got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestClaimShardLayoutPostRange(t *testing.T) {
	dir := t.TempDir()
	var ids []questions.PostID
	for i, l := range []ShardLayout{{0, 1, 4}, {2, 3, 4}} {
		db := openPath(t, filepath.Join(dir, ShardFileName(i, 2)))
		if err := db.ClaimShardLayout(t.Context(), l); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, newPost(t, db, shardGuild(2*i), "q#1").ID)
		db.Close()
	}
	if want := []questions.PostID{1, 2*postIDStride + 1}; ids[0] != want[0] || ids[1] != want[1] {
		t.Errorf("first post IDs of new files 0-1/4 and 2-3/4: got %v, want %v", ids, want)
	}
}

func TestClaimShardLayoutRefusesInvalid(t *testing.T) {
	db, _ := newDB(t)
	if err := db.ClaimShardLayout(t.Context(), ShardLayout{3, 1, 4}); err == nil {
		t.Fatalf("ClaimShardLayout(3-1/4): got nil, want an error")
	}
}
