package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

func TestMain(m *testing.M) {
	discordtest.VerifyTestMain(m)
}

// testBank has one question, so /quiz ask draws it; A is right. The
// browser tests read the same file.
var testBank = func() string {
	data, err := os.ReadFile(filepath.Join("testdata", "test-bank.txt"))
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// startSandbox starts a sandbox on 127.0.0.1:0 with bank (exam text) and
// the built-in bank, closed when the test ends.
func startSandbox(t *testing.T, bank string) *Sandbox {
	t.Helper()
	banks, err := questions.Parse("test.txt", []byte(bank))
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := questions.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, probs := questions.NewCatalogue(banks, builtin)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	sb, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", DBPath: filepath.Join(t.TempDir(), "sandbox.db"), Catalogue: cat})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return sb
}

func TestRunArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		usage   bool // a usage error (ErrUsage)
	}{
		{name: "address reachable from other machines", args: []string{"--addr", "0.0.0.0:0"}, wantErr: `--addr "0.0.0.0:0": the sandbox serves this machine only`, usage: true},
		{name: "address without a port", args: []string{"--addr", "nonsense"}, wantErr: `--addr "nonsense": want host:port`, usage: true},
		{name: "stray argument", args: []string{"extra"}, wantErr: `unexpected argument "extra"`, usage: true},
		{name: "unknown flag", args: []string{"--token", "x"}, wantErr: "flag provided but not defined", usage: true},
		{name: "bad bank path", args: []string{"--addr", "127.0.0.1:0"}, wantErr: "question banks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "QUIZHOST_QUESTIONS" && tt.name == "bad bank path" {
					return filepath.Join(t.TempDir(), "missing")
				}
				return ""
			}
			var out, errOut bytes.Buffer
			err := Run(context.Background(), tt.args, getenv, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Run(%q): got error %v, want one containing %q", tt.args, err, tt.wantErr)
			}
			if got := errors.Is(err, ErrUsage); got != tt.usage {
				t.Errorf("Run(%q): got errors.Is(err, ErrUsage) %v, want %v", tt.args, got, tt.usage)
			}
		})
	}
}

// TestRunStopsOnCancel runs the command on a free port and a temporary
// database: it prints the address, serves the page and stops cleanly when
// its context ends (Ctrl-C).
func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := make(lineWriter, 8)
	done := make(chan error, 1)
	var errOut bytes.Buffer
	go func() {
		done <- Run(ctx, []string{"--addr", "127.0.0.1:0"}, func(string) string { return "" }, lines, &errOut)
	}()
	line := lines.next(t)
	const prefix = "quizhost sandbox: open "
	if !strings.HasPrefix(line, prefix) {
		t.Fatalf("first line: got %q, want it to start %q", line, prefix)
	}
	// The built-in bank only: "1 bank", never "1 banks".
	if !strings.Contains(line, " in a browser (1 bank, 42 questions; Ctrl-C stops it)") {
		t.Errorf("first line: got %q, want it to count 1 bank and 42 questions", line)
	}
	addr := strings.Fields(strings.TrimPrefix(line, prefix))[0]
	if !strings.HasPrefix(addr, "http://127.0.0.1:") {
		t.Fatalf("address: got %q, want http://127.0.0.1:PORT", addr)
	}
	resp, err := http.Get(addr + "/channels/" + quizChannel + "?as=7002")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	_, _ = page.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(page.String(), "/quiz ask") {
		t.Fatalf("page: got status %d and no /quiz ask in the composer's commands, want 200 with it", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: got %v, want nil after cancel", err)
	}
	if got := lines.next(t); got != "quizhost sandbox: stopped" {
		t.Fatalf("last line: got %q, want %q", got, "quizhost sandbox: stopped")
	}
}

// lineWriter passes each Write (Run prints one line per Write) to the test.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- strings.TrimSuffix(string(p), "\n")
	return len(p), nil
}

func (w lineWriter) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-w:
		return l
	case <-time.After(15 * time.Second):
		t.Fatal("timed out waiting for a line of output")
		return ""
	}
}

func TestRelative(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		d    time.Duration
		want string
	}{
		{"now", 0, "a few seconds ago"},
		{"just closed", -300 * time.Millisecond, "a few seconds ago"},
		{"about to close", 10 * time.Second, "in a few seconds"},
		{"fifty seconds", 50 * time.Second, "in 50 seconds"},
		{"one minute", time.Minute, "in 1 minute"},
		{"thirty minutes ago", -30 * time.Minute, "30 minutes ago"},
		{"two hours", 2 * time.Hour, "in 2 hours"},
		{"three days ago", -72 * time.Hour, "3 days ago"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := relative(now.Add(tt.d), now); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMarkdown(t *testing.T) {
	md := markdown{members: map[string]string{"7002": "Bob"}, channels: map[string]string{"6002": "daily-quiz"},
		now: time.Unix(1000, 0)}
	tests := []struct {
		name, in, want string
	}{
		{"bold and escaping", "**Closed** · <b>x</b>", "<strong>Closed</strong> · &lt;b&gt;x&lt;/b&gt;"},
		{"code keeps its stars", "`**x**` **y**", "<code>**x**</code> <strong>y</strong>"},
		{"mention and channel", "<@7002> in <#6002>", `<span class="mention">@Bob</span> in <span class="mention">#daily-quiz</span>`},
		{"everyone is shown, not pinged", "@everyone", `<span class="mention">@everyone</span>`},
		{"relative timestamp", "closes <t:1060:R>", `closes <time class="ts" data-t="1060" data-s="R"`},
		{"lines", "a\nb", "a<br>b"},
		{"quote", "> said", `<div class="quote">said</div>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(md.render(tt.in)); !strings.Contains(got, tt.want) {
				t.Errorf("render(%q): got %q, want it to contain %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestHiddenCommandNeedsManageServer: a member without Manage Server is
// told /quizadmin needs it (the page's composer and the API alike), and
// nothing reaches the bot; Alice, who has it, gets through.
func TestHiddenCommandNeedsManageServer(t *testing.T) {
	sb := startSandbox(t, testBank)
	const want = "/quizadmin needs the Manage Server permission, which Bob does not have: Discord hides it from them. Act as Alice to use it."
	for _, route := range []string{"/api/command", "/api/autocomplete"} {
		status, body := webRequest{}.do(t, sb, http.MethodPost, route,
			`{"channel":"6001","as":"7002","name":"quizadmin","path":["question","show"],"options":[{"name":"id","value":"x"}],"focused":"id"}`)
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("POST %s as Bob: got %d %s, want the error %q", route, status, body, want)
		}
	}
	if n := sb.Server().Callbacks(); n != 0 {
		t.Errorf("Bob's /quizadmin: got %d interactions answered by the bot, want 0", n)
	}
	_, page := webRequest{}.do(t, sb, http.MethodGet, "/channels/"+quizChannel+"?as=7002", "")
	if !strings.Contains(page, `"name":"quizadmin","message":"`+want) {
		t.Errorf("Bob's page: want the composer told why /quizadmin is hidden (%q)", want)
	}
	_, page = webRequest{}.do(t, sb, http.MethodGet, "/channels/"+quizChannel+"?as=7001", "")
	if !strings.Contains(page, `<script id="hidden" type="application/json">[]</script>`) {
		t.Errorf("Alice's page: want no hidden command")
	}
	status, body := webRequest{}.do(t, sb, http.MethodPost, "/api/command", `{"channel":"6001","as":"7001","name":"quizadmin","path":["daily","status"]}`)
	if status != http.StatusOK || strings.Contains(body, "error") || sb.Server().Callbacks() != 1 {
		t.Errorf("Alice's /quizadmin daily status: got %d %s and %d callbacks, want it answered by the bot", status, body, sb.Server().Callbacks())
	}
}

// TestPageFollowsCommandChanges: the page offers the commands registered
// now: after the bot's commands are replaced (a bulk overwrite, as a
// restarted bot sends) and one is deleted, the composer lists the new set.
func TestPageFollowsCommandChanges(t *testing.T) {
	sb := startSandbox(t, testBank)
	send := func(method, path, body string) []byte {
		t.Helper()
		status, out := discordtest.Do(t, sb.Server().URL(), sb.BotToken(), method, "/api/v9/applications/9001/commands"+path, body)
		if status >= 300 {
			t.Fatalf("%s commands%s: %d %s", method, path, status, out)
		}
		return out
	}
	page := func() string {
		t.Helper()
		_, page := webRequest{}.do(t, sb, http.MethodGet, "/channels/"+quizChannel+"?as=7001", "")
		return page
	}
	if p := page(); !strings.Contains(p, `"label":"/quiz ask"`) {
		t.Fatalf("the page before any change: want /quiz ask offered")
	}
	var cmds []struct{ ID, Name string }
	if err := json.Unmarshal(send(http.MethodPut, "", `[{"name":"alpha","description":"A","type":1},{"name":"beta","description":"B","type":1}]`), &cmds); err != nil || len(cmds) != 2 {
		t.Fatalf("bulk overwrite: %v, %+v", err, cmds)
	}
	if p := page(); strings.Contains(p, `"label":"/quiz ask"`) || !strings.Contains(p, `"label":"/alpha"`) || !strings.Contains(p, `"label":"/beta"`) {
		t.Errorf("the page after the overwrite: want /alpha and /beta offered, and /quiz ask no more")
	}
	send(http.MethodDelete, "/"+cmds[1].ID, "")
	if p := page(); !strings.Contains(p, `"label":"/alpha"`) || strings.Contains(p, `"label":"/beta"`) {
		t.Errorf("the page after /beta's deletion: want /alpha offered, and /beta no more")
	}
}
