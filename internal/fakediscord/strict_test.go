package fakediscord_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/clock"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// send sends method path with host as the Host header and an
// authorization for token ("" for none), and returns the status and body.
func send(t *testing.T, srv *discordtest.Server, method, path, host, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bot "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOwnHostOnly: with the option, requests for another host are refused
// whatever the path, and not recorded; without it, they are served.
func TestOwnHostOnly(t *testing.T) {
	t.Parallel()
	strict := discordtest.Start(t, discordtest.Options{OwnHostOnly: true})
	lax := discordtest.Start(t, discordtest.Options{})
	strict.AddFile("notes.txt", []byte("hello"))
	lax.AddFile("notes.txt", []byte("hello"))
	port := strict.URL()[strings.LastIndex(strict.URL(), ":")+1:]
	tests := []struct {
		name, path, host string
		want             int
	}{
		{"own address", "/api/v9/users/@me", "", http.StatusOK},
		{"localhost and the port", "/api/v9/users/@me", "localhost:" + port, http.StatusOK},
		{"a rebinding name", "/api/v9/users/@me", "evil.example:" + port, http.StatusMisdirectedRequest},
		{"a rebinding name without port", "/api/v9/users/@me", "evil.example", http.StatusMisdirectedRequest},
		{"the address without port", "/api/v9/users/@me", "127.0.0.1", http.StatusMisdirectedRequest},
		{"another port", "/api/v9/users/@me", "127.0.0.1:1", http.StatusMisdirectedRequest},
		{"a file, own address", "/files/notes.txt", "", http.StatusOK},
		{"a file, another host", "/files/notes.txt", "evil.example:" + port, http.StatusMisdirectedRequest},
		{"the gateway, another host", "/ws", "evil.example:" + port, http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(strict.Requests())
			got, body := send(t, strict, "GET", tt.path, tt.host, "x", "")
			if got != tt.want {
				t.Fatalf("GET %s with Host %q: got %d %s, want %d", tt.path, tt.host, got, body, tt.want)
			}
			if got == http.StatusMisdirectedRequest {
				if !strings.Contains(body, "is not this server's") {
					t.Errorf("refusal body: got %s, want it to say the host is not this server's", body)
				}
				if n := len(strict.Requests()); n != before {
					t.Errorf("a refused request was recorded: %d requests, want %d", n, before)
				}
			}
			if tt.path == "/ws" {
				return // the lax server would answer 400: not a websocket handshake
			}
			if got, body := send(t, lax, "GET", tt.path, tt.host, "x", ""); got != http.StatusOK {
				t.Errorf("without OwnHostOnly, GET %s with Host %q: got %d %s, want 200", tt.path, tt.host, got, body)
			}
		})
	}
	if v := strict.Violations(); len(v) != 0 {
		t.Errorf("violations: got %q, want none (a foreign host is not the bot's mistake)", v)
	}
}

// TestOnlyItsToken: with Options.Token, another token is refused with 401
// on REST, as Discord does.
func TestOnlyItsToken(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{Token: "secret"})
	for _, tt := range []struct {
		token string
		want  int
	}{{"secret", http.StatusOK}, {"other", http.StatusUnauthorized}, {"", http.StatusUnauthorized}} {
		if got, body := send(t, srv, "GET", "/api/v9/users/@me", "", tt.token, ""); got != tt.want {
			t.Errorf("token %q: got %d %s, want %d", tt.token, got, body, tt.want)
		}
	}
}

// TestNowDrivesTime: the server's time is Options.Now's: message
// timestamps and snowflakes, and the callback deadline, which a jump of
// the clock past it makes a late callback (10062).
func TestNowDrivesTime(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 6, 1, 9, 0, 0, 0, time.UTC)
	fake := clock.NewFake(start)
	srv := discordtest.Start(t, discordtest.Options{Now: fake.Now})

	status, body := send(t, srv, "POST", "/api/v9/channels/6001/messages", "", "x",
		`{"content":"hi","allowed_mentions":{"parse":[]}}`)
	if status != http.StatusOK {
		t.Fatalf("post a message: got %d %s", status, body)
	}
	msgs := srv.Messages("6001")
	if len(msgs) != 1 {
		t.Fatalf("messages: got %d, want 1", len(msgs))
	}
	if got := msgs[0].CreatedAt; !got.Equal(start) {
		t.Errorf("CreatedAt: got %v, want the clock's %v", got, start)
	}
	if got, err := discordgo.SnowflakeTimestamp(msgs[0].ID); err != nil || !got.Equal(start) {
		t.Errorf("the id's time: got %v (%v), want %v", got, err, start)
	}

	gw := dialGateway(t, srv)
	if f := gw.identify(0, 0); f.T != "READY" {
		t.Fatalf("IDENTIFY: got %+v, want READY", f)
	}
	srv.WaitConnected(t, wait)
	// answer waits for p's dispatch, advances the clock by d and sends
	// p's callback.
	answer := func(p *discordtest.Pending, d time.Duration) (int, string) {
		t.Helper()
		for {
			f, err := gw.read()
			if err != nil {
				t.Fatal(err)
			}
			if f.T == "INTERACTION_CREATE" {
				break
			}
		}
		fake.Advance(d)
		return send(t, srv, "POST", "/api/v9/interactions/"+p.ID()+"/"+p.Token()+"/callback", "", "x",
			`{"type":4,"data":{"content":"ok","allowed_mentions":{"parse":[]}}}`)
	}
	alice := discordtest.Member{ID: "7001"}
	if got, body := answer(srv.SlashCommand("8001", "6001", alice, "quiz"), time.Second); got != http.StatusNoContent {
		t.Fatalf("a callback in time: got %d %s, want 204", got, body)
	}
	got, body := answer(srv.SlashCommand("8001", "6001", alice, "quiz"), time.Hour)
	if got != http.StatusNotFound || !strings.Contains(body, "10062") {
		t.Errorf("a callback an hour later by the clock: got %d %s, want 404 with code 10062", got, body)
	}
}
