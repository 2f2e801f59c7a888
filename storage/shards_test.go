package storage

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
)

// layout is the shard layout first-last/count.
func layout(first, last, count int) sharding.Layout {
	return sharding.Layout{First: first, Last: last, Count: count}
}

func TestClaimShardLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		record  string // layout claimed first ("": none)
		data    bool   // the file holds a server
		claim   sharding.Layout
		wantErr bool
		want    sharding.Layout // recorded after
	}{
		{name: "new file, zero", claim: sharding.Layout{}, want: unsharded},
		{name: "new file, a range", claim: layout(2, 3, 4), want: layout(2, 3, 4)},
		{name: "new file recorded for another range", record: "0-1/4", claim: layout(2, 3, 4), want: layout(2, 3, 4)},
		{name: "unsharded with data, zero", data: true, claim: sharding.Layout{}, want: unsharded},
		{name: "unsharded with data, every shard of 4", data: true, claim: layout(0, 3, 4), want: layout(0, 3, 4)},
		{name: "unsharded with data, a range", data: true, claim: layout(0, 1, 4), wantErr: true, want: unsharded},
		{name: "same range", record: "2-3/4", data: true, claim: layout(2, 3, 4), want: layout(2, 3, 4)},
		{name: "other range", record: "2-3/4", data: true, claim: layout(0, 1, 4), wantErr: true, want: layout(2, 3, 4)},
		{name: "other count", record: "2-3/4", data: true, claim: layout(2, 3, 8), wantErr: true, want: layout(2, 3, 4)},
		{name: "a range, then zero", record: "2-3/4", data: true, claim: sharding.Layout{}, wantErr: true, want: layout(2, 3, 4)},
		{name: "every shard, then every shard of 2", record: "0-3/4", data: true, claim: layout(0, 1, 2), want: layout(0, 1, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, path := newDB(t)
			if tt.record != "" {
				l, err := sharding.ParseLayout(tt.record)
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
	t.Parallel()
	dir := t.TempDir()
	var ids []questions.PostID
	for i, l := range []sharding.Layout{layout(0, 1, 4), layout(2, 3, 4)} {
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
	t.Parallel()
	db, _ := newDB(t)
	if err := db.ClaimShardLayout(t.Context(), layout(3, 1, 4)); err == nil {
		t.Fatalf("ClaimShardLayout(3-1/4): got nil, want an error")
	}
}

// TestClaimShardLayoutDuringCheck: at the usual start (the layout accepted
// as the file has it) ClaimShardLayout only reads, so the bot's start does
// not wait for a large file's background check, which holds writes until
// it ends.
func TestClaimShardLayoutDuringCheck(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	mustPost(t, db, questions.Post{QuestionID: "q#1"})
	db.Close()
	for _, tc := range []struct {
		name   string
		record sharding.Layout // recorded before, when not zero
		claim  sharding.Layout
	}{
		{"unsharded, zero", sharding.Layout{}, sharding.Layout{}},
		{"the layout recorded", layout(0, 1, 2), layout(0, 1, 2)},
	} {
		if !tc.record.IsZero() {
			db := openPath(t, path)
			if err := db.ClaimShardLayout(t.Context(), tc.record); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		claimed := make(chan error, 1)
		reported := make(chan error, 1)
		var db *DB
		opened := make(chan struct{})
		during := func() {
			<-opened
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // fails the claim if it waits for the check
			defer cancel()
			claimed <- db.ClaimShardLayout(ctx, tc.claim)
		}
		var err error
		db, err = Open(t.Context(), path, Options{fullCheckMax: 1, NoSync: true, duringCheck: during, OnChecked: func(err error) { reported <- err }})
		if err != nil {
			t.Fatal(err)
		}
		close(opened)
		if err := <-claimed; err != nil {
			t.Errorf("%s: claimed during the check: %v", tc.name, err)
		}
		if err := <-reported; err != nil {
			t.Errorf("%s: the check: %v", tc.name, err)
		}
		db.Close()
	}
}
