package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// rebuilds times what recounts a server's scores, on the insights guild
// (100,000 members, 1,000,000 answers, 10,000 questions): a rebuild, a
// change of the server's time zone and a regrade. Each holds the write
// transaction all servers share for as long as it takes.
func rebuilds(ctx context.Context, out io.Writer, tmp string) error {
	cached, err := harness.CachedInsightsGuild(out)
	if err != nil {
		return err
	}
	path, _, err := harness.WorkingCopy(cached, filepath.Join(tmp, "rebuild"))
	if err != nil {
		return err
	}
	db, err := storage.Open(ctx, path, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	const g questions.GuildID = 8001 // harness.Guild's
	now := time.Now()
	board := func() (string, error) {
		lb, err := db.Leaderboard(g, questions.PeriodAll, questions.ByPoints, now, 0, 20)
		return fmt.Sprint(lb), err
	}
	before, err := board()
	if err != nil {
		return err
	}
	// Each recount is one write transaction: every server's writes wait
	// for it, as long as it lasts.
	timed := func(what string, f func() error) error {
		t := time.Now()
		if err := f(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		fmt.Fprintf(out, "%-44s %8s, every server's writes waiting\n", what, time.Since(t).Round(time.Millisecond))
		return nil
	}
	fmt.Fprintln(out, "recounting a server of 100,000 members and 1,000,000 answers:")
	if err := timed("RebuildScores", func() error { return db.RebuildScores(ctx, g) }); err != nil {
		return err
	}
	if after, err := board(); err != nil || after != before {
		return fmt.Errorf("the board after a rebuild differs (%v):\n%s\nwant\n%s", err, after, before)
	}
	if err := timed("a new time zone (/quizadmin settings)", func() error {
		_, err := db.UpdateSettings(ctx, g, func(s *questions.Settings) error { s.TimeZone = "Asia/Tokyo"; return nil })
		return err
	}); err != nil {
		return err
	}
	return timed("a regrade (/quizadmin question regrade)", func() error {
		_, err := db.Regrade(ctx, g, "Bench#17", []string{"C"}, 4)
		return err
	})
}
