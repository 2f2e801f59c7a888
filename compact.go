package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quizhost/quizhost/storage"
)

// compactCmd rewrites the database of a stopped bot without its free
// pages, in place or to another file.
func compactCmd(ctx context.Context, args []string, getenv func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("compact", "[--out FILE] [FILE]",
		"Rewrite the database FILE (default QUIZHOST_DB, from the environment or .env; default "+defaultDB+")\n"+
			"without its free pages, every page filled: the file of a bot that has run for months, or after\n"+
			"QUIZHOST_KEEP_SCORES dropped old scores, usually shrinks. The copy is written next to its\n"+
			"destination, checked (bbolt's consistency check, and the same keys in every bucket) and only then\n"+
			"takes its name: FILE itself, or with --out a new file, FILE left as it was. The bot must be stopped.\n"+
			"Ctrl-C (SIGINT or SIGTERM) stops it and leaves every file as it was.\n"+
			"Exit status: 0 when written, 1 when it fails, is refused or is stopped, 2 on bad usage.")
	out := fs.String("out", "", "write the compacted copy to the new `FILE` instead of replacing the database")
	rest, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	if len(rest) > 1 {
		return exitCode{2, fmt.Sprintf("quizhost compact: want at most one FILE, got %d\n%s", len(rest), usageOf(fs))}
	}
	path := ""
	if len(rest) == 1 {
		path = rest[0]
	} else {
		getenv, err = envWithDotenv(getenv, ".env")
		if err != nil {
			return err
		}
		path = strings.TrimSpace(getenv("QUIZHOST_DB"))
		if path == "" {
			path = defaultDB
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return exitCode{1, fmt.Sprintf("quizhost compact: no database at %s; name the file, or set QUIZHOST_DB (environment or .env)", path)}
	}
	if *out != "" {
		if _, err := os.Lstat(*out); err == nil {
			return exitCode{2, fmt.Sprintf("quizhost compact: %s exists; name a new file for --out", *out)}
		}
		if sameFile(*out, path) {
			return exitCode{2, fmt.Sprintf("quizhost compact: --out %s is the database itself", *out)}
		}
	}
	res, err := storage.CompactFile(ctx, path, *out, compactLockWait)
	switch {
	case err != nil && ctx.Err() != nil:
		return exitCode{1, "quizhost compact: interrupted; " + path + " is as it was"}
	case errors.Is(err, storage.ErrInUse):
		return exitCode{1, "quizhost compact: the bot is running and holds " + path + "; stop it first (its automatic backups are compacted already)"}
	case err != nil:
		return exitCode{1, "quizhost " + err.Error()}
	}
	fmt.Fprintf(stdout, "compacted %s to %s: %s → %s (%s)\n", path, res.Path, size(res.Before), size(res.After), plural(res.Keys, "key", "keys"))
	return nil
}

// compactLockWait is how long compact waits for the database's lock
// before it says the bot is running (a variable for the tests, which need
// not wait a second to see the refusal).
var compactLockWait = time.Second

// size is a file size for people: 812 KB, 43.1 MB.
func size(b int64) string {
	switch {
	case b < 1e6:
		return fmt.Sprintf("%d KB", (b+999)/1000)
	case b < 1e9:
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(b)/1e9)
}
