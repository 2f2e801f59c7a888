package metrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRoute(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/api/v10/channels/123456789012345678/messages", "/channels/{id}/messages"},
		{"/api/v9/gateway/bot", "/gateway/bot"},
		{"/api/v10/interactions/1234/aW50ZXJhY3Rpb246MTIzNDp0b2tlbg/callback", "/interactions/{id}/{}/callback"},
		{"/api/v10/webhooks/9001/tok-5101/messages/@original", "/webhooks/{id}/{}/messages/@original"},
		{"/api/v10/applications/9001/guilds/8001/commands", "/applications/{id}/guilds/{id}/commands"},
		{"/api/v10/channels/1/messages/2/reactions/%F0%9F%91%8D/@me", "/channels/{id}/messages/{id}/reactions/{}/@me"},
		{"/api/v10/channels/1/messages/bulk-delete", "/channels/{id}/messages/bulk-delete"},
	}
	for _, tt := range tests {
		if got := Route(tt.path); got != tt.want {
			t.Errorf("Route(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// scrape returns the metrics m serves, in the text format.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: status %d, want 200", rec.Code)
	}
	return rec.Body.String()
}

// wantLines fails unless every line is in the exposition text.
func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, "\n"+l+"\n") {
			t.Errorf("metrics lack the line %q", l)
		}
	}
}

func TestRecorders(t *testing.T) {
	m := New()
	m.AnswerRecorded(40 * time.Millisecond)
	m.AnswerRecorded(1500 * time.Millisecond)
	m.Commit(1)
	m.Commit(7)
	m.Reconnect()
	m.SchedulerLag(2 * time.Second)
	m.SchedulerLag(-time.Second) // a timer that fired early counts as on time
	open := 3
	m.OpenQuestions(func() (int, error) { return open, nil })
	text := scrape(t, m)
	wantLines(t, text,
		"quizhost_answers_total 2",
		`quizhost_answer_latency_seconds_bucket{le="0.05"} 1`,
		`quizhost_answer_latency_seconds_bucket{le="2"} 2`,
		"quizhost_answer_latency_seconds_count 2",
		"quizhost_storage_commits_total 2",
		`quizhost_storage_answers_per_commit_bucket{le="1"} 1`,
		`quizhost_storage_answers_per_commit_bucket{le="8"} 2`,
		"quizhost_storage_answers_per_commit_sum 8",
		"quizhost_gateway_reconnects_total 1",
		`quizhost_scheduler_lag_seconds_bucket{le="0.001"} 1`,
		"quizhost_scheduler_lag_seconds_sum 2",
		"quizhost_open_questions 3",
	)
	if !strings.Contains(text, "go_goroutines") || !strings.Contains(text, "process_") {
		t.Error("metrics lack the Go runtime's and the process's collectors")
	}
	open = 5
	wantLines(t, scrape(t, m), "quizhost_open_questions 5")
}

func TestNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.AnswerRecorded(time.Second)
	m.Commit(3)
	m.REST("GET /x", 500)
	m.Reconnect()
	m.SchedulerLag(time.Second)
	m.OpenQuestions(func() (int, error) { return 0, nil })
}

// TestTransport sends requests through the counting transport to a server
// on 127.0.0.1 that answers as Discord does, and reads the counts back.
func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/callback"):
			w.WriteHeader(204)
		case strings.Contains(r.URL.Path, "/messages/"):
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
		case strings.HasSuffix(r.URL.Path, "/messages"):
			w.WriteHeader(403)
		default:
			w.WriteHeader(200)
		}
	}))
	defer srv.Close()
	m := New()
	c := &http.Client{Transport: m.Transport(nil)}
	send := func(method, path string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	send("POST", "/api/v10/interactions/111/secret-interaction-token/callback")
	send("POST", "/api/v10/interactions/112/another-secret-token/callback")
	send("POST", "/api/v10/channels/6001/messages")
	send("PATCH", "/api/v10/channels/6001/messages/42")
	send("PATCH", "/api/v10/channels/6002/messages/43")
	send("GET", "/api/v10/gateway/bot")

	// No response at all: a transport error.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	if _, err := c.Get(deadURL + "/api/v10/users/@me"); err == nil {
		t.Fatal("GET of a closed server: got nil error")
	}
	// A request its caller cancelled is not an error of Discord's.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v10/users/1", nil)
	if _, err := c.Do(req); err == nil {
		t.Fatal("a cancelled request: got nil error")
	}

	text := scrape(t, m)
	wantLines(t, text,
		`quizhost_discord_rest_requests_total{route="POST /interactions/{id}/{}/callback"} 2`,
		`quizhost_discord_rest_requests_total{route="GET /gateway/bot"} 1`,
		`quizhost_discord_rest_errors_total{route="POST /channels/{id}/messages",status="403"} 1`,
		`quizhost_discord_rest_rate_limited_total{route="PATCH /channels/{id}/messages/{id}"} 2`,
		`quizhost_discord_rest_errors_total{route="GET /users/@me",status="transport"} 1`,
	)
	for _, bad := range []string{"secret", "GET /users/{id}", `status="429"`} {
		if strings.Contains(text, bad) {
			t.Errorf("metrics contain %q", bad)
		}
	}
}
