package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/testenv"
)

// envMap is a getenv over a map.
func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// runCLI runs quizhost with args and returns its exit status (0, or the
// exitCode's), standard output and standard error (with an exitCode's
// message).
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, envMap(env), &out, &errOut)
	var ec exitCode
	switch {
	case err == nil:
	case errors.As(err, &ec):
		code = ec.code
		errOut.WriteString(ec.msg)
	default:
		t.Fatalf("run %q = %v, want nil or an exit status", args, err)
	}
	return code, out.String(), errOut.String()
}

// Every command takes -h and --help (usage on stdout, exit 0) and refuses a
// bad flag or argument with exit 2 and its usage.
func TestCommandUsage(t *testing.T) {
	t.Chdir(t.TempDir())
	bad := map[string][]string{ // arguments each command refuses
		"help":     {"extra"},
		"version":  {"--verbose"},
		"validate": {"--strickt"},
		"preview":  {"-x", "banks"},
		"backup":   {},
		"compact":  {"a.db", "b.db"},
		"sandbox":  {"--bogus"},
		"reshard":  {"--to", "0", "a.db"},
	}
	_, help, _ := runCLI(t, nil, "help")
	flagLine := regexp.MustCompile(`(?m)^  --?([a-z-]+)\b`)
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			for _, h := range []string{"-h", "--help"} {
				code, out, errOut := runCLI(t, nil, c.name, h)
				if code != 0 || !strings.HasPrefix(out, "usage: quizhost "+c.name) || errOut != "" {
					t.Errorf("%s %s: got exit %d, stdout %q, stderr %q, want exit 0 and the usage", c.name, h, code, out, errOut)
				}
			}
			// The usage line is the one help shows, and names every flag.
			_, out, _ := runCLI(t, nil, c.name, "-h")
			usage, _, _ := strings.Cut(out, "\n")
			if want := strings.TrimSpace("usage: quizhost " + c.name + " " + c.args); usage != want {
				t.Errorf("%s -h: usage line %q, want help's %q", c.name, usage, want)
			}
			if !strings.Contains(help, "\n  "+strings.TrimPrefix(usage, "usage: ")) {
				t.Errorf("help lacks %s's usage %q", c.name, usage)
			}
			for _, m := range flagLine.FindAllStringSubmatch(out, -1) {
				if !strings.Contains(usage, "--"+m[1]) {
					t.Errorf("%s -h lists the flag %s, which its usage line %q lacks", c.name, m[1], usage)
				}
			}
			args, ok := bad[c.name]
			if !ok {
				t.Fatalf("no bad arguments for %s", c.name)
			}
			code, out, errOut := runCLI(t, nil, append([]string{c.name}, args...)...)
			if code != 2 || !strings.Contains(errOut, "usage: quizhost "+c.name) || out != "" {
				t.Errorf("%s %q: got exit %d, stdout %q, stderr %q, want exit 2 and the usage", c.name, args, code, out, errOut)
			}
		})
	}
}

// Paths in the commands' errors are printed once.
func TestErrorsNamePathsOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent", "x.db")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // in the error, besides the path once
	}{
		{"sandbox --db", []string{"sandbox", "--addr", "127.0.0.1:0", "--db", missing}, nil, "no such file or directory"},
		{"the bot's QUIZHOST_DB", nil, map[string]string{"DISCORD_TOKEN": "x", "DISCORD_API_BASE": "http://127.0.0.1:1", "QUIZHOST_DB": missing},
			"QUIZHOST_DB: "},
		{"backup's QUIZHOST_DB", []string{"backup", "copy.db"}, map[string]string{"QUIZHOST_DB": missing}, "QUIZHOST_DB"},
		{"reshard's files", []string{"reshard", "--to", "2", "--out", "out", missing}, nil, "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, envMap(tt.env), &out, &errOut)
			if err == nil {
				t.Fatalf("run %q: got no error", tt.args)
			}
			msg := err.Error()
			if n := strings.Count(msg, missing); n != 1 || !strings.Contains(msg, tt.want) {
				t.Errorf("got %q: the path %d times, want once, with %q", msg, n, tt.want)
			}
		})
	}
}

// TestMain lets the test binary stand in for quizhost in a child process.
// The tests' files, and their children's, go to memory
// (testenv.Run).
func TestMain(m *testing.M) {
	if os.Getenv("QUIZHOST_TEST_MAIN") == "1" {
		os.Args = os.Args[:1] // quizhost with no subcommand: run the bot
		main()
		os.Exit(0)
	}
	discordtest.WaitingTests() // the parallel tests wait on child processes
	os.Exit(testenv.Run(m))
}

// The commands that write files take run's context and stop when it ends
// (SIGINT and SIGTERM end it): a backup or a reshard whose context has
// ended writes nothing and exits 1 saying it was interrupted.
func TestStoppedCommandsWriteNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // no .env here
	src := filepath.Join(dir, "quizhost.db")
	newDatabase(t, src)
	tests := []struct {
		name  string
		args  []string
		wrote string // the file or folder the command would have written
	}{
		{"backup", []string{"backup", filepath.Join(dir, "copy.db")}, filepath.Join(dir, "copy.db")},
		{"reshard", []string{"reshard", "--to", "2", "--out", filepath.Join(dir, "new"), src}, filepath.Join(dir, "new")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			var out, errOut bytes.Buffer
			err := run(ctx, tt.args, envMap(map[string]string{"QUIZHOST_DB": src}), &out, &errOut)
			var ec exitCode
			if !errors.As(err, &ec) || ec.code != 1 || !strings.Contains(ec.msg, "interrupted") {
				t.Fatalf("run %q = %v, want exit 1 saying it was interrupted", tt.args, err)
			}
			if out.String() != "" {
				t.Errorf("stdout %q, want nothing", out.String())
			}
			var written []string
			filepath.WalkDir(tt.wrote, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					written = append(written, path)
				}
				return nil
			})
			if len(written) > 0 {
				t.Errorf("%s wrote %v", tt.name, written)
			}
		})
	}
}
