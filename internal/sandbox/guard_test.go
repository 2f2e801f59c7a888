package sandbox

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// webRequest is a request to the sandbox's page; empty fields take the
// page's own values (its host, no Origin, application/json).
type webRequest struct {
	host        string
	origin      string
	contentType string
	noType      bool // send no Content-Type at all
}

// do sends method path (body for POSTs) to sb as r describes, and returns
// the status and the body (for /events, only the first event).
func (r webRequest) do(t *testing.T, sb *Sandbox, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if method == http.MethodPost {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, sb.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if r.host != "" {
		req.Host = r.host
	}
	if r.origin != "" {
		req.Header.Set("Origin", r.origin)
	}
	switch {
	case r.noType:
	case r.contentType != "":
		req.Header.Set("Content-Type", r.contentType)
	case method == http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var b []byte
	if path == "/events" && resp.StatusCode == http.StatusOK {
		// The stream never ends: its first event is enough.
		b = make([]byte, len("event: change\n"))
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			t.Fatalf("%s %s: read the first event: %v", method, path, err)
		}
	} else if b, err = io.ReadAll(resp.Body); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, string(b)
}

// apiCall is a route of the API and a valid request body for it.
type apiCall struct{ path, body string }

// apiCalls are a call to each API route: each makes the bot answer an
// interaction when it gets through.
func apiCalls() []apiCall {
	return []apiCall{
		{"/api/command", `{"channel":"6001","as":"7001","name":"quiz","path":["ask"],"options":[{"name":"bank","value":"Test Bank"}]}`},
		{"/api/autocomplete", `{"channel":"6001","as":"7001","name":"quiz","path":["ask"],"options":[{"name":"bank","value":"Te"}],"focused":"bank"}`},
		{"/api/component", `{"channel":"6001","as":"7002","message":"1","custom_id":"a1:1","values":["A"]}`},
		{"/api/modal", `{"channel":"6001","as":"7001","message":"","custom_id":"x","fields":{"text":"y"}}`},
	}
}

// TestWebRefusesOtherSites sends what another web page could make a
// browser send (a rebinding page's Host, a foreign Origin, a form or
// text/plain body) to every route: each is refused with its status and a
// reason, and nothing reaches the bot.
func TestWebRefusesOtherSites(t *testing.T) {
	sb := startSandbox(t, testBank)
	_, port, err := net.SplitHostPort(strings.TrimPrefix(sb.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	own := strings.TrimPrefix(sb.URL(), "http://")
	tests := []struct {
		name   string
		req    webRequest
		routes string // "all", "api" (the POSTs), "events+api"
		want   int
		reason string
	}{
		{"rebinding name", webRequest{host: "attacker.example:" + port}, "all", http.StatusForbidden, `host "attacker.example:` + port + `" is not this sandbox's`},
		{"rebinding name with its own origin", webRequest{host: "attacker.example:" + port, origin: "http://attacker.example:" + port},
			"all", http.StatusForbidden, "is not this sandbox's"},
		{"another port", webRequest{host: "127.0.0.1:1"}, "all", http.StatusForbidden, "is not this sandbox's"},
		{"foreign origin", webRequest{origin: "http://attacker.example"}, "events+api", http.StatusForbidden, `cross-origin request from "http://attacker.example"`},
		{"opaque origin", webRequest{origin: "null"}, "events+api", http.StatusForbidden, `cross-origin request from "null"`},
		{"https origin", webRequest{origin: "https://" + own}, "events+api", http.StatusForbidden, "cross-origin request"},
		{"localhost origin to 127.0.0.1", webRequest{origin: "http://localhost:" + port}, "events+api", http.StatusForbidden, "cross-origin request"},
		{"origin with a path", webRequest{origin: "http://" + own + "/x"}, "events+api", http.StatusForbidden, "cross-origin request"},
		{"foreign origin with JSON", webRequest{origin: "http://attacker.example", contentType: "application/json"}, "api", http.StatusForbidden, "cross-origin request"},
		{"text/plain", webRequest{contentType: "text/plain;charset=UTF-8"}, "api", http.StatusUnsupportedMediaType, "want Content-Type: application/json"},
		{"form", webRequest{contentType: "application/x-www-form-urlencoded"}, "api", http.StatusUnsupportedMediaType, "want Content-Type: application/json"},
		{"multipart form", webRequest{contentType: "multipart/form-data; boundary=x"}, "api", http.StatusUnsupportedMediaType, "want Content-Type: application/json"},
		{"no content type", webRequest{noType: true}, "api", http.StatusUnsupportedMediaType, "want Content-Type: application/json"},
		{"text/plain from the page's own origin", webRequest{origin: "http://" + own, contentType: "text/plain"}, "api", http.StatusUnsupportedMediaType, "want Content-Type: application/json"},
	}
	type route struct{ method, path, body string }
	var api []route
	for _, c := range apiCalls() {
		api = append(api, route{http.MethodPost, c.path, c.body})
	}
	api = append(api, route{http.MethodPost, "/api/advance", `{"by":"1h"}`})
	gets := []route{
		{http.MethodGet, "/channels/" + quizChannel + "?as=7001", ""},
		{http.MethodGet, "/static/app.js", ""},
		{http.MethodGet, "/", ""},
		{http.MethodGet, "/files/attachments/1/chart.png", ""},
	}
	events := route{http.MethodGet, "/events", ""}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes := api
			switch tt.routes {
			case "all":
				routes = append(append(append([]route(nil), gets...), events), api...)
			case "events+api":
				routes = append([]route{events}, api...)
			}
			for _, rt := range routes {
				status, body := tt.req.do(t, sb, rt.method, rt.path, rt.body)
				if status != tt.want || !strings.Contains(body, tt.reason) {
					t.Errorf("%s %s: got %d %q, want %d with %q", rt.method, rt.path, status, strings.TrimSpace(body), tt.want, tt.reason)
				}
			}
			if n := sb.Server().Callbacks(); n != 0 {
				t.Errorf("after refused requests: got %d interactions answered by the bot, want 0", n)
			}
		})
	}
	if n := len(sb.Server().Messages(quizChannel)); n != 0 {
		t.Errorf("#quiz after refused requests: got %d messages, want 0", n)
	}
	if off := sb.clock.Offset(); off != 0 {
		t.Errorf("the clock after refused requests to advance it: got %v ahead, want 0", off)
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if len(sb.calls) != 0 {
		t.Errorf("interactions the page made: got %v, want none", sb.calls)
	}
}

// TestWebAcceptsItsPage sends what the sandbox's own page sends, under
// each name the page may be opened as: each gets through, and the API
// calls reach the bot.
func TestWebAcceptsItsPage(t *testing.T) {
	sb := startSandbox(t, testBank)
	own := strings.TrimPrefix(sb.URL(), "http://")
	_, port, err := net.SplitHostPort(own)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  webRequest
	}{
		{"no origin (curl)", webRequest{}},
		{"the page's origin", webRequest{origin: "http://" + own}},
		{"JSON with a charset", webRequest{origin: "http://" + own, contentType: "application/json; charset=utf-8"}},
		{"opened as localhost", webRequest{host: "localhost:" + port, origin: "http://localhost:" + port}},
		{"opened as [::1]", webRequest{host: "[::1]:" + port, origin: "http://[::1]:" + port}},
		{"host without the port", webRequest{host: "127.0.0.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/channels/" + quizChannel + "?as=7001", "/static/app.js", "/events"} {
				status, body := tt.req.do(t, sb, http.MethodGet, path, "")
				if status != http.StatusOK {
					t.Errorf("GET %s: got %d %q, want 200", path, status, strings.TrimSpace(body))
				}
			}
			for _, c := range apiCalls() {
				before := sb.Server().Callbacks()
				status, body := tt.req.do(t, sb, http.MethodPost, c.path, c.body)
				if status != http.StatusOK {
					t.Errorf("POST %s: got %d %q, want 200", c.path, status, strings.TrimSpace(body))
				}
				if got := sb.Server().Callbacks() - before; got != 1 {
					t.Errorf("POST %s: got %d interactions answered by the bot, want 1 (reply %s)", c.path, got, strings.TrimSpace(body))
				}
			}
		})
	}
}

// TestPageCannotBeFramed: every answer of the page, refusals included,
// forbids other sites to frame it.
func TestPageCannotBeFramed(t *testing.T) {
	sb := startSandbox(t, testBank)
	tests := []struct {
		name, method, path string
		req                webRequest
	}{
		{"the channel", http.MethodGet, "/channels/" + quizChannel + "?as=7001", webRequest{}},
		{"the script", http.MethodGet, "/static/app.js", webRequest{}},
		{"an unknown file", http.MethodGet, "/files/attachments/1/x.png", webRequest{}},
		{"a refused host", http.MethodGet, "/channels/" + quizChannel, webRequest{host: "attacker.example"}},
		{"a refused origin", http.MethodPost, "/api/command", webRequest{origin: "http://attacker.example"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, sb.URL()+tt.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.req.host != "" {
				req.Host = tt.req.host
			}
			if tt.req.origin != "" {
				req.Header.Set("Origin", tt.req.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy: got %q, want frame-ancestors 'none'", csp)
			}
			if xfo := resp.Header.Get("X-Frame-Options"); xfo != "DENY" {
				t.Errorf("X-Frame-Options: got %q, want DENY", xfo)
			}
		})
	}
}

// TestEmbeddedServerAnswersOnlyTheBot: the built-in Discord port refuses
// another Host (a rebinding page) and any token but the bot's own, and
// the bot's own requests still get through.
func TestEmbeddedServerAnswersOnlyTheBot(t *testing.T) {
	sb := startSandbox(t, testBank)
	srv := sb.Server()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, host, auth string
		want                   int
	}{
		{"the bot", "/api/v9/users/@me", "", "Bot " + sb.token, http.StatusOK},
		{"another token", "/api/v9/users/@me", "", "Bot sandbox", http.StatusUnauthorized},
		{"the token without Bot", "/api/v9/users/@me", "", sb.token, http.StatusUnauthorized},
		{"no token", "/api/v9/users/@me", "", "", http.StatusUnauthorized},
		{"a rebinding name with the token", "/api/v9/users/@me", "attacker.example:" + port, "Bot " + sb.token, http.StatusMisdirectedRequest},
		{"a rebinding name, a file", "/files/attachments/1/x.png", "attacker.example:" + port, "", http.StatusMisdirectedRequest},
		{"a rebinding name, the gateway", "/ws", "attacker.example:" + port, "", http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL()+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET %s (Host %q, Authorization %q): got %d %s, want %d", tt.path, tt.host, tt.auth, resp.StatusCode, b, tt.want)
			}
		})
	}
	if len(sb.token) < 32 {
		t.Errorf("the bot's token: got %d characters, want one no page can guess", len(sb.token))
	}
}
