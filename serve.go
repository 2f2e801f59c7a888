package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/metrics"
	"github.com/quizhost/quizhost/internal/upkeep"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// serve runs the bot until ctx ends (run ends it on SIGINT or SIGTERM).
func serve(ctx context.Context, _ []string, getenv func(string) string, _, stderr io.Writer) error {
	getenv, err := envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	cfg, err := readConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))

	cat, ps := questions.Loader{Paths: bankPaths(cfg.questions)}.Load()
	for _, w := range ps.Warnings() {
		log.Warn("question banks", "problem", w.Error())
	}
	if errs := ps.Errors(); len(errs) > 0 {
		return exitCode{1, "quizhost: question banks:\n" + errs.Error()}
	}
	log.Info("question banks loaded", "banks", len(cat.Banks()), "questions", cat.Len())

	// Metrics are kept when the admin listener serves them.
	var m *metrics.Metrics
	opened := time.Now()
	dbOpts := storage.Options{Timeout: 3 * time.Second, Quota: cfg.quota,
		OnChecked: func(err error) { // a large file's full check runs after start (see storage.Open)
			if err == nil {
				log.Info("database checked", "took", time.Since(opened).Round(time.Millisecond))
				return
			}
			log.Error("database damaged: every database call now fails", "err", err, "help",
				damagedHelp(cfg.dbPath, err)+newestBackupHint(cfg.backupDir, cfg.backupEvery > 0, cfg.dbPath))
		}}
	botCfg := bot.Config{Token: cfg.token, GuildID: cfg.guildID, APIBase: cfg.apiBase, Catalogue: cat, Logger: log,
		Shards: cfg.shards}
	if cfg.adminAddr != "" {
		m = metrics.New()
		dbOpts.OnCommit = m.Commit
		botCfg.Metrics, botCfg.Transport = m, m.Transport(bot.NewTransport())
	}

	_, statErr := os.Stat(cfg.dbPath)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	db, err := storage.Open(ctx, cfg.dbPath, dbOpts)
	if err != nil && ctx.Err() != nil {
		return nil // stopped while waiting for the database's lock
	}
	if errors.Is(err, storage.ErrDamaged) {
		return exitCode{1, damagedHelp(cfg.dbPath, err) + newestBackupHint(cfg.backupDir, cfg.backupEvery > 0, cfg.dbPath)}
	}
	if err != nil {
		return fmt.Errorf("QUIZHOST_DB: %w", err)
	}
	log.Info("database opened", "path", cfg.dbPath, "took", time.Since(opened).Round(time.Millisecond))
	var b *bot.Bot
	defer func() {
		if err := db.Close(); err != nil {
			log.Error("close database", "err", err)
		}
		// A start that never reached Discord leaves no new, empty file.
		if fresh && (b == nil || !b.Reached()) {
			os.Remove(cfg.dbPath)
		}
	}()
	// The file must hold the servers of the shards this process runs (a
	// new file takes the layout).
	if err := db.ClaimShardLayout(ctx, cfg.shards); err != nil {
		if errors.Is(err, storage.ErrShardLayout) {
			return exitCode{1, "quizhost: " + err.Error()}
		}
		return err
	}
	go backupOnSignal(ctx, db, cfg.dbPath+".bak", log)

	botCfg.Store = db
	b, err = bot.New(botCfg)
	if err != nil {
		return err
	}
	// The admin listener and the upkeep jobs stop, and are waited for,
	// before the database closes.
	ops, stopOps := context.WithCancel(ctx)
	var opsDone sync.WaitGroup
	defer func() {
		stopOps()
		opsDone.Wait()
	}()
	if err := startOps(ops, &opsDone, cfg, db, b, m, fresh, log); err != nil {
		return err
	}
	if err := b.Run(ctx); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// damagedHelp is the message for a database file that Open refused as
// damaged: what happened and how to restore from a backup.
func damagedHelp(path string, err error) string {
	return fmt.Sprintf(`quizhost: %v
quizhost has not changed %[2]s. To restore it from a backup:
  1. keep the damaged file aside:   mv %[2]s %[2]s.damaged
  2. copy the backup in its place:  cp %[2]s.bak %[2]s   (or your own copy)
  3. start quizhost again.
%[2]s.bak is written when the running bot gets SIGUSR1 (see README.md, "Operations").
Without a backup, moving the file aside starts quizhost with an empty database.`, err, path)
}

// newestBackupHint names the newest automatic backup in dir, if any, as
// the file to restore path from; when there is none it says so, unless
// automatic backups are off (on says whether they are on).
func newestBackupHint(dir string, on bool, path string) string {
	names, err := upkeep.ListBackups(dir)
	if err != nil || len(names) == 0 {
		if !on {
			return ""
		}
		return fmt.Sprintf("\nThe backups folder %s (QUIZHOST_BACKUP_DIR) holds no automatic backup.", dir)
	}
	newest := filepath.Join(dir, names[len(names)-1])
	return fmt.Sprintf("\nThe newest automatic backup is %s: in step 2, cp %s %s", newest, newest, path)
}
