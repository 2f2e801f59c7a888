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
	"syscall"
	"testing"

	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// envMap is a getenv over a map.
func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		wantCode int
		want     []string
	}{
		{"no token", map[string]string{}, 2, []string{"DISCORD_TOKEN is not set", "README.md", "bot applications.commands"}},
		{"bad base and guild", map[string]string{"DISCORD_TOKEN": "x", "DISCORD_API_BASE": "http://", "DISCORD_GUILD_ID": "abc"},
			2, []string{"DISCORD_API_BASE \"http://\"", "DISCORD_GUILD_ID \"abc\""}},
		{"bad log level", map[string]string{"DISCORD_TOKEN": "x", "QUIZHOST_LOG_LEVEL": "loud"}, 2, []string{"QUIZHOST_LOG_LEVEL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // no .env here
			var out, errOut bytes.Buffer
			err := run(context.Background(), nil, envMap(tt.env), &out, &errOut)
			var ec exitCode
			if !errors.As(err, &ec) || ec.code != tt.wantCode {
				t.Fatalf("run = %v, want exit %d", err, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(ec.msg, w) {
					t.Errorf("message %q lacks %q", ec.msg, w)
				}
			}
		})
	}
}

func TestDotenvRealEnvironmentWins(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(".env", []byte("DISCORD_TOKEN=from-file\nQUIZHOST_DB=file.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv, err := envWithDotenv(envMap(map[string]string{"QUIZHOST_DB": "real.db"}), ".env")
	if err != nil {
		t.Fatal(err)
	}
	if got := getenv("DISCORD_TOKEN"); got != "from-file" {
		t.Errorf("DISCORD_TOKEN = %q, want from-file", got)
	}
	if got := getenv("QUIZHOST_DB"); got != "real.db" {
		t.Errorf("QUIZHOST_DB = %q, want the real environment's real.db", got)
	}
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(good, []byte("G Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(bad, []byte("B Question 1\nSelect 2Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	tests := []struct {
		name     string
		args     []string
		wantErr  bool
		wantOut  string
		wantErrs string
	}{
		{"built-in", []string{"validate"}, false, "(built in): quizhost Sample: 42 questions", ""},
		{"good file", []string{"validate", good}, false, good + ": G: 1 questions", ""},
		{"bad file", []string{"validate", dir}, true, "", bad + ":2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, envMap(nil), &out, &errOut)
			if (err != nil) != tt.wantErr {
				t.Fatalf("run = %v, want error %v (stderr %s)", err, tt.wantErr, errOut.String())
			}
			if !strings.Contains(out.String(), tt.wantOut) || !strings.Contains(errOut.String(), tt.wantErrs) {
				t.Errorf("stdout %q stderr %q, want %q and %q", out.String(), errOut.String(), tt.wantOut, tt.wantErrs)
			}
		})
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

// TestMain lets the test binary stand in for quizhost in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("QUIZHOST_TEST_MAIN") == "1" {
		os.Args = os.Args[:1] // quizhost with no subcommand: run the bot
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSIGTERMStopsCleanly(t *testing.T) {
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	// A slow file server keeps an import in flight while the signal comes.
	fetching := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetching <- struct{}{}
		time.Sleep(800 * time.Millisecond)
		io.WriteString(w, "Slow Bank Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n")
	}))
	defer slow.Close()

	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "QUIZHOST_TEST_MAIN=1", "DISCORD_TOKEN=secret-token-123",
		"DISCORD_API_BASE="+srv.URL(), "QUIZHOST_DB="+filepath.Join(dir, "q.db"), "QUIZHOST_LOG_LEVEL=debug")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
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
	// An interaction that arrives while quizhost stops is told so.
	time.Sleep(100 * time.Millisecond)
	late := srv.SlashCommand("8001", "6001", discordtest.Member{ID: "7002", Username: "bob"}, "quiz",
		discordtest.Option{Name: "banks", Type: 1}) // type 1: a subcommand

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
	db, err := storage.Open(filepath.Join(dir, "q.db"), storage.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("reopen after shutdown: %v", err)
	}
	defer db.Close()
	if banks, err := db.Banks(8001); err != nil || len(banks) != 1 {
		t.Errorf("banks after shutdown: %v, %v", banks, err)
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
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	db, err := storage.Open(good, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for g := uint64(1); g <= 50; g++ {
		if _, err := db.UpdateSettings(g, func(*questions.Settings) error { return nil }); err != nil {
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
