// Command isolation measures how much one server's imports slow another
// server's answers, in quizhost's real binary over the wire against a
// Discord-compatible server on 127.0.0.1 (internal/fakediscord): members
// of one server answer a question of that server's own imported bank (a
// burst of distinct members, so many in flight) while the admin of another
// server imports ten 1 MiB banks (10 MiB) in one /quizadmin import, again
// and again, and without those imports, alternately.
//
// It prints, for the answers with and without the other server's imports,
// latency from the interaction reaching the bot to its reply (p50, p99,
// max), how many were replied to after Discord's 3 s deadline, how many
// imports completed meanwhile, and the bot's CPU time over the burst's
// time (cores); then the ratio of the p99s against the
// target (at most 1.5). Every reply must be the grade of the member's pick;
// afterwards the database must hold every answer exactly once (no reply
// lost), and any request the server refused as Discord would fails the
// run.
//
//	go run ./bench/isolation [-answers 8000] [-inflight 16] [-rounds 3] [-keep]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/internal/benchbanks"
	"github.com/quizhost/quizhost/internal/fakediscord"
)

const (
	answerGuild, answerChannel = "8001", "6001"
	importGuild, importChannel = "8002", "6002"
)

func main() { harness.Main("isolation", run) }

type config struct {
	answers, inflight, rounds int
	keep                      bool
}

type result struct {
	loaded  bool // the other server imported meanwhile
	burst   harness.BurstResult
	imports int
	cores   float64 // the bot's CPU time over the burst's
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("isolation", flag.ContinueOnError)
	fs.IntVar(&cfg.answers, "answers", 8000, "answers per burst, each from a distinct member")
	fs.IntVar(&cfg.inflight, "inflight", 16, "answers in flight at once")
	fs.IntVar(&cfg.rounds, "rounds", 3, "rounds; each runs a burst without, then with, the other server's imports")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (binary, database, log)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.answers < 1 || cfg.inflight < 1 || cfg.rounds < 1 {
		return errors.New("-answers, -inflight and -rounds must be at least 1")
	}
	tmp, bank, remove, err := harness.Workdir("quizhost-bench-isolation-", cfg.keep, out)
	if err != nil {
		return err
	}
	defer remove()
	bin, err := harness.Build(ctx, tmp, "github.com/quizhost/quizhost", "quizhost")
	if err != nil {
		return err
	}
	guilds := []fakediscord.Guild{
		{ID: answerGuild, Name: "Answers", OwnerID: harness.Admin.ID, Channels: []fakediscord.Channel{{ID: answerChannel, Name: "quiz"}}, Members: []fakediscord.Member{harness.Admin}},
		{ID: importGuild, Name: "Imports", OwnerID: harness.Admin.ID, Channels: []fakediscord.Channel{{ID: importChannel, Name: "quiz"}}, Members: []fakediscord.Member{harness.Admin}},
	}
	srv, err := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{Token: harness.Token, Guilds: guilds})
	if err != nil {
		return err
	}
	defer srv.Close()
	srv.AddFile("answers.yaml", benchbanks.Realistic("Answers", 1, 64<<10))
	var files [2][]string // two editions: each import updates every question
	for e := range files {
		for i := range 10 {
			name := fmt.Sprintf("bank%d-%d.yaml", i+1, e+1)
			srv.AddFile(name, benchbanks.Realistic(fmt.Sprintf("Neighbour %d", i+1), e+1, 1<<20))
			files[e] = append(files[e], name)
		}
	}

	dir := filepath.Join(tmp, "run")
	db := filepath.Join(dir, "quizhost.db")
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	child, err := harness.Launch(startCtx, srv, harness.Bot{Name: "quizhost", Bin: bin, Env: harness.QuizhostEnv(srv, db, bank)}, dir)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = child.Stop(10 * time.Second)
		}
	}()
	q, err := setUp(startCtx, srv)
	if err != nil {
		return fmt.Errorf("set-up: %w\n%s", err, child.LogTail(2000))
	}

	fmt.Fprintf(out, "%d answers from distinct members in one server, %d in flight; the other server imports ten 1 MiB banks again and again, or nothing; %d rounds\n\n",
		cfg.answers, cfg.inflight, cfg.rounds)
	var results []result
	var users []string
	next := uint64(harness.FirstMember)
	imported := 0 // imports so far, of both editions in turn
	for round := 1; round <= cfg.rounds; round++ {
		for _, loaded := range []bool{false, true} {
			fmt.Fprintf(os.Stderr, "round %d, imports %v…\n", round, loaded)
			cpu0, err := child.CPU()
			if err != nil {
				return err
			}
			r, err := burst(ctx, srv, q, cfg, next, loaded, files, &imported)
			if err != nil {
				return fmt.Errorf("round %d: %w\n%s", round, err, child.LogTail(2000))
			}
			cpu1, err := child.CPU()
			if err != nil {
				return err
			}
			r.cores = (cpu1 - cpu0).Seconds() / r.burst.Elapsed.Seconds()
			results = append(results, r)
			users = append(users, r.burst.Users...)
			next += uint64(cfg.answers)
		}
	}
	stopped = true
	if err := child.Stop(10 * time.Second); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tanswers/s\tp50\tp99\tmax\tover 3 s\tdeferred\timports meanwhile\tbot CPU (cores)\t")
	for i, r := range results {
		what := "no imports"
		if r.loaded {
			what = "other server importing"
		}
		fmt.Fprintf(tw, "%s %d\t%s%d\t%.2f\t\n", what, i/2+1, r.burst.Cells(), r.imports, r.cores)
	}
	tw.Flush()
	p99 := func(loaded bool) float64 {
		return harness.Median(results, func(r result) bool { return r.loaded == loaded }, func(r result) float64 { return r.burst.LatencyMs(0.99) })
	}
	quiet, busy := p99(false), p99(true)
	fmt.Fprintf(out, "\nmedian p99: %.1f ms without imports, %.1f ms with the other server importing: %.2f× (target: at most 1.5×)\n", quiet, busy, busy/quiet)
	cores := func(loaded bool) float64 {
		return harness.Median(results, func(r result) bool { return r.loaded == loaded }, func(r result) float64 { return r.cores })
	}
	fmt.Fprintf(out, "median bot CPU: %.2f cores without imports, %.2f with\n", cores(false), cores(true))

	var problems []error
	for _, r := range results {
		if n := harness.Over(r.burst.Latency, harness.Deadline); n > 0 {
			problems = append(problems, fmt.Errorf("%d answers replied to after %v", n, harness.Deadline))
		}
		if r.loaded && r.imports == 0 {
			problems = append(problems, errors.New("no import completed during a burst: make the burst longer (-answers)"))
		}
	}
	if err := harness.CheckGuilds(db, map[string][]string{answerGuild: users}); err != nil {
		problems = append(problems, err)
	} else {
		fmt.Fprintf(out, "every one of the %d answers stored exactly once\n", len(users))
	}
	for _, v := range srv.Violations() {
		problems = append(problems, fmt.Errorf("refused by the server: %s", v))
	}
	return errors.Join(problems...)
}

// setUp imports the answering server's bank and asks its question.
func setUp(ctx context.Context, srv *fakediscord.Server) (harness.Question, error) {
	p := srv.SlashCommand(answerGuild, answerChannel, harness.Admin, "quizadmin", harness.Import("answers.yaml"))
	if m, _, _, err := harness.Reply(ctx, srv, p); err != nil || !strings.Contains(m.Content, "**Answers** (new bank)") {
		return harness.Question{}, fmt.Errorf("import: %q, %v", m.Content, err)
	}
	p = srv.SlashCommand(answerGuild, answerChannel, harness.Admin, "quiz", fakediscord.Option{Name: "ask",
		Type: discordgo.ApplicationCommandOptionSubCommand, Options: []fakediscord.Option{
			{Name: "bank", Type: discordgo.ApplicationCommandOptionString, Value: "Answers"},
			{Name: "minutes", Type: discordgo.ApplicationCommandOptionInteger, Value: 10000}}})
	if _, _, _, err := harness.Reply(ctx, srv, p); err != nil {
		return harness.Question{}, fmt.Errorf("/quiz ask: %w", err)
	}
	return harness.FindQuestion(srv, answerGuild, answerChannel)
}

// burst sends one burst of answers, with the other server importing
// files again and again meanwhile when loaded; the import in flight when
// the burst ends is waited for.
func burst(ctx context.Context, srv *fakediscord.Server, q harness.Question, cfg config, first uint64, loaded bool, files [2][]string, imported *int) (result, error) {
	r := result{loaded: loaded}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var importErr error
	if loaded {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				p := srv.SlashCommand(importGuild, importChannel, harness.Admin, "quizadmin", harness.Import(files[*imported%2]...))
				m, _, _, err := harness.Reply(ictx, srv, p)
				cancel()
				// Each import after the first updates every question.
				if err == nil && (!strings.Contains(m.Content, "Imported **Neighbour 10**") || *imported > 0 && strings.Contains(m.Content, "updated 0,")) {
					err = fmt.Errorf("reply %q", m.Content)
				}
				if err != nil {
					importErr = fmt.Errorf("import: %w", err)
					return
				}
				r.imports++
				*imported++
			}
		})
	}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	b, err := harness.Burst(bctx, srv, q, cfg.answers, cfg.inflight, first)
	close(stop)
	wg.Wait()
	if err != nil {
		return r, err
	}
	r.burst = b
	return r, importErr
}
