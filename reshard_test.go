package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// quizhost reshard splits a file, prints a line per file read and written,
// and refuses (exit 1, the files untouched) what storage.Reshard refuses.
func TestReshardCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "quizhost.db")
	db, err := storage.Open(t.Context(), src, storage.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []questions.GuildID{4 << 22, 5 << 22, 7 << 22} { // shards 0, 1 and 1 of 2
		if _, err := db.CreatePost(t.Context(), questions.Post{GuildID: g, ChannelID: 1, OptionCount: 2, SelectCount: 1, Correct: []string{"A"}}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	out := filepath.Join(dir, "new")
	code, stdout, stderr := runCLI(t, nil, "reshard", "--to", "2", "--out", out, src)
	if code != 0 {
		t.Fatalf("reshard: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"read  " + src + " (shards 0-0/1): 3 servers, 3 posts, 0 answers\n",
		"wrote " + filepath.Join(out, "quizhost-shard-0-of-2.db") + " (shards 0-0/2): 1 server, 1 post, 0 answers\n",
		"wrote " + filepath.Join(out, "quizhost-shard-1-of-2.db") + " (shards 1-1/2): 2 servers, 2 posts, 0 answers\n",
		"start: QUIZHOST_SHARDS=1-1/2 QUIZHOST_DB=" + filepath.Join(out, "quizhost-shard-1-of-2.db") + "\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout %q: want %q", stdout, want)
		}
	}

	// Two processes of two shards each.
	ranges := filepath.Join(dir, "ranges")
	code, stdout, stderr = runCLI(t, nil, "reshard", "--to", "4", "--processes", "2", "--out", ranges, src)
	if want := "wrote " + filepath.Join(ranges, "quizhost-shards-2-3-of-4.db") + " (shards 2-3/4): 1 server, 1 post"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("reshard --processes 2: got exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}

	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"output directory in use", []string{"--to", "3", "--out", out, src}, 1, "is not empty"},
		{"half a layout", []string{"--out", filepath.Join(dir, "x"), "--to", "3", filepath.Join(out, "quizhost-shard-1-of-2.db")}, 1, "no file holds shard 0 of 2"},
		{"no --out", []string{"--to", "3", src}, 2, "--out: want the directory"},
		{"no file", []string{"--to", "3", "--out", filepath.Join(dir, "y")}, 2, "want the database files"},
		{"uneven processes", []string{"--to", "3", "--processes", "2", "--out", filepath.Join(dir, "z"), src}, 2, "cannot be divided evenly"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, nil, append([]string{"reshard"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.says) || stdout != "" {
			t.Errorf("%s: got exit %d, stdout %q, stderr %q; want exit %d saying %q", tt.name, code, stdout, stderr, tt.code, tt.says)
		}
	}
}
