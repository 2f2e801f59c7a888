// Command imports measures what one /quizadmin import costs quizhost's
// real binary, over the wire against a Discord-compatible server on
// 127.0.0.1 (internal/fakediscord): ten 1 MiB files in one import, of
//
//   - issue 19's hostile JSON, {"bank":"X","questions":[{"zz":1},…]}
//     (refused);
//   - realistic banks (practice-exam questions, YAML), into a server
//     without banks (stored);
//   - the same banks with every question's explanation edited (merged,
//     every question updated, stored);
//   - those again (merged, unchanged: nothing is stored).
//
// For each it prints the time from the command to its reply, the peak of
// the Go heap over the heap live before the import (from the runtime's GC
// trace, GODEBUG=gctrace=1: the largest heap at the start or end of a
// collection during the import, or the heap its last collection lets grow
// before the next, twice what it found live, if that is larger; less the
// live heap of the last collection before it), the largest live heap a collection found during the import
// over that same idle heap, and the peak resident memory over the resident
// memory before it (VmHWM, reset before each import). Median of -rounds
// rounds, each on a new database.
//
//	go run ./bench/imports [-rounds 3] [-keep]
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
	"text/tabwriter"
	"time"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/internal/benchbanks"
	"github.com/quizhost/quizhost/internal/fakediscord"
)

const (
	guildID   = "8001"
	channelID = "6001"
)

func main() { harness.Main("imports", run) }

// kase is one import of the benchmark.
type kase struct {
	name  string
	files []string
	want  string // in the reply
}

type result struct {
	kase                        string
	took                        time.Duration
	heapOver, liveOver, rssOver float64 // MiB
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("imports", flag.ContinueOnError)
	rounds := fs.Int("rounds", 3, "rounds, each on a new database")
	keep := fs.Bool("keep", false, "keep the temporary directory (binary, databases, logs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rounds < 1 {
		return errors.New("-rounds must be at least 1")
	}
	tmp, bank, remove, err := harness.Workdir("quizhost-bench-imports-", *keep, out)
	if err != nil {
		return err
	}
	defer remove()
	bin, err := harness.Build(ctx, tmp, "github.com/quizhost/quizhost", "quizhost")
	if err != nil {
		return err
	}
	srv, err := harness.AdminDiscord()
	if err != nil {
		return err
	}
	defer srv.Close()
	var hostile, valid, edited []string
	for i := range 10 {
		h, v, e := fmt.Sprintf("hostile%d.json", i+1), fmt.Sprintf("bank%d.yaml", i+1), fmt.Sprintf("bank%d-2.yaml", i+1)
		srv.AddFile(h, benchbanks.Hostile(1<<20))
		srv.AddFile(v, benchbanks.Realistic(fmt.Sprintf("Bench %d", i+1), 1, 1<<20))
		srv.AddFile(e, benchbanks.Realistic(fmt.Sprintf("Bench %d", i+1), 2, 1<<20))
		hostile, valid, edited = append(hostile, h), append(valid, v), append(edited, e)
	}
	kases := []kase{
		{"10 hostile JSON files (refused)", hostile, "**The 10 files** were not imported"},
		{"10 banks of 1 MiB into a server without banks", valid, "**Bench 10** (new bank): added"},
		{"the same 10 banks, every question edited", edited, "**Bench 10**: added 0, updated"},
		{"the same 10 banks again (unchanged: nothing stored)", edited, "**Bench 10**: added 0, updated 0, unchanged"},
	}
	fmt.Fprintf(out, "one /quizadmin import of ten 1 MiB files, %d rounds\n\n", *rounds)
	var results []result
	for round := 1; round <= *rounds; round++ {
		fmt.Fprintf(os.Stderr, "round %d…\n", round)
		rs, err := runRound(ctx, srv, bin, bank, filepath.Join(tmp, fmt.Sprintf("round-%d", round)), kases)
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		results = append(results, rs...)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "import\ttime (s)\tpeak heap over idle (MiB)\tpeak live heap over idle (MiB)\tpeak RSS over idle (MiB)\t")
	for _, k := range kases {
		keep := func(r result) bool { return r.kase == k.name }
		fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%.0f\t%.0f\t\n", k.name,
			harness.Median(results, keep, func(r result) float64 { return r.took.Seconds() }),
			harness.Median(results, keep, func(r result) float64 { return r.heapOver }),
			harness.Median(results, keep, func(r result) float64 { return r.liveOver }),
			harness.Median(results, keep, func(r result) float64 { return r.rssOver }))
	}
	tw.Flush()
	fmt.Fprintf(out, "\nmedian of %d rounds; target: peak heap over idle at most 64 MiB\n", *rounds)
	if v := srv.Violations(); len(v) > 0 {
		return fmt.Errorf("the server refused %d requests as Discord would: %q", len(v), v)
	}
	return nil
}

// runRound starts quizhost on a new database in dir and runs the imports
// one after another.
func runRound(ctx context.Context, srv *fakediscord.Server, bin, bank, dir string, kases []kase) ([]result, error) {
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	env := append(harness.QuizhostEnv(srv, filepath.Join(dir, "quizhost.db"), bank), harness.GCTraceEnv)
	child, err := harness.Launch(startCtx, srv, harness.Bot{Name: "quizhost", Bin: bin, Env: env}, dir)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = child.Stop(10 * time.Second)
		}
	}()
	var out []result
	for _, k := range kases {
		before, off, err := child.LogFrom(0)
		if err != nil {
			return nil, err
		}
		gcs := harness.GCs(before)
		idle := 0
		if len(gcs) > 0 {
			idle = gcs[len(gcs)-1].Live
		}
		if err := child.ResetPeakMemory(); err != nil {
			return nil, err
		}
		mem0, err := child.Memory()
		if err != nil {
			return nil, err
		}
		importCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		start := time.Now()
		p := srv.SlashCommand(guildID, channelID, harness.Admin, "quizadmin", harness.Import(k.files...))
		msg, _, _, err := harness.Reply(importCtx, srv, p)
		took := time.Since(start)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", k.name, err, child.LogTail(2000))
		}
		if text := msg.Content + embedsText(msg); !strings.Contains(text, k.want) {
			return nil, fmt.Errorf("%s: reply %q, want %q", k.name, text, k.want)
		}
		mem1, err := child.Memory()
		if err != nil {
			return nil, err
		}
		during, _, err := child.LogFrom(off)
		if err != nil {
			return nil, err
		}
		peak, live := idle, idle
		gcs = harness.GCs(during)
		for _, gc := range gcs {
			peak, live = max(peak, gc.Start, gc.End), max(live, gc.Live)
		}
		if len(gcs) > 0 {
			// What the import's last collection lets the heap grow to is the
			// import's too, though it is reached after the reply.
			peak = max(peak, gcs[len(gcs)-1].Room())
		}
		out = append(out, result{kase: k.name, took: took, heapOver: float64(peak - idle), liveOver: float64(live - idle),
			rssOver: float64(mem1.HWM-mem0.RSS) / (1 << 20)})
	}
	stopped = true
	if err := child.Stop(10 * time.Second); err != nil {
		return nil, err
	}
	return out, nil
}

// embedsText is the text of a reply's embeds.
func embedsText(m fakediscord.Message) string {
	var b strings.Builder
	for _, e := range m.Embeds {
		b.WriteString("\n" + e.Title + "\n" + e.Description)
	}
	return b.String()
}
