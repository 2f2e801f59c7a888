// Command answers is the over-the-wire answer benchmark: it runs quizhost's
// real binary, and the ceiling (bench/ceiling: the same bot over an
// in-memory store that records nothing, replying one line), alternately
// and several times, against a Discord-compatible server on
// 127.0.0.1 (internal/fakediscord), sends each a burst of answers from
// distinct members, so many in flight, and prints answers/s, latency from
// the interaction reaching the bot to its reply (p50, p99, max), the bot
// process's CPU time per 1,000 answers, and the ratios of the two.
//
//	go run ./bench/answers [-answers 2000] [-inflight 64] [-rounds 3] [-profile] [-same-reply]
//
// Each run posts a question with /quiz ask through the bot under test
// (quizhost on a new database), so both decode the same interactions;
// after quizhost has exited, the benchmark checks that every member's
// answer was stored exactly once. CPU time is read from
// /proc before and after the burst (start-up excluded). Any request the
// server refused as Discord would (late or double callbacks, bad payloads)
// fails the run. -profile adds one more run of each with `perf record` on
// the bot and prints where its CPU time went. -same-reply adds a third
// bot to each round: the ceiling replying as quizhost does by default (the
// grade with the reveal embed), which splits the gap between what storing
// costs and what the richer reply costs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/internal/fakediscord"
)

const (
	guildID   = "8001"
	channelID = "6001"
)

func main() { harness.Main("answers", run) }

type config struct {
	answers, inflight, rounds int
	profile, keep, sameReply  bool
}

// sameReply is the kind of the third bot of -same-reply.
const sameReply = "same-reply"

// kinds are the bots each round runs, in order.
func (c config) kinds() []string {
	if c.sameReply {
		return []string{"quizhost", "ceiling", sameReply}
	}
	return []string{"quizhost", "ceiling"}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("answers", flag.ContinueOnError)
	fs.IntVar(&cfg.answers, "answers", 2000, "answers per burst, each from a distinct member")
	fs.IntVar(&cfg.inflight, "inflight", 64, "answers in flight at once")
	fs.IntVar(&cfg.rounds, "rounds", 3, "rounds; each runs quizhost, then the ceiling")
	fs.BoolVar(&cfg.profile, "profile", false, "add one run of each under `perf record` and print where the CPU went")
	fs.BoolVar(&cfg.sameReply, "same-reply", false, "add a third bot to each round: the ceiling with quizhost's default reply (the reveal embed)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (binaries, databases, logs, profiles)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.answers < 1 || cfg.inflight < 1 || cfg.rounds < 1 {
		return errors.New("-answers, -inflight and -rounds must be at least 1")
	}
	tmp, bank, remove, err := harness.Workdir("quizhost-bench-", cfg.keep, out)
	if err != nil {
		return err
	}
	defer remove()
	qh, ceil, err := harness.Binaries(ctx, tmp)
	if err != nil {
		return err
	}
	srv, err := harness.AdminDiscord()
	if err != nil {
		return err
	}
	defer srv.Close()

	b := &bench{cfg: cfg, srv: srv, tmp: tmp, quizhost: qh, ceiling: ceil, bank: bank}
	fmt.Fprintf(out, "%d answers from distinct members, %d in flight, %d rounds\n\n", cfg.answers, cfg.inflight, cfg.rounds)
	var results []result
	var failed []error
	for round := 1; round <= cfg.rounds; round++ {
		for _, kind := range cfg.kinds() {
			fmt.Fprintf(os.Stderr, "%s round %d…\n", kind, round)
			r, err := b.runOne(ctx, kind, round, false)
			if err != nil {
				return fmt.Errorf("%s round %d: %w", kind, round, err)
			}
			results = append(results, r)
			failed = append(failed, r.problems...)
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tanswers/s\tp50\tp99\tmax\tover 3 s\tdeferred\tCPU s / 1,000 answers\tmachine busy\tstored once\t")
	for _, r := range results {
		r.row(tw)
	}
	tw.Flush()
	summarize(out, results, cfg)
	if cfg.profile {
		if err := b.profiles(ctx, out); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d problems: %w", len(failed), errors.Join(failed...))
	}
	return nil
}

type bench struct {
	cfg                     config
	srv                     *fakediscord.Server
	tmp                     string
	quizhost, ceiling, bank string
}

type result struct {
	kind     string
	round    int
	burst    harness.BurstResult
	cpu      time.Duration
	stored   string // "yes", or "-" for the ceiling
	problems []error
	busy     float64 // the machine's share of CPU in use during the burst, 0–1
	profile  string  // perf.data path, when profiled
	pid      int
}

func (r result) perSec() float64 { return r.burst.PerSec() }

// cpuPer1000 is the bot's CPU seconds per 1,000 answers.
func (r result) cpuPer1000() float64 { return r.burst.CPUPer1000(r.cpu) }

func (r result) row(w io.Writer) {
	fmt.Fprintf(w, "%s %d\t%s%.3f\t%.0f%%\t%s\t\n", r.kind, r.round, r.burst.Cells(), r.cpuPer1000(), 100*r.busy, r.stored)
}

// runOne starts a bot, posts a question through it, sends the burst,
// stops the bot and checks what it did.
func (b *bench) runOne(ctx context.Context, kind string, round int, profile bool) (result, error) {
	dir := filepath.Join(b.tmp, fmt.Sprintf("%s-%d", kind, round))
	if profile {
		dir += "-profile"
	}
	db := filepath.Join(dir, "quizhost.db")
	bot := harness.Bot{Name: kind, Bin: b.quizhost, Env: harness.QuizhostEnv(b.srv, db, b.bank)}
	switch kind {
	case "ceiling":
		bot = harness.Bot{Name: kind, Bin: b.ceiling, Env: harness.CeilingEnv(b.srv, b.bank)}
	case sameReply:
		bot = harness.Bot{Name: kind, Bin: b.ceiling, Env: append(harness.CeilingEnv(b.srv, b.bank), harness.CeilingReplyEnv+"=reveal")}
	}
	violations, authViolations := len(b.srv.Violations()), len(b.srv.AuthViolations())
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	child, err := harness.Launch(startCtx, b.srv, bot, dir)
	if err != nil {
		return result{}, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = child.Stop(10 * time.Second)
		}
	}()
	// Each bot posts its own question: the ceiling keeps its posts in
	// memory, and a new database has none.
	p := b.srv.SlashCommand(guildID, channelID, harness.Admin, "quiz", fakediscord.Option{Name: "ask",
		Type: discordgo.ApplicationCommandOptionSubCommand, Options: []fakediscord.Option{
			{Name: "bank", Type: discordgo.ApplicationCommandOptionString, Value: "Bench Bank"},
			{Name: "minutes", Type: discordgo.ApplicationCommandOptionInteger, Value: 10000}}})
	if _, _, _, err := harness.Reply(startCtx, b.srv, p); err != nil {
		return result{}, fmt.Errorf("/quiz ask: %w", err)
	}
	question, err := harness.FindQuestion(b.srv, guildID, channelID)
	if err != nil {
		return result{}, fmt.Errorf("/quiz ask: %w", err)
	}

	var perf *harness.Perf
	r := result{kind: kind, round: round, stored: "-", pid: child.PID()}
	if profile {
		r.profile = filepath.Join(dir, "perf.data")
		if perf, err = harness.StartPerf(r.profile); err != nil {
			return result{}, err
		}
	}
	cpu0, err := child.CPU()
	if err != nil {
		return result{}, err
	}
	busy0, total0, err := harness.MachineCPU()
	if err != nil {
		return result{}, err
	}
	burstCtx, cancelBurst := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelBurst()
	r.burst, err = harness.Burst(burstCtx, b.srv, question, b.cfg.answers, b.cfg.inflight, harness.FirstMember)
	if err != nil {
		return result{}, fmt.Errorf("%w\n%s", err, child.LogTail(2000))
	}
	cpu1, err := child.CPU()
	if err != nil {
		return result{}, err
	}
	r.cpu = cpu1 - cpu0
	busy1, total1, err := harness.MachineCPU()
	if err != nil {
		return result{}, err
	}
	if total1 > total0 {
		r.busy = float64(busy1-busy0) / float64(total1-total0)
	}
	if perf != nil {
		if err := perf.Stop(); err != nil {
			return result{}, err
		}
	}
	stopped = true
	if err := child.Stop(10 * time.Second); err != nil {
		r.problems = append(r.problems, fmt.Errorf("%s round %d: %w", kind, round, err))
	}
	for _, v := range b.srv.Violations()[violations:] {
		r.problems = append(r.problems, fmt.Errorf("%s round %d: refused by the server: %s", kind, round, v))
	}
	for _, v := range b.srv.AuthViolations()[authViolations:] {
		r.problems = append(r.problems, fmt.Errorf("%s round %d: unauthorized request %s %s", kind, round, v.Method, v.Path))
	}
	if n := harness.Over(r.burst.Latency, harness.Deadline); n > 0 {
		r.problems = append(r.problems, fmt.Errorf("%s round %d: %d answers replied to after %v", kind, round, n, harness.Deadline))
	}
	if kind == "quizhost" {
		r.stored = "yes"
		if err := harness.CheckGuilds(db, map[string][]string{guildID: r.burst.Users}); err != nil {
			r.stored = "NO"
			r.problems = append(r.problems, fmt.Errorf("%s round %d: %w", kind, round, err))
		}
	}
	return r, nil
}

// summarize prints the median of each measure over the rounds, for each
// bot, and quizhost's over the ceiling's, against the targets.
func summarize(out io.Writer, results []result, cfg config) {
	med := func(kind string, f func(result) float64) float64 {
		return harness.Median(results, func(r result) bool { return r.kind == kind }, f)
	}
	ms := func(q float64) func(result) float64 {
		return func(r result) float64 { return r.burst.LatencyMs(q) }
	}
	rows := []struct {
		name   string
		f      func(result) float64
		format string
		target string
	}{
		{"answers/s", result.perSec, "%.0f", "ratio at least 0.85"},
		{"p50 ms", ms(0.5), "%.1f", ""},
		{"p99 ms", ms(0.99), "%.1f", fmt.Sprintf("quizhost at most 50 ms (at 64 in flight; here %d)", cfg.inflight)},
		{"max ms", ms(1), "%.1f", "under 3,000 ms"},
		{"CPU s / 1,000 answers", result.cpuPer1000, "%.3f", "ratio at most 1.25"},
		{"machine busy %", func(r result) float64 { return 100 * r.busy }, "%.0f", "(both cores: 100)"},
	}
	fmt.Fprintf(out, "\nmedian of %d rounds\n", cfg.rounds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	ratio := func(a, b float64) string {
		if b <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	if cfg.sameReply {
		fmt.Fprintln(tw, "\tquizhost\tceiling\tsame-reply\tquizhost / ceiling\tquizhost / same-reply\ttarget")
	} else {
		fmt.Fprintln(tw, "\tquizhost\tceiling\tquizhost / ceiling\ttarget")
	}
	for _, row := range rows {
		a, b := med("quizhost", row.f), med("ceiling", row.f)
		if cfg.sameReply {
			c := med(sameReply, row.f)
			fmt.Fprintf(tw, "%s\t"+row.format+"\t"+row.format+"\t"+row.format+"\t%s\t%s\t%s\n", row.name, a, b, c, ratio(a, b), ratio(a, c), row.target)
			continue
		}
		fmt.Fprintf(tw, "%s\t"+row.format+"\t"+row.format+"\t%s\t%s\n", row.name, a, b, ratio(a, b), row.target)
	}
	tw.Flush()
}

// profiles runs each bot once more under perf and prints the breakdown.
func (b *bench) profiles(ctx context.Context, out io.Writer) error {
	if !harness.PerfWorks(ctx) {
		fmt.Fprintln(out, "\nprofiles: perf cannot sample here; skipped")
		return nil
	}
	for _, kind := range b.cfg.kinds() {
		r, err := b.runOne(ctx, kind, 0, true)
		if err != nil {
			return fmt.Errorf("%s profile: %w", kind, err)
		}
		shares, total, err := harness.Breakdown(ctx, r.profile, r.pid)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\nprofile of %s (%d samples, one per 0.5 ms of CPU; %.3f CPU s / 1,000 answers under perf, %.0f answers/s):\n",
			kind, total, r.cpuPer1000(), r.perSec())
		for _, s := range shares {
			fmt.Fprintf(out, "  %5.1f%%  %s\n", 100*s.Fraction, s.Category)
		}
	}
	return nil
}
