// Package discordtest runs internal/fakediscord, the Discord-compatible
// server, inside tests: [Start] listens on 127.0.0.1 and closes the server
// when the test ends, and the Wait helpers wait for what the bot does and
// fail the test (t.Fatalf) after a timeout. [VerifyTestMain] runs a
// package's tests and then checks for leaked goroutines.
//
// Everything else is fakediscord's: [Server] embeds *fakediscord.Server,
// and the types, constants and functions tests use (Options, Guild,
// Member, Option, Message, Request, …) are aliases of fakediscord's, so a
// test imports this package only. What the server serves, validates and
// records is documented in package fakediscord.
//
// This package imports testing and goleak: only tests may import it. The
// programs that run the server (the sandbox, the benchmarks) use
// fakediscord directly.
//
// # Wiring a bot to it
//
//	srv := discordtest.Start(t, discordtest.Options{})
//	dg, _ := discordgo.New("Bot test-token")
//	dg.Client = &http.Client{Timeout: 5 * time.Second, Transport: discordtest.Transport(srv.URL())}
//	dg.Identify.Intents = discordgo.IntentsGuilds
//	// register handlers, then dg.Open(); close dg before srv (register its
//	// t.Cleanup after Start, cleanups run last-in first-out).
//	p := srv.SlashCommand("8001", "6001", discordtest.Member{ID: "7001"}, "quiz")
//	resp := p.WaitResponse(t, 5*time.Second)
//
// All methods of [Server], [Pending] and [Hold] are safe for concurrent
// use; the Wait helpers call t.Fatalf, so call them from the test
// goroutine.
package discordtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

// The server's types, for tests that import only this package.
type (
	Options    = fakediscord.Options
	Guild      = fakediscord.Guild
	Channel    = fakediscord.Channel
	Member     = fakediscord.Member
	Option     = fakediscord.Option
	Attachment = fakediscord.Attachment
	Message    = fakediscord.Message
	Request    = fakediscord.Request
	File       = fakediscord.File
	Response   = fakediscord.Response
	Identify   = fakediscord.Identify
)

// DefaultPermissions and AdminPermissions are fakediscord's.
const (
	DefaultPermissions = fakediscord.DefaultPermissions
	AdminPermissions   = fakediscord.AdminPermissions
)

// DefaultGuild is fakediscord.DefaultGuild: "8001" "Study Group" owned by
// alice ("7001"), with the text channel "6001" named "quiz".
func DefaultGuild() Guild { return fakediscord.DefaultGuild() }

// Transport is fakediscord.Transport: a RoundTripper that sends requests
// for Discord's hosts to baseURL.
func Transport(baseURL string) http.RoundTripper { return fakediscord.Transport(baseURL) }

// Do sends a request as the bot of token (none when "") to the server at
// baseURL: method, path (as "/api/v9/…") and a JSON body ("" for none). It
// returns the status and the body, and fails t if no answer comes.
func Do(t testing.TB, baseURL, token, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, baseURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bot "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// Server is a fakediscord server run by a test, with the Wait helpers.
// Every method of *fakediscord.Server is available; those that dispatch an
// interaction or hold a request return this package's [Pending] and
// [Hold], which add Wait helpers.
type Server struct {
	*fakediscord.Server
}

// Start starts a server listening on 127.0.0.1 on a free port (HTTP and the
// websocket gateway share it) and registers its Close with t.Cleanup.
// Built with the race detector, a test that sets no CallbackDeadline gets
// [RaceCallbackDeadline].
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.CallbackDeadline == 0 && raceEnabled {
		opts.CallbackDeadline = RaceCallbackDeadline
	}
	s, err := fakediscord.Listen("127.0.0.1:0", opts)
	if err != nil {
		t.Fatalf("discordtest: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		// As httptest.Server.Close does: the test's clients mostly use
		// http.DefaultTransport, whose connections to the server are dead.
		if tr, ok := http.DefaultTransport.(interface{ CloseIdleConnections() }); ok {
			tr.CloseIdleConnections()
		}
	})
	return &Server{s}
}

// RaceCallbackDeadline is the server's callback deadline ([Options]
// CallbackDeadline, Discord's 3 s otherwise) in a test built with the race
// detector, when the test sets none: the detector makes the bot several
// times slower, and CI runs every package's tests with it side by side on
// two cores, where a bot that answers in time can miss 3 s. Without -race
// (`go test ./...`) a late answer still fails against Discord's 3 s.
const RaceCallbackDeadline = 10 * time.Second

// Wrap gives a server started elsewhere (the sandbox's) the Wait helpers.
// It does not take over closing it.
func Wrap(s *fakediscord.Server) *Server { return &Server{s} }

// waitT waits up to timeout for cond (see fakediscord.Server.Wait) and
// fails t, naming what it waited for, when it times out.
func waitT(t testing.TB, s *fakediscord.Server, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := s.Wait(ctx, cond); err != nil {
		t.Fatalf("discordtest: timed out after %v waiting for %s", timeout, what)
	}
}

// WaitRequest returns the first recorded request (earlier ones included)
// for which match returns true, waiting up to timeout for it to arrive. It
// calls t.Fatalf on timeout.
func (s *Server) WaitRequest(t testing.TB, match func(Request) bool, timeout time.Duration) Request {
	t.Helper()
	var got Request
	seen := 0 // requests are recorded once and never change: read each once
	waitT(t, s.Server, timeout, "a matching request", func() bool {
		for _, r := range s.RequestsFrom(seen) {
			seen++
			if match(r) {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

// WaitMessage waits up to timeout for a message in any channel (current
// state, oldest first) for which match returns true, and returns it. It
// calls t.Fatalf on timeout.
func (s *Server) WaitMessage(t testing.TB, timeout time.Duration, match func(Message) bool) Message {
	t.Helper()
	var got Message
	waitT(t, s.Server, timeout, "a matching message", func() bool {
		for _, m := range s.AllMessages() {
			if match(m) {
				got = m
				return true
			}
		}
		return false
	})
	return got
}

// WaitDMs waits up to timeout until the bot sent at least n direct
// messages to userID and returns them all. It calls t.Fatalf on timeout.
func (s *Server) WaitDMs(t testing.TB, userID string, n int, timeout time.Duration) []Message {
	t.Helper()
	var out []Message
	waitT(t, s.Server, timeout, "direct messages to "+userID, func() bool {
		out = s.DMs(userID)
		return len(out) >= n
	})
	return out
}

// WaitConnected waits until Connected is true (every shard has a ready
// session), calling t.Fatalf after timeout.
func (s *Server) WaitConnected(t testing.TB, timeout time.Duration) {
	t.Helper()
	waitT(t, s.Server, timeout, "a connected gateway session on every shard", s.Connected)
}

// WaitShardConnected waits until ShardConnected(shard), calling t.Fatalf
// after timeout.
func (s *Server) WaitShardConnected(t testing.TB, shard int, timeout time.Duration) {
	t.Helper()
	waitT(t, s.Server, timeout, fmt.Sprintf("a connected gateway session on shard %d", shard),
		func() bool { return s.ShardConnected(shard) })
}

// WaitGatewayDials waits until at least n gateway websocket connections
// have been accepted (stalled ones included), calling t.Fatalf after
// timeout.
func (s *Server) WaitGatewayDials(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	waitT(t, s.Server, timeout, fmt.Sprintf("%d gateway connections", n),
		func() bool { return s.GatewayDials() >= n })
}

// Pending is an interaction the server dispatched (see
// fakediscord.Pending), with the Wait helpers.
type Pending struct {
	*fakediscord.Pending
	srv *fakediscord.Server
}

func (s *Server) pending(p *fakediscord.Pending) *Pending { return &Pending{p, s.Server} }

// SlashCommand is fakediscord.Server.SlashCommand.
func (s *Server) SlashCommand(guildID, channelID string, user Member, name string, options ...Option) *Pending {
	return s.pending(s.Server.SlashCommand(guildID, channelID, user, name, options...))
}

// Autocomplete is fakediscord.Server.Autocomplete.
func (s *Server) Autocomplete(guildID, channelID string, user Member, name string, options ...Option) *Pending {
	return s.pending(s.Server.Autocomplete(guildID, channelID, user, name, options...))
}

// Component is fakediscord.Server.Component.
func (s *Server) Component(guildID, channelID string, user Member, messageID, customID string, values ...string) *Pending {
	return s.pending(s.Server.Component(guildID, channelID, user, messageID, customID, values...))
}

// ModalSubmit is fakediscord.Server.ModalSubmit.
func (s *Server) ModalSubmit(guildID, channelID string, user Member, messageID, customID string, fields map[string]string) *Pending {
	return s.pending(s.Server.ModalSubmit(guildID, channelID, user, messageID, customID, fields))
}

// Dispatch is fakediscord.Server.Dispatch.
func (s *Server) Dispatch(raw json.RawMessage) *Pending {
	return s.pending(s.Server.Dispatch(raw))
}

// DispatchToShard is fakediscord.Server.DispatchToShard.
func (s *Server) DispatchToShard(shard int, raw json.RawMessage) *Pending {
	return s.pending(s.Server.DispatchToShard(shard, raw))
}

// WaitResponse waits up to timeout for the initial callback, calling
// t.Fatalf on timeout.
func (p *Pending) WaitResponse(t testing.TB, timeout time.Duration) Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r, err := p.Response(ctx)
	if err != nil {
		t.Fatalf("discordtest: timed out after %v waiting for the callback of interaction %s", timeout, p.ID())
	}
	return r
}

// WaitOriginal waits up to timeout until @original exists and match returns
// true for it; a nil match waits for it to exist and not be a deferred
// "thinking…" placeholder (that is, the edit after a type 5 callback). It
// calls t.Fatalf on timeout.
func (p *Pending) WaitOriginal(t testing.TB, timeout time.Duration, match func(Message) bool) Message {
	t.Helper()
	if match == nil {
		match = func(m Message) bool { return !m.Loading() }
	}
	var got Message
	waitT(t, p.srv, timeout, "@original of interaction "+p.ID(), func() bool {
		m, ok := p.Original()
		if ok && match(m) {
			got = m
			return true
		}
		return false
	})
	return got
}

// WaitFollowups waits up to timeout until at least n follow-ups exist and
// returns them all, calling t.Fatalf on timeout.
func (p *Pending) WaitFollowups(t testing.TB, n int, timeout time.Duration) []Message {
	t.Helper()
	var out []Message
	waitT(t, p.srv, timeout, fmt.Sprintf("%d follow-ups of interaction %s", n, p.ID()), func() bool {
		out = p.Followups()
		return len(out) >= n
	})
	return out
}

// Hold is a REST request held before the server answers it (see
// fakediscord.Server.HoldNext), with WaitArrived.
type Hold struct {
	*fakediscord.Hold
	method, prefix string
}

// HoldNext is fakediscord.Server.HoldNext.
func (s *Server) HoldNext(method, pathPrefix string) *Hold {
	return &Hold{s.Server.HoldNext(method, pathPrefix), strings.ToUpper(method), pathPrefix}
}

// WaitArrived waits up to timeout for the request to arrive, calling
// t.Fatalf on timeout.
func (h *Hold) WaitArrived(t testing.TB, timeout time.Duration) {
	t.Helper()
	select {
	case <-h.Arrived():
	case <-time.After(timeout):
		t.Fatalf("discordtest: timed out after %v waiting for a %s %s… request to hold", timeout, h.method, h.prefix)
	}
}
