package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
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
		{"no token", map[string]string{}, 2, []string{"DISCORD_TOKEN is not set", "README.md", "bot applications.commands",
			"cp .env.example .env", "without Discord: quizhost sandbox"}},
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

// awsFolder writes a study group's collection under dir/banks: one exam
// text file per question, titled "AWS Cloud Practitioner Question N", no
// final newline, one with CRLF endings, a stray note, and a YAML file
// adding to the same bank. It returns the folder.
func awsFolder(t *testing.T, dir string) string {
	t.Helper()
	folder := filepath.Join(dir, "banks", "AWS Cloud Practitioner")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	exam := func(n int, eol string) string {
		return strings.Join([]string{
			fmt.Sprintf("AWS Cloud Practitioner Question %d", n),
			fmt.Sprintf("Select 1Which AWS service stores objects (question %d)?", n),
			"- A", "Amazon S3", "- B", "Amazon EC2",
			"Show answer and explanation", "Correct answer: A",
			"Explanation", "S3 is the object store.",
			"- A. Correct.", "S3 stores objects in buckets.",
			"- B. Incorrect.", "EC2 runs virtual machines.",
		}, eol)
	}
	files := map[string]string{
		"q12.txt":   exam(12, "\n"),
		"q40.txt":   exam(40, "\r\n"),
		"q7.txt":    exam(7, "\n"),
		"notes.txt": "Plan: two questions a day before the exam.\n",
		"more.yaml": "bank: AWS Cloud Practitioner\nquestions:\n- id: s3-classes\n  question: Which S3 storage class is cheapest?\n" +
			"  options:\n  - {text: Glacier Deep Archive, correct: true, why: Made for rarely read archives.}\n  - {text: Standard, why: The most expensive to store.}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return folder
}

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

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // no .env here
	folder := awsFolder(t, dir)
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad", "bad.txt")
	dup := filepath.Join(dir, "dup", "q40b.txt")
	sample := filepath.Join(dir, "sample.yaml")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.MkdirAll(filepath.Dir(dup), 0o755)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	os.WriteFile(good, []byte("G Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(bad, []byte("B Question 1\nSelect 2Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(dup, []byte("AWS Cloud Practitioner Question 40\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A"), 0o600)
	os.WriteFile(sample, []byte("bank: quizhost sample\nquestions:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n"), 0o600)
	note := filepath.Join(folder, "notes.txt") + `: warning: not a question bank: no line is a question title`
	// Other tools' files among the banks: warnings, the bank loads.
	os.MkdirAll(filepath.Join(dir, "group", ".vscode"), 0o755)
	os.WriteFile(filepath.Join(dir, "group", "net.txt"), []byte("Net Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "group", "package.json"), []byte(`{"name": "study", "version": "1.0.0", "scripts": {"fmt": "prettier -w ."}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "group", "docker-compose.yml"), []byte("services:\n  quizhost:\n    image: quizhost\n    environment:\n      QUIZHOST_QUESTIONS: /banks\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "group", ".vscode", "settings.json"), []byte(`{"editor.wordWrap": "on"}`), 0o600)
	stray := `: warning: not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it; if it belongs to another tool, move it out of the bank folder`
	// A bank of three questions, two of which fail the checks every
	// format shares: only the third loads.
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("bank: Long\nquestions:\n"+
		"- id: "+strings.Repeat("i", questions.MaxIDLength+1)+"\n  question: A long id?\n  options: [{text: a, correct: true}, {text: b}]\n"+
		"- question: A long tag?\n  tags: ["+strings.Repeat("t", questions.MaxTagLength+1)+"]\n  options: [{text: a, correct: true}, {text: b}]\n"+
		"- question: Fine?\n  options: [{text: a, correct: true}, {text: b}]\n"), 0o600)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  []string
		total    string // stdout's last line, always there
	}{
		{"one file", []string{"validate", good}, 0,
			[]string{"G: 1 question from " + good + "\n"}, nil, "ok: 1 bank, 1 question; 0 errors, 0 warnings"},
		{"a folder of one-question files", []string{"validate", "banks"}, 0,
			[]string{"AWS Cloud Practitioner: 4 questions from 4 files: 4 in banks/AWS Cloud Practitioner/\n"},
			[]string{"banks/AWS Cloud Practitioner/notes.txt: warning: not a question bank"}, "ok: 1 bank, 4 questions; 0 errors, 1 warning"},
		{"other tools' files in a bank folder", []string{"validate", "group"}, 0,
			[]string{"Net: 1 question from group/net.txt\n"},
			[]string{"group/docker-compose.yml" + stray + "\n", "group/package.json" + stray + "\n"}, "ok: 1 bank, 1 question; 0 errors, 2 warnings"},
		{"--strict fails on a warning", []string{"validate", "--strict", folder}, 1,
			[]string{"AWS Cloud Practitioner: 4 questions"}, []string{note}, "failed: 1 bank, 4 questions; 0 errors, 1 warning (--strict: warnings fail too)"},
		{"--strict after the paths", []string{"validate", folder, "-strict"}, 1, nil, []string{note},
			"failed: 1 bank, 4 questions; 0 errors, 1 warning (--strict: warnings fail too)"},
		{"a file's errors", []string{"validate", filepath.Join(dir, "bad")}, 1, nil, []string{bad + ":2: "}, "failed: 0 banks, 0 questions; 1 error, 0 warnings"},
		{"failing questions are not counted", []string{"validate", long}, 1, []string{"Long: 1 question from " + long + "\n"},
			[]string{long + ":3: question id is", long + ":6: tag "}, "failed: 1 bank, 1 question; 2 errors, 0 warnings"},
		{"a question defined twice", []string{"validate", folder, filepath.Join(dir, "dup")}, 1, nil,
			[]string{dup + `:1: question "AWS Cloud Practitioner#40" is also defined at ` + filepath.Join(folder, "q40.txt") + ":1"},
			"failed: 1 bank, 4 questions; 1 error, 1 warning"},
		{"the built-in bank's name", []string{"validate", sample}, 1, nil,
			[]string{sample + `:3: bank "quizhost sample" is the built-in bank's name; give your bank another name`}, "failed: 0 banks, 0 questions; 1 error, 0 warnings"},
		{"a folder with no bank file", []string{"validate", "empty/"}, 0, nil,
			[]string{"empty/: warning: no bank files (*.txt, *.aiken, *.yaml, *.yml, *.json, *.gift, *.csv, *.tsv) in this folder"}, "ok: 0 banks, 0 questions; 0 errors, 1 warning"},
		{"a missing path", []string{"validate", "missing"}, 1, nil, []string{"missing: no such file or directory"}, "failed: 0 banks, 0 questions; 1 error, 0 warnings"},
		{"no arguments, no .env: the built-in bank", []string{"validate"}, 0,
			[]string{"quizhost Sample: 42 questions (built in)\n"}, nil, "ok: 1 bank, 42 questions; 0 errors, 0 warnings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tt.args...)
			if code != tt.wantCode {
				t.Errorf("got exit %d, want %d (stdout %q, stderr %q)", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("got stdout %q, want it to contain %q", out, w)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("got stderr %q, want it to contain %q", errOut, w)
				}
			}
			if !strings.HasSuffix("\n"+out, "\n"+tt.total+"\n") {
				t.Errorf("got stdout %q, want its last line %q", out, tt.total)
			}
			if strings.Contains(out+errOut, " 1 questions") {
				t.Errorf("got %q, want \"1 question\"", out+errOut)
			}
		})
	}
}

// With no arguments, validate and preview check what the bot would load:
// QUIZHOST_QUESTIONS from the environment or .env, and the built-in bank.
func TestNoArgumentsLoadWhatTheBotWould(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	awsFolder(t, dir)
	if err := os.WriteFile(".env", []byte("QUIZHOST_QUESTIONS=banks\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "validate")
	if code != 0 {
		t.Fatalf("got exit %d, want 0; stderr %q", code, errOut)
	}
	want := "AWS Cloud Practitioner: 4 questions from 4 files: 4 in banks/AWS Cloud Practitioner/\n" +
		"quizhost Sample: 42 questions (built in)\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("got stdout\n%s\nwant it to start\n%s", out, want)
	}
	if !strings.Contains(errOut, "notes.txt: warning:") {
		t.Errorf("got stderr %q, want the stray note's warning", errOut)
	}
	// The real environment wins over .env.
	code, out, _ = runCLI(t, map[string]string{"QUIZHOST_QUESTIONS": filepath.Join("banks", "AWS Cloud Practitioner", "q7.txt")}, "validate")
	if code != 0 || !strings.HasPrefix(out, "AWS Cloud Practitioner: 1 question from banks/AWS Cloud Practitioner/q7.txt\n") {
		t.Errorf("got exit %d, stdout %q, want q7.txt's bank", code, out)
	}
	code, out, errOut = runCLI(t, nil, "preview")
	if code != 0 || !strings.Contains(out, "######## AWS Cloud Practitioner#40 (banks/AWS Cloud Practitioner/q40.txt:1)") ||
		!strings.Contains(out, "######## quizhost Sample#1 (built in)") {
		t.Errorf("got exit %d, stdout %.300q…, stderr %q, want the folder's and the built-in questions", code, out, errOut)
	}
}

func TestPreviewCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	folder := awsFolder(t, dir)
	code, out, errOut := runCLI(t, nil, "preview", folder)
	if code != 0 {
		t.Fatalf("got exit %d, want 0; stderr %q", code, errOut)
	}
	for _, w := range []string{
		"######## AWS Cloud Practitioner#12 (" + filepath.Join(folder, "q12.txt") + ":1)\n━━ message 1: posted ━━\n",
		"== AWS Cloud Practitioner · Question 40 ==\nWhich AWS service stores objects (question 40)?\n\n**A.** Amazon S3\n**B.** Amazon EC2\n",
		"[menu: Choose your answer]\n  A · Amazon S3\n  B · Amazon EC2\n",
		"━━ message 1: edited when the question closes ━━\n",
		"== Answer: A ==\nS3 is the object store.\n-- ✅ A · 0 votes (0%) --\n`░░░░░░░░░░` S3 stores objects in buckets.\n-- ❌ B · 0 votes (0%) --\n`░░░░░░░░░░` EC2 runs virtual machines.\n",
		"Which S3 storage class is cheapest?",
		"-- ✅ A · 0 votes (0%) --\n`░░░░░░░░░░` Made for rarely read archives.\n-- ❌ B · 0 votes (0%) --\n`░░░░░░░░░░` The most expensive to store.\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("got preview\n%s\nwant it to contain\n%s", out, w)
		}
	}
	if n := strings.Count(out, "\n━━ message 1: posted ━━\n"); n != 4 {
		t.Errorf("got %d questions previewed, want 4", n)
	}
	if strings.Contains(out, "quizhost Sample") {
		t.Error("got the built-in bank previewed, want only the named folder's questions")
	}
	if !strings.Contains(errOut, "notes.txt: warning:") {
		t.Errorf("got stderr %q, want the stray note's warning", errOut)
	}
	// Errors are reported and fail.
	os.WriteFile(filepath.Join(folder, "broken.txt"), []byte("AWS Cloud Practitioner Question 1\nSelect 1Pick.\n- A\nyes\nCorrect answer: A\n"), 0o600)
	if code, _, errOut := runCLI(t, nil, "preview", folder); code != 1 || !strings.Contains(errOut, "broken.txt:") {
		t.Errorf("got exit %d, stderr %q, want 1 naming broken.txt", code, errOut)
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Chdir(t.TempDir())
	_, help, _ := runCLI(t, nil, "help")
	for _, w := range []string{"quizhost help", "quizhost version", "quizhost validate [--strict] [PATH...]", "quizhost preview [PATH...]",
		"quizhost backup [--force] DEST", "quizhost sandbox [--addr 127.0.0.1:8080] [--db PATH]",
		"quizhost reshard --to N [--processes P] --out DIR FILE..."} {
		if !strings.Contains(help, w) {
			t.Errorf("got help\n%s\nwant it to contain %q", help, w)
		}
	}
	vars := map[string]string{"DISCORD_TOKEN": "(required)", "DISCORD_GUILD_ID": "(empty)", "DISCORD_API_BASE": "https://discord.com",
		"QUIZHOST_DB": "quizhost.db", "QUIZHOST_QUESTIONS": "(empty)", "QUIZHOST_LOG_LEVEL": "info"}
	for name, def := range vars {
		_, line, ok := strings.Cut(help, "\n  "+name+" ")
		if line, _, _ = strings.Cut(line, "\n"); !ok || !strings.HasPrefix(strings.TrimSpace(line), def+" ") {
			t.Errorf("got help line %q for %s, want its default %q and meaning", line, name, def)
		}
	}
	for _, arg := range []string{"-h", "--help", "-help"} {
		if code, out, _ := runCLI(t, nil, arg); code != 0 || out != help {
			t.Errorf("quizhost %s: got exit %d and\n%s\nwant exit 0 and the help", arg, code, out)
		}
	}
	for _, arg := range []string{"version", "--version", "-version"} {
		code, out, _ := runCLI(t, nil, arg)
		if code != 0 || !strings.HasPrefix(out, "quizhost ") || !strings.Contains(out, "\ngo            "+runtime.Version()+"\n") {
			t.Errorf("quizhost %s: got exit %d, version %q, want quizhost's version and %s", arg, code, out, runtime.Version())
		}
	}
	if code, _, errOut := runCLI(t, nil, "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) || !strings.Contains(errOut, "quizhost validate") {
		t.Errorf("got exit %d, stderr %q, want 2 with the commands", code, errOut)
	}
}

func TestVersionText(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"a release", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"}, {Key: "vcs.revision", Value: "0a1b2c3"}, {Key: "vcs.time", Value: "2025-06-01T10:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			true, "quizhost v1.4.0\nvcs.revision  0a1b2c3\nvcs.time      2025-06-01T10:00:00Z\nvcs.modified  false\ngo            go1.26.1\n"},
		{"a local build without version control", &debug.BuildInfo{GoVersion: "go1.26.1"}, true, "quizhost (devel)\ngo            go1.26.1\n"},
		{"no build information", nil, false, "quizhost (no build information)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionText(tt.info, tt.ok); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
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

// backup -h prints the usage and writes nothing, not even a file named -h.
func TestBackupHelpWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	db, err := storage.Open(t.Context(), "quizhost.db", storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"backup", "-h"}, {"backup", "--help"}, {"backup", "a.db", "b.db"}} {
		runCLI(t, nil, args...)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if fmt.Sprint(names) != "[quizhost.db]" {
		t.Errorf("got files %v, want only quizhost.db", names)
	}
	if code, out, errOut := runCLI(t, nil, "backup", "copy.db"); code != 0 || out != "backed up quizhost.db to copy.db\n" {
		t.Errorf("got exit %d, stdout %q, stderr %q, want the backup written", code, out, errOut)
	}
	if _, err := os.Stat("copy.db"); err != nil {
		t.Errorf("got %v, want copy.db written", err)
	}
}

// newDatabase creates an empty quizhost database at path.
func newDatabase(t *testing.T, path string) {
	t.Helper()
	db, err := storage.Open(t.Context(), path, storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBackupCommand: backup writes the file named, or a new timestamped
// file in a folder named, never replaces a file without --force, and its
// errors name what to change.
func TestBackupCommand(t *testing.T) {
	backupName := regexp.MustCompile(`^quizhost-\d{8}T\d{6}Z\.db$`)
	tests := []struct {
		name    string
		env     map[string]string
		setup   func(t *testing.T) // in the test's folder, which holds quizhost.db
		args    []string
		code    int
		out     string // stdout's pattern (regexp), the whole of it
		errOut  []string
		written string // the file written ("" none); a folder: one backup in it
	}{
		{"to a file", nil, nil, []string{"copy.db"}, 0, `backed up quizhost\.db to copy\.db\n`, nil, "copy.db"},
		{"into a folder", nil, func(t *testing.T) { os.Mkdir("saved", 0o700) }, []string{"saved"}, 0,
			`backed up quizhost\.db to saved/quizhost-\d{8}T\d{6}Z\.db\n`, nil, "saved/"},
		{"into a folder with a trailing slash", nil, func(t *testing.T) { os.Mkdir("saved", 0o700) }, []string{"saved/"}, 0,
			`backed up quizhost\.db to saved/quizhost-\d{8}T\d{6}Z\.db\n`, nil, "saved/"},
		{"into a new folder (trailing slash)", nil, nil, []string{"new/"}, 0,
			`backed up quizhost\.db to new/quizhost-\d{8}T\d{6}Z\.db\n`, nil, "new/"},
		{"over a file, without --force", nil, func(t *testing.T) { os.WriteFile("copy.db", []byte("keep me"), 0o600) }, []string{"copy.db"}, 2,
			``, []string{"quizhost backup: copy.db exists; use --force to replace it"}, ""},
		{"over a file, with --force", nil, func(t *testing.T) { os.WriteFile("copy.db", []byte("old"), 0o600) }, []string{"--force", "copy.db"}, 0,
			`backed up quizhost\.db to copy\.db\n`, nil, "copy.db"},
		{"over the database itself", nil, nil, []string{"--force", "./quizhost.db"}, 2,
			``, []string{"./quizhost.db is the database itself (QUIZHOST_DB)"}, ""},
		{"into a missing folder", nil, nil, []string{"nowhere/copy.db"}, 1,
			``, []string{"quizhost backup: nowhere/copy.db: the folder nowhere does not exist"}, ""},
		{"no database", map[string]string{"QUIZHOST_DB": "other.db"}, nil, []string{"copy.db"}, 1,
			``, []string{"quizhost backup: no database at other.db; set QUIZHOST_DB (environment or .env) to the file to copy"}, ""},
		{"a damaged database", map[string]string{"QUIZHOST_DB": "empty.db"}, func(t *testing.T) { os.WriteFile("empty.db", nil, 0o600) },
			[]string{"copy.db"}, 1, ``, []string{"quizhost backup: QUIZHOST_DB: open empty.db: database file is damaged"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			newDatabase(t, "quizhost.db")
			if tt.setup != nil {
				tt.setup(t)
			}
			before, _ := os.ReadFile("copy.db")
			code, out, errOut := runCLI(t, tt.env, append([]string{"backup"}, tt.args...)...)
			if code != tt.code || !regexp.MustCompile("^"+tt.out+"$").MatchString(out) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want exit %d, stdout matching %q", code, out, errOut, tt.code, tt.out)
			}
			for _, w := range tt.errOut {
				if !strings.Contains(errOut, w) {
					t.Errorf("got stderr %q, want it to contain %q", errOut, w)
				}
			}
			if tt.written == "" {
				if after, _ := os.ReadFile("copy.db"); !bytes.Equal(after, before) {
					t.Errorf("copy.db changed: %q, want %q", after, before)
				}
				return
			}
			written := tt.written
			if strings.HasSuffix(written, "/") {
				entries, err := os.ReadDir(written)
				if err != nil || len(entries) != 1 || !backupName.MatchString(entries[0].Name()) {
					t.Fatalf("%s holds %v (%v), want one backup named quizhost-<UTC time>.db", written, entries, err)
				}
				written = filepath.Join(written, entries[0].Name())
			}
			if !strings.Contains(out, " to "+written+"\n") {
				t.Errorf("got stdout %q, want it to name %s", out, written)
			}
			db, err := storage.Open(t.Context(), written, storage.Options{})
			if err != nil {
				t.Fatalf("open the backup: %v", err)
			}
			db.Close()
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

// The sandbox serves only this machine: an --addr that is not a loopback
// host:port is bad usage (exit 2 with the usage), not a failure.
func TestSandboxAddrUsage(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ addr, want string }{
		{"nonsense", `--addr "nonsense": want host:port`},
		{"0.0.0.0:8080", `--addr "0.0.0.0:8080": the sandbox serves this machine only`},
		{"192.168.1.10:8080", "want a loopback address such as 127.0.0.1:8080"},
	} {
		code, out, errOut := runCLI(t, nil, "sandbox", "--addr", tc.addr)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "\nusage: quizhost sandbox ") {
			t.Errorf("sandbox --addr %s: got exit %d, stdout %q, stderr %q; want exit 2, %q and the usage", tc.addr, code, out, errOut, tc.want)
		}
	}
	// A port in use: the flag to change is named.
	busy := httptestListener(t)
	code, out, errOut := runCLI(t, nil, "sandbox", "--addr", busy)
	if code != 1 || out != "" || !strings.Contains(errOut, busy) || !strings.Contains(errOut, "give the sandbox another one, e.g. --addr 127.0.0.1:8081") {
		t.Errorf("sandbox --addr %s (in use): got exit %d, stdout %q, stderr %q; want exit 1 naming --addr", busy, code, out, errOut)
	}
}

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
	db, err := storage.Open(t.Context(), good, storage.Options{})
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

// TestValidateWarnsOfLongReveals: a question whose reveal takes more than
// one message loads, with a warning that says how many and points to
// preview; --strict fails on it.
func TestValidateWarnsOfLongReveals(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n/(len(word)+1))) }
	var b strings.Builder
	b.WriteString("Long Question 1\nSelect 1" + long("stem", 3800) + "\n")
	for _, l := range []string{"A", "B", "C", "D", "E"} {
		b.WriteString("- " + l + "\nOption " + l + "\n")
	}
	b.WriteString("Show answer and explanation\nCorrect answer: B\nExplanation\n" + long("explanation", 4000) + "\n")
	for _, l := range []string{"A", "B", "C", "D", "E"} {
		verdict := "Incorrect"
		if l == "B" {
			verdict = "Correct"
		}
		b.WriteString("- " + l + ". " + verdict + ".\n" + long("rationale", 1000) + "\n")
	}
	b.WriteString("Long Question 2\nSelect 1Short?\n- A\nyes\n- B\nno\nCorrect answer: A\n")
	os.WriteFile("long.txt", []byte(b.String()), 0o600)
	code, out, errOut := runCLI(t, nil, "validate", "long.txt")
	if want := "long.txt:1: warning: question 1's reveal takes 3 messages: the closed post, then 2 messages replying to it (quizhost preview shows them)\n"; code != 0 || !strings.Contains(errOut, want) || !strings.Contains(out, "0 errors, 1 warning") ||
		!strings.Contains(out, "Long: 2 questions") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 0, both questions and the one warning %q", code, out, errOut, want)
	}
	if code, _, _ := runCLI(t, nil, "validate", "--strict", "long.txt"); code != 1 {
		t.Errorf("--strict: got exit %d, want 1", code)
	}
}
