package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// Start-up logs each bank warning and goes on (here to the unreachable
// Discord the test names).
func TestStartupLogsBankWarnings(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	awsFolder(t, dir)
	var stderr bytes.Buffer
	err := run(context.Background(), nil, envMap(map[string]string{"DISCORD_TOKEN": "x", "QUIZHOST_QUESTIONS": "banks",
		"DISCORD_API_BASE": "http://127.0.0.1:1"}), &bytes.Buffer{}, &stderr)
	var ec exitCode
	if err == nil || errors.As(err, &ec) {
		t.Fatalf("run = %v, want the bot to start and fail to reach Discord", err)
	}
	log := stderr.String()
	if !strings.Contains(log, "level=WARN msg=\"question banks\" problem=\"banks/AWS Cloud Practitioner/notes.txt: warning: not a question bank") ||
		!strings.Contains(log, "msg=\"question banks loaded\" banks=2 questions=46") {
		t.Errorf("got log\n%s\nwant the warning logged and the banks loaded", log)
	}
}

func TestBrokenBankStopsStartup(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("B Question 1\nSelect 1Pick.\n- A\nyes\nCorrect answer: A\n"), 0o600)
	err := run(context.Background(), nil, envMap(map[string]string{"DISCORD_TOKEN": "x", "QUIZHOST_QUESTIONS": dir,
		"DISCORD_API_BASE": "http://127.0.0.1:1"}), &bytes.Buffer{}, &bytes.Buffer{})
	var ec exitCode
	if !errors.As(err, &ec) || ec.code != 1 || !strings.Contains(ec.msg, filepath.Join(dir, "bad.txt")+":") {
		t.Fatalf("run = %v, want exit 1 naming bad.txt:line", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "quizhost.db")); err == nil {
		t.Error("a database was created although start-up failed")
	}
}

func TestSIGTERMStopsCleanly(t *testing.T) {
	t.Parallel() // a child process
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	// A slow file server keeps an import in flight while the signal comes.
	// It answers once the test has seen an interaction refused during the
	// shutdown.
	fetching, release := make(chan struct{}, 1), make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetching <- struct{}{}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		io.WriteString(w, "Slow Bank Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n")
	}))
	defer slow.Close()

	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "QUIZHOST_TEST_MAIN=1", "DISCORD_TOKEN=secret-token-123",
		"DISCORD_API_BASE="+srv.URL(), "QUIZHOST_DB="+filepath.Join(dir, "q.db"), "QUIZHOST_LOG_LEVEL=debug")
	stderr := newOutput()
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PUT" && r.Status == 200 }, 10*time.Second)

	inflight := srv.Dispatch(json.RawMessage(`{"id":"5101","application_id":"9001","type":2,"token":"tok-5101","version":1,
	  "guild_id":"8001","channel_id":"6001","app_permissions":"2248473465835073","context":0,
	  "member":{"user":{"id":"7001","username":"alice"},"roles":[],"joined_at":"2024-01-01T00:00:00.000000+00:00","permissions":"2248473465835105"},
	  "data":{"id":"4001","name":"quizadmin","type":1,"options":[{"name":"import","type":1,"options":[{"name":"file","type":11,"value":"3001"}]}],
	    "resolved":{"attachments":{"3001":{"id":"3001","filename":"slow.txt","size":80,"url":"` + slow.URL + `/slow.txt","proxy_url":"` + slow.URL + `/slow.txt"}}}}}`))
	select {
	case <-fetching:
	case <-time.After(10 * time.Second):
		t.Fatalf("the import never fetched its file; output:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// An interaction that arrives while quizhost stops is told so, while
	// the import is still in flight.
	if !stderr.wait("new interactions are refused", 5*time.Second) {
		t.Fatalf("quizhost did not start shutting down; output:\n%s", stderr.String())
	}
	late := srv.SlashCommand("8001", "6001", discordtest.Member{ID: "7002", Username: "bob"}, "quiz",
		discordtest.Option{Name: "banks", Type: 1}) // type 1: a subcommand
	late.WaitResponse(t, 5*time.Second)
	close(release)

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("quizhost exited with %v, want status 0; output:\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("quizhost still running 5 s after SIGTERM; output:\n%s", stderr.String())
	}
	t.Logf("stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))

	if m, ok := inflight.Original(); !ok || !strings.Contains(m.Content, "Imported **Slow Bank**") {
		t.Errorf("the import in flight at the signal was not finished: %+v; output:\n%s", m, stderr.String())
	}
	if r, ok := late.Responded(); !ok || !strings.Contains(r.Content, "restarting") {
		t.Errorf("an interaction during shutdown got %+v, want a \"restarting\" reply", r)
	}
	if strings.Contains(stderr.String(), "secret-token-123") {
		t.Error("the token appears in quizhost's output")
	}
	// The database was closed with the import committed.
	db, err := storage.Open(t.Context(), filepath.Join(dir, "q.db"), storage.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("reopen after shutdown: %v", err)
	}
	defer db.Close()
	if banks, err := db.Banks(8001); err != nil || len(banks) != 1 {
		t.Errorf("banks after shutdown: %v, %v", banks, err)
	}
}

// output is a child's combined output, written by exec's copying
// goroutine while the test reads it; wait returns once it holds a text.
type output struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on each write
}

func newOutput() *output { return &output{changed: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.changed)
	o.changed = make(chan struct{})
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// wait reports whether the output holds text within timeout.
func (o *output) wait(text string, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		o.mu.Lock()
		found, changed := strings.Contains(o.b.String(), text), o.changed
		o.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		}
	}
}

// startChild runs quizhost (this test binary) against srv in dir and
// returns the command and its combined output.
func startChild(t *testing.T, srv *discordtest.Server, dir string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "QUIZHOST_TEST_MAIN=1", "DISCORD_TOKEN=secret-token-123",
		"DISCORD_API_BASE="+srv.URL(), "QUIZHOST_DB="+filepath.Join(dir, "q.db"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &out
}

// waitExit waits up to within for cmd to exit and returns its status.
func waitExit(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(within):
		cmd.Process.Kill()
		<-done
		t.Fatalf("quizhost still running after %v; output:\n%s", within, out.String())
		return -1
	}
}

// TestFatalCloseCodeExits: a gateway closed with a fatal code while the
// bot runs ends the process with status 1 and says why, so a service
// manager learns of it.
func TestFatalCloseCodeExits(t *testing.T) {
	t.Parallel() // the child waits out discordgo's second after the close
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	dir := t.TempDir()
	cmd, out := startChild(t, srv, dir)
	srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PUT" && r.Status == 200 }, 10*time.Second)
	srv.FailGateway(4004, "Authentication failed.")
	if code := waitExit(t, cmd, out, 10*time.Second); code != 1 {
		t.Errorf("exit status %d, want 1; output:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "4004") || !strings.Contains(out.String(), "check DISCORD_TOKEN") {
		t.Errorf("output lacks the close code and the hint:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "q.db")); err != nil {
		t.Errorf("the database of a bot that ran is gone: %v", err)
	}
}

// TestInterruptWhileConnecting: Ctrl-C while the gateway hangs before
// HELLO exits 0 within 5 s, and leaves no database file behind.
func TestInterruptWhileConnecting(t *testing.T) {
	t.Parallel() // a child process
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	srv.StallGateway(true)
	dir := t.TempDir()
	cmd, out := startChild(t, srv, dir)
	srv.WaitGatewayDials(t, 1, 10*time.Second)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, out, 5*time.Second); code != 0 {
		t.Errorf("exit status %d, want 0; output:\n%s", code, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "q.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("q.db after an interrupted first start: %v, want none", err)
	}
}

// TestFailedStartLeavesNoDatabase: a start that cannot reach Discord says
// where it tried and leaves no empty database file.
func TestFailedStartLeavesNoDatabase(t *testing.T) {
	t.Chdir(t.TempDir())
	base := "http://127.0.0.1:1"
	err := run(context.Background(), nil, envMap(map[string]string{"DISCORD_TOKEN": "x", "DISCORD_API_BASE": base}),
		&bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), base) || strings.Contains(err.Error(), "discord.com") {
		t.Errorf("run = %v, want an error naming %s (not discord.com)", err, base)
	}
	if _, err := os.Stat("quizhost.db"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("quizhost.db after a failed first start: %v, want none", err)
	}
}

// TestDamagedDatabaseRefused: a damaged or empty database file stops
// start-up with exit status 1 and restore steps, and is left unchanged.
func TestDamagedDatabaseRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	db, err := storage.Open(t.Context(), good, storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for g := questions.GuildID(1); g <= 50; g++ {
		if _, err := db.UpdateSettings(t.Context(), g, func(*questions.Settings) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// A backup holds exactly the pages in use: any cut loses some.
	var buf bytes.Buffer
	if _, err := db.Backup(&buf); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data := buf.Bytes()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"cut in half", data[:len(data)/2]},
		{"cut by half a page", data[:len(data)-2048]},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "q.db")
			os.WriteFile(path, tc.data, 0o600)
			err := run(context.Background(), nil, envMap(map[string]string{"DISCORD_TOKEN": "x",
				"DISCORD_API_BASE": "http://127.0.0.1:1", "QUIZHOST_DB": path}), &bytes.Buffer{}, &bytes.Buffer{})
			var ec exitCode
			if !errors.As(err, &ec) || ec.code != 1 {
				t.Fatalf("run = %v, want exit 1", err)
			}
			for _, w := range []string{path, "damaged", path + ".bak", "mv "} {
				if !strings.Contains(ec.msg, w) {
					t.Errorf("message lacks %q:\n%s", w, ec.msg)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, tc.data) {
				t.Errorf("the file changed: %d bytes before, %d after", len(tc.data), len(after))
			}
		})
	}
}
