package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Perf is a `perf record` of one process, started by StartPerf.
type Perf struct {
	cmd  *exec.Cmd
	out  string
	done chan error
}

// PerfWorks reports whether perf can sample CPU time here (the software
// event cpu-clock, which works in virtual machines without counters).
func PerfWorks(ctx context.Context) bool {
	return exec.CommandContext(ctx, "perf", "stat", "-e", "cpu-clock", "true").Run() == nil
}

// StartPerf samples the call stacks of every process (user and kernel),
// one sample per 0.5 ms of CPU time, into the file out until Stop;
// Breakdown then keeps one process. (Attached to one process with -p,
// perf misses the threads the Go runtime starts after it attached.)
func StartPerf(out string) (*Perf, error) {
	cmd := exec.Command("perf", "record", "-q", "-a", "-e", "cpu-clock", "-c", "500000", "-g", "-o", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	p := &Perf{cmd: cmd, out: out, done: make(chan error, 1)}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) && !ee.Exited() {
			err = nil // ended by Stop's signal: the file is written
		}
		if err != nil {
			err = fmt.Errorf("perf record: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
		p.done <- err
	}()
	return p, nil
}

// Stop ends the recording (SIGINT, as perf expects) and waits for the file
// to be written.
func (p *Perf) Stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-p.done:
		return err
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		return fmt.Errorf("perf record did not stop")
	}
}

// Share is one category of a profile and its fraction of the samples.
type Share struct {
	Category string
	Samples  int
	Fraction float64
}

// categories classify a sample by the frames of its stack, first match
// wins: storage before REST (a handler's stack holds both the bot and what
// it calls), dialling before the rest of REST. " main." is a main
// package's code (perf script puts a space before each symbol).
var categories = []struct {
	name  string
	match []string
}{
	{"storage (quizhost/storage, bbolt)", []string{"quizhost/quizhost/storage.", "go.etcd.io/bbolt"}},
	// Dialling is dialConnFor (the goroutine that dials a new connection)
	// and what it calls; not every frame named dialConn: the read and write
	// loops of every connection, reused or not, start from
	// dialConn.gowrap2/3, and every request passes queueForIdleConn.
	{"REST: dialling new connections", []string{"net/http.(*Transport).dialConnFor", "net.(*Dialer).DialContext"}},
	{"REST: requests and replies", []string{"net/http.", "discordgo.(*Session).request", "discordgo.(*Session).Request", "discordgo.(*RateLimiter)"}},
	{"gateway: websocket read and JSON decode", []string{"discordgo.(*Session).listen", "discordgo.(*Session).onEvent", "discordgo.(*Session).onMessage", "gorilla/websocket"}},
	{"GC (background)", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcStart"}},
	{"bot (other)", []string{"quizhost/quizhost/bot.", " main."}},
	{"Go scheduler, timers, netpoll", []string{"runtime.schedule", "runtime.findRunnable", "runtime.mcall", "runtime.park_m", "runtime.netpoll", "runtime.sysmon", "runtime.goexit0"}},
}

// Breakdown reads the samples of process pid in a perf.data file (perf
// script) and returns the share of them in each category, largest first,
// "other" included, and their number.
func Breakdown(ctx context.Context, data string, pid int) ([]Share, int, error) {
	cmd := exec.CommandContext(ctx, "perf", "script", "-i", data, "--pid", fmt.Sprint(pid), "-F", "tid,ip,sym")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, fmt.Errorf("perf script: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("perf script: %w", err)
	}
	counts := map[string]int{}
	total := 0
	var stack []string
	flush := func() {
		if len(stack) == 0 {
			return
		}
		total++
		counts[classify(stack)]++
		stack = stack[:0]
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ") {
			stack = append(stack, line)
		}
	}
	flush()
	if err := cmd.Wait(); err != nil {
		return nil, 0, fmt.Errorf("perf script: %w", err)
	}
	var shares []Share
	for k, n := range counts {
		shares = append(shares, Share{Category: k, Samples: n, Fraction: float64(n) / float64(max(total, 1))})
	}
	sort.Slice(shares, func(i, j int) bool { return shares[i].Samples > shares[j].Samples })
	return shares, total, nil
}

func classify(stack []string) string {
	for _, c := range categories {
		for _, frame := range stack {
			for _, m := range c.match {
				if strings.Contains(frame, m) {
					return c.name
				}
			}
		}
	}
	return "other (runtime, syscalls, allocation)"
}
