package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// dmServer opens every DM channel (as 7001) and answers the message sent
// in it with status and body.
type dmServer struct {
	status int
	body   string
}

func (d dmServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	status, body := d.status, d.body
	if req.URL.Path == "/api/v9/users/@me/channels" {
		status, body = http.StatusOK, `{"id":"7001","type":1}`
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(body)), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// TestDM: a direct message Discord refuses because the member's direct
// messages are closed (403, code 50007) reads as ErrDMClosed; other
// refusals do not, and Permanent tells those that retrying cannot help.
func TestDM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		body      string
		ok        bool
		closed    bool
		permanent bool
	}{
		{"sent", http.StatusOK, `{"id":"1","channel_id":"7001"}`, true, false, false},
		{"closed", http.StatusForbidden, `{"message":"Cannot send messages to this user","code":50007}`, false, true, true},
		{"missing access", http.StatusForbidden, `{"message":"Missing Access","code":50001}`, false, false, true},
		{"server error", http.StatusInternalServerError, `{"message":"oops","code":0}`, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := testClient(t, dmServer{status: tt.status, body: tt.body})
			err := c.DM(context.Background(), "5001", &discordgo.MessageSend{Content: "hi", AllowedMentions: noPings()})
			if got := err == nil; got != tt.ok {
				t.Fatalf("got %v, want success %v", err, tt.ok)
			}
			if got := errors.Is(err, ErrDMClosed); got != tt.closed {
				t.Errorf("errors.Is(%v, ErrDMClosed) = %v, want %v", err, got, tt.closed)
			}
			if got := Permanent(err); got != tt.permanent {
				t.Errorf("Permanent(%v) = %v, want %v", err, got, tt.permanent)
			}
		})
	}
}

func TestRateLimited(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused before sending", fmt.Errorf("edit message 1: %w", ErrRateLimited), true},
		{"a 429 not retried", fmt.Errorf("edit message 1: %w", &discordgo.RateLimitError{RateLimit: &discordgo.RateLimit{}}), true},
		{"another error", errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		if got := RateLimited(tt.err); got != tt.want {
			t.Errorf("%s: RateLimited(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// limitedServer answers the first request of route ("METHOD /path") 429
// with the route limited for resetAfter (X-RateLimit-Remaining 0), and
// every other request 200 with body; it counts the requests of each route.
type limitedServer struct {
	route      string
	resetAfter string
	body       string
	mu         sync.Mutex
	seen       map[string]int
}

func (l *limitedServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	l.mu.Lock()
	l.seen[req.Method+" "+req.URL.Path]++
	limited := req.Method+" "+req.URL.Path == l.route && l.seen[l.route] == 1
	l.mu.Unlock()
	status, body, h := http.StatusOK, l.body, http.Header{}
	if limited {
		status, body = http.StatusTooManyRequests, `{"message":"You are being rate limited.","retry_after":`+l.resetAfter+`,"global":false}`
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset-After", l.resetAfter)
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: h,
		Body: io.NopCloser(strings.NewReader(body)), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

func (l *limitedServer) requests(route string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[route]
}

// TestBackgroundWaitsEndWithTheContext: the scheduler's and the
// refresher's Post, Edit and DM (a Background context) fail at once with
// the 429 they meet; the next one on that route waits out the limit Discord
// gave it, as discordgo would, but stops waiting when the context ends
// (discordgo sleeps through it, deaf to the context: a bot being stopped
// would wait for a 60 s limit to pass).
func TestBackgroundWaitsEndWithTheContext(t *testing.T) {
	t.Parallel()
	edit := func(ctx context.Context, c *Client) error {
		content := "3 answers"
		return c.Edit(ctx, &discordgo.MessageEdit{Channel: "6001", ID: "5001", Content: &content, AllowedMentions: noPings()})
	}
	post := func(ctx context.Context, c *Client) error {
		_, err := c.Post(ctx, "6001", &discordgo.MessageSend{Content: "question", AllowedMentions: noPings()})
		return err
	}
	dm := func(ctx context.Context, c *Client) error {
		return c.DM(ctx, "7001", &discordgo.MessageSend{Content: "result", AllowedMentions: noPings()})
	}
	tests := []struct {
		name  string
		route string
		send  func(context.Context, *Client) error
	}{
		{"Edit", "PATCH /api/v9/channels/6001/messages/5001", edit},
		{"Post", "POST /api/v9/channels/6001/messages", post},
		{"DM", "POST /api/v9/users/@me/channels", dm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := &limitedServer{route: tt.route, resetAfter: "60", body: `{"id":"5002","channel_id":"6001"}`, seen: map[string]int{}}
			c := testClient(t, srv)
			if err := tt.send(Background(context.Background()), c); !RateLimited(err) {
				t.Fatalf("first request: %v, want a 429 not retried", err)
			}
			ctx, cancel := context.WithCancel(Background(context.Background()))
			done := make(chan error, 1)
			go func() { done <- tt.send(ctx, c) }()
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("second request: %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("second request still waiting for the 60 s limit 5 s after its context ended")
			}
			if n := srv.requests(tt.route); n != 1 {
				t.Errorf("%d requests of %s, want 1 (the second waits for the limit)", n, tt.route)
			}

			// A short limit is waited out, and the request sent.
			srv = &limitedServer{route: tt.route, resetAfter: "0.05", body: `{"id":"5002","channel_id":"6001"}`, seen: map[string]int{}}
			c = testClient(t, srv)
			bg := Background(t.Context())
			if err := tt.send(bg, c); !RateLimited(err) {
				t.Fatalf("first request: %v, want a 429 not retried", err)
			}
			if err := tt.send(bg, c); err != nil {
				t.Fatalf("request after a 50 ms limit: %v", err)
			}
			if n := srv.requests(tt.route); n != 2 {
				t.Errorf("%d requests of %s, want 2", n, tt.route)
			}
		})
	}
}

// TestRegisterCommands: the commands are put, in one request, on the
// application's global route or, with a guild, on that guild's; what
// Discord answers (the commands as created) is not needed.
func TestRegisterCommands(t *testing.T) {
	t.Parallel()
	cmds := []*discordgo.ApplicationCommand{{Name: "quiz", Description: "Quizzes"}}
	for _, tt := range []struct{ guild, want string }{
		{"", "PUT /api/v9/applications/9001/commands"},
		{"8001", "PUT /api/v9/applications/9001/guilds/8001/commands"},
	} {
		rt := &replyServer{status: http.StatusOK, body: `[{"id":"1","application_id":"9001","name":"quiz","description":"Quizzes","version":"1"}]`}
		if err := testClient(t, rt).RegisterCommands(context.Background(), "9001", tt.guild, cmds); err != nil {
			t.Errorf("guild %q: %v", tt.guild, err)
		}
		if got := rt.sent(); len(got) != 1 || got[0] != tt.want {
			t.Errorf("guild %q: requests %q, want %q", tt.guild, got, tt.want)
		}
	}
	refused := &replyServer{status: http.StatusBadRequest, body: `{"message":"Invalid Form Body","code":50035}`}
	var re *discordgo.RESTError
	if err := testClient(t, refused).RegisterCommands(context.Background(), "9001", "", cmds); !errors.As(err, &re) || re.Message.Code != 50035 {
		t.Errorf("refused registration: %v, want the RESTError with code 50035", err)
	}
}
