package browser

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/sandbox"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// screenshot, when set, is where TestBrowser writes its picture of a
// revealed question (the README's docs/sandbox.png:
// go test ./internal/browser -run TestBrowser -screenshot ../../docs/sandbox.png).
var screenshot = flag.String("screenshot", "", "write the screenshot of a revealed question to this PNG file")

// mockScreenshot, when set, is where TestBrowser writes its picture of a
// mock exam's result.
var mockScreenshot = flag.String("mock-screenshot", "", "write the screenshot of a mock exam's result to this PNG file")

// chromium is one headless Chromium (found by TestMain) for a test and
// its subtests, started in the background (startBrowser): the subtests
// start their sandboxes meanwhile, and tab waits for it.
type chromium struct {
	ctx   context.Context
	ready chan struct{} // closed once Chromium started, or failed to (err)
	err   error
}

// startBrowser starts the test's Chromium, and closes it when the test and
// its subtests end.
func startBrowser(t *testing.T) *chromium {
	t.Helper()
	path := chromiumPath
	// Chromium's helpers may still write to the profile as the browser
	// exits, so it is removed after the browser, errors ignored.
	profile, err := os.MkdirTemp("", "quizhost-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// On a machine whose cores other tests keep busy (CI runs the
		// packages' tests side by side, with -race), Chromium's GPU
		// process can go unanswered long enough for its watchdog to kill
		// it, and after a few such restarts the browser ends itself ("GPU
		// process isn't usable. Goodbye."): the tests would fail with a
		// lost connection for want of CPU, not for anything the page did.
		chromedp.Flag("disable-gpu-watchdog", true),
		chromedp.Flag("disable-gpu-process-crash-limit", true),
		// The tabs' pages run in the browser's own process, not one
		// renderer process each: the tests cost about a sixth less CPU
		// (9.6 → 8.0 CPU-s on two cores, four alternated runs), the
		// largest share of `go test ./...`. The pages are the sandbox's
		// own and another origin's on 127.0.0.1, nothing a renderer
		// process needs to be kept apart for.
		chromedp.Flag("single-process", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 860),
	)
	// What Chromium prints, and how its process ended, are shown when a
	// test fails: a browser that died (lost connection, "context
	// canceled") says why instead of failing in silence.
	out := &tailBuffer{max: 16 << 10}
	var cmd *exec.Cmd
	opts = append(opts, chromedp.CombinedOutput(out), chromedp.ModifyCmdFunc(func(c *exec.Cmd) { cmd = c }))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// chromedp logs CDP events it does not know (the <dialog>'s top-layer
	// updates in newer Chromium); only other errors are worth showing.
	browserCtx, cancelBrowser := chromedp.NewContext(alloc, chromedp.WithErrorf(func(format string, a ...any) {
		if !strings.HasPrefix(format, "unhandled node event") {
			log.Printf(format, a...)
		}
	}))
	b := &chromium{ctx: browserCtx, ready: make(chan struct{})}
	go func() {
		defer close(b.ready)
		b.err = chromedp.Run(browserCtx)
	}()
	t.Cleanup(func() {
		<-b.ready
		lost := browserCtx.Err() != nil // the connection was lost before the end
		// Closed through the protocol and waited for, then killed if it
		// is still there (cancelAlloc).
		if err := chromedp.Cancel(browserCtx); err != nil {
			t.Logf("close Chromium: %v", err)
		}
		if lost || t.Failed() {
			state := "still running"
			if cmd != nil && cmd.ProcessState != nil { // set: Cancel waited for the process
				state = cmd.ProcessState.String()
			}
			t.Logf("Chromium (%s) lost: %v, process: %s; its output's last lines:\n%s", path, lost, state, out.String())
		}
		cancelBrowser()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	})
	return b
}

// tailBuffer keeps the last max bytes written to it; it is safe for
// concurrent use (chromedp copies Chromium's output from its own
// goroutine).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// tab opens a new tab in browser for one subtest, bounded by a deadline,
// once the browser has started.
func tab(t *testing.T, b *chromium) context.Context {
	t.Helper()
	<-b.ready
	if b.err != nil {
		t.Fatalf("start Chromium: %v", b.err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelT(); cancel() })
	// chromedp turns on the Network domain in every tab, and Chromium
	// then reports each request, response and event-stream message to
	// it; the tests read none of them (Navigate waits on the page's load
	// events), and the reports cost about 0.6 CPU-s a run.
	if err := chromedp.Run(ctx, network.Disable()); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// run runs browser actions, failing the test with what step failed.
func run(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

// click clicks the element sel finds, as chromedp.Click does. The page
// replaces what the server says changed (#messages, #clock) as it
// happens: an element found just before it was replaced is a node
// Chromium no longer knows, and the click fails before any mouse event is
// sent, so it is made again on the element now there.
func click(sel string, opts ...chromedp.QueryOption) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			err := chromedp.Click(sel, opts...).Do(ctx)
			if err == nil || !strings.Contains(err.Error(), "Could not find node with given id") {
				return err
			}
		}
	})
}

// typeText types text into the element sel finds, the whole text in one
// insertion, as an input method or a paste does: the page gets one input
// event, where chromedp.SendKeys dispatches three key events a character
// and Chromium draws a frame for each (some 17 ms of CPU a character).
// Keys the page acts on by themselves (Enter, the arrows, Escape) go
// through chromedp.KeyEvent.
func typeText(sel, text string) chromedp.Tasks {
	return chromedp.Tasks{chromedp.Focus(sel), input.InsertText(text)}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string { return fmt.Sprintf("%q", s) }

// waitText waits until an element matching sel contains text.
func waitText(sel, text string) chromedp.Action {
	return chromedp.Poll(fmt.Sprintf(`[...document.querySelectorAll(%s)].some(e => e.textContent.includes(%s))`,
		jsString(sel), jsString(text)), nil, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(15*time.Second))
}

// waitVisible waits until the first element matching the CSS selector sel
// is shown, as chromedp.WaitVisible does, checking again on each change
// of the page's elements instead of every 5 ms.
func waitVisible(sel string) chromedp.Action {
	return chromedp.Poll(fmt.Sprintf(`(e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")(document.querySelector(%s))`,
		jsString(sel)), nil, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(15*time.Second))
}

// countText counts the elements matching sel that contain text.
func countText(sel, text string, n *int) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`[...document.querySelectorAll(%s)].filter(e => e.textContent.includes(%s)).length`,
		jsString(sel), jsString(text)), n)
}

// slash runs a command from the composer: it types it, picks it from the
// list and fills the options (name → value) before sending.
func slash(command string, options ...[2]string) chromedp.Tasks {
	tasks := chromedp.Tasks{
		waitVisible(`#composer-input`),
		typeText(`#composer-input`, command),
		waitText(`#popup[data-query=`+jsString(command)+`] .popup-name`, command),
		click(fmt.Sprintf(`//div[@id="popup"]//span[@class="popup-name" and text()=%s]/..`, jsString(command)), chromedp.BySearch),
		waitVisible(`#cmd-chip`),
	}
	for _, o := range options {
		tasks = append(tasks, chromedp.SetValue(`#opt-`+o[0], o[1]))
	}
	return append(tasks, click(`#send`))
}

// actAs switches the page to member's view of the current channel.
func actAs(memberID string) chromedp.Tasks {
	return chromedp.Tasks{
		click(`.switcher a[data-member="` + memberID + `"]`),
		waitVisible(`.switcher a.active[data-member="` + memberID + `"]`),
		waitVisible(`#composer-input`),
	}
}

// answer picks value from the open question's select menu.
func answer(value string) chromedp.Tasks {
	return chromedp.Tasks{
		click(`.select:not(.disabled) .select-head`),
		waitVisible(`.select.open .select-option[data-value="` + value + `"]`),
		click(`.select.open .select-option[data-value="` + value + `"]`),
	}
}

// answered waits until the open question's live count shows n answers:
// the bot's edit that re-renders the message has landed.
func answered(n int) chromedp.Action {
	want := "1 answer so far"
	if n != 1 {
		want = fmt.Sprintf("%d answers so far", n)
	}
	return waitText(`.message:not(.ephemeral) .content`, want)
}

// highlighted reads the command picker's highlighted row: its name, and
// whether it is inside the list's visible area.
func highlighted(name *string, inView *bool) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Evaluate(`document.querySelector("#popup .popup-item.active .popup-name").textContent`, name),
		chromedp.Evaluate(`(() => {
			const p = document.getElementById("popup").getBoundingClientRect();
			const a = document.querySelector("#popup .popup-item.active").getBoundingClientRect();
			return a.top >= p.top - 0.5 && a.bottom <= p.bottom + 0.5;
		})()`, inView),
	}
}

func TestBrowser(t *testing.T) {
	browser := startBrowser(t)

	t.Run("ask, answer as two members, close, reveal, leaderboard", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "test-bank.txt")
		ctx := tab(t, browser)
		run(t, ctx, "open the page as Alice",
			chromedp.Navigate(sb.URL()),
			waitVisible(`.switcher a.active[data-member="7001"]`),
		)
		run(t, ctx, "/quiz ask with the bank from autocomplete",
			typeText(`#composer-input`, "/quiz ask"),
			waitText(`#popup[data-query="/quiz ask"] .popup-name`, "/quiz ask"),
			click(`//div[@id="popup"]//span[text()="/quiz ask"]/..`, chromedp.BySearch),
			waitVisible(`#opt-bank`),
			typeText(`#opt-bank`, "Test"),
			waitText(`#popup[data-query="Test"] .popup-name`, "Test Bank"),
			click(`//div[@id="popup"]//span[text()="Test Bank"]/..`, chromedp.BySearch),
			chromedp.SetValue(`#opt-minutes`, "30"),
			click(`#send`),
			waitText(`.message .embed-desc`, "Which is a colour?"),
			waitText(`.message.ephemeral .content`, "Posted question 1 of Test Bank"),
			waitText(`.message .reply-head`, "Alice used /quiz ask"),
			waitText(`.message.ephemeral .ephemeral-note`, "Only you can see this"),
		)

		// A mark on the page's window outlives a switch of member, which
		// happens in place, and would be gone with a page load.
		run(t, ctx, "Bob answers A", chromedp.Evaluate(`window.alice = true`, nil), actAs("7002"), answer("A"),
			waitText(`.message.ephemeral .content`, "Right!"), answered(1))
		var inPlace bool
		run(t, ctx, "the switch to Bob kept the page", chromedp.Evaluate(`window.alice === true && location.search === "?as=7002"`, &inPlace))
		if !inPlace {
			t.Errorf("switching to Bob: the page was loaded again or its address does not name Bob")
		}
		var others int
		run(t, ctx, "Bob does not see Alice's private reply", countText(`.message`, "Posted question 1", &others))
		if others != 0 {
			t.Errorf("Bob's view: got %d of Alice's private replies, want 0", others)
		}
		run(t, ctx, "Carol answers B", actAs("7003"), answer("B"),
			waitText(`.message.ephemeral .content`, "Not quite."), answered(2))
		run(t, ctx, "Carol does not see Bob's private reply", countText(`.message`, "Right!", &others))
		if others != 0 {
			t.Errorf("Carol's view: got %d of Bob's private replies, want 0", others)
		}
		run(t, ctx, "the browser's Back: Bob's view again, his own reply and not Carol's",
			chromedp.Evaluate(`history.back()`, nil),
			waitVisible(`.switcher a.active[data-member="7002"]`),
			waitText(`.message.ephemeral .content`, "Right!"), countText(`.message`, "Not quite.", &others))
		if others != 0 {
			t.Errorf("Bob's view: got %d of Carol's private replies, want 0", others)
		}

		run(t, ctx, "Alice closes the question; the reveal appears live", actAs("7001"),
			waitVisible(`.select:not(.disabled)`),
			slash("/quizadmin close"),
			waitText(`.message .embed-title`, "Answer: A"),
			waitVisible(`.select.disabled .select-head[disabled]`),
			waitText(`.message .content`, "Closed"),
			waitText(`.message.ephemeral .content`, "Closed 1 question"),
		)
		if *screenshot != "" {
			var png []byte
			run(t, ctx, "screenshot", chromedp.CaptureScreenshot(&png))
			if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}

		run(t, ctx, "the leaderboard", slash("/quiz leaderboard"),
			waitText(`.message .embed, .message .content`, "@Bob"))
		checkNoViolations(t, ctx, sb)
	})

	t.Run("a question pasted through the modal", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "test-bank.txt")
		ctx := tab(t, browser)
		testBank, err := os.ReadFile(filepath.Join("..", "sandbox", "testdata", "test-bank.txt"))
		if err != nil {
			t.Fatal(err)
		}
		pasted := strings.NewReplacer("Test Bank", "Pasted Bank", "Which is a colour?", "Which is a planet?",
			"Red", "Mars", "Dog", "Moon").Replace(string(testBank))
		run(t, ctx, "/quizadmin add opens the paste dialog",
			chromedp.Navigate(sb.URL()),
			waitVisible(`.switcher a.active[data-member="7001"]`),
			slash("/quizadmin add", [2]string{"bank", "Pasted Bank"}),
			waitVisible(`dialog#modal[open] #modal-fields textarea`),
			waitText(`#modal-title`, "Paste questions"),
		)
		run(t, ctx, "submit the text; the preview offers Add",
			chromedp.SetValue(`#modal-fields textarea`, pasted),
			click(`#modal-submit`),
			chromedp.WaitNotPresent(`dialog#modal[open]`),
			waitText(`.message.ephemeral .embed-desc`, "Which is a planet?"),
			click(`//li[contains(@class,"ephemeral")]//button[normalize-space()="Add"]`, chromedp.BySearch),
			waitText(`.message.ephemeral .content`, "added 1"),
		)
		run(t, ctx, "/quiz ask draws the pasted question",
			slash("/quiz ask", [2]string{"bank", "Pasted Bank"}),
			waitText(`.message:not(.ephemeral) .embed-desc`, "Which is a planet?"),
			waitVisible(`.select:not(.disabled)`),
		)
		checkNoViolations(t, ctx, sb)
	})

	t.Run("the command picker keeps its highlight in view; a member is told a command needs Manage Server", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "test-bank.txt")
		ctx := tab(t, browser)
		var names []string
		var overflows bool
		run(t, ctx, "type / as Alice",
			chromedp.Navigate(sb.URL()),
			waitVisible(`.switcher a.active[data-member="7001"]`),
			typeText(`#composer-input`, "/"),
			waitText(`#popup[data-query="/"] .popup-name`, "/quiz ask"),
			chromedp.Evaluate(`[...document.querySelectorAll("#popup .popup-name")].map(e => e.textContent)`, &names),
			chromedp.Evaluate(`(p => p.scrollHeight > p.clientHeight)(document.getElementById("popup"))`, &overflows),
		)
		if len(names) < 2 || !overflows {
			t.Fatalf("the picker: got %d commands, overflowing %v; want more than it shows at once", len(names), overflows)
		}
		var name string
		var inView bool
		// ArrowUp from the first command stays there: wrapping round
		// would highlight the last one, /quizadmin reset, where Enter
		// picks it.
		run(t, ctx, "ArrowUp from the first", chromedp.KeyEvent(kb.ArrowUp), highlighted(&name, &inView))
		if name != names[0] || !inView {
			t.Errorf("after ArrowUp from the first: got %q highlighted (in view: %v), want %q in view", name, inView, names[0])
		}
		for i := 1; i < len(names); i++ {
			run(t, ctx, "ArrowDown", chromedp.KeyEvent(kb.ArrowDown), highlighted(&name, &inView))
			if name != names[i] || !inView {
				t.Fatalf("after %d × ArrowDown: got %q highlighted (in view: %v), want %q in view", i, name, inView, names[i])
			}
		}
		run(t, ctx, "ArrowDown from the last", chromedp.KeyEvent(kb.ArrowDown), highlighted(&name, &inView))
		if last := names[len(names)-1]; name != last || !inView {
			t.Errorf("after ArrowDown from the last: got %q highlighted (in view: %v), want %q in view", name, inView, last)
		}

		var offered int
		run(t, ctx, "Bob types /quizadmin and sends it",
			chromedp.KeyEvent(kb.Escape),
			actAs("7002"),
			typeText(`#composer-input`, "/quizadmin"),
			chromedp.Evaluate(`document.querySelectorAll("#popup:not([hidden]) .popup-item").length`, &offered),
			chromedp.KeyEvent(kb.Enter),
			waitText(`#composer-error`, "/quizadmin needs the Manage Server permission, which Bob does not have"),
		)
		if offered != 0 {
			t.Errorf("Bob's picker for /quizadmin: got %d commands offered, want none (Discord hides them)", offered)
		}
		if n := sb.Server().Callbacks(); n != 0 {
			t.Errorf("interactions the bot answered: got %d, want 0", n)
		}
	})

	t.Run("a question with three answers: the menu opens in view, the picks show on one line; the stats chart inline", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "multi-bank.txt")
		ctx := tab(t, browser)
		run(t, ctx, "ask the question",
			chromedp.Navigate(sb.URL()),
			waitVisible(`.switcher a.active[data-member="7001"]`),
			slash("/quiz ask", [2]string{"bank", "Multi Bank"}),
			waitVisible(`.select:not(.disabled)`),
			waitText(`.message.ephemeral .content`, "Posted question 1 of Multi Bank"),
		)
		var inView bool
		var closedHeight, pickedHeight float64
		run(t, ctx, "open the newest question's menu",
			chromedp.Evaluate(`document.querySelector(".select:not(.disabled) .select-head").offsetHeight`, &closedHeight),
			click(`.select:not(.disabled) .select-head`),
			waitVisible(`.select.open .select-option[data-value="E"]`),
			chromedp.Evaluate(`(() => {
				const s = document.getElementById("scroller").getBoundingClientRect();
				const opts = [...document.querySelectorAll(".select.open .select-option")].map(o => o.getBoundingClientRect());
				return opts.every(r => r.top >= s.top - 0.5 && r.bottom <= s.bottom + 0.5);
			})()`, &inView),
		)
		if !inView {
			t.Errorf("the open menu: want every option inside the channel's visible area")
		}
		var picked string
		var truncated bool
		run(t, ctx, "pick A, C and E",
			click(`.select.open .select-option[data-value="A"]`),
			click(`.select.open .select-option[data-value="C"]`),
			click(`.select.open .select-option[data-value="E"]`),
			chromedp.Evaluate(`document.querySelector(".select.open .select-head").offsetHeight`, &pickedHeight),
			chromedp.Evaluate(`document.querySelector(".select.open .select-placeholder").textContent`, &picked),
			chromedp.Evaluate(`(e => e.scrollWidth > e.clientWidth)(document.querySelector(".select.open .select-placeholder"))`, &truncated),
		)
		if pickedHeight != closedHeight || !truncated {
			t.Errorf("the menu's head with three picks: got %vpx high (%vpx before), truncated %v; want one truncated line", pickedHeight, closedHeight, truncated)
		}
		if !strings.HasPrefix(picked, "A · Keeping") || !strings.Contains(picked, ", C · Scaling") || !strings.Contains(picked, ", E · Running") {
			t.Errorf("the menu's head: got %q, want the three picks' labels", picked)
		}
		// Carol answers (a request as the page makes one, as member 7003)
		// while Alice's menu is open: the post is edited to count her
		// answer, and Alice's menu stays open with her three picks.
		var stillOpen bool
		run(t, ctx, "Carol answers while the menu is open: it stays open",
			chromedp.Evaluate(fmt.Sprintf(`(() => {
				const sel = document.querySelector(".select.open");
				fetch("/api/component", {method: "POST", headers: {"Content-Type": "application/json"},
					body: JSON.stringify({channel: %s, as: "7003", message: sel.closest(".message").dataset.id,
						custom_id: sel.dataset.customId, values: ["A", "B", "C"]})});
			})()`, jsString(sandbox.QuizChannel)), nil),
			answered(1),
			chromedp.Evaluate(`(s => s !== null && s.querySelector(".select-placeholder").textContent === `+jsString(picked)+`)(document.querySelector(".select.open"))`, &stillOpen),
		)
		if !stillOpen {
			t.Errorf("after another member's answer edited the post: the menu closed or lost its picks, want it open with %q", picked)
		}
		run(t, ctx, "close the menu: the answer is sent",
			click(`.chat-header`),
			waitText(`.message.ephemeral .content`, "Right"),
			answered(2),
		)

		// The page shows what the bot sent once: each "Pick" of the post
		// (its line and its embed, as the bot writes them) appears as
		// often as the bot wrote it.
		var post discordtest.Message
		for _, m := range sb.Server().Messages(sandbox.QuizChannel) {
			if len(m.Embeds) > 0 && strings.Contains(m.Embeds[0].Title, "Multi Bank") {
				post = m
			}
		}
		sent := strings.Count(post.Content, "Pick ")
		for _, e := range post.Embeds {
			sent += strings.Count(e.Description, "Pick ")
			for _, f := range e.Fields {
				sent += strings.Count(f.Value, "Pick ")
			}
		}
		var shown int
		run(t, ctx, "count the post's Pick lines",
			chromedp.Evaluate(fmt.Sprintf(`document.getElementById("m-" + %s).textContent.split("Pick ").length - 1`, jsString(post.ID)), &shown))
		if sent == 0 || shown != sent {
			t.Errorf(`"Pick " in the post: the page shows it %d times, the bot sent it %d times`, shown, sent)
		}

		var chart struct {
			Width int  `json:"width"`
			Own   bool `json:"own"`
			Chips int  `json:"chips"`
		}
		// The bot draws charts after the reply, on a thread at the lowest
		// priority (bot/draw.go): while other processes keep both cores
		// busy, as the other packages' tests under -race do in CI, the
		// kernel gives it a few percent of a core and the chart comes tens
		// of seconds later. It is waited for as long as the tab lives.
		run(t, ctx, "/quiz stats shows the chart inline",
			slash("/quiz stats"),
			waitVisible(`.embed .embed-image img`),
			chromedp.Poll(`(i => i.complete && i.naturalWidth > 0)(document.querySelector(".embed .embed-image img"))`, nil),
			chromedp.Evaluate(`(() => {
				const img = document.querySelector(".embed .embed-image img");
				return {width: img.naturalWidth, own: new URL(img.src).origin === location.origin,
					chips: document.querySelectorAll(".attachment").length};
			})()`, &chart),
		)
		if chart.Width != 800 || !chart.Own || chart.Chips != 0 {
			t.Errorf("the stats chart: got %+v, want an 800 px image from the page's own origin and no download chip", chart)
		}
		checkNoViolations(t, ctx, sb)
	})

	t.Run("Advance time: the daily quiz posts, a question closes and is revealed", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "test-bank.txt")
		ctx := tab(t, browser)
		run(t, ctx, "set a daily quiz",
			chromedp.Navigate(sb.URL()),
			waitVisible(`.switcher a.active[data-member="7001"]`),
			waitVisible(`#advance-daily[disabled]`),
			slash("/quizadmin daily set", [2]string{"channel", sandbox.QuizChannel}, [2]string{"time", "09:00"},
				[2]string{"timezone", "UTC"}, [2]string{"bank", "Test Bank"}),
			waitText(`.message.ephemeral .content`, "Daily quiz on"),
			waitText(`#clock .clock-daily`, "Next daily quiz: "),
		)
		run(t, ctx, "Advance time to the next daily quiz: it posts",
			click(`#advance-daily:not([disabled])`),
			waitText(`.message .content`, "Daily question"),
			waitText(`#clock .clock-ahead`, "ahead of real time"),
		)
		run(t, ctx, "ask a question for 30 minutes; Advance time 1 hour: it closes and is revealed",
			slash("/quiz ask", [2]string{"bank", "Test Bank"}, [2]string{"minutes", "30"}),
			chromedp.Poll(`document.querySelectorAll(".select:not(.disabled)").length === 2`, nil, chromedp.WithPollingMutation(),
				chromedp.WithPollingTimeout(15*time.Second)),
			click(`button[data-advance="1h"]`),
			waitText(`.message .embed-title`, "Answer: A"),
			waitVisible(`.select.disabled`),
		)
		var open int
		run(t, ctx, "the daily question stays open", chromedp.Evaluate(`document.querySelectorAll(".select:not(.disabled)").length`, &open))
		if open != 1 {
			t.Errorf("open questions after the hour: got %d, want 1 (the daily one closes with the next day's)", open)
		}
		checkNoViolations(t, ctx, sb)
	})

	t.Run("a mock exam sat to the end; another runs out of time", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "mock-bank.yaml")
		ctx := tab(t, browser)
		// mockButton clicks a button of the mock exam's private message.
		mockButton := func(label string) chromedp.Action {
			return click(fmt.Sprintf(`//li[contains(@class,"ephemeral")][last()]//button[text()[normalize-space()=%s] and not(@disabled)]`, jsString(label)), chromedp.BySearch)
		}
		run(t, ctx, "Bob starts /quiz mock",
			chromedp.Navigate(sb.URL()),
			actAs("7002"),
			slash("/quiz mock", [2]string{"bank", "Mock Bank"}),
			waitText(`.message.ephemeral .content`, "Your mock exam of Mock Bank: 3 questions in 6 min, pass mark 700 of 100-1000"),
			waitText(`.message.ephemeral .content`, "question 1 of 3"),
			waitText(`.message.ephemeral .content`, "0 answered · ⚑ 0 flagged · ○ 3 unanswered"),
			waitVisible(`.message.ephemeral .content time.ts`),
		)
		// The draw's order is random: key and wrong read the question
		// shown and give its key, or a wrong answer.
		keys := map[string]string{"Which port does HTTPS": "A", "Which protocol turns names": "B", "Which control proves": "C"}
		shown := func() (key, wrong string) {
			t.Helper()
			var stem string
			run(t, ctx, "read the question", chromedp.Text(`//li[contains(@class,"ephemeral")][last()]//div[@class="embed-desc"]`, &stem, chromedp.BySearch))
			for prefix, k := range keys {
				if strings.HasPrefix(stem, prefix) {
					return k, map[string]string{"A": "B", "B": "C", "C": "A"}[k]
				}
			}
			t.Fatalf("the question shown: %q, not one of the bank's", stem)
			return "", ""
		}
		key1, wrong1 := shown()
		run(t, ctx, "answer question 1 wrong, go on",
			answer(wrong1),
			waitText(`.message.ephemeral .content`, "Your answer: "+wrong1),
			mockButton("Next"),
			waitText(`.message.ephemeral .content`, "question 2 of 3"),
		)
		_, wrong2 := shown()
		run(t, ctx, "answer question 2 wrong and flag it",
			answer(wrong2),
			waitText(`.message.ephemeral .content`, "Your answer: "+wrong2),
			mockButton("Flag for review"),
			waitText(`.message.ephemeral .content`, "⚑ flagged for review"),
			waitText(`.message.ephemeral .content`, "2 answered · ⚑ 1 flagged · ○ 1 unanswered"),
		)
		run(t, ctx, "back to question 1, change its answer to the right one, on to question 3",
			mockButton("Back"),
			waitText(`.message.ephemeral .content`, "question 1 of 3"),
			answer(key1),
			waitText(`.message.ephemeral .content`, "Your answer: "+key1),
			mockButton("Next"),
			waitText(`.message.ephemeral .content`, "question 2 of 3"),
			mockButton("Next"),
			waitText(`.message.ephemeral .content`, "question 3 of 3"),
		)
		run(t, ctx, "Finish, confirm: the result",
			mockButton("Finish"),
			waitText(`.message.ephemeral .content`, "Finish your mock exam now?"),
			mockButton("Finish now"),
			waitText(`.message.ephemeral .content`, "Mock exam result · Mock Bank"),
			waitText(`.message.ephemeral .embed`, "Time used:"),
			waitText(`.message.ephemeral .embed`, "Pass mark: 700"),
			waitText(`.message.ephemeral .embed`, "Domain: Networking"),
		)
		var result string
		run(t, ctx, "read the result", chromedp.Text(`//li[contains(@class,"ephemeral")][last()]`, &result, chromedp.BySearch))
		if !strings.Contains(result, "Score: 400 on a scale of 100-1000 · 33% (1 of 3 right)") || !strings.Contains(result, "Answered 2 of 3 · 1 unanswered, counted as wrong · ⚑ 1 flagged") ||
			!strings.Contains(result, "Go over 2 questions") {
			t.Errorf("the result: got %q", result)
		}
		if *mockScreenshot != "" {
			var png []byte
			run(t, ctx, "screenshot", chromedp.CaptureScreenshot(&png))
			if err := os.WriteFile(*mockScreenshot, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run(t, ctx, "go over the questions",
			click(`//li[contains(@class,"ephemeral")][last()]//button[starts-with(normalize-space(),"Go over")]`, chromedp.BySearch),
			waitText(`.message.ephemeral .content`, "Mock exam review · 1 of 2 · question 2 of 3 · ❌ missed · ⚑ flagged"),
			waitText(`.message.ephemeral .content`, "You chose "+wrong2+". The answer: "),
			mockButton("Next"),
			waitText(`.message.ephemeral .content`, "Mock exam review · 2 of 2 · question 3 of 3 · ○ not answered"),
		)

		run(t, ctx, "a second attempt; Advance time 10 minutes; the next click shows the result",
			slash("/quiz mock", [2]string{"bank", "Mock Bank"}),
			waitText(`.message.ephemeral .content`, "0 answered · ⚑ 0 flagged · ○ 3 unanswered"),
			click(`button[data-advance="10m"]`),
			waitText(`#clock .clock-ahead`, "ahead of real time"),
			mockButton("Next"),
			waitText(`.message.ephemeral .content`, "Time is up."),
			waitText(`.message.ephemeral .embed`, "(time ran out)"),
		)
		checkNoViolations(t, ctx, sb)
	})

	t.Run("refused requests show in the side panel", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "test-bank.txt")
		ctx := tab(t, browser)
		run(t, ctx, "open the page", chromedp.Navigate(sb.URL()), waitVisible(`#violations .none`))
		sendTooLong(t, sb)
		run(t, ctx, "the panel lists it live",
			waitText(`#violations li`, "content: Must be 2000 or fewer in length."),
			waitVisible(`#violations-panel.bad`))
		if got := len(sb.Server().Violations()); got != 1 {
			t.Errorf("violations: got %d, want 1", got)
		}
	})

	t.Run("another site's page cannot use the API", func(t *testing.T) {
		t.Parallel() // a tab and a sandbox each
		sb := startSandbox(t, "test-bank.txt")
		// Another origin: a page on another port of 127.0.0.1.
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<!doctype html><title>elsewhere</title><p>another site")
		}))
		t.Cleanup(elsewhere.Close)
		ctx := tab(t, browser)
		// Simple requests (text/plain, a form's type) need no preflight:
		// the browser sends them and resolves with an opaque answer once
		// the sandbox has replied. A JSON one needs a preflight the
		// sandbox never grants, so the browser does not send it.
		attack := fmt.Sprintf(`(async () => {
			const url = %s + "/api/command";
			const body = JSON.stringify({channel: %s, as: "7001", name: "quiz", path: ["ask"], options: [{name: "bank", value: "Test Bank"}]});
			const out = [];
			for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
				await fetch(url, {method: "POST", mode: "no-cors", headers: {"Content-Type": type}, body})
					.then(() => out.push(type + " answered"), e => out.push(type + " failed: " + e));
			}
			await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body})
				.then(r => out.push("json got " + r.status), () => out.push("json blocked"));
			window.attackDone = out.join("; ");
		})()`, jsString(sb.URL()), jsString(sandbox.QuizChannel))
		var got string
		run(t, ctx, "post to the sandbox from another site",
			chromedp.Navigate(elsewhere.URL),
			chromedp.Evaluate(attack, nil),
			chromedp.Poll(`window.attackDone`, &got, chromedp.WithPollingTimeout(15*time.Second)),
		)
		const want = "text/plain answered; application/x-www-form-urlencoded answered; json blocked"
		if got != want {
			t.Errorf("the other site's requests: got %q, want %q", got, want)
		}
		// Every request above has been answered or refused: had one got
		// through, the bot's answer to it would be recorded by now.
		if n := sb.Server().Callbacks(); n != 0 {
			t.Errorf("interactions from another site the bot answered: got %d, want 0", n)
		}
		if n := len(sb.Server().Messages(sandbox.QuizChannel)); n != 0 {
			t.Errorf("#quiz: got %d messages, want 0", n)
		}
	})
}

// checkNoViolations fails t if the bot made any request Discord would
// refuse, and checks the page says so too.
func checkNoViolations(t *testing.T, ctx context.Context, sb *sandbox.Sandbox) {
	t.Helper()
	if v := sb.Server().Violations(); len(v) > 0 {
		t.Errorf("requests Discord would refuse: got %q, want none", v)
	}
	var count string
	run(t, ctx, "read the side panel", chromedp.Text(`#violation-count`, &count))
	if strings.TrimSpace(count) != "0" {
		t.Errorf("side panel count: got %q, want 0", count)
	}
}
