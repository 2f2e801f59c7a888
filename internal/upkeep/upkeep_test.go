package upkeep

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// logBuffer is a log destination safe for the job's goroutine and the test.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var t0 = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(t.Context(), filepath.Join(t.TempDir(), "live.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// run starts job on a goroutine until the test ends.
func run(t *testing.T, job func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); job(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// step advances the fake clock by d and waits for the job to arm its next
// timer, which it does once the work that fell due is done.
func step(t *testing.T, clk *clock.Fake, d time.Duration) {
	t.Helper()
	armed := clk.Armed()
	clk.Advance(d)
	if !clk.WaitArmed(armed, 5*time.Second) {
		t.Fatalf("the job did not finish after advancing %v", d)
	}
}

func backups(t *testing.T, dir string) []string {
	t.Helper()
	names, err := ListBackups(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestBackupsScheduleAndRetention(t *testing.T) {
	db := openDB(t)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 42, TimeZone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Two earlier backups, the newest an hour old, and a file of the user's.
	for _, name := range []string{"quizhost-20250313T000000Z.db", "quizhost-20250314T110000Z.db", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var fail atomic.Bool
	var logs logBuffer
	clk := clock.NewFake(t0)
	b := Backups{Dir: dir, Every: 6 * time.Hour, Keep: 3, Clock: clk, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Write: func(path string) error {
			if fail.Load() {
				return errors.New("disk full")
			}
			return db.BackupFile(path)
		}}
	run(t, b.Run)
	if !clk.WaitArmed(0, 5*time.Second) {
		t.Fatal("Run armed no timer")
	}

	steps := []struct {
		name    string
		advance time.Duration
		due     bool // a backup falls due: wait for it
		fail    bool
		want    []string
	}{
		{"not due yet: 6 h after the newest backup", 4*time.Hour + 59*time.Minute, false, false,
			[]string{"quizhost-20250313T000000Z.db", "quizhost-20250314T110000Z.db"}},
		{"due", time.Minute, true, false,
			[]string{"quizhost-20250313T000000Z.db", "quizhost-20250314T110000Z.db", "quizhost-20250314T170000Z.db"}},
		{"a failed backup removes nothing", 6 * time.Hour, true, true,
			[]string{"quizhost-20250313T000000Z.db", "quizhost-20250314T110000Z.db", "quizhost-20250314T170000Z.db"}},
		{"the next keeps the newest 3", 6 * time.Hour, true, false,
			[]string{"quizhost-20250314T110000Z.db", "quizhost-20250314T170000Z.db", "quizhost-20250315T050000Z.db"}},
		{"and again", 6 * time.Hour, true, false,
			[]string{"quizhost-20250314T170000Z.db", "quizhost-20250315T050000Z.db", "quizhost-20250315T110000Z.db"}},
	}
	for _, s := range steps {
		fail.Store(s.fail)
		if s.due {
			step(t, clk, s.advance)
		} else if n := clk.Advance(s.advance); n != 0 {
			t.Fatalf("%s: %d timers fired, want none", s.name, n)
		}
		if got := backups(t, dir); !slices.Equal(got, s.want) {
			t.Errorf("%s: backups\ngot  %v\nwant %v", s.name, got, s.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("a file that is not a backup was touched: %v", err)
	}
	for _, w := range []string{"automatic backup failed; older backups kept", "disk full", "automatic backup written", "old backup removed"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, logs.String())
		}
	}
	// Each backup is a whole database with the data.
	c, err := storage.Open(t.Context(), filepath.Join(dir, "quizhost-20250315T110000Z.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s, err := c.Settings(42); err != nil || s.TimeZone != "Asia/Tokyo" {
		t.Errorf("settings in the backup: got %+v, %v", s, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("the folder holds %d files, want the 3 backups and notes.txt (no temporary file left)", len(entries))
	}
}

func TestFirstBackupAtOnce(t *testing.T) {
	tests := []struct {
		name     string
		existing []string
	}{
		{"empty folder", nil},
		{"newest backup overdue", []string{"quizhost-20250310T000000Z.db"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			dir := t.TempDir()
			for _, name := range tt.existing {
				os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o600)
			}
			clk := clock.NewFake(t0)
			b := Backups{Dir: dir, Every: 6 * time.Hour, Keep: 7, Clock: clk, Write: db.BackupFile,
				Log: slog.New(slog.DiscardHandler)}
			run(t, b.Run)
			// The first timer fires at once; the job then arms the next.
			if !clk.WaitArmed(1, 5*time.Second) {
				t.Fatal("no backup was taken at start")
			}
			want := append(tt.existing, "quizhost-20250314T120000Z.db")
			if got := backups(t, dir); !slices.Equal(got, want) {
				t.Errorf("backups: got %v, want %v", got, want)
			}
		})
	}
}

func TestFreshDatabaseWaits(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	clk := clock.NewFake(t0)
	b := Backups{Dir: dir, Every: 6 * time.Hour, Keep: 7, Clock: clk, Write: db.BackupFile,
		Log: slog.New(slog.DiscardHandler), Fresh: true}
	run(t, b.Run)
	if !clk.WaitArmed(0, 5*time.Second) {
		t.Fatal("Run armed no timer")
	}
	if got := backups(t, dir); len(got) != 0 {
		t.Errorf("a fresh database was backed up at start: %v", got)
	}
	step(t, clk, 6*time.Hour)
	if got, want := backups(t, dir), []string{"quizhost-20250314T180000Z.db"}; !slices.Equal(got, want) {
		t.Errorf("backups after 6 h: got %v, want %v", got, want)
	}
}

func TestPrunerRunsAtStartAndDaily(t *testing.T) {
	var calls []time.Time
	var mu sync.Mutex
	clk := clock.NewFake(t0)
	p := Pruner{Keep: 48 * time.Hour, Every: 24 * time.Hour, Clock: clk, Log: slog.New(slog.DiscardHandler),
		Prune: func(_ context.Context, now time.Time, keep time.Duration) (storage.PruneResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if keep != 48*time.Hour {
				t.Errorf("keep: got %v, want 48h", keep)
			}
			calls = append(calls, now)
			return storage.PruneResult{}, nil
		}}
	run(t, p.Run)
	if !clk.WaitArmed(1, 5*time.Second) {
		t.Fatal("no prune at start")
	}
	step(t, clk, 24*time.Hour)
	step(t, clk, 24*time.Hour)
	mu.Lock()
	defer mu.Unlock()
	want := []time.Time{t0, t0.Add(24 * time.Hour), t0.Add(48 * time.Hour)}
	if !slices.EqualFunc(calls, want, time.Time.Equal) {
		t.Errorf("prunes at %v, want %v", calls, want)
	}
}

// TestExpirerDeletesExpiredReviews runs the Expirer on a database with a
// review question shown and never answered: it is kept while it can take
// an answer and deleted at the first run after its expiry.
func TestExpirerDeletesExpiredReviews(t *testing.T) {
	db := openDB(t)
	r, err := db.StartReview(t.Context(), questions.Review{GuildID: 1, UserID: 2, QuestionID: "q", Correct: []string{"A"},
		OptionCount: 2, SelectCount: 1, OpenedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(t0)
	logs := &logBuffer{}
	x := Expirer{Every: time.Hour, Prune: db.PruneExpired, Clock: clk, Log: slog.New(slog.NewTextHandler(logs, nil))}
	run(t, x.Run)
	if !clk.WaitArmed(1, 5*time.Second) {
		t.Fatal("no run at start")
	}
	if _, err := db.Review(1, r.ID); err != nil {
		t.Fatalf("the review before its expiry: %v", err)
	}
	step(t, clk, questions.ReviewExpiry)
	if _, err := db.Review(1, r.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("the review after its expiry: got %v, want deleted", err)
	}
	if !strings.Contains(logs.String(), "reviews=1") {
		t.Errorf("log %q, want the deletion counted", logs.String())
	}
}

// TestExpirerDeletesConfirmationsAndKeptBanks: a prompt nobody confirmed
// goes at the first run after questions.ConfirmExpiry, and a bank kept
// for undo at the first run after questions.UndoKeep.
func TestExpirerDeletesConfirmationsAndKeptBanks(t *testing.T) {
	clk := clock.NewFake(t0)
	db, err := storage.Open(t.Context(), filepath.Join(t.TempDir(), "live.db"), storage.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bank := questions.BankFile{Name: "B", Format: questions.FormatYAML, Data: []byte("bank: B"), ImportedAt: t0}
	if err := db.SaveBanks(t.Context(), 1, []questions.BankFile{bank}, 0); err != nil {
		t.Fatal(err)
	}
	if err := db.EditBanks(t.Context(), 1, questions.BankEdit{Remove: []string{"B"}, Keep: []string{"B"},
		Change: questions.ChangeRemoved, By: 2, At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveConfirmation(t.Context(), questions.Confirmation{GuildID: 1, UserID: 2, Action: questions.ConfirmReset,
		CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	x := Expirer{Every: questions.ConfirmExpiry, Prune: db.PruneExpired, Clock: clk, Log: slog.New(slog.NewTextHandler(logs, nil))}
	run(t, x.Run)
	if !clk.WaitArmed(1, 5*time.Second) {
		t.Fatal("no run at start")
	}
	if strings.Contains(logs.String(), "deleted") {
		t.Errorf("the run at start deleted something: %q", logs.String())
	}
	step(t, clk, questions.ConfirmExpiry)
	if !strings.Contains(logs.String(), "confirmations=1 kept_banks=0") {
		t.Errorf("log %q, want the confirmation deleted and the kept bank not", logs.String())
	}
	step(t, clk, questions.UndoKeep-questions.ConfirmExpiry)
	if !strings.Contains(logs.String(), "confirmations=0 kept_banks=1") {
		t.Errorf("log %q, want the kept bank deleted", logs.String())
	}
}
