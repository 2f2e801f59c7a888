// Package admin is quizhost's opt-in admin listener: GET /healthz (the
// gateway is connected and the database writable), GET /metrics
// (Prometheus) and GET /backup (a consistent hot copy of the database,
// streamed from one read transaction).
//
// The listener serves everything in the database, so it is bound to a
// loopback address unless a bearer token protects it: CheckConfig refuses
// any other address without a token. With a token, every endpoint, /healthz
// included, requires "Authorization: Bearer <token>"; without one (on
// loopback only), every endpoint is open to the local machine's programs,
// but not to the web pages of its browsers: a request is served only when
// its Host header names the listener (a loopback name, or the configured
// address, with the listening port or none: see hostcheck), and refused
// with 421 Misdirected Request otherwise. A page that rebinds its own name
// to 127.0.0.1 (DNS rebinding) sends that name as Host, so it cannot read
// /backup through the victim's browser.
package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quizhost/quizhost/internal/hostcheck"
)

// Gateway tells whether the bot is connected to Discord's gateway.
type Gateway interface {
	Connected() bool
}

// Database tells whether the database can commit a write (nil) or why
// not.
type Database interface {
	Writable(ctx context.Context) error
}

// Backuper writes a consistent copy of the database to w, calling size
// with its exact length before writing anything.
type Backuper interface {
	StreamBackup(w io.Writer, size func(n int64)) (int64, error)
}

// Config configures a Server.
type Config struct {
	// Addr is the host:port to listen on (QUIZHOST_ADMIN_ADDR).
	Addr string
	// Token, when set, is required as a bearer token by every endpoint
	// (QUIZHOST_ADMIN_TOKEN). Required unless Addr is a loopback address.
	Token string
	// Gateway and Database are /healthz's sources.
	Gateway  Gateway
	Database Database
	// Backup serves /backup.
	Backup Backuper
	// Metrics serves /metrics.
	Metrics http.Handler
	// Logger logs requests that failed (default: discard).
	Logger *slog.Logger
	// Now names backup downloads (default time.Now).
	Now func() time.Time
}

// MinTokenLen is the shortest token CheckConfig accepts.
const MinTokenLen = 16

// BackupWriteTimeout bounds a /backup download: while it runs, a write
// that has to grow the database file waits for its read transaction.
const BackupWriteTimeout = 10 * time.Minute

// CheckConfig returns the problems of an admin address and token, in the
// words of the environment variables, or nil: an address that is not
// host:port, a token shorter than MinTokenLen, or an address other than a
// loopback one (127.0.0.0/8, ::1, localhost) without a token. An empty
// host (":9090") listens on every interface and is not loopback.
func CheckConfig(addr, token string) []string {
	var problems []string
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return append(problems, fmt.Sprintf("QUIZHOST_ADMIN_ADDR %q: want host:port, e.g. 127.0.0.1:9090", addr))
	}
	if token != "" && len(token) < MinTokenLen {
		problems = append(problems, fmt.Sprintf("QUIZHOST_ADMIN_TOKEN: want at least %d characters (e.g. the output of: openssl rand -hex 32)", MinTokenLen))
	}
	if token == "" && !Loopback(host) {
		problems = append(problems, fmt.Sprintf("QUIZHOST_ADMIN_ADDR %q is not a loopback address and the listener serves the whole database: "+
			"set QUIZHOST_ADMIN_TOKEN (every request then needs \"Authorization: Bearer <token>\"), or listen on 127.0.0.1", addr))
	}
	return problems
}

// Loopback reports whether host (an IP or a name) is a loopback address.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server is a running admin listener.
type Server struct {
	cfg      Config
	ln       net.Listener
	hosts    hostcheck.Policy // the Host values served without a token
	srv      *http.Server
	inflight sync.WaitGroup
}

// Listen checks cfg (see CheckConfig) and binds its address, so a bad
// address fails start-up before quizhost connects to Discord. Serve then
// serves it.
func Listen(cfg Config) (*Server, error) {
	if p := CheckConfig(cfg.Addr, cfg.Token); len(p) > 0 {
		return nil, errors.New(strings.Join(p, "; "))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("admin listener: %w", err)
	}
	s := &Server{cfg: cfg, ln: ln, hosts: hostcheck.New(cfg.Addr, ln.Addr())}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn)}
	return s, nil
}

// Addr is the address the server listens on (with the port chosen when
// Config.Addr asked for port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve serves until ctx ends, then shuts down: it waits up to a second
// for requests in flight, closes the connections of those still running
// (a /backup download is cut) and returns once every handler has
// returned, so the database can be closed after it. It returns nil after
// ctx ends, or the error that stopped the listener.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if s.srv.Shutdown(sctx) != nil {
			s.srv.Close()
		}
		cancel()
		err = <-errc
	}
	s.inflight.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("admin listener: %w", err)
}

// Handler is the admin endpoints behind the token check or, without a
// token, the Host check (421 Misdirected Request for a Host that does not
// name the listener).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /backup", s.backup)
	if s.cfg.Metrics != nil {
		mux.Handle("GET /metrics", s.cfg.Metrics)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Done()
		if s.cfg.Token != "" && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="quizhost admin"`)
			http.Error(w, "a bearer token is required (QUIZHOST_ADMIN_TOKEN)", http.StatusUnauthorized)
			return
		}
		if s.cfg.Token == "" && !s.hosts.Allows(r.Host) {
			s.cfg.Logger.Warn("admin listener refused a request for another host", "host", r.Host, "path", r.URL.Path, "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("misdirected request: host %q is not this listener's; without QUIZHOST_ADMIN_TOKEN it answers only "+
				"to localhost, 127.0.0.1, [::1] or the address it listens on (%s)", truncateHost(r.Host), s.ln.Addr()), http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// truncateHost cuts a Host header to a readable length for a message.
func truncateHost(h string) string {
	if len(h) > 100 {
		return h[:100] + "…"
	}
	return h
}

// authorized compares the request's bearer token with the configured one
// in constant time (of their SHA-256 sums, so not even the length leaks).
func (s *Server) authorized(r *http.Request) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") { // the scheme is case-insensitive (RFC 7235)
		return false
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.cfg.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// Health is /healthz's JSON body.
type Health struct {
	// OK is true when both checks pass (status 200; else 503).
	OK bool `json:"ok"`
	// Gateway is "connected" or "not connected".
	Gateway string `json:"gateway"`
	// Database is "writable" or the error of the write probe.
	Database string `json:"database"`
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := Health{OK: true, Gateway: "connected", Database: "writable"}
	if s.cfg.Gateway == nil || !s.cfg.Gateway.Connected() {
		h.OK, h.Gateway = false, "not connected"
	}
	if s.cfg.Database == nil {
		h.OK, h.Database = false, "no database"
	} else if err := s.cfg.Database.Writable(r.Context()); err != nil {
		h.OK, h.Database = false, err.Error()
	}
	status := http.StatusOK
	if !h.OK {
		status = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(h)
}

// backup streams a hot copy of the database, as bbolt's documentation
// shows: its length as Content-Length, then the pages, from one read
// transaction. A failure before the first byte is a 500; after it, the
// connection is cut, so the client sees a short body rather than a
// complete-looking broken file.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Backup == nil {
		http.Error(w, "no database", http.StatusServiceUnavailable)
		return
	}
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(BackupWriteTimeout))
	name := "quizhost-" + s.cfg.Now().UTC().Format("20060102T150405Z") + ".db"
	started := false
	n, err := s.cfg.Backup.StreamBackup(w, func(size int64) {
		started = true
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.Header().Set("Cache-Control", "no-store")
	})
	if err != nil {
		s.cfg.Logger.Error("admin backup", "remote", r.RemoteAddr, "written", n, "err", err)
		if !started || n == 0 {
			w.Header().Del("Content-Length")
			w.Header().Del("Content-Disposition")
			http.Error(w, "backup failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		panic(http.ErrAbortHandler)
	}
	s.cfg.Logger.Info("admin backup sent", "remote", r.RemoteAddr, "bytes", n)
}
