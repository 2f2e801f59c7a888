// Command scale measures quizhost's binary at size, over the wire against
// a Discord-compatible server on 127.0.0.1 (internal/fakediscord):
//
//   - /quiz leaderboard and /quiz stats in a guild of 100,000 members and
//     1,000,000 answers: latency from the interaction reaching the bot to
//     its reply (p50, p99, max) over -calls calls of each, one at a time
//     (or one call every -pace), each from a random member;
//
//   - /quizadmin insights on a bank of 10,000 questions in a guild of
//     100,000 members and 1,000,000 answers (100 to each question):
//     latency from the interaction to the reply, of the command (every
//     bank, the bank named, sorted by discrimination), of its Next ▶
//     button and of Dismiss (which changes the statistics: the list is
//     worked out afresh), over -calls calls of each, one at a time;
//
//   - resident memory (VmRSS, and the peak VmHWM) of a bot in 1,000 guilds
//     that each have an open question (/quiz ask) and a daily schedule
//     (/quizadmin daily set), read after start-up, after the set-up and
//     after the daily quiz has posted in every guild;
//
//   - a bot on a database of about a gigabyte (420,000 members, 4,200,000
//     answers): how long it takes to open the file (the damage check
//     included) and to be ready, and its resident memory after start-up,
//     after a /quiz leaderboard and after the file's full check (which runs
//     in the background on a file this large).
//
//     go run ./bench/scale [-calls 300] [-pace 0] [-guilds 1000] [-only board|insights|memory|open|rebuild]
//
// The large guilds' databases are built once through storage's API (posts,
// then every answer with RecordAnswer, durable) and cached in the OS temp
// directory, keyed by a fixture version and the schema version (the
// gigabyte one takes a quarter of an hour on two cores); each run works on
// a copy.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/internal/fakediscord"
)

const (
	members = harness.LargeMembers
	answers = harness.LargeAnswers
)

func main() { harness.Main("scale", run) }

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	calls := fs.Int("calls", 300, "calls of /quiz leaderboard and of /quiz stats")
	pace := fs.Duration("pace", 0, "board: the time from one call's start to the next's (0: each call once the last is answered)")
	guilds := fs.Int("guilds", 1000, "guilds with a daily schedule, for the memory figure")
	only := fs.String("only", "", `run one part: "board" (leaderboard and stats), "insights", "memory", "open" (a gigabyte's file) or "rebuild"`)
	keep := fs.Bool("keep", false, "keep the temporary directory (binary, databases, logs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *calls < 1 || *guilds < 1 || (*only != "" && !slices.Contains([]string{"board", "insights", "memory", "open", "rebuild"}, *only)) {
		return errors.New(`-calls and -guilds must be at least 1; -only is "board", "insights", "memory", "open" or "rebuild"`)
	}
	tmp, bank, remove, err := harness.Workdir("quizhost-scale-", *keep, out)
	if err != nil {
		return err
	}
	defer remove()
	bin, err := harness.Build(ctx, tmp, "github.com/quizhost/quizhost", "quizhost")
	if err != nil {
		return err
	}
	if *only == "" || *only == "board" {
		if err := boards(ctx, out, tmp, bin, bank, *calls, *pace); err != nil {
			return fmt.Errorf("leaderboard and stats: %w", err)
		}
	}
	if *only == "" || *only == "insights" {
		if err := insights(ctx, out, tmp, bin, *calls); err != nil {
			return fmt.Errorf("insights: %w", err)
		}
	}
	if *only == "" || *only == "memory" {
		if err := memory(ctx, out, tmp, bin, bank, *guilds); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	if *only == "" || *only == "open" {
		if err := openLarge(ctx, out, tmp, bin, bank); err != nil {
			return fmt.Errorf("open: %w", err)
		}
	}
	if *only == "" || *only == "rebuild" {
		if err := rebuilds(ctx, out, tmp); err != nil {
			return fmt.Errorf("rebuild: %w", err)
		}
	}
	return nil
}

// launchQuizhost starts the quizhost binary bin on the database db and
// the bank file bank, its files in dir, against a new harness.AdminDiscord
// (within a minute); stop stops the bot, then the server.
func launchQuizhost(ctx context.Context, bin, db, bank, dir string) (srv *fakediscord.Server, child *harness.Child, stop func(), err error) {
	srv, err = harness.AdminDiscord()
	if err != nil {
		return nil, nil, nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	child, err = harness.Launch(startCtx, srv, harness.Bot{Name: "quizhost", Bin: bin, Env: harness.QuizhostEnv(srv, db, bank)}, dir)
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	return srv, child, func() { child.Stop(10 * time.Second); srv.Close() }, nil
}

func boards(ctx context.Context, out io.Writer, tmp, bin, bank string, calls int, pace time.Duration) error {
	cached, err := harness.CachedGuild(out)
	if err != nil {
		return err
	}
	dir := filepath.Join(tmp, "board")
	db, size, err := harness.WorkingCopy(cached, dir)
	if err != nil {
		return err
	}
	g := fakediscord.DefaultGuild() // AdminDiscord's
	srv, child, stop, err := launchQuizhost(ctx, bin, db, bank, dir)
	if err != nil {
		return err
	}
	defer stop()

	r := rand.New(rand.NewPCG(1, 2))
	type measure struct {
		name string
		sub  string
		lat  []time.Duration
	}
	ms := []*measure{{name: "/quiz leaderboard", sub: "leaderboard"}, {name: "/quiz stats", sub: "stats"}}
	callCtx, cancelCalls := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelCalls()
	next := time.Now()
	for range calls {
		for _, m := range ms {
			if pace > 0 {
				time.Sleep(time.Until(next))
				next = next.Add(pace)
			}
			user := fakediscord.Member{ID: fmt.Sprint(harness.FirstMember + r.IntN(members))}
			p := srv.SlashCommand(g.ID, "6001", user, "quiz", fakediscord.Option{Name: m.sub, Type: discordgo.ApplicationCommandOptionSubCommand})
			reply, lat, _, err := harness.Reply(callCtx, srv, p)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			var embeds []discordgo.MessageEmbed
			if err := json.Unmarshal(reply.RawEmbeds, &embeds); err != nil || len(embeds) == 0 || !strings.Contains(embeds[0].Description, "<@") {
				return fmt.Errorf("%s: the reply names no member: %s", m.name, reply.RawEmbeds)
			}
			m.lat = append(m.lat, lat)
		}
	}
	mem, err := child.Memory()
	if err != nil {
		return err
	}
	if err := child.Stop(10 * time.Second); err != nil {
		return err
	}
	if v := srv.Violations(); len(v) > 0 {
		return fmt.Errorf("refused by the server: %s", strings.Join(v, "; "))
	}
	how := "one at a time"
	if pace > 0 {
		how = fmt.Sprintf("one every %v at most", pace)
	}
	fmt.Fprintf(out, "\nguild of %d members, %d answers; %d calls of each, %s, each from a random member\n", members, answers, calls, how)
	fmt.Fprintf(out, "%-18s %9s %9s %9s   (target: p99 under 20 ms)\n", "", "p50", "p99", "max")
	for _, m := range ms {
		slices.Sort(m.lat)
		fmt.Fprintf(out, "%-18s %9s %9s %9s\n", m.name, harness.Ms(harness.Percentile(m.lat, 0.5)),
			harness.Ms(harness.Percentile(m.lat, 0.99)), harness.Ms(harness.Percentile(m.lat, 1)))
	}
	fmt.Fprintf(out, "bot resident memory afterwards: %s (peak %s): %s allocated, %s of the mapped %s database file\n",
		mib(mem.RSS), mib(mem.HWM), mib(mem.Anon), mib(mem.File), mib(size))
	return nil
}

// insights measures /quizadmin insights on the insights guild (see
// harness.CachedInsightsGuild) with its bank of 10,000 questions: calls
// rounds, each of the command for every bank, for the bank named, sorted
// by discrimination, of the Next ▶ button of the last reply and of the
// Dismiss button of the first flagged question of the first reply, one at
// a time. The first round is reported apart (it loads the bank's
// questions, works out each list and draws the chart); the bot keeps a
// list until the statistics change, so Dismiss (which changes them, and
// replies with the list worked out again) measures a list made afresh
// each time.
func insights(ctx context.Context, out io.Writer, tmp, bin string, calls int) error {
	cached, err := harness.CachedInsightsGuild(out)
	if err != nil {
		return err
	}
	dir := filepath.Join(tmp, "insights")
	db, _, err := harness.WorkingCopy(cached, dir)
	if err != nil {
		return err
	}
	bank := filepath.Join(dir, "bench-10k.txt")
	if err := os.WriteFile(bank, []byte(harness.InsightsBank()), 0o600); err != nil {
		return err
	}
	g := fakediscord.DefaultGuild() // AdminDiscord's
	srv, child, stop, err := launchQuizhost(ctx, bin, db, bank, dir)
	if err != nil {
		return err
	}
	defer stop()

	sub := func(opts ...fakediscord.Option) fakediscord.Option {
		return fakediscord.Option{Name: "insights", Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}
	}
	str := func(name, v string) fakediscord.Option {
		return fakediscord.Option{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
	}
	type measure struct {
		name  string
		opt   fakediscord.Option // the command's; zero for the Next ▶ button
		first time.Duration
		lat   []time.Duration
	}
	ms := []*measure{
		{name: "every bank", opt: sub()},
		{name: "bank Bench", opt: sub(str("bank", "Bench"))},
		{name: "by discrimination", opt: sub(str("sort", "discrimination"))},
		{name: "Next ▶"},
		{name: "Dismiss"},
	}
	want := fmt.Sprintf("%d questions", harness.InsightsQuestions)
	callCtx, cancelCalls := context.WithTimeout(ctx, 10*time.Minute)
	defer cancelCalls()
	var last, firstPage fakediscord.Message
	for i := range calls + 1 {
		for _, m := range ms {
			var p *fakediscord.Pending
			if m.opt.Name != "" {
				p = srv.SlashCommand(g.ID, "6001", harness.Admin, "quizadmin", m.opt)
			} else {
				label, on := "Next", last
				if m.name == "Dismiss" {
					label, on = "Dismiss", firstPage
				}
				id, err := button(on, label)
				if err != nil {
					return err
				}
				p = srv.Component(g.ID, "6001", harness.Admin, on.ID, id)
			}
			reply, lat, _, err := harness.Reply(callCtx, srv, p)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if !strings.Contains(strings.ReplaceAll(reply.Content, ",", ""), want) || len(reply.Embeds) == 0 {
				return fmt.Errorf("%s: the reply is not the list of %s: %.300q", m.name, want, reply.Content)
			}
			last = reply
			if m.name == "every bank" {
				firstPage = reply
			}
			if i == 0 {
				m.first = lat
				continue
			}
			m.lat = append(m.lat, lat)
		}
	}
	mem, err := child.Memory()
	if err != nil {
		return err
	}
	if err := child.Stop(10 * time.Second); err != nil {
		return err
	}
	if v := srv.Violations(); len(v) > 0 {
		return fmt.Errorf("refused by the server: %s", strings.Join(v, "; "))
	}
	fmt.Fprintf(out, "\n/quizadmin insights: a bank of %d questions, %d members, %d answers; %d calls of each after a first, one at a time\n",
		harness.InsightsQuestions, members, answers, calls)
	fmt.Fprintf(out, "%-20s %9s %9s %9s %9s   (target: p99 under 100 ms)\n", "", "first", "p50", "p99", "max")
	for _, m := range ms {
		slices.Sort(m.lat)
		fmt.Fprintf(out, "%-20s %9s %9s %9s %9s\n", m.name, harness.Ms(m.first), harness.Ms(harness.Percentile(m.lat, 0.5)),
			harness.Ms(harness.Percentile(m.lat, 0.99)), harness.Ms(harness.Percentile(m.lat, 1)))
	}
	fmt.Fprintf(out, "bot resident memory afterwards: %s (peak %s), %s allocated\n", mib(mem.RSS), mib(mem.HWM), mib(mem.Anon))
	return nil
}

// button is the custom ID of the first enabled button of an insights
// page whose label starts with label ("Next", "Dismiss").
func button(m fakediscord.Message, label string) (string, error) {
	for _, c := range m.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, b := range row.Components {
			if b, ok := b.(*discordgo.Button); ok && strings.HasPrefix(b.Label, label) && !b.Disabled {
				return b.CustomID, nil
			}
		}
	}
	return "", fmt.Errorf("no %s button on the insights page %q", label, m.ID)
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func memory(ctx context.Context, out io.Writer, tmp, bin, bank string, n int) error {
	dir := filepath.Join(tmp, "memory")
	gs := make([]fakediscord.Guild, n)
	for i := range gs {
		gs[i] = fakediscord.Guild{ID: fmt.Sprint(100_000 + i), Name: fmt.Sprintf("Group %d", i),
			Channels: []fakediscord.Channel{{ID: fmt.Sprint(200_000 + i), Name: "daily-quiz"}},
			Members:  []fakediscord.Member{harness.Admin}}
	}
	srv, err := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{Token: harness.Token, Guilds: gs})
	if err != nil {
		return err
	}
	defer srv.Close()
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	child, err := harness.Launch(startCtx, srv, harness.Bot{Name: "quizhost", Bin: bin,
		Env: harness.QuizhostEnv(srv, filepath.Join(dir, "quizhost.db"), bank)}, dir)
	if err != nil {
		return err
	}
	defer child.Stop(10 * time.Second)
	type reading struct {
		when string
		mem  harness.Memory
	}
	var readings []reading
	read := func(when string) error {
		mem, err := child.Memory()
		readings = append(readings, reading{when, mem})
		return err
	}
	if err := read("after start-up"); err != nil {
		return err
	}

	// The daily quiz at the next whole minute that leaves the set-up at
	// least 30 s.
	now := time.Now().UTC()
	at := now.Truncate(time.Minute).Add(time.Minute)
	if at.Sub(now) < 30*time.Second {
		at = at.Add(time.Minute)
	}
	posted := len(srv.Requests())
	setupCtx, cancelSetup := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelSetup()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || setupCtx.Err() != nil {
					return
				}
				g, ch := gs[i].ID, gs[i].Channels[0].ID
				for _, opt := range []fakediscord.Option{
					{Name: "quiz", Options: []fakediscord.Option{{Name: "ask", Type: discordgo.ApplicationCommandOptionSubCommand,
						Options: []fakediscord.Option{{Name: "minutes", Type: discordgo.ApplicationCommandOptionInteger, Value: 10080}}}}},
					{Name: "quizadmin", Options: []fakediscord.Option{{Name: "daily", Type: discordgo.ApplicationCommandOptionSubCommandGroup,
						Options: []fakediscord.Option{{Name: "set", Type: discordgo.ApplicationCommandOptionSubCommand, Options: []fakediscord.Option{
							{Name: "channel", Type: discordgo.ApplicationCommandOptionChannel, Value: ch},
							{Name: "time", Type: discordgo.ApplicationCommandOptionString, Value: at.Format("15:04")},
							{Name: "timezone", Type: discordgo.ApplicationCommandOptionString, Value: "UTC"}}}}}}},
				} {
					p := srv.SlashCommand(g, ch, harness.Admin, opt.Name, opt.Options...)
					if _, _, _, err := harness.Reply(setupCtx, srv, p); err != nil {
						errs <- fmt.Errorf("guild %s: /%s: %w", g, opt.Name, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if time.Now().After(at) {
		return fmt.Errorf("the set-up took until %s, past the daily time %s: run with fewer -guilds", time.Now().UTC().Format(time.TimeOnly), at.Format("15:04"))
	}
	if err := read("after the set-up"); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "waiting for the daily quiz at %s UTC in %d guilds…\n", at.Format("15:04"), n)

	// Wait for 2n question messages: one /quiz ask and one daily post in
	// each guild.
	questions := 0
	seen := posted
	dailyCtx, cancelDaily := context.WithTimeout(ctx, time.Until(at)+3*time.Minute)
	defer cancelDaily()
	err = harness.Wait(dailyCtx, srv, "the daily posts", func() bool {
		rs := srv.RequestsFrom(seen)
		seen += len(rs)
		for _, r := range rs {
			if r.Method == "POST" && strings.HasPrefix(r.Route, "/channels/") && strings.HasSuffix(r.Route, "/messages") && r.Status == 200 {
				questions++
			}
		}
		return questions >= 2*n
	})
	if err != nil {
		return fmt.Errorf("%w (%d of %d questions posted)", err, questions, 2*n)
	}
	if err := read("after the daily posts"); err != nil {
		return err
	}
	if err := child.Stop(10 * time.Second); err != nil {
		return err
	}
	if v := srv.Violations(); len(v) > 0 {
		return fmt.Errorf("refused by the server: %s", strings.Join(v[:min(len(v), 5)], "; "))
	}
	fmt.Fprintf(out, "\n%d guilds, each with an open question and a daily schedule (target: under 100 MiB)\n", n)
	for _, r := range readings {
		fmt.Fprintf(out, "%-24s VmRSS %10s   VmHWM %10s   (allocated %s, mapped files %s)\n",
			r.when, mib(r.mem.RSS), mib(r.mem.HWM), mib(r.mem.Anon), mib(r.mem.File))
	}
	return nil
}

// The gigabyte's guild of openLarge.
const (
	gigaMembers = 420_000
	gigaAnswers = 4_200_000
	gigaPosts   = 4_200
)

// openLarge starts the bot on a copy of a database of about a gigabyte and
// reports how long the database took to open and the bot to be ready, and
// the bot's resident memory after start-up, after a /quiz leaderboard, and
// after the full check the database runs in the background.
func openLarge(ctx context.Context, out io.Writer, tmp, bin, bank string) error {
	cached, err := harness.CachedGuildOf(out, "guild-420k", gigaMembers, gigaAnswers, gigaPosts)
	if err != nil {
		return err
	}
	dir := filepath.Join(tmp, "open")
	db, size, err := harness.WorkingCopy(cached, dir)
	if err != nil {
		return err
	}
	// The copy was just written: read it once so that the start is warm,
	// as a server's file is in its page cache.
	if err := readAll(db); err != nil {
		return err
	}
	g := fakediscord.DefaultGuild() // AdminDiscord's
	began := time.Now()
	srv, child, stop, err := launchQuizhost(ctx, bin, db, bank, dir)
	if err != nil {
		return err
	}
	defer stop()
	ready := time.Since(began)
	startCtx, cancel := context.WithTimeout(ctx, time.Minute) // the first reply and the check
	defer cancel()
	log, _, err := child.LogFrom(0)
	if err != nil {
		return err
	}
	opened := logged(log, "database opened")
	afterStart, err := child.Memory()
	if err != nil {
		return err
	}
	user := fakediscord.Member{ID: fmt.Sprint(harness.FirstMember + 7)}
	p := srv.SlashCommand(g.ID, "6001", user, "quiz", fakediscord.Option{Name: "leaderboard", Type: discordgo.ApplicationCommandOptionSubCommand})
	if _, _, _, err := harness.Reply(startCtx, srv, p); err != nil {
		return fmt.Errorf("/quiz leaderboard: %w", err)
	}
	afterBoard, err := child.Memory()
	if err != nil {
		return err
	}
	var checked string
	err = harness.Wait(startCtx, srv, "the database's full check", func() bool {
		log, _, _ := child.LogFrom(0)
		checked = logged(log, "database checked")
		return checked != "" || strings.Contains(string(log), "database damaged")
	})
	if err != nil {
		return err
	}
	if checked == "" {
		return fmt.Errorf("the full check found damage:\n%s", child.LogTail(2000))
	}
	afterCheck, err := child.Memory()
	if err != nil {
		return err
	}
	if err := child.Stop(10 * time.Second); err != nil {
		return err
	}
	fmt.Fprintf(out, "\na database of %s (%d members, %d answers), in the page cache (target: start-up under 1 s, resident memory well below the file)\n",
		mib(size), gigaMembers, gigaAnswers)
	fmt.Fprintf(out, "database opened in %s (its damage check included; the full check then ran in the background for %s); bot ready %s after its start\n",
		opened, checked, harness.Ms(ready))
	for _, r := range []struct {
		when string
		mem  harness.Memory
	}{{"after start-up", afterStart}, {"after /quiz leaderboard", afterBoard}, {"after the full check", afterCheck}} {
		fmt.Fprintf(out, "%-24s VmRSS %10s   (allocated %s, mapped file %s)\n", r.when, mib(r.mem.RSS), mib(r.mem.Anon), mib(r.mem.File))
	}
	return nil
}

// logged returns the took= of the first log line that holds msg; "" if none.
func logged(log []byte, msg string) string {
	for _, line := range strings.Split(string(log), "\n") {
		if !strings.Contains(line, "msg=\""+msg+"\"") {
			continue
		}
		if _, took, ok := strings.Cut(line, "took="); ok {
			took, _, _ = strings.Cut(took, " ")
			return took
		}
	}
	return ""
}

// readAll reads the file at path through once.
func readAll(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}
