package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quizhost/quizhost/internal/upkeep"
	"github.com/quizhost/quizhost/storage"
)

// backup copies the database of a stopped bot to a file, or to a
// timestamped file in a folder.
func backup(ctx context.Context, args []string, getenv func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("backup", "[--force] DEST",
		"Copy the database (QUIZHOST_DB, from the environment or .env; default "+defaultDB+") to the file DEST,\n"+
			"or, when DEST is a folder (or ends in /), to a new file in it named like the automatic backups,\n"+
			"quizhost-<UTC time>.db. The copy is checked before it takes its name. An existing file is only\n"+
			"replaced with --force. The bot must be stopped; while it runs, send it SIGUSR1 to write\n"+
			"QUIZHOST_DB.bak instead. Ctrl-C (SIGINT or SIGTERM) stops it and leaves DEST as it was.\n"+
			"Exit status: 0 when written, 1 when it fails or is stopped, 2 on bad usage.")
	force := fs.Bool("force", false, "replace DEST if it is a file that exists")
	rest, err := parseFlags(fs, args, 1, stdout)
	if err != nil {
		return helpShown(err)
	}
	getenv, err = envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	path := strings.TrimSpace(getenv("QUIZHOST_DB"))
	if path == "" {
		path = defaultDB
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return exitCode{1, fmt.Sprintf("quizhost backup: no database at %s; set QUIZHOST_DB (environment or .env) to the file to copy", path)}
	} else if err != nil {
		return exitCode{1, fmt.Sprintf("quizhost backup: QUIZHOST_DB: %v", err)}
	}
	dest, err := backupDest(rest[0], time.Now())
	if err != nil {
		return exitCode{1, "quizhost backup: " + err.Error()}
	}
	if sameFile(dest, path) {
		return exitCode{2, fmt.Sprintf("quizhost backup: %s is the database itself (QUIZHOST_DB); name another DEST", dest)}
	}
	if _, err := os.Lstat(dest); err == nil && !*force {
		return exitCode{2, fmt.Sprintf("quizhost backup: %s exists; use --force to replace it, or name a folder to write a new timestamped file in", dest)}
	}
	interrupted := exitCode{1, fmt.Sprintf("quizhost backup: interrupted; %s is as it was", dest)}
	db, err := storage.Open(ctx, path, storage.Options{Timeout: time.Second})
	if err != nil && ctx.Err() != nil {
		return interrupted
	}
	if errors.Is(err, storage.ErrInUse) {
		return exitCode{1, "quizhost backup: the bot is running and holds " + path + "; send it SIGUSR1 to write " + path + ".bak instead"}
	}
	if err != nil {
		return exitCode{1, "quizhost backup: QUIZHOST_DB: " + err.Error()}
	}
	defer db.Close()
	if err := db.BackupFileContext(ctx, dest); err != nil {
		if ctx.Err() != nil {
			return interrupted
		}
		return exitCode{1, "quizhost " + err.Error()}
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", path, dest)
	return nil
}

// backupDest is the file `quizhost backup DEST` writes at now: DEST, or a
// file named like an automatic backup in DEST when it is a folder or ends
// in a path separator (a folder, created if missing). The folder of the
// file must exist.
func backupDest(dest string, now time.Time) (string, error) {
	folder := strings.HasSuffix(dest, "/") || strings.HasSuffix(dest, string(filepath.Separator))
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		folder = true
	} else if folder {
		if err := os.MkdirAll(dest, 0o700); err != nil {
			return "", err
		}
	}
	if folder {
		return filepath.Join(dest, upkeep.BackupName(now)), nil
	}
	if fi, err := os.Stat(filepath.Dir(dest)); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: the folder %s does not exist", dest, filepath.Dir(dest))
	}
	return dest, nil
}

// sameFile reports whether the paths a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
