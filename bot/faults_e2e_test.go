package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// launch runs the bot with token and apiBase without waiting for anything;
// it returns the cancel function and the channel Run's result arrives on.
// The database is closed once Run returns (cleanup waits for that).
func (e *env) launch(token, apiBase string) (context.CancelFunc, <-chan error) {
	e.t.Helper()
	db, err := storage.Open(e.t.Context(), e.path, storage.Options{Timeout: time.Second, Now: e.clk.Now, NoSync: true})
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := bot.New(bot.Config{
		Token: token, APIBase: apiBase, Store: db, Catalogue: e.cat, Clock: e.clk,
		Rand:   rand.New(rand.NewPCG(1, 2)),
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, result := make(chan error, 1), make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	closed := make(chan struct{})
	go func() {
		err := <-done
		db.Close()
		result <- err
		close(closed)
	}()
	e.t.Cleanup(func() {
		cancel()
		select {
		case <-closed:
		case <-time.After(8 * time.Second):
			e.t.Error("bot did not stop within 8 s")
		}
	})
	return cancel, result
}

// runResult waits (up to within) for Run's result.
func runResult(t *testing.T, done <-chan error, within time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("Run still running after %v", within)
		return nil
	}
}

// TestFatalCloseCodeStopsTheBot: a gateway that closes with a fatal code
// after READY (the token reset, an intent withdrawn) stops the bot with an
// error naming the code, instead of reconnecting forever.
func TestFatalCloseCodeStopsTheBot(t *testing.T) {
	// Each bot learns of the close only after discordgo's second between
	// the drop and the reconnect (its reader holds the session meanwhile).
	// The three gateways close before t.Parallel, so that the seconds pass
	// side by side while the package's other tests run; the results are
	// read once the test resumes.
	cases := []struct {
		code int
		want string
	}{
		{4004, "DISCORD_TOKEN"},
		{4014, "intents"},
		{4011, "sharding required"},
	}
	envs := make([]*env, len(cases))
	results := make([]<-chan error, len(cases))
	for i := range cases {
		envs[i] = newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
		_, results[i] = envs[i].launch(token, envs[i].srv.URL())
	}
	for i, tc := range cases {
		envs[i].srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PUT" && r.Status == 200 }, wait)
		envs[i].srv.FailGateway(tc.code, "Fatal.")
	}
	t.Parallel()
	for i, tc := range cases {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			err := runResult(t, results[i], wait)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprint(tc.code)) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want an error naming close code %d and %q", err, tc.code, tc.want)
			}
			if n := envs[i].srv.Identifies() + envs[i].srv.Resumes(); n > 2 {
				t.Errorf("%d IDENTIFY/RESUME after the fatal close, want at most one retry", n-1)
			}
		})
	}
}

// TestStartupErrorsNameTheAPIBase: a failed start names the configured API
// base, not discord.com, and a refused token points at DISCORD_TOKEN.
func TestStartupErrorsNameTheAPIBase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	down := "http://127.0.0.1:1"
	for _, tc := range []struct {
		name, token, base string
		want              []string
	}{
		{"token refused", "wrong-token", e.srv.URL(), []string{e.srv.URL(), "401", "check DISCORD_TOKEN"}},
		{"nothing listening", token, down, []string{down, "connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, done := e.launch(tc.token, tc.base)
			err := runResult(t, done, wait)
			if err == nil {
				t.Fatal("Run = nil, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Run = %q, want it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "discord.com") {
				t.Errorf("Run = %q names discord.com; the API base is %s", err, tc.base)
			}
		})
	}
}

// TestCancelWhileConnecting: a gateway that accepts the websocket and
// never says HELLO does not hold up a stop.
func TestCancelWhileConnecting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.srv.StallGateway(true)
	cancel, done := e.launch(token, e.srv.URL())
	e.srv.WaitGatewayDials(t, 1, wait)
	start := time.Now()
	cancel()
	if err := runResult(t, done, 3*time.Second); err != nil {
		t.Errorf("Run = %v, want nil (stopped while connecting)", err)
	}
	t.Logf("stopped %v after cancel", time.Since(start).Round(time.Millisecond))
}

// TestGlobalRateLimitSparesAnswers: while a global 429 holds the bot's
// other requests for 3 s, answers (interaction callbacks, exempt from the
// global limit) still go out at once, well within Discord's 3 s.
func TestGlobalRateLimitSparesAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	post, _ := e.ask(alice)
	e.srv.RateLimitNext("PATCH", "/channels/"+channelID+"/messages/", 3*time.Second, true)
	e.choose(bob, post, wrongOf(post)...) // its live-count edit meets the 429
	e.srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Injected }, wait)
	var pending []*discordtest.Pending
	for i := range 7 {
		m := discordtest.Member{ID: fmt.Sprint(7100 + i), Username: fmt.Sprint("member", i)}
		pending = append(pending, e.srv.Component(guildID, channelID, m, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), post.Correct...))
	}
	for i, p := range pending {
		r := p.WaitResponse(t, wait)
		if r.Latency > 1500*time.Millisecond {
			t.Errorf("answer %d: callback after %v, want it before the 3 s global limit ends", i, r.Latency)
		}
	}
	e.checkWire()
}

// TestCloseRepliesDespiteRateLimit: /quizadmin close answers within
// seconds while the message-edit route is rate limited for 30 s; the
// reveals follow once the scheduler retries them.
func TestCloseRepliesDespiteRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	first, _ := e.ask(alice)
	second, _ := e.ask(alice)
	e.srv.RateLimitNext("PATCH", "/channels/"+channelID+"/messages/", 30*time.Second, false)
	start := time.Now()
	content, _, _ := e.reply(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("close")))
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("close replied after %v, want within 4 s", d)
	}
	if !strings.Contains(content, "Closed 2 questions") || !strings.Contains(content, "rate-limiting") {
		t.Errorf("close reply %q, want both closed and the reveal promised for later", content)
	}
	for _, p := range []questions.PostID{first.ID, second.ID} {
		got, err := e.db.Post(p)
		if err != nil || !got.Closed {
			t.Errorf("post %d after close: %+v, %v; want closed", p, got, err)
		}
	}
	e.checkWire()
}

// TestLiveCountGivesUpOnForbidden: a live-count edit Discord refuses for
// good (403: the bot may no longer see the channel; 404: the message is
// gone) is not retried every tick until the question closes; the next
// answer tries again.
func TestLiveCountGivesUpOnForbidden(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	post, _ := e.ask(alice)
	route := fmt.Sprintf("/channels/%s/messages/%d", channelID, post.MessageID)
	for range 50 { // every retry would be refused too
		e.srv.FailNext("PATCH", route, 403, `{"message":"Missing Access","code":50001}`)
	}
	edits := func() int {
		n := 0
		for _, r := range e.srv.Requests() {
			if r.Method == "PATCH" && r.Route == route {
				n++
			}
		}
		return n
	}
	e.choose(bob, post, post.Correct...)
	if !e.logs.waitFor("live answer count given up", wait) {
		t.Fatalf("the refused live-count edit was not given up within %v (%d edits sent)", wait, edits())
	}
	if n := edits(); n != 1 {
		t.Errorf("%d live-count edits sent, want 1", n)
	}
	e.checkWireExcept(1)
}
