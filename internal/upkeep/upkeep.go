// Package upkeep runs quizhost's periodic housekeeping while the bot runs:
// automatic backups (verified copies of the database in a folder, the
// newest few kept), the pruning of old day, week and month score
// periods and the deletion of what expired unused (review questions not
// answered, drafts not sent, prompts not confirmed, versions of banks kept
// for undo). Each job runs on a timer of an injected clock, so tests drive
// it without sleeping.
package upkeep

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/storage"
)

// Backup file names: quizhost-<UTC time>.db, so names sort by time.
const (
	backupPrefix = "quizhost-"
	backupLayout = "20060102T150405Z"
	backupSuffix = ".db"
)

// BackupName is the file name of a backup taken at t.
func BackupName(t time.Time) string {
	return backupPrefix + t.UTC().Format(backupLayout) + backupSuffix
}

// backupTime parses a backup file name; ok is false for any other name.
func backupTime(name string) (time.Time, bool) {
	s, ok := strings.CutPrefix(name, backupPrefix)
	if !ok {
		return time.Time{}, false
	}
	s, ok = strings.CutSuffix(s, backupSuffix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(backupLayout, s)
	return t, err == nil
}

// ListBackups returns the names of the backups in dir (files named as
// BackupName names them), oldest first. Other files are not listed.
func ListBackups(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	var names []string
	for _, e := range entries {
		if _, ok := backupTime(e.Name()); ok && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// Backups writes a backup into Dir every Every and keeps the newest Keep.
type Backups struct {
	Dir   string
	Every time.Duration
	Keep  int
	// Write writes a verified backup to path: storage.DB.BackupFile, which
	// writes a temporary file, fsyncs and checks it, then renames it into
	// place, so path is either a whole, checked copy or not there.
	Write func(path string) error
	Clock clock.Clock
	Log   *slog.Logger
	// Fresh says the database was created by this start: there is nothing
	// to back up yet, so the first backup waits Every.
	Fresh bool
}

// Run takes backups until ctx ends. The first is due Every after the
// newest backup already in Dir (at once when there is none, or when that
// is past; Every after start for a Fresh database), so restarts do not
// postpone backups; each next one Every after the previous attempt. Old backups are removed only after a new
// one was written, so a failing backup never costs a good one.
func (b Backups) Run(ctx context.Context) {
	now := b.Clock.Now()
	next := now
	if b.Fresh {
		next = now.Add(b.Every)
	} else if names, err := ListBackups(b.Dir); err != nil {
		b.Log.Error("automatic backup", "dir", b.Dir, "err", err)
	} else if len(names) > 0 {
		last, _ := backupTime(names[len(names)-1])
		// A backup dated ahead of the clock (the clock was set back) does
		// not postpone the next one by more than Every.
		if next = last.Add(b.Every); next.After(now.Add(b.Every)) {
			next = now.Add(b.Every)
		}
	}
	every(ctx, b.Clock, next, b.Every, func(now time.Time) { b.Once(now) })
}

// Once writes the backup for time now and then removes all but the
// newest Keep backups (never the one just written). It logs what it did
// and returns the new file's path, or the error (and removes nothing).
func (b Backups) Once(now time.Time) (string, error) {
	path := filepath.Join(b.Dir, BackupName(now))
	start := time.Now()
	if err := b.Write(path); err != nil {
		b.Log.Error("automatic backup failed; older backups kept", "dest", path, "err", err)
		return "", err
	}
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	b.Log.Info("automatic backup written", "dest", path, "bytes", size, "took", time.Since(start).Round(time.Millisecond))
	names, err := ListBackups(b.Dir)
	if err != nil {
		b.Log.Error("automatic backup: remove old backups", "err", err)
		return path, nil
	}
	for _, name := range names[:max(0, len(names)-max(b.Keep, 1))] {
		if name == filepath.Base(path) {
			continue
		}
		old := filepath.Join(b.Dir, name)
		if err := os.Remove(old); err != nil {
			b.Log.Error("automatic backup: remove old backup", "path", old, "err", err)
			continue
		}
		b.Log.Info("old backup removed", "path", old)
	}
	return path, nil
}

// Pruner prunes old score periods (storage.DB.PruneScores) at start and
// then every Every.
type Pruner struct {
	Keep  time.Duration
	Every time.Duration
	Prune func(ctx context.Context, now time.Time, keep time.Duration) (storage.PruneResult, error)
	Clock clock.Clock
	Log   *slog.Logger
}

// Run prunes until ctx ends.
func (p Pruner) Run(ctx context.Context) {
	every(ctx, p.Clock, p.Clock.Now(), p.Every, func(now time.Time) {
		start := time.Now()
		res, err := p.Prune(ctx, now, p.Keep)
		if err != nil {
			p.Log.Error("prune old scores", "err", err)
			return
		}
		p.Log.Info("old scores pruned", "periods", res.Periods, "guilds", res.Guilds, "took", time.Since(start).Round(time.Millisecond))
	})
}

// Expirer deletes what expired unused (storage.DB.PruneExpired: review
// questions not answered by their expiry, drafts and confirmations past
// theirs, versions of banks kept for undo past theirs) at start and then
// every Every.
type Expirer struct {
	Every time.Duration
	Prune func(ctx context.Context, now time.Time) (storage.ExpiredResult, error)
	Clock clock.Clock
	Log   *slog.Logger
}

// Run deletes what expired until ctx ends.
func (x Expirer) Run(ctx context.Context) {
	every(ctx, x.Clock, x.Clock.Now(), x.Every, func(now time.Time) {
		res, err := x.Prune(ctx, now)
		if err != nil {
			x.Log.Error("delete expired reviews, drafts, confirmations and kept banks", "err", err)
			return
		}
		if res != (storage.ExpiredResult{}) {
			x.Log.Info("expired records deleted", "reviews", res.Reviews, "drafts", res.Drafts,
				"confirmations", res.Confirmations, "kept_banks", res.Versions)
		}
	})
}

// every runs job at first and then period after each run's start, on
// c's timers, until ctx ends.
func every(ctx context.Context, c clock.Clock, first time.Time, period time.Duration, job func(now time.Time)) {
	next := first
	for {
		fire, stop := c.TimerAt(next)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-fire:
		}
		now := c.Now()
		job(now)
		next = now.Add(period)
	}
}
