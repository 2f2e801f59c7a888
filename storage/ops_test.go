package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestOpenPostCount(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	count := func() int {
		t.Helper()
		n, err := db.OpenPostCount()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := count(); got != 0 {
		t.Errorf("empty database: got %d open posts, want 0", got)
	}
	a := mustPost(t, db, questions.Post{})
	mustPost(t, db, questions.Post{GuildID: guild + 1})
	if got := count(); got != 2 {
		t.Errorf("got %d open posts, want 2", got)
	}
	if _, _, err := db.ClosePost(t.Context(), a.ID, t0); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 1 {
		t.Errorf("after a close: got %d open posts, want 1", got)
	}
}

func TestWritable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	db, err := Open(t.Context(), path, Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Writable(t.Context()); err != nil {
		t.Fatalf("a fresh database: Writable = %v, want nil", err)
	}
	p := mustPost(t, db, questions.Post{})
	answer(t, db, p, 1, t0, "B")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 10)
	db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, UserID: 2, GuildID: guild, Choice: []string{"B"}, At: t0})
	if err := db.Writable(t.Context()); !errors.Is(err, ErrDamaged) {
		t.Errorf("a file cut under the database: Writable = %v, want ErrDamaged", err)
	}
}
