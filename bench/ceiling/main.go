// Command ceiling is the benchmarks' ceiling: quizhost's own bot (bot.New,
// Run: the same gateway, dispatch, custom-ID decoding, post lookup,
// grading, rendering and REST) over an in-memory store that records
// nothing (store.go): the posts the bot creates are kept so that answers
// find their question, answers are graded and forgotten, and the guild's
// settings turn the reveal on answer off, so that each answer gets a
// one-line reply. What quizhost does beyond it is the durable storage.
//
// It reads DISCORD_TOKEN, DISCORD_API_BASE and QUIZHOST_QUESTIONS as
// quizhost does, and stops on SIGINT or SIGTERM. It is not part of
// quizhost: bench/answers runs it.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/questions"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(log); err != nil {
		log.Error("ceiling", "err", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	b, err := newBot(os.Getenv("DISCORD_TOKEN"), os.Getenv("DISCORD_API_BASE"), os.Getenv("QUIZHOST_QUESTIONS"),
		os.Getenv(harness.CeilingReplyEnv) == "reveal", log)
	if err != nil {
		return err
	}
	return b.Run(ctx)
}

// newBot is quizhost's bot over the ceiling's store, with the banks at
// banks ("" for the built-in bank only) as QUIZHOST_QUESTIONS gives them;
// reveal keeps quizhost's default reveal on answer (the same reply).
func newBot(token, apiBase, banks string, reveal bool, log *slog.Logger) (*bot.Bot, error) {
	var paths []string
	if banks != "" {
		paths = []string{banks}
	}
	cat, ps := questions.Loader{Paths: paths}.Load()
	if errs := ps.Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("question banks: %w", errs)
	}
	return bot.New(bot.Config{Token: token, APIBase: apiBase, Store: newStore(reveal), Catalogue: cat, Logger: log})
}
