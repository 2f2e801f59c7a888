package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

func TestCheckConfig(t *testing.T) {
	const token = "0123456789abcdef"
	tests := []struct {
		name, addr, token string
		want              []string // substrings of the problems, in order; none for ok
	}{
		{"loopback v4 without token", "127.0.0.1:9090", "", nil},
		{"loopback v6 without token", "[::1]:9090", "", nil},
		{"localhost without token", "localhost:9090", "", nil},
		{"all interfaces without token", ":9090", "", []string{"not a loopback address and the listener serves the whole database: set QUIZHOST_ADMIN_TOKEN"}},
		{"0.0.0.0 without token", "0.0.0.0:9090", "", []string{"not a loopback address"}},
		{"a name without token", "admin.example:9090", "", []string{"not a loopback address"}},
		{"all interfaces with token", "0.0.0.0:9090", token, nil},
		{"short token", "127.0.0.1:9090", "short", []string{"at least 16 characters"}},
		{"short token elsewhere", "0.0.0.0:9090", "short", []string{"at least 16 characters"}},
		{"no port", "127.0.0.1", "", []string{"want host:port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckConfig(tt.addr, tt.token)
			if len(got) != len(tt.want) {
				t.Fatalf("CheckConfig(%q, %q) = %q, want %d problems", tt.addr, tt.token, got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

type gateway struct{ up atomic.Bool }

func (g *gateway) Connected() bool { return g.up.Load() }

type database struct{ err error }

func (d database) Writable(context.Context) error { return d.err }

type failingBackup struct{}

func (failingBackup) StreamBackup(io.Writer, func(int64)) (int64, error) {
	return 0, errors.New("disk on fire")
}

// start runs a Server on 127.0.0.1 until the test ends and returns its
// base URL.
func start(t *testing.T, cfg Config) string {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	s, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve after cancel: got %v, want nil", err)
		}
	})
	return "http://" + s.Addr().String()
}

func get(t *testing.T, url, token string) (*http.Response, []byte) {
	t.Helper()
	return getHost(t, url, "", token)
}

func TestToken(t *testing.T) {
	const token = "correct-horse-battery-staple"
	g := &gateway{}
	g.up.Store(true)
	base := start(t, Config{Token: token, Gateway: g, Database: database{},
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "m 1\n") })})
	for _, path := range []string{"/healthz", "/metrics", "/backup", "/nothing"} {
		for _, tc := range []struct {
			name, token string
			want        int
		}{
			{"no token", "", 401},
			{"wrong token", "correct-horse-battery-stapler", 401},
			{"prefix of the token", "correct-horse", 401},
		} {
			resp, _ := get(t, base+path, tc.token)
			if resp.StatusCode != tc.want || resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("GET %s with %s: got status %d, want %d with WWW-Authenticate", path, tc.name, resp.StatusCode, tc.want)
			}
		}
	}
	if resp, body := get(t, base+"/metrics", token); resp.StatusCode != 200 || string(body) != "m 1\n" {
		t.Errorf("GET /metrics with the token: got %d %q, want 200 and the metrics", resp.StatusCode, body)
	}
	if resp, _ := get(t, base+"/healthz", token); resp.StatusCode != 200 {
		t.Errorf("GET /healthz with the token: got %d, want 200", resp.StatusCode)
	}
	if resp, _ := get(t, base+"/nothing", token); resp.StatusCode != 404 {
		t.Errorf("GET /nothing with the token: got %d, want 404", resp.StatusCode)
	}
	// The scheme's letter case does not matter (RFC 7235); the token's does.
	for _, tc := range []struct {
		header string
		want   int
	}{
		{"bearer " + token, 200}, {"BEARER " + token, 200}, {"Bearer " + strings.ToUpper(token), 401},
		{"Basic " + token, 401}, {"Bearer", 401}, {token, 401},
	} {
		req, _ := http.NewRequest("GET", base+"/healthz", nil)
		req.Header.Set("Authorization", tc.header)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET /healthz with Authorization %q: got %d, want %d", tc.header, resp.StatusCode, tc.want)
		}
	}
}

func TestHealthz(t *testing.T) {
	tests := []struct {
		name       string
		connected  bool
		dbErr      error
		wantStatus int
		want       Health
	}{
		{"healthy", true, nil, 200, Health{OK: true, Gateway: "connected", Database: "writable"}},
		{"gateway down", false, nil, 503, Health{Gateway: "not connected", Database: "writable"}},
		{"database damaged", true, fmt.Errorf("writable: %w", storage.ErrDamaged), 503,
			Health{Gateway: "connected", Database: "writable: database file is damaged"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &gateway{}
			g.up.Store(tt.connected)
			base := start(t, Config{Gateway: g, Database: database{tt.dbErr}})
			resp, body := get(t, base+"/healthz", "")
			var got Health
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != tt.wantStatus || got != tt.want {
				t.Errorf("got %d %+v, want %d %+v", resp.StatusCode, got, tt.wantStatus, tt.want)
			}
		})
	}
}

// TestBackupDownload downloads a backup of a real database over HTTP
// while it is open, and opens and checks the copy.
func TestBackupDownload(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(t.Context(), filepath.Join(dir, "live.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 42, TimeZone: "Europe/Berlin"}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 3, 14, 12, 30, 5, 0, time.FixedZone("CET", 3600))
	base := start(t, Config{Backup: db, Now: func() time.Time { return now }})
	resp, body := get(t, base+"/backup", "")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /backup: status %d, body %q", resp.StatusCode, body)
	}
	if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename="quizhost-20250314T113005Z.db"`; got != want {
		t.Errorf("Content-Disposition: got %q, want %q", got, want)
	}
	if resp.ContentLength != int64(len(body)) || len(body) == 0 {
		t.Errorf("Content-Length %d, body %d bytes: want equal and non-zero", resp.ContentLength, len(body))
	}
	path := filepath.Join(dir, "downloaded.db")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := storage.Open(t.Context(), path, storage.Options{})
	if err != nil {
		t.Fatalf("open the downloaded copy: %v", err)
	}
	defer c.Close()
	if err := c.Check(); err != nil {
		t.Errorf("check the downloaded copy: %v", err)
	}
	if s, err := c.Settings(42); err != nil || s.TimeZone != "Europe/Berlin" {
		t.Errorf("settings in the copy: got %+v, %v", s, err)
	}
}

func TestBackupFailure(t *testing.T) {
	base := start(t, Config{Backup: failingBackup{}})
	resp, body := get(t, base+"/backup", "")
	if resp.StatusCode != 500 || !strings.Contains(string(body), "disk on fire") || resp.Header.Get("Content-Disposition") != "" {
		t.Errorf("got %d %q (Content-Disposition %q), want 500 naming the error and no attachment",
			resp.StatusCode, body, resp.Header.Get("Content-Disposition"))
	}
}

func TestListenRefusesOpenAddressWithoutToken(t *testing.T) {
	if _, err := Listen(Config{Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "QUIZHOST_ADMIN_TOKEN") {
		t.Errorf("Listen on 0.0.0.0 without a token: got %v, want an error naming QUIZHOST_ADMIN_TOKEN", err)
	}
}

// TestHostWithoutToken is issue 19's DNS rebinding: without a token, a
// request whose Host is not the listener's (a page that rebound its own
// name to 127.0.0.1) got the whole database from /backup. It is refused
// with 421 now, before any endpoint runs; the listener's own names are
// served. With a token, Host does not matter.
func TestHostWithoutToken(t *testing.T) {
	backups := &countingBackup{}
	base := start(t, Config{Backup: backups, Gateway: &gateway{}, Database: database{}})
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, 200},
		{"localhost:" + port, 200},
		{"LOCALHOST", 200},
		{"[::1]:" + port, 200},
		{"evil.example", 421},
		{"evil.example:" + port, 421},
		{"127.0.0.1.nip.io:" + port, 421},
		{"localhost.:" + port, 421},
		{"127.0.0.1:1", 421},
		{"127.0.0.2:" + port, 421},
	}
	for _, tt := range tests {
		for _, path := range []string{"/backup", "/healthz", "/metrics"} {
			before := backups.n.Load()
			resp, body := getHost(t, base+path, tt.host, "")
			want := tt.want
			if want == 200 && path == "/healthz" {
				want = 503 // the test gateway is not connected: served all the same
			}
			if want == 200 && path == "/metrics" {
				want = 404 // no metrics configured: the mux's answer
			}
			if resp.StatusCode != want {
				t.Errorf("GET %s with Host %q: got %d %q, want %d", path, tt.host, resp.StatusCode, body, want)
			}
			if tt.want == 421 && backups.n.Load() != before {
				t.Errorf("GET %s with Host %q ran the backup", path, tt.host)
			}
			if tt.want == 421 && !strings.Contains(string(body), "misdirected request") {
				t.Errorf("GET %s with Host %q: body %q, want it to say why", path, tt.host, body)
			}
		}
	}

	const token = "correct-horse-battery-staple"
	base = start(t, Config{Token: token, Backup: backups})
	if resp, _ := getHost(t, base+"/backup", "evil.example", token); resp.StatusCode != 200 {
		t.Errorf("GET /backup with a token and a foreign Host: got %d, want 200", resp.StatusCode)
	}
	if resp, _ := getHost(t, base+"/backup", "evil.example", ""); resp.StatusCode != 401 {
		t.Errorf("GET /backup without the token and a foreign Host: got %d, want 401", resp.StatusCode)
	}
}

// TestHostOfConfiguredAddress: the address the listener was configured
// with is its name too (here localhost, which it resolves to loopback).
func TestHostOfConfiguredAddress(t *testing.T) {
	s, err := Listen(Config{Addr: "localhost:0", Backup: &countingBackup{}})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	for _, tc := range []struct {
		host string
		want int
	}{
		{s.Addr().String(), 200},
		{"localhost", 200},
		{"quizhost.internal", 421},
	} {
		req, _ := http.NewRequest("GET", "/backup", nil)
		req.Host = tc.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Host %q: got %d, want %d", tc.host, rec.Code, tc.want)
		}
	}
	s.ln.Close()
}

// countingBackup is a tiny backup that counts the downloads it served.
type countingBackup struct{ n atomic.Int32 }

func (b *countingBackup) StreamBackup(w io.Writer, size func(int64)) (int64, error) {
	b.n.Add(1)
	size(4)
	n, err := w.Write([]byte("db!\n"))
	return int64(n), err
}

// getHost GETs url with the Host header set to host (from url when
// empty) and the bearer token when there is one.
func getHost(t *testing.T, url, host, token string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Host = host
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp, body
}
