// Package bot is everything Discord: the slash commands, custom IDs,
// rendering, the interaction lifecycle and the timers that close questions
// and post the daily quiz. It reaches the database only through Store.
package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/questions"
)

// Store is what the bot needs from the database, by concern. storage.DB
// implements it; see there for the contract of each method. Writes take a
// context: it bounds the wait for the write (a cancelled wait writes
// nothing); a write under way commits or fails whatever the context does.
type Store interface {
	SettingsStore
	PostStore
	AnswerStore
	BoardStore
	BankStore
	ResetStore
}

// SettingsStore keeps a guild's settings and its daily schedule.
type SettingsStore interface {
	Settings(guildID questions.GuildID) (questions.Settings, error)
	UpdateSettings(ctx context.Context, guildID questions.GuildID, fn func(*questions.Settings) error) (questions.Settings, error)
	DailyGuilds() ([]questions.Settings, error)
	ClaimDaily(ctx context.Context, guildID questions.GuildID, due, next time.Time, localDate string) (bool, error)
	DailyFailed(ctx context.Context, guildID questions.GuildID, msg string) error
}

// PostStore keeps the questions posted, their close and reveal, and which
// questions a guild was asked.
type PostStore interface {
	CreatePost(ctx context.Context, p questions.Post) (questions.Post, error)
	SetPostMessage(ctx context.Context, postID questions.PostID, messageID questions.MessageID) error
	DeletePost(ctx context.Context, postID questions.PostID) error
	Post(postID questions.PostID) (questions.Post, error)
	OpenPosts() ([]questions.Post, error)
	OpenPostsIn(guildID questions.GuildID, channelID questions.ChannelID) ([]questions.Post, error)
	ClosePost(ctx context.Context, postID questions.PostID, at time.Time) (questions.Post, bool, error)
	MarkRevealed(ctx context.Context, postID questions.PostID) error
	UnrevealedPosts() ([]questions.Post, error)
	Asked(guildID questions.GuildID) (map[string]bool, error)
	ForgetAsked(ctx context.Context, guildID questions.GuildID, questionIDs []string) error
}

// AnswerStore records members' answers.
type AnswerStore interface {
	RecordAnswer(ctx context.Context, a questions.Answer) (questions.Answer, error)
	Answer(postID questions.PostID, userID questions.UserID) (questions.Answer, error)
}

// BoardStore reads scores: leaderboards, standings, stats and streaks.
type BoardStore interface {
	Leaderboard(guildID questions.GuildID, p questions.Period, r questions.Ranking, at time.Time, offset, limit int) (questions.Leaderboard, error)
	Standing(guildID questions.GuildID, userID questions.UserID, p questions.Period, r questions.Ranking, at time.Time) (questions.Standing, error)
	MemberStats(guildID questions.GuildID, userID questions.UserID, at time.Time) (questions.MemberStats, error)
	ActiveStreaks(guildID questions.GuildID, at time.Time, limit int) ([]questions.Score, error)
}

// BankStore keeps a guild's imported banks and its drafts (pastes and
// suggestions).
type BankStore interface {
	SaveBanks(ctx context.Context, guildID questions.GuildID, files []questions.BankFile, draftID uint64) error
	Banks(guildID questions.GuildID) ([]questions.BankFile, error)
	DeleteBank(ctx context.Context, guildID questions.GuildID, name string) error
	SaveDraft(ctx context.Context, d questions.Draft) (questions.Draft, error)
	Draft(guildID questions.GuildID, id uint64) (questions.Draft, error)
	DeleteDraft(ctx context.Context, guildID questions.GuildID, id uint64) error
	Suggestions(guildID questions.GuildID) ([]questions.Draft, error)
}

// ResetStore wipes scores.
type ResetStore interface {
	ResetGuild(ctx context.Context, guildID questions.GuildID) error
	ResetMember(ctx context.Context, guildID questions.GuildID, userID questions.UserID) error
}

// Config is everything the bot is built from. Token, Store and Catalogue
// are required.
type Config struct {
	// Token is the bot token, without the "Bot " prefix. Never logged.
	Token string
	// GuildID, when set, registers the commands in that guild only.
	GuildID string
	// APIBase is where REST requests go (default https://discord.com);
	// the gateway address is whatever that base's /api/v9/gateway returns.
	APIBase string
	Store   Store
	// Catalogue holds the banks every server can use: the built-in bank
	// and those loaded from QUIZHOST_QUESTIONS.
	Catalogue *questions.Catalogue
	Logger    *slog.Logger
	// Clock drives the close timers and the daily schedule (default: real).
	Clock clock.Clock
	// Rand picks questions (default: seeded from the time).
	Rand *rand.Rand
	// RefreshEvery is the least time between two edits of a question's live
	// answer count (default 5 s).
	RefreshEvery time.Duration
	// HTTPClient downloads imported bank files (default: 10 s timeout).
	HTTPClient *http.Client
	// ShutdownGrace is how long Run waits for interactions in flight once
	// its context is cancelled (default 2.5 s; with the gateway's close,
	// shutdown stays within 5 s).
	ShutdownGrace time.Duration
}

// shutdownBudget bounds Run's shutdown: the process exits within 5 s of
// SIGTERM.
const shutdownBudget = 4500 * time.Millisecond

// Bot is a running quizhost. Create it with New and start it with Run.
type Bot struct {
	cfg   Config
	store Store
	log   *slog.Logger
	clock clock.Clock

	randMu sync.Mutex
	rand   *rand.Rand

	sess      *discordgo.Session
	connected atomic.Bool // Run got past its first connect

	// inflight counts interaction handlers; once closing, new ones only
	// say the bot is restarting.
	inflightMu sync.Mutex
	inflight   int
	idle       chan struct{} // closed when inflight drops to zero
	closing    bool

	wake    chan struct{}         // pokes the scheduler after a post or setting changes
	refresh chan questions.PostID // posts whose live count needs an edit
	postMu  [64]sync.Mutex        // striped by post id: serialise each post's message edits

	// editMu serialises changes to imported banks (import, paste, approve,
	// remove): each is planned from the banks as they are and stored whole.
	editMu sync.Mutex

	importedMu sync.Mutex
	imports    map[questions.GuildID]*guildBanks // guild → its imported banks, parsed; loaded on first use

	// Scheduler goroutine only: when to retry a failed reveal, and how
	// many times it failed.
	revealAt    map[questions.PostID]time.Time
	revealTries map[questions.PostID]int
}

// New checks cfg and returns a bot ready to Run.
func New(cfg Config) (*Bot, error) {
	var missing []string
	if cfg.Token == "" {
		missing = append(missing, "Token")
	}
	if cfg.Store == nil {
		missing = append(missing, "Store")
	}
	if cfg.Catalogue == nil {
		missing = append(missing, "Catalogue")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("bot config: missing %s", strings.Join(missing, ", "))
	}
	if cfg.APIBase == "" {
		cfg.APIBase = "https://discord.com"
	}
	if err := CheckAPIBase(cfg.APIBase); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15))
	}
	if cfg.RefreshEvery <= 0 {
		cfg.RefreshEvery = 5 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 2500 * time.Millisecond
	}
	return &Bot{
		cfg: cfg, store: cfg.Store, log: cfg.Logger, clock: cfg.Clock, rand: cfg.Rand,
		wake:     make(chan struct{}, 1),
		refresh:  make(chan questions.PostID, 1024),
		imports:  map[questions.GuildID]*guildBanks{},
		revealAt: map[questions.PostID]time.Time{}, revealTries: map[questions.PostID]int{},
	}, nil
}

// CheckAPIBase reports whether s can be the bot's APIBase: an http(s) URL
// with a host, such as https://discord.com.
func CheckAPIBase(s string) error {
	_, err := apiBase(s)
	return err
}

func apiBase(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("DISCORD_API_BASE %q: want an http(s) URL such as https://discord.com", s)
	}
	return u, nil
}

// transport sends requests for discord.com to the configured API base,
// same path (this is how the bot runs against a local Discord-compatible
// server), and keeps Discord's global rate limit away from interaction
// responses.
//
// A 429 with X-RateLimit-Global makes discordgo hold every request until
// it passes, interaction callbacks included, although Discord exempts
// interaction endpoints from the global limit: held for 4 s, answers miss
// their 3 s deadline and are lost. So the transport takes the global limit
// over: it strips the header (discordgo then waits out that one route
// only), and holds every other request that is not an interaction
// response until the limit passes, for as long as its context allows.
type transport struct {
	base *url.URL
	next http.RoundTripper
	// connecting is the context of a gateway connection attempt: a GET of
	// /gateway (which discordgo sends without a context) is cancelled with it.
	connecting *attempt

	mu          sync.Mutex
	globalUntil time.Time
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == "discord.com" && (t.base.Host != "discord.com" || t.base.Scheme != "https") {
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host, req.Host = t.base.Scheme, t.base.Host, t.base.Host
	}
	if !interactionRoute(req.URL.Path) {
		t.mu.Lock()
		until := t.globalUntil
		t.mu.Unlock()
		if d := time.Until(until); d > 0 {
			timer := time.NewTimer(d)
			select {
			case <-timer.C:
			case <-req.Context().Done():
				timer.Stop()
				if req.Body != nil {
					req.Body.Close()
				}
				return nil, req.Context().Err()
			}
		}
	}
	if strings.HasSuffix(req.URL.Path, "/gateway") || strings.HasSuffix(req.URL.Path, "/gateway/bot") {
		return t.connecting.roundTrip(t.next, req)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-RateLimit-Global") == "" {
		return resp, err
	}
	wait, perr := strconv.ParseFloat(resp.Header.Get("X-RateLimit-Reset-After"), 64)
	if perr != nil {
		wait, _ = strconv.ParseFloat(resp.Header.Get("Retry-After"), 64)
	}
	until := time.Now().Add(time.Duration(wait * float64(time.Second)))
	t.mu.Lock()
	if until.After(t.globalUntil) {
		t.globalUntil = until
	}
	t.mu.Unlock()
	resp.Header.Del("X-RateLimit-Global")
	return resp, nil
}

// interactionRoute reports whether path is an interaction response:
// a callback or a webhook call with an interaction token (follow-ups and
// edits of the original reply). Discord exempts these from the global
// rate limit.
func interactionRoute(path string) bool {
	return strings.Contains(path, "/interactions/") || strings.Contains(path, "/webhooks/")
}

// attempt is the context of the gateway connection attempt under way (nil
// between attempts). discordgo's Open takes no context: it GETs /gateway,
// dials the websocket and reads HELLO and READY without a deadline, all
// holding the session's lock. Cancelling the attempt's context cancels
// the GET and closes the sockets dialed during it, so Open returns at once.
type attempt struct {
	mu    sync.Mutex
	ctx   context.Context
	stops []func() bool // AfterFuncs closing the sockets of the attempt
}

// begin starts an attempt under ctx; end ends it (a socket it dialed is
// no longer closed when ctx ends).
func (a *attempt) begin(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ctx = ctx
}

func (a *attempt) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, stop := range a.stops {
		stop()
	}
	a.ctx, a.stops = nil, nil
}

func (a *attempt) context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}

// dial is the gateway dialer's NetDialContext.
func (a *attempt) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	actx := a.context()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(actx, cancel)()
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stops = append(a.stops, context.AfterFunc(actx, func() { conn.Close() }))
	return conn, nil
}

// roundTrip sends a request of the attempt (GET /gateway) under its
// context, reading the whole (small) body before the context goes.
func (a *attempt) roundTrip(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	defer context.AfterFunc(a.context(), cancel)()
	resp, err := next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// fatalClose says why a gateway close code is fatal: after 4004 and
// 4010–4014 Discord says not to reconnect, the same connection would be
// refused again.
func fatalClose(code int) (string, bool) {
	switch code {
	case 4004:
		return "authentication failed: Discord refused the bot token; check DISCORD_TOKEN", true
	case 4010:
		return "invalid shard", true
	case 4011:
		return "sharding required: the bot is in too many servers for one connection", true
	case 4012:
		return "invalid API version", true
	case 4013:
		return "invalid intents", true
	case 4014:
		return "disallowed intents: enable the intents quizhost asks for on the Bot page of the Discord developer portal", true
	}
	return "", false
}

// connectError explains a failed connection attempt: the configured API
// base instead of discord.com (which the HTTP client names, having sent
// the request there before the transport redirected it), and what to do
// about a refused token or a fatal close code. fatal reports whether
// retrying cannot help.
func (b *Bot) connectError(err error) (msg error, fatal bool) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		if why, ok := fatalClose(ce.Code); ok {
			return fmt.Errorf("the Discord gateway closed the connection with code %d (%s)", ce.Code, why), true
		}
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("the Discord API at %s refused the bot token (HTTP 401 Unauthorized): check DISCORD_TOKEN", b.cfg.APIBase), true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("connect to Discord at %s: %w", b.cfg.APIBase, err), false
}

// connect opens the gateway connection, giving up when ctx ends.
func (b *Bot) connect(ctx context.Context, s *discordgo.Session, a *attempt) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.begin(ctx)
	defer a.end()
	return s.Open()
}

// keepConnected reconnects the gateway each time it drops (discordgo's own
// reconnecting is off: it retries fatal close codes forever and cannot be
// stopped), waiting 1 s, 2 s, 4 s … up to 10 minutes between failed tries,
// like discordgo. It returns when ctx ends (nil) or on a fatal close code
// (the error to stop the bot with).
func (b *Bot) keepConnected(ctx context.Context, s *discordgo.Session, a *attempt, dropped <-chan struct{}) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-dropped:
		}
		wait := time.Second
		for {
			err := b.connect(ctx, s, a)
			if err == nil || errors.Is(err, discordgo.ErrWSAlreadyOpen) {
				b.log.Info("reconnected to the gateway")
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			msg, fatal := b.connectError(err)
			if fatal {
				return msg
			}
			b.log.Warn("reconnect to the gateway", "err", msg, "retry_in", wait)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			wait = min(2*wait, 10*time.Minute)
		}
	}
}

// Run connects to Discord, registers the commands, re-arms the timers of
// open questions and serves interactions until ctx is cancelled. Then it
// stops taking interactions, waits for those in flight (up to
// ShutdownGrace), stops its timers and closes the gateway. It does not
// close the Store: that is the caller's.
//
// Cancelling ctx while connecting stops at once and returns nil. A gateway
// that closes with a fatal code (4004 authentication failed, 4010–4014),
// at start or later, stops the bot the same way as ctx and returns an
// error saying why; so does a token refused at start (HTTP 401). Other
// connection failures at start are returned; later drops are reconnected.
func (b *Bot) Run(ctx context.Context) error {
	base, _ := apiBase(b.cfg.APIBase)
	s, err := discordgo.New("Bot " + b.cfg.Token)
	if err != nil {
		return fmt.Errorf("discord session: %w", err)
	}
	att := &attempt{}
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: &transport{base: base, next: http.DefaultTransport, connecting: att}}
	closeSent := &closeWatch{sent: make(chan struct{})}
	dialer := *websocket.DefaultDialer
	dialer.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := att.dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: conn, w: closeSent}, nil
	}
	s.Dialer = &dialer
	s.ShouldReconnectOnError = false // keepConnected does it
	s.Identify.Intents = discordgo.IntentsGuilds
	// discordgo logs through a package-global function; the bot keeps its
	// session silent and logs what matters itself (undecodable
	// interactions, gateway drops and reconnects, REST errors where they
	// are handled), so that each bot's log is its own.
	s.LogLevel = discordgoSilent
	b.sess = s
	// Handlers run synchronously in dg's event loop only long enough to be
	// counted; the work goes on in a goroutine of ours. So no interaction
	// received before the gateway closes escapes the shutdown wait.
	s.SyncEvents = true
	s.AddHandler(func(_ *discordgo.Session, ic *discordgo.InteractionCreate) {
		closing := b.enter()
		go func() {
			defer b.leave()
			b.onInteraction(ctx, ic, closing)
		}()
	})
	dropped := make(chan struct{}, 1)
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		select {
		case dropped <- struct{}{}:
		default:
		}
	})

	if err := b.connect(ctx, s, att); err != nil {
		if ctx.Err() != nil {
			b.log.Info("stopped while connecting")
			return nil
		}
		msg, _ := b.connectError(err)
		return msg
	}
	b.connected.Store(true)
	appID, user := "", ""
	if s.State.Application != nil {
		appID = s.State.Application.ID
	}
	if s.State.User != nil {
		user = s.State.User.Username
		if appID == "" {
			appID = s.State.User.ID
		}
	}
	b.log.Info("connected", "user", user, "application", appID)

	bg, stopBG := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// The gateway watcher stops first, before the gateway closes (its
	// Disconnect must not be taken for a drop).
	gwCtx, stopGW := context.WithCancel(ctx)
	gwDone := make(chan struct{})
	gwErr := make(chan error, 1)
	// shutdown stops taking interactions (new ones are told the bot is
	// restarting), waits for those in flight (up to ShutdownGrace), closes
	// the gateway, then stops the timers, all within shutdownBudget. Every
	// way out of Run after Open goes through it.
	shutdown := func() error {
		deadline := time.Now().Add(shutdownBudget)
		b.inflightMu.Lock()
		b.closing = true
		b.inflightMu.Unlock()
		b.log.Info("shutting down: new interactions are refused")
		stopGW()
		<-gwDone // returns at once: any connection attempt is cancelled with gwCtx
		if !b.waitIdle(min(b.cfg.ShutdownGrace, time.Until(deadline)-1500*time.Millisecond)) {
			b.log.Warn("interactions still in flight at shutdown")
		}
		closeErr := closeGateway(s, closeSent, time.Until(deadline))
		b.waitIdle(300 * time.Millisecond) // refusals of any that arrived meanwhile
		stopBG()
		timers := make(chan struct{})
		go func() { wg.Wait(); close(timers) }()
		select {
		case <-timers:
		case <-time.After(time.Until(deadline)):
			b.log.Warn("scheduler still busy at shutdown")
		}
		if closeErr != nil {
			return fmt.Errorf("close gateway: %w", closeErr)
		}
		return nil
	}
	go func() {
		defer close(gwDone)
		if err := b.keepConnected(gwCtx, s, att, dropped); err != nil {
			gwErr <- err
		}
	}()

	if _, err := s.ApplicationCommandBulkOverwrite(appID, b.cfg.GuildID, commands(), discordgo.WithContext(ctx)); err != nil {
		serr := shutdown()
		if ctx.Err() != nil {
			return serr // stopped while starting: a clean stop
		}
		return fmt.Errorf("register commands: %w", err)
	}
	b.log.Info("commands registered", "guild", b.cfg.GuildID)

	wg.Add(2)
	go func() { defer wg.Done(); b.scheduler(background(bg)) }()
	go func() { defer wg.Done(); b.refresher(background(bg)) }()

	select {
	case <-ctx.Done():
		return shutdown()
	case err := <-gwErr:
		b.log.Error("gateway refused the bot: stopping", "err", err)
		shutdown()
		return err
	}
}

// Connected reports whether Run ever connected to the gateway (false when
// it failed or was stopped while connecting). Safe for concurrent use.
func (b *Bot) Connected() bool { return b.connected.Load() }

// enter counts a handler in and reports whether the bot is shutting down.
func (b *Bot) enter() (closing bool) {
	b.inflightMu.Lock()
	defer b.inflightMu.Unlock()
	if b.inflight == 0 {
		b.idle = make(chan struct{})
	}
	b.inflight++
	return b.closing
}

func (b *Bot) leave() {
	b.inflightMu.Lock()
	defer b.inflightMu.Unlock()
	b.inflight--
	if b.inflight == 0 {
		close(b.idle)
	}
}

// waitIdle waits until no handler is in flight, or for at most d.
func (b *Bot) waitIdle(d time.Duration) bool {
	b.inflightMu.Lock()
	if b.inflight == 0 {
		b.inflightMu.Unlock()
		return true
	}
	idle := b.idle
	b.inflightMu.Unlock()
	select {
	case <-idle:
		return true
	case <-time.After(d):
		return false
	}
}

// poke wakes the scheduler to recompute its next deadline.
func (b *Bot) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *Bot) pick(n int) int {
	b.randMu.Lock()
	defer b.randMu.Unlock()
	return b.rand.IntN(n)
}

// postLock serialises the message edits of one post (and of the few posts
// that share its stripe).
func (b *Bot) postLock(id questions.PostID) *sync.Mutex {
	return &b.postMu[uint64(id)%uint64(len(b.postMu))]
}

type backgroundKey struct{}

// background marks ctx as the scheduler's or the refresher's. Their REST
// calls do not wait out rate limits (discordgo sleeps through those, deaf
// to the context, which could hold up shutdown): they fail, and the work is
// retried later.
func background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// rest is the request options of a REST call made under ctx.
func rest(ctx context.Context) []discordgo.RequestOption {
	opts := []discordgo.RequestOption{discordgo.WithContext(ctx)}
	if ctx.Value(backgroundKey{}) != nil {
		opts = append(opts, discordgo.WithRetryOnRatelimit(false))
	}
	return opts
}

// maxRateWait is the longest editNow waits for a rate-limited route.
const maxRateWait = time.Second

// errRateLimited is returned by editNow when the route is rate limited for
// longer than maxRateWait.
var errRateLimited = errors.New("rate limited: try again later")

// editNow edits a channel message without waiting out a rate limit of
// more than maxRateWait: discordgo would sleep through it before sending
// (deaf to ctx), so an interaction whose reply waits on the edit (a reveal
// by /quizadmin close) would answer far too late. A limited route fails at
// once with errRateLimited (and a 429 with a RateLimitError); the caller
// leaves the edit to a later retry. It takes the route's discordgo bucket
// itself, so discordgo's own requests and this one still count together.
func (b *Bot) editNow(ctx context.Context, m *discordgo.MessageEdit) error {
	rl := b.sess.Ratelimiter
	bucket := rl.GetBucket(discordgo.EndpointChannelMessage(m.Channel, ""))
	give := time.Now().Add(maxRateWait)
	for !bucket.TryLock() { // another request of the route is in flight, or asleep
		if time.Now().After(give) {
			return fmt.Errorf("edit message %s: %w", m.ID, errRateLimited)
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	if wait := rl.GetWaitTime(bucket, 1); wait > 0 {
		if wait > maxRateWait {
			bucket.Unlock()
			return fmt.Errorf("edit message %s: %w (for %v)", m.ID, errRateLimited, wait.Round(time.Millisecond))
		}
		if err := sleepCtx(ctx, wait); err != nil {
			bucket.Unlock()
			return err
		}
	}
	bucket.Remaining--
	if m.Embeds != nil {
		for _, e := range *m.Embeds {
			if e.Type == "" {
				e.Type = discordgo.EmbedTypeRich
			}
		}
	}
	body, err := json.Marshal(m)
	if err != nil {
		bucket.Release(nil)
		return fmt.Errorf("edit message %s: %w", m.ID, err)
	}
	_, err = b.sess.RequestWithLockedBucket(http.MethodPatch, discordgo.EndpointChannelMessage(m.Channel, m.ID),
		"application/json", body, bucket, 0, append(rest(ctx), discordgo.WithRetryOnRatelimit(false))...)
	return err
}

// sleepCtx waits for d or until ctx ends (then returns its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errUser is an error whose text is meant for the member.
type errUser struct{ msg string }

func (e errUser) Error() string { return e.msg }

func userErr(format string, a ...any) error { return errUser{fmt.Sprintf(format, a...)} }

func isUser(err error) (string, bool) {
	var u errUser
	if errors.As(err, &u) {
		return u.msg, true
	}
	return "", false
}

// discordgoSilent is a session LogLevel below LogError: discordgo logs
// nothing for the session.
const discordgoSilent = discordgo.LogError - 1

// closeWatch notes the first websocket close frame written on the gateway
// connections once shutdown has armed it.
type closeWatch struct {
	armed atomic.Bool
	once  sync.Once
	sent  chan struct{} // closed when a close frame went out after arm
}

func (w *closeWatch) arm() { w.armed.Store(true) }

// watchedConn is a gateway connection as dialed (below TLS, if any),
// reporting close frames to w.
type watchedConn struct {
	net.Conn
	w *closeWatch
}

// Write passes p on. gorilla/websocket writes each client frame in one
// Write starting with its header; 0x88 is a final close frame. Over
// wss:// the connection carries TLS records (first byte 0x14–0x18), so a
// close frame is never seen there.
func (c *watchedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err == nil && len(p) > 0 && p[0] == 0x88 && c.w.armed.Load() {
		c.w.once.Do(func() { close(c.w.sent) })
	}
	return n, err
}

// closeGateway closes the session's gateway connection. discordgo's Close
// writes the close frame, then sleeps a second holding the session before
// it closes the socket. When the frame is seen going out (over ws://, as
// against the local test server) closeGateway returns then, and the rest
// of Close finishes in the background; over wss:// it waits for Close, at
// most max.
func closeGateway(s *discordgo.Session, w *closeWatch, max time.Duration) error {
	w.arm()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	timer := time.NewTimer(max)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-w.sent:
		return nil
	case <-timer.C:
		return errors.New("gateway close still running")
	}
}
