package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPercentileAndOver(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median of 1..100", ms(hundred...), 0.5, 50 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"max", ms(hundred...), 1, 100 * time.Millisecond},
		{"min", ms(hundred...), 0, 1 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.sorted, tc.q); got != tc.want {
				t.Errorf("Percentile(%v): got %v, want %v", tc.q, got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{{0, 100}, {99 * time.Millisecond, 1}, {100 * time.Millisecond, 0}, {3 * time.Second, 0}} {
		if got := Over(ms(hundred...), tc.d); got != tc.want {
			t.Errorf("Over(%v): got %d, want %d", tc.d, got, tc.want)
		}
	}
	r := BurstResult{N: 100, Elapsed: 50 * time.Millisecond, Latency: append(ms(hundred[:99]...), 4*time.Second), Deferred: 2}
	if got, want := r.Cells(), "2000\t50.0 ms\t99.0 ms\t4000.0 ms\t1\t2\t"; got != want {
		t.Errorf("Cells: got %q, want %q", got, want)
	}
	if got := r.CPUPer1000(20 * time.Millisecond); got != 0.2 {
		t.Errorf("CPUPer1000(20 ms) over 100 answers: got %v, want 0.2", got)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stack []string
		want  string
	}{
		{"a commit inside an answer handler", []string{"\t1 go.etcd.io/bbolt.(*Tx).Commit", "\t2 github.com/quizhost/quizhost/bot.(*Bot).answer"}, "storage (quizhost/storage, bbolt)"},
		{"a new connection for a reply", []string{"\t1 net.(*Dialer).DialContext", "\t2 net/http.(*Transport).dialConn", "\t3 net/http.(*Transport).dialConnFor"}, "REST: dialling new connections"},
		{"reading a reply on a kept connection", []string{"\t1 net/http.(*persistConn).readLoop", "\t2 net/http.(*Transport).dialConn.gowrap2"}, "REST: requests and replies"},
		{"taking an idle connection", []string{"\t1 net/http.(*Transport).queueForIdleConn", "\t2 net/http.(*Transport).getConn"}, "REST: requests and replies"},
		{"a reply on a kept connection", []string{"\t1 net/http.(*persistConn).writeLoop"}, "REST: requests and replies"},
		{"decoding an event", []string{"\t1 encoding/json.(*decodeState).object", "\t2 github.com/bwmarrin/discordgo.(*Session).onEvent"}, "gateway: websocket read and JSON decode"},
		{"GC worker", []string{"\t1 runtime.scanobject", "\t2 runtime.gcBgMarkWorker"}, "GC (background)"},
		{"the ceiling's store", []string{"\t1 main.(*store).RecordAnswer", "\t2 github.com/quizhost/quizhost/bot.(*Bot).answer"}, "bot (other)"},
		{"nothing known", []string{"\t1 runtime.memmove"}, "other (runtime, syscalls, allocation)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.stack); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestChildCPUAndMemory reads this test process's own /proc files.
func TestChildCPUAndMemory(t *testing.T) {
	c := &Child{}
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	c.cmd = &exec.Cmd{Process: p}
	busy0, total0, err := MachineCPU()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) { // burn some CPU
	}
	busy1, total1, err := MachineCPU()
	if err != nil || busy1 <= busy0 || total1-total0 < busy1-busy0 {
		t.Errorf("MachineCPU: busy %v → %v of total %v → %v, %v; want busy to grow, by no more than total", busy0, busy1, total0, total1, err)
	}
	cpu, err := c.CPU()
	if err != nil || cpu <= 0 {
		t.Errorf("CPU: got %v, %v; want > 0", cpu, err)
	}
	m, err := c.Memory()
	if err != nil || m.RSS <= 0 || m.HWM < m.RSS || m.Anon <= 0 {
		t.Errorf("Memory: got %+v, %v; want RSS > 0, HWM >= RSS, Anon > 0", m, err)
	}
}

func TestMedian(t *testing.T) {
	type run struct {
		kind string
		v    float64
	}
	runs := []run{{"a", 3}, {"b", 100}, {"a", 1}, {"a", 2}, {"b", 200}}
	tests := []struct {
		kind string
		want float64
	}{{"a", 2}, {"b", 200}, {"c", 0}}
	for _, tt := range tests {
		got := Median(runs, func(r run) bool { return r.kind == tt.kind }, func(r run) float64 { return r.v })
		if got != tt.want {
			t.Errorf("median of %s: got %v, want %v", tt.kind, got, tt.want)
		}
	}
}

func TestWorkdir(t *testing.T) {
	var out strings.Builder
	dir, bank, remove, err := Workdir("quizhost-harness-test-", false, &out)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(bank); err != nil || string(data) != BenchBank || filepath.Dir(bank) != dir {
		t.Errorf("bank %s: %q, %v; want the bench bank in %s", bank, data, err, dir)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) || out.Len() != 0 {
		t.Errorf("after remove: stat %v, printed %q; want the directory gone and nothing printed", err, out.String())
	}
	dir, _, remove, err = Workdir("quizhost-harness-test-", true, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	remove()
	if _, err := os.Stat(dir); err != nil || !strings.Contains(out.String(), dir) {
		t.Errorf("kept: stat %v, printed %q; want the directory kept and named", err, out.String())
	}
}
