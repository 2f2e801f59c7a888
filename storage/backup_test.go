package storage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestBackup(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	answer(t, db, p, 1, t0, "B")

	var buf bytes.Buffer
	n, err := db.Backup(&buf)
	if err != nil || n != int64(buf.Len()) || n == 0 {
		t.Fatalf("Backup: got %d bytes (buffer %d), %v", n, buf.Len(), err)
	}

	path := filepath.Join(t.TempDir(), "backup.db")
	if err := db.BackupFile(path); err != nil {
		t.Fatalf("BackupFile: %v", err)
	}
	// The backup opens as a database with the data, while the original is in use.
	copyDB := openPath(t, path)
	a, err := copyDB.Answer(p.ID, 1)
	if err != nil || !a.Right {
		t.Errorf("answer in backup: got %+v, %v", a, err)
	}
	if err := db.BackupFile(filepath.Join(t.TempDir(), "missing", "dir", "b.db")); err == nil {
		t.Error("BackupFile into a missing directory: got nil error")
	}
}

// TestBackupFileRefusesOwnFile: every way of naming the database's own
// file is refused, and the database is left intact.
func TestBackupFileRefusesOwnFile(t *testing.T) {
	db, path := newDB(t)
	p := mustPost(t, db, questions.Post{})
	answer(t, db, p, 1, t0, "B")
	dir := filepath.Dir(path)
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.db")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct{ name, path string }{
		{"same path", path},
		{"unclean path", filepath.Join(dir, "sub", "..", ".", "quiz.db")},
		{"relative path", "quiz.db"},
		{"symbolic link", link},
		{"hard link", hard},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := db.BackupFile(tc.path); err == nil {
				t.Fatalf("BackupFile(%s): got nil error, want a refusal", tc.path)
			}
		})
	}
	if err := db.Check(); err != nil {
		t.Errorf("Check after the refusals: %v", err)
	}
	if a, err := db.Answer(p.ID, 1); err != nil || !a.Right {
		t.Errorf("answer after the refusals: got %+v, %v", a, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestBackupFileContextStops stops a backup at each point where it checks
// its context in turn (each write of the copy, before the rename): each
// stop returns context.Canceled and leaves the previous backup as it was
// and no temporary file; the first attempt not stopped writes the copy.
func TestBackupFileContextStops(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	answer(t, db, p, 1, t0, "B")
	dir := t.TempDir()
	dest := filepath.Join(dir, "backup.db")
	if err := os.WriteFile(dest, []byte("the previous backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	stops := 0
	for n := 1; ; n++ {
		ctx, cancel := context.WithCancel(t.Context())
		err := db.BackupFileContext(&stopAt{Context: ctx, cancel: cancel, n: n}, dest)
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped at check %d: got %v, want context.Canceled", n, err)
		}
		stops++
		if got, _ := os.ReadFile(dest); string(got) != "the previous backup" {
			t.Fatalf("stopped at check %d: the destination changed", n)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) != 0 {
			t.Fatalf("stopped at check %d: temporary files left: %v", n, leftovers)
		}
		if n > 10000 {
			t.Fatal("BackupFileContext never finished")
		}
	}
	if stops < 4 { // the two meta pages, the data, the rename
		t.Errorf("BackupFileContext stopped at %d points, want at least 4", stops)
	}
	if a, err := openPath(t, dest).Answer(p.ID, 1); err != nil || !a.Right {
		t.Errorf("answer in the backup: got %+v, %v", a, err)
	}
}

// TestBackupFileChecksBeforeRename: a copy that fails the check never
// replaces the destination, and its temporary file is removed.
func TestBackupFileChecksBeforeRename(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	answer(t, db, p, 1, t0, "B")
	var good bytes.Buffer
	if _, err := db.Backup(&good); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "backup.db")
	if err := db.BackupFile(dest); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"garbage", bytes.Repeat([]byte("not a database "), 1000)},
		{"truncated", good.Bytes()[:good.Len()/2]},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := replaceChecked(t.Context(), dest, func(w io.Writer) error {
				_, err := w.Write(tc.data)
				return err
			})
			if err == nil {
				t.Fatal("replaceChecked: got nil error, want the check to fail")
			}
			if after, _ := os.ReadFile(dest); !bytes.Equal(after, before) {
				t.Error("the destination changed")
			}
			if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) != 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

func TestStreamBackupAnnouncesItsLength(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	answer(t, db, p, 1, t0, "B")
	var buf bytes.Buffer
	announced := int64(-1)
	n, err := db.StreamBackup(&buf, func(size int64) {
		if buf.Len() != 0 {
			t.Error("size announced after writing began")
		}
		announced = size
	})
	if err != nil || n != announced || int64(buf.Len()) != n {
		t.Fatalf("StreamBackup: got %d bytes written, %d announced, %d in the buffer, %v; want all equal", n, announced, buf.Len(), err)
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c := openPath(t, path)
	if a, err := c.Answer(p.ID, 1); err != nil || !a.Right {
		t.Errorf("answer in the streamed copy: got %+v, %v", a, err)
	}
}
