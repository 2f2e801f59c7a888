// Package sandbox is `quizhost sandbox`: the real bot, over real discordgo
// and the production code path, against the embedded Discord-compatible
// server of internal/fakediscord, with a web page that shows a channel as
// Discord does and lets one person use the bot as several members.
//
// Everything listens on 127.0.0.1 and nothing is fetched from the internet:
// the page's HTML is rendered here, its stylesheet and script are embedded
// in the binary, and live updates arrive over server-sent events. The page
// answers only itself: requests naming another host, sent from another
// origin, or API calls that are not JSON are refused (guard.go), and no
// other site may frame it. The embedded server answers only its own
// address and only the bot's token, made afresh for each sandbox, as
// Discord answers only its bot's token. It keeps all its checks on
// (payload limits, deadlines, allowed_mentions); requests Discord would
// refuse are listed in a side panel.
//
// The bot and the embedded server share one clock, the wall clock that
// the page's Advance time control moves forward (clock.Shifted): close
// timers fire and the daily quiz posts at once, and message times,
// snowflakes and interaction deadlines follow the same jump.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/internal/fakediscord"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// The simulated server: one guild with a channel for questions and one for
// the daily quiz, and three members, Alice with Manage Server.
const (
	guildID     = "8001"
	quizChannel = "6001"
	dailyChan   = "6002"
)

// simulatedMembers are the members one can act as, in the switcher's order.
func simulatedMembers() []fakediscord.Member {
	return []fakediscord.Member{
		{ID: "7001", Username: "alice", GlobalName: "Alice", Permissions: fakediscord.AdminPermissions},
		{ID: "7002", Username: "bob", GlobalName: "Bob", Permissions: fakediscord.DefaultPermissions},
		{ID: "7003", Username: "carol", GlobalName: "Carol", Permissions: fakediscord.DefaultPermissions},
	}
}

// guild is the simulated Discord server.
func guild() fakediscord.Guild {
	return fakediscord.Guild{
		ID: guildID, Name: "Study Group", OwnerID: "7001",
		Channels: []fakediscord.Channel{{ID: quizChannel, Name: "quiz"}, {ID: dailyChan, Name: "daily-quiz"}},
		Members:  simulatedMembers(),
	}
}

// Config is what a sandbox is started with.
type Config struct {
	// Addr is where the page is served; its host must be a loopback
	// address. "127.0.0.1:0" picks a free port.
	Addr string
	// DBPath is the database file; it is created when missing.
	DBPath string
	// Catalogue is the banks every server can use.
	Catalogue *questions.Catalogue
	// Logger receives the bot's and the sandbox's logs (default: discarded).
	Logger *slog.Logger
	// RefreshEvery is how often the bot edits the live answer count of
	// the questions answered since (bot.Config.RefreshEvery; 0: the bot's
	// default).
	RefreshEvery time.Duration
}

// Sandbox is a running sandbox: the embedded Discord server, the bot and
// the web page. Create it with Start and stop it with Close. Its methods
// are safe for concurrent use.
type Sandbox struct {
	srv   *fakediscord.Server
	token string         // the bot's token, the only one the server accepts
	clock *clock.Shifted // the bot's and the server's time
	tmpl  *template.Template
	db    *storage.DB
	web   *http.Server
	url   string
	hosts hostPolicy // the Host values the page answers to
	log   *slog.Logger
	stop  context.CancelFunc // the bot's and the page's context
	botc  chan error         // Run's result
	webc  chan error         // Serve's result
	once  sync.Once
	cerr  error
	uiCtx context.Context

	mu     sync.Mutex
	calls  map[string]call // interaction id → who used what, for message headers
	jumped chan struct{}   // closed and replaced when the clock jumps
	// defs is the registered commands decoded, as of the server's
	// CommandsVersion defsVersion (see commands).
	defs        []commandDef
	defsVersion int
}

// call is an interaction the page made: shown above the bot's reply to it.
type call struct {
	userID  string
	command string // "/quiz ask"; "" for components and modals
}

// Start opens the database, starts the embedded Discord server and the bot,
// waits until the bot has registered its commands and serves the page.
// ctx bounds only the start; Close stops everything.
func Start(ctx context.Context, cfg Config) (*Sandbox, error) {
	if cfg.Catalogue == nil {
		return nil, errors.New("sandbox: no question catalogue")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := checkLoopback(cfg.Addr); err != nil {
		return nil, fmt.Errorf("sandbox: address %q: %w", cfg.Addr, err)
	}
	tmpl, err := parsePage()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	token, err := newToken()
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	clk := &clock.Shifted{}
	srv, err := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{Guilds: []fakediscord.Guild{guild()},
		Token: token, OwnHostOnly: true, Now: clk.Now})
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	db, err := storage.Open(ctx, cfg.DBPath, storage.Options{Timeout: 3 * time.Second})
	if err != nil {
		_ = ln.Close()
		srv.Close()
		return nil, fmt.Errorf("sandbox: open database: %w", err)
	}
	b, err := bot.New(bot.Config{Token: token, APIBase: srv.URL(), Store: db, Catalogue: cfg.Catalogue,
		Logger: log, Clock: clk, RefreshEvery: cfg.RefreshEvery})
	if err != nil {
		_ = ln.Close()
		srv.Close()
		_ = db.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	sb := &Sandbox{srv: srv, token: token, clock: clk, tmpl: tmpl, db: db, log: log, stop: stop, uiCtx: runCtx,
		botc: make(chan error, 1), webc: make(chan error, 1), calls: map[string]call{}, jumped: make(chan struct{}),
		url: "http://" + ln.Addr().String(), hosts: newHostPolicy(cfg.Addr, ln.Addr())}
	go func() { sb.botc <- b.Run(runCtx) }()
	if err := sb.waitCommands(ctx); err != nil {
		_ = ln.Close()
		return nil, errors.Join(err, sb.shutdown())
	}
	sb.web = &http.Server{Handler: sb.routes(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return runCtx }}
	go func() { sb.webc <- sb.web.Serve(ln) }()
	return sb, nil
}

// newToken makes a bot token no one can guess: a web page may reach the
// embedded server's port, but not use it without the token.
func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("sandbox: make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// checkLoopback refuses an address other machines could reach: the page
// lets anyone act as any member. Its error says why, without the address.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port, a loopback address such as 127.0.0.1:8080")
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("the sandbox serves this machine only (anyone who opens the page can act as any member): want a loopback address such as 127.0.0.1:8080")
	}
	return nil
}

// waitCommands waits for the bot's bulk overwrite of its commands, or for
// it to stop early.
func (sb *Sandbox) waitCommands(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for {
		changed := sb.srv.Changed()
		if len(sb.srv.Commands("")) > 0 {
			return nil
		}
		select {
		case err := <-sb.botc:
			sb.botc <- err // shutdown reads it again
			return fmt.Errorf("sandbox: the bot stopped while starting: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("sandbox: the bot did not register its commands: %w", ctx.Err())
		case <-changed:
		}
	}
}

// URL returns the page's address, "http://127.0.0.1:PORT".
func (sb *Sandbox) URL() string { return sb.url }

// Server returns the embedded Discord server, to inspect what the bot sent
// (tests check its Violations).
func (sb *Sandbox) Server() *fakediscord.Server { return sb.srv }

// BotToken is the bot's token, the only one the embedded server accepts:
// for a caller in this process that talks to the server as the bot.
func (sb *Sandbox) BotToken() string { return sb.token }

// QuizChannel is the ID of the simulated server's #quiz channel.
const QuizChannel = quizChannel

// Close stops the page, then the bot, then the Discord server, and closes
// the database, in that order. It returns the first error of each and is
// idempotent.
func (sb *Sandbox) Close() error {
	sb.once.Do(func() {
		// The page's connections are closed at once: Shutdown would wait
		// for the event streams and for the browser's idle preconnections.
		sb.stop()
		werr := sb.web.Close()
		if err := <-sb.webc; !errors.Is(err, http.ErrServerClosed) {
			werr = errors.Join(werr, err)
		}
		sb.cerr = errors.Join(werr, sb.shutdown())
	})
	return sb.cerr
}

// shutdown stops the bot, the Discord server and the database.
func (sb *Sandbox) shutdown() error {
	sb.stop()
	err := <-sb.botc
	sb.srv.Close()
	if cerr := sb.db.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close database: %w", cerr))
	}
	return err
}

// ErrUsage is returned by Run, wrapped with the problem and the usage
// line, for a bad flag or argument.
var ErrUsage = errors.New("quizhost sandbox")

// Run is the `quizhost sandbox [--addr 127.0.0.1:8080] [--db PATH]`
// command: it loads the banks (the built-in one and QUIZHOST_QUESTIONS),
// starts a sandbox on a temporary database unless --db is given, prints the
// address and stops cleanly when ctx ends (Ctrl-C). -h prints the usage
// to stdout and returns flag.ErrHelp; bad flags return ErrUsage.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const usage = "usage: quizhost sandbox [--addr 127.0.0.1:8080] [--db PATH]"
	fs := flag.NewFlagSet("quizhost sandbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:8080", "where to serve the page (a loopback address)")
	dbPath := fs.String("db", "", "database file (default: a temporary one, removed on exit)")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "%s\n\nTry quizhost in a browser, without Discord: the real bot against a built-in\nDiscord-compatible server. Ctrl-C stops it.\n\nflags:\n", usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: %v\n%s", ErrUsage, err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q\n%s", ErrUsage, fs.Arg(0), usage)
	}
	if err := checkLoopback(*addr); err != nil {
		return fmt.Errorf("%w: --addr %q: %v\n%s", ErrUsage, *addr, err, usage)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var paths []string
	if p := strings.TrimSpace(getenv("QUIZHOST_QUESTIONS")); p != "" {
		paths = []string{p}
	}
	cat, ps := questions.Loader{Paths: paths}.Load()
	for _, w := range ps.Warnings() {
		log.Warn("question banks", "problem", w.Error())
	}
	if errs := ps.Errors(); len(errs) > 0 {
		return fmt.Errorf("question banks:\n%w", errs)
	}
	path := *dbPath
	if path == "" {
		dir, err := os.MkdirTemp("", "quizhost-sandbox-")
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "sandbox.db")
	}
	sb, err := Start(ctx, Config{Addr: *addr, DBPath: path, Catalogue: cat, Logger: log})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "quizhost sandbox: open %s in a browser (%s, %s; Ctrl-C stops it)\n",
		sb.URL(), bot.Plural(len(cat.Banks()), "bank", "banks"), bot.Plural(cat.Len(), "question", "questions"))
	<-ctx.Done()
	if err := sb.Close(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "quizhost sandbox: stopped")
	return nil
}
