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

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// grownDatabase writes a database at path whose history freed pages: a
// large bank imported, then removed.
func grownDatabase(t *testing.T, path string) {
	t.Helper()
	// Unsynced: what compact reads is the file's content, the same.
	db, err := storage.Open(t.Context(), path, storage.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	big := questions.BankFile{Name: "Big", Format: questions.FormatYAML, Data: bytes.Repeat([]byte("# padding\n"), 100_000)}
	if err := db.SaveBank(t.Context(), 1, big); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveBank(t.Context(), 1, questions.BankFile{Name: "Small", Format: questions.FormatYAML, Data: []byte("# kept\n")}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteBank(t.Context(), 1, "Big"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompactCommand: compact rewrites the database named (or QUIZHOST_DB)
// in place, or to a new file with --out, smaller and with the same data;
// it refuses a running bot's database, an --out that exists, a damaged
// file, and names what to change.
func TestCompactCommand(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		setup   func(t *testing.T) // in the test's folder, which holds quizhost.db
		args    []string
		code    int
		out     string // stdout's pattern (regexp), the whole of it
		errOut  string
		written string // the file written ("" none)
	}{
		{"in place, QUIZHOST_DB", nil, nil, nil, 0, `compacted quizhost\.db to quizhost\.db: \d+\.\d MB → \d+ KB \(\d+ keys\)\n`, "", "quizhost.db"},
		{"in place, a file named", map[string]string{"QUIZHOST_DB": "other.db"}, nil, []string{"quizhost.db"}, 0,
			`compacted quizhost\.db to quizhost\.db: .*\n`, "", "quizhost.db"},
		{"to a new file", nil, nil, []string{"--out", "small.db"}, 0, `compacted quizhost\.db to small\.db: .*\n`, "", "small.db"},
		{"to a file that exists", nil, func(t *testing.T) { os.WriteFile("small.db", []byte("keep me"), 0o600) }, []string{"--out", "small.db"}, 2,
			``, "quizhost compact: small.db exists; name a new file for --out", ""},
		{"to the database itself", nil, nil, []string{"--out", "./quizhost.db"}, 2, ``, "exists; name a new file for --out", ""},
		{"two files", nil, nil, []string{"a.db", "b.db"}, 2, ``, "quizhost compact: want at most one FILE, got 2", ""},
		{"no database", map[string]string{"QUIZHOST_DB": "other.db"}, nil, nil, 1,
			``, "quizhost compact: no database at other.db; name the file, or set QUIZHOST_DB (environment or .env)", ""},
		{"a damaged database", nil, func(t *testing.T) { os.WriteFile("empty.db", nil, 0o600) }, []string{"empty.db"}, 1,
			``, "quizhost compact empty.db: database file is damaged", ""},
		{"the bot running", nil, func(t *testing.T) {
			db, err := storage.Open(t.Context(), "quizhost.db", storage.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
		}, nil, 1, ``, "quizhost compact: the bot is running and holds quizhost.db; stop it first", ""},
	}
	// The running bot holds the lock for good: any wait for it ends in
	// the refusal, a second's as well as this.
	defer func(w time.Duration) { compactLockWait = w }(compactLockWait)
	compactLockWait = 20 * time.Millisecond
	// One grown database, copied into each subtest's folder.
	grown := filepath.Join(t.TempDir(), "grown.db")
	grownDatabase(t, grown)
	data, err := os.ReadFile(grown)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile("quizhost.db", data, 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t)
			}
			before, _ := os.ReadFile("quizhost.db")
			other, _ := os.ReadFile("small.db")
			code, out, errOut := runCLI(t, tt.env, append([]string{"compact"}, tt.args...)...)
			if code != tt.code || !regexp.MustCompile("^"+tt.out+"$").MatchString(out) || !strings.Contains(errOut, tt.errOut) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want exit %d, stdout matching %q, stderr with %q", code, out, errOut, tt.code, tt.out, tt.errOut)
			}
			if tt.written != "quizhost.db" {
				if after, _ := os.ReadFile("quizhost.db"); !bytes.Equal(after, before) {
					t.Error("quizhost.db changed")
				}
			}
			if tt.written == "" {
				if after, _ := os.ReadFile("small.db"); !bytes.Equal(after, other) {
					t.Error("small.db changed")
				}
				return
			}
			st, _ := os.Stat(tt.written)
			if st.Size()*4 > int64(len(before)) {
				t.Errorf("%s: %d bytes, want under a quarter of the database's %d", tt.written, st.Size(), len(before))
			}
			db, err := storage.Open(t.Context(), tt.written, storage.Options{})
			if err != nil {
				t.Fatalf("open %s: %v", tt.written, err)
			}
			defer db.Close()
			banks, err := db.Banks(1)
			if err != nil || len(banks) != 1 || string(banks[0].Data) != "# kept\n" {
				t.Errorf("banks in %s: got %v, %v; want Small", tt.written, banks, err)
			}
			if entries, _ := os.ReadDir("."); len(entries) != 1+btoi(tt.written != "quizhost.db") {
				t.Errorf("files left: %v", names(entries))
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func names(entries []os.DirEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return fmt.Sprint(out)
}
