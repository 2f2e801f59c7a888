// Command shards is the sharded answer benchmark: quizhost's real binary
// as 1, 2 and 4 processes sharing 4 gateway shards (QUIZHOST_SHARDS
// 0-3/4; 0-1/4 and 2-3/4; one shard each), each process with its own
// database file, against a Discord-compatible server of 4 shards on
// 127.0.0.1 (internal/fakediscord). A question is posted in every server
// (-servers per shard), then a burst of answers from distinct members,
// spread round-robin over the servers of all shards, so many in flight.
// It prints answers/s, latency from the interaction reaching the bot to
// its reply (p50, p99, max) and the CPU time of all the processes per
// 1,000 answers (read from /proc around the burst).
//
//	go run ./bench/shards [-answers 4000] [-inflight 64] [-servers 2] [-rounds 3]
//
// Each run starts from new database files. After the processes have
// exited it checks that every answer is stored exactly once, in the file
// of its server's shard, and any request the server refused as Discord
// would (late or double callbacks, bad payloads) fails the run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/internal/fakediscord"
	"github.com/quizhost/quizhost/internal/sharding"
)

const shards = 4

func main() { harness.Main("shards", run) }

type config struct {
	answers, inflight, servers, rounds int
	keep                               bool
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("shards", flag.ContinueOnError)
	fs.IntVar(&cfg.answers, "answers", 4000, "answers per burst, each from a distinct member")
	fs.IntVar(&cfg.inflight, "inflight", 64, "answers in flight at once")
	fs.IntVar(&cfg.servers, "servers", 2, "servers per shard, each with a question")
	fs.IntVar(&cfg.rounds, "rounds", 3, "rounds; each runs 1, 2 and 4 processes")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (binary, databases, logs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.answers < 1 || cfg.inflight < 1 || cfg.servers < 1 || cfg.rounds < 1 {
		return errors.New("-answers, -inflight, -servers and -rounds must be at least 1")
	}
	tmp, bank, remove, err := harness.Workdir("quizhost-bench-shards-", cfg.keep, out)
	if err != nil {
		return err
	}
	defer remove()
	bin, err := harness.Build(ctx, tmp, "github.com/quizhost/quizhost", "quizhost")
	if err != nil {
		return err
	}
	// Server k is on shard k % 4: (id >> 22) = k.
	var guilds []fakediscord.Guild
	for k := range shards * cfg.servers {
		guilds = append(guilds, fakediscord.Guild{ID: fmt.Sprint(uint64(k)<<22 | 777),
			Channels: []fakediscord.Channel{{ID: fmt.Sprint(6100 + k)}}, Members: []fakediscord.Member{harness.Admin}})
	}
	// Every shard is an identify bucket of its own; the identify rate limit
	// is off, as processes restart at once between runs.
	srv, err := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{Token: harness.Token, Guilds: guilds,
		Shards: shards, MaxConcurrency: shards, IdentifyInterval: -1})
	if err != nil {
		return err
	}
	defer srv.Close()

	b := &bench{cfg: cfg, srv: srv, tmp: tmp, bin: bin, bank: bank, guilds: guilds}
	fmt.Fprintf(out, "%d answers from distinct members over %d servers of %d shards, %d in flight, %d rounds\n\n",
		cfg.answers, len(guilds), shards, cfg.inflight, cfg.rounds)
	var results []result
	var failed []error
	for round := 1; round <= cfg.rounds; round++ {
		for _, procs := range []int{1, 2, 4} {
			fmt.Fprintf(os.Stderr, "%d processes, round %d…\n", procs, round)
			r, err := b.runOne(ctx, procs, round)
			if err != nil {
				return fmt.Errorf("%d processes, round %d: %w", procs, round, err)
			}
			results = append(results, r)
			failed = append(failed, r.problems...)
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "processes\tround\tanswers/s\tp50\tp99\tmax\tover 3 s\tdeferred\tCPU s / 1,000 answers\tstored once, in its shard's file\t")
	for _, r := range results {
		r.row(tw)
	}
	tw.Flush()
	summarize(out, results, cfg)
	if len(failed) > 0 {
		return fmt.Errorf("%d problems: %w", len(failed), errors.Join(failed...))
	}
	return nil
}

type bench struct {
	cfg            config
	srv            *fakediscord.Server
	tmp, bin, bank string
	guilds         []fakediscord.Guild
}

type result struct {
	procs, round int
	burst        harness.BurstResult
	cpu          time.Duration
	stored       string
	problems     []error
}

func (r result) perSec() float64     { return r.burst.PerSec() }
func (r result) cpuPer1000() float64 { return r.burst.CPUPer1000(r.cpu) }

func (r result) row(w io.Writer) {
	fmt.Fprintf(w, "%d\t%d\t%s%.3f\t%s\t\n", r.procs, r.round, r.burst.Cells(), r.cpuPer1000(), r.stored)
}

// proc is one quizhost process of a run: its shards and database file.
type proc struct {
	first, last int
	db          string
	child       *harness.Child
}

// runOne starts procs processes over the 4 shards, posts a question in
// every server, sends the burst, stops the processes and checks the files.
func (b *bench) runOne(ctx context.Context, procs, round int) (result, error) {
	dir := filepath.Join(b.tmp, fmt.Sprintf("p%d-%d", procs, round))
	violations, authViolations := len(b.srv.Violations()), len(b.srv.AuthViolations())
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	per := shards / procs
	var ps []*proc
	defer func() {
		for _, p := range ps {
			if p.child != nil {
				_ = p.child.Stop(10 * time.Second)
			}
		}
	}()
	for k := range procs {
		p := &proc{first: k * per, last: k*per + per - 1}
		layout := fmt.Sprintf("%d-%d/%d", p.first, p.last, shards)
		name := fmt.Sprintf("quizhost-%d-%d", p.first, p.last)
		p.db = filepath.Join(dir, name+".db")
		env := append(harness.QuizhostEnv(b.srv, p.db, b.bank), "QUIZHOST_SHARDS="+layout)
		bot := harness.Bot{Name: name, Bin: b.bin, Env: env, Ready: func() bool {
			for s := p.first; s <= p.last; s++ {
				if !b.srv.ShardConnected(s) {
					return false
				}
			}
			return p.first != 0 || harness.CommandSyncs(b.srv) > 0
		}}
		child, err := harness.Launch(startCtx, b.srv, bot, filepath.Join(dir, name))
		if err != nil {
			return result{}, err
		}
		p.child = child
		ps = append(ps, p)
	}
	var qs []harness.Question
	for _, g := range b.guilds {
		ch := g.Channels[0].ID
		ask := b.srv.SlashCommand(g.ID, ch, harness.Admin, "quiz", fakediscord.Option{Name: "ask",
			Type: discordgo.ApplicationCommandOptionSubCommand, Options: []fakediscord.Option{
				{Name: "bank", Type: discordgo.ApplicationCommandOptionString, Value: "Bench Bank"},
				{Name: "minutes", Type: discordgo.ApplicationCommandOptionInteger, Value: 10000}}})
		if _, _, _, err := harness.Reply(startCtx, b.srv, ask); err != nil {
			return result{}, fmt.Errorf("/quiz ask in %s: %w", g.ID, err)
		}
		q, err := harness.FindQuestion(b.srv, g.ID, ch)
		if err != nil {
			return result{}, fmt.Errorf("/quiz ask in %s: %w", g.ID, err)
		}
		qs = append(qs, q)
	}

	cpu := func() (time.Duration, error) {
		var sum time.Duration
		for _, p := range ps {
			c, err := p.child.CPU()
			if err != nil {
				return 0, err
			}
			sum += c
		}
		return sum, nil
	}
	r := result{procs: procs, round: round, stored: "yes"}
	cpu0, err := cpu()
	if err != nil {
		return result{}, err
	}
	burstCtx, cancelBurst := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelBurst()
	r.burst, err = harness.BurstSpread(burstCtx, b.srv, qs, b.cfg.answers, b.cfg.inflight, harness.FirstMember)
	if err != nil {
		return result{}, err
	}
	cpu1, err := cpu()
	if err != nil {
		return result{}, err
	}
	r.cpu = cpu1 - cpu0
	for _, p := range ps {
		if err := p.child.Stop(10 * time.Second); err != nil {
			r.problems = append(r.problems, fmt.Errorf("%d processes, round %d: %w", procs, round, err))
		}
		p.child = nil
	}
	for _, v := range b.srv.Violations()[violations:] {
		r.problems = append(r.problems, fmt.Errorf("%d processes, round %d: refused by the server: %s", procs, round, v))
	}
	for _, v := range b.srv.AuthViolations()[authViolations:] {
		r.problems = append(r.problems, fmt.Errorf("%d processes, round %d: unauthorized request %s %s", procs, round, v.Method, v.Path))
	}
	if n := harness.Over(r.burst.Latency, harness.Deadline); n > 0 {
		r.problems = append(r.problems, fmt.Errorf("%d processes, round %d: %d answers replied to after %v", procs, round, n, harness.Deadline))
	}
	// Member i answered in server i % len(qs); each file must hold
	// exactly the answers of its shards' servers.
	for _, p := range ps {
		users := map[string][]string{}
		for k, q := range qs {
			id, err := strconv.ParseUint(q.GuildID, 10, 64)
			if err != nil {
				r.problems = append(r.problems, fmt.Errorf("server ID %q: %w", q.GuildID, err))
				continue
			}
			if s := sharding.ShardOf(id, shards); s >= p.first && s <= p.last {
				users[q.GuildID] = nil
				for i := k; i < len(r.burst.Users); i += len(qs) {
					users[q.GuildID] = append(users[q.GuildID], r.burst.Users[i])
				}
			}
		}
		if err := harness.CheckGuilds(p.db, users); err != nil {
			r.stored = "NO"
			r.problems = append(r.problems, fmt.Errorf("%d processes, round %d: %w", procs, round, err))
		}
	}
	return r, nil
}

// summarize prints the median of each measure over the rounds, per number
// of processes, and each against one process.
func summarize(out io.Writer, results []result, cfg config) {
	med := func(procs int, f func(result) float64) float64 {
		return harness.Median(results, func(r result) bool { return r.procs == procs }, f)
	}
	ms := func(q float64) func(result) float64 {
		return func(r result) float64 { return r.burst.LatencyMs(q) }
	}
	fmt.Fprintf(out, "\nmedian of %d rounds\n", cfg.rounds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "processes\tanswers/s\tvs 1 process\tp50 ms\tp99 ms\tmax ms\tCPU s / 1,000 answers\t")
	base := med(1, result.perSec)
	for _, procs := range []int{1, 2, 4} {
		rate := med(procs, result.perSec)
		fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%.1f\t%.1f\t%.1f\t%.3f\t\n", procs, rate, rate/base,
			med(procs, ms(0.5)), med(procs, ms(0.99)), med(procs, ms(1)), med(procs, result.cpuPer1000))
	}
	tw.Flush()
}
