// Package browser holds the sandbox's browser tests: a real Chromium
// driven through chromedp against a running `quizhost sandbox`. They are a
// package of their own so that, on a machine without Chromium, `go test
// ./...` says so on this package's line ("[no tests to run]") instead of
// passing in silence.
//
// The package is internal/browser, not internal/sandbox/browser: `go test
// ./...` runs two test binaries at a time in import-path order, and these
// tests, the longest of the suite, then start before the last packages
// (questions, storage) instead of beside them, which then run side by side:
// the whole suite takes about 0.8 s less on two cores (five alternated
// runs, 2026-12-02).
package browser

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/sandbox"
	"github.com/quizhost/quizhost/questions"
)

// browsers are the Chromium builds the tests can drive, best first, where
// Debian installs them: the headless shell, Chromium without the browser's
// own window and services, which runs these tests on about a quarter less
// CPU; then the full browser. The shell is started as its binary:
// /usr/bin/chromium-headless-shell is a script that runs it without exec,
// and a browser whose script was killed would run on.
var browsers = []string{"/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"}

// chromiumPath is the browser the tests run, found by TestMain.
var chromiumPath string

// TestMain runs the browser tests when Chromium is installed. Without it
// it runs none and says so, in words with -v and as the go command's "[no
// tests to run]" on the package's line; with CI set it fails instead, as
// .ci/run installs Chromium.
func TestMain(m *testing.M) {
	chromiumPath = findBrowser()
	if chromiumPath == "" {
		const install = "apt-get install chromium-headless-shell fonts-noto-color-emoji"
		if os.Getenv("CI") != "" {
			fmt.Fprintf(os.Stderr, "browser tests: none of %s found and CI=%s: .ci/run installs one (%s)\n", strings.Join(browsers, ", "), os.Getenv("CI"), install)
			os.Exit(1)
		}
		fmt.Printf("browser tests skipped: none of %s found (%s)\n", strings.Join(browsers, ", "), install)
		fmt.Println("testing: warning: no tests to run")
		os.Exit(0)
	}
	discordtest.VerifyTestMain(m)
}

// findBrowser returns the first of browsers installed, else chromium on
// the PATH, or "" if there is none.
func findBrowser() string {
	for _, p := range browsers {
		if fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// startSandbox starts a sandbox on 127.0.0.1:0 with the bank of
// ../sandbox/testdata/<bankFile> (the sandbox's test banks) and the built-in bank, closed when the test ends.
// Its bot edits a question's live count straight after each answer, not
// up to 5 s later: the page re-renders an edited message, which closes a
// menu open in it, so a test waits for the count (answered) before it
// opens that question's menu again.
func startSandbox(t *testing.T, bankFile string) *sandbox.Sandbox {
	t.Helper()
	cat, ps := questions.Loader{Paths: []string{filepath.Join("..", "sandbox", "testdata", bankFile)}}.Load()
	if err := ps.Err(); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Addr: "127.0.0.1:0", DBPath: filepath.Join(t.TempDir(), "sandbox.db"), Catalogue: cat,
		RefreshEvery: 10 * time.Millisecond})
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

// sendTooLong makes a request Discord would refuse: a message over 2000
// characters, straight to the embedded server, as the bot.
func sendTooLong(t *testing.T, sb *sandbox.Sandbox) {
	t.Helper()
	body := fmt.Sprintf(`{"content":%q,"allowed_mentions":{"parse":[]}}`, strings.Repeat("x", 2001))
	status, _ := discordtest.Do(t, sb.Server().URL(), sb.BotToken(), http.MethodPost, "/api/v9/channels/"+sandbox.QuizChannel+"/messages", body)
	if status != http.StatusBadRequest {
		t.Fatalf("too-long message: got status %d, want 400", status)
	}
}
