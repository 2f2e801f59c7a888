package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/admin"
	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/internal/metrics"
	"github.com/quizhost/quizhost/internal/upkeep"
	"github.com/quizhost/quizhost/storage"
)

// startOps starts what the configuration asks for besides the bot: the
// admin listener (bound here, so a bad address stops start-up before
// Discord is contacted), automatic backups and the daily pruning of old
// scores; and, always, the hourly deletion of expired reviews, drafts,
// prompts to confirm and banks kept for undo. Each runs until ctx ends; wg counts them. m is what the admin
// listener serves at /metrics (the bot and storage record into it); nil
// when there is no listener.
func startOps(ctx context.Context, wg *sync.WaitGroup, cfg config, db *storage.DB, b *bot.Bot, m *metrics.Metrics, fresh bool, log *slog.Logger) error {
	if cfg.adminAddr != "" {
		m.OpenQuestions(db.OpenPostCount)
		srv, err := admin.Listen(admin.Config{Addr: cfg.adminAddr, Token: cfg.adminToken, Gateway: b, Database: db,
			Backup: db, Metrics: m.Handler(), Logger: log})
		if err != nil {
			return err
		}
		log.Info("admin listener", "addr", srv.Addr().String(), "token_required", cfg.adminToken != "")
		wg.Go(func() {
			if err := srv.Serve(ctx); err != nil {
				log.Error("admin listener stopped", "err", err)
			}
		})
	}
	if cfg.backupEvery > 0 {
		if err := os.MkdirAll(cfg.backupDir, 0o700); err != nil {
			return fmt.Errorf("QUIZHOST_BACKUP_DIR: %w (QUIZHOST_BACKUP_EVERY=0 turns automatic backups off)", err)
		}
		log.Info("automatic backups", "dir", cfg.backupDir, "every", cfg.backupEvery, "keep", cfg.backupKeep)
		bk := upkeep.Backups{Dir: cfg.backupDir, Every: cfg.backupEvery, Keep: cfg.backupKeep,
			Write: db.BackupFile, Clock: clock.Real{}, Log: log, Fresh: fresh}
		wg.Go(func() { bk.Run(ctx) })
	}
	if cfg.keepScores >= 0 {
		p := upkeep.Pruner{Keep: cfg.keepScores, Every: 24 * time.Hour, Prune: db.PruneScores, Clock: clock.Real{}, Log: log}
		wg.Go(func() { p.Run(ctx) })
	}
	x := upkeep.Expirer{Every: time.Hour, Prune: db.PruneExpired, Clock: clock.Real{}, Log: log}
	wg.Go(func() { x.Run(ctx) })
	return nil
}

// backupOnSignal writes a hot backup of the running bot's database to dest
// on SIGUSR1.
func backupOnSignal(ctx context.Context, db *storage.DB, dest string, log *slog.Logger) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			if err := db.BackupFile(dest); err != nil {
				log.Error("backup", "dest", dest, "err", err)
			} else {
				log.Info("backup written", "dest", dest)
			}
		}
	}
}
