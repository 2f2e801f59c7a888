package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"time"

	"github.com/quizhost/quizhost/storage"
)

// backup -h prints the usage and writes nothing, not even a file named -h.
func TestBackupHelpWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	db, err := storage.Open(t.Context(), "quizhost.db", storage.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"backup", "-h"}, {"backup", "--help"}, {"backup", "a.db", "b.db"}} {
		runCLI(t, nil, args...)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if fmt.Sprint(names) != "[quizhost.db]" {
		t.Errorf("got files %v, want only quizhost.db", names)
	}
	if code, out, errOut := runCLI(t, nil, "backup", "copy.db"); code != 0 || out != "backed up quizhost.db to copy.db\n" {
		t.Errorf("got exit %d, stdout %q, stderr %q, want the backup written", code, out, errOut)
	}
	if _, err := os.Stat("copy.db"); err != nil {
		t.Errorf("got %v, want copy.db written", err)
	}
}

// newDatabase creates an empty quizhost database at path.
func newDatabase(t *testing.T, path string) {
	t.Helper()
	db, err := storage.Open(t.Context(), path, storage.Options{Timeout: time.Second, NoSync: true}) // read, not crashed: unsynced is the same
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBackupCommand: backup writes the file named, or a new timestamped
// file in a folder named, never replaces a file without --force, and its
// errors name what to change.
func TestBackupCommand(t *testing.T) {
	backupName := regexp.MustCompile(`^quizhost-\d{8}T\d{6}Z\.db$`)
	tests := []struct {
		name    string
		env     map[string]string
		setup   func(t *testing.T) // in the test's folder, which holds quizhost.db
		args    []string
		code    int
		out     string // stdout's pattern (regexp), the whole of it
		errOut  []string
		written string // the file written ("" none); a folder: one backup in it
	}{
		{"to a file", nil, nil, []string{"copy.db"}, 0, `backed up quizhost\.db to copy\.db\n`, nil, "copy.db"},
		{"into a folder", nil, func(t *testing.T) { os.Mkdir("saved", 0o700) }, []string{"saved"}, 0,
			`backed up quizhost\.db to saved/quizhost-\d{8}T\d{6}Z\.db\n`, nil, "saved/"},
		{"into a folder with a trailing slash", nil, func(t *testing.T) { os.Mkdir("saved", 0o700) }, []string{"saved/"}, 0,
			`backed up quizhost\.db to saved/quizhost-\d{8}T\d{6}Z\.db\n`, nil, "saved/"},
		{"into a new folder (trailing slash)", nil, nil, []string{"new/"}, 0,
			`backed up quizhost\.db to new/quizhost-\d{8}T\d{6}Z\.db\n`, nil, "new/"},
		{"over a file, without --force", nil, func(t *testing.T) { os.WriteFile("copy.db", []byte("keep me"), 0o600) }, []string{"copy.db"}, 2,
			``, []string{"quizhost backup: copy.db exists; use --force to replace it"}, ""},
		{"over a file, with --force", nil, func(t *testing.T) { os.WriteFile("copy.db", []byte("old"), 0o600) }, []string{"--force", "copy.db"}, 0,
			`backed up quizhost\.db to copy\.db\n`, nil, "copy.db"},
		{"over the database itself", nil, nil, []string{"--force", "./quizhost.db"}, 2,
			``, []string{"./quizhost.db is the database itself (QUIZHOST_DB)"}, ""},
		{"into a missing folder", nil, nil, []string{"nowhere/copy.db"}, 1,
			``, []string{"quizhost backup: nowhere/copy.db: the folder nowhere does not exist"}, ""},
		{"no database", map[string]string{"QUIZHOST_DB": "other.db"}, nil, []string{"copy.db"}, 1,
			``, []string{"quizhost backup: no database at other.db; set QUIZHOST_DB (environment or .env) to the file to copy"}, ""},
		{"a damaged database", map[string]string{"QUIZHOST_DB": "empty.db"}, func(t *testing.T) { os.WriteFile("empty.db", nil, 0o600) },
			[]string{"copy.db"}, 1, ``, []string{"quizhost backup: QUIZHOST_DB: open empty.db: database file is damaged"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			newDatabase(t, "quizhost.db")
			if tt.setup != nil {
				tt.setup(t)
			}
			before, _ := os.ReadFile("copy.db")
			code, out, errOut := runCLI(t, tt.env, append([]string{"backup"}, tt.args...)...)
			if code != tt.code || !regexp.MustCompile("^"+tt.out+"$").MatchString(out) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want exit %d, stdout matching %q", code, out, errOut, tt.code, tt.out)
			}
			for _, w := range tt.errOut {
				if !strings.Contains(errOut, w) {
					t.Errorf("got stderr %q, want it to contain %q", errOut, w)
				}
			}
			if tt.written == "" {
				if after, _ := os.ReadFile("copy.db"); !bytes.Equal(after, before) {
					t.Errorf("copy.db changed: %q, want %q", after, before)
				}
				return
			}
			written := tt.written
			if strings.HasSuffix(written, "/") {
				entries, err := os.ReadDir(written)
				if err != nil || len(entries) != 1 || !backupName.MatchString(entries[0].Name()) {
					t.Fatalf("%s holds %v (%v), want one backup named quizhost-<UTC time>.db", written, entries, err)
				}
				written = filepath.Join(written, entries[0].Name())
			}
			if !strings.Contains(out, " to "+written+"\n") {
				t.Errorf("got stdout %q, want it to name %s", out, written)
			}
			db, err := storage.Open(t.Context(), written, storage.Options{})
			if err != nil {
				t.Fatalf("open the backup: %v", err)
			}
			db.Close()
		})
	}
}
