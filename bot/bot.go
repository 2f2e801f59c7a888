// Package bot is everything Discord: the slash commands, custom IDs,
// rendering, the interaction lifecycle and the timers that close questions
// and post the daily quiz. It reaches the database only through Store.
package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/questions"
)

// Store is what the bot needs from the database. storage.DB implements it;
// see there for the contract of each method.
type Store interface {
	Settings(guildID uint64) (questions.Settings, error)
	UpdateSettings(guildID uint64, fn func(*questions.Settings) error) (questions.Settings, error)
	DailyGuilds() ([]questions.Settings, error)
	ClaimDaily(guildID uint64, due, next time.Time, localDate string) (bool, error)
	DailyFailed(guildID uint64, msg string) error

	CreatePost(p questions.Post) (questions.Post, error)
	SetPostMessage(postID, messageID uint64) error
	DeletePost(postID uint64) error
	Post(postID uint64) (questions.Post, error)
	OpenPosts() ([]questions.Post, error)
	OpenPostsIn(guildID, channelID uint64) ([]questions.Post, error)
	ClosePost(postID uint64, at time.Time) (questions.Post, bool, error)
	MarkRevealed(postID uint64) error
	UnrevealedPosts() ([]questions.Post, error)

	RecordAnswer(a questions.Answer) (questions.Answer, error)
	Answer(postID, userID uint64) (questions.Answer, error)

	Asked(guildID uint64) (map[string]bool, error)
	ForgetAsked(guildID uint64, questionIDs []string) error

	Leaderboard(guildID uint64, p questions.Period, r questions.Ranking, at time.Time, offset, limit int) (questions.Leaderboard, error)
	Standing(guildID, userID uint64, p questions.Period, r questions.Ranking, at time.Time) (questions.Standing, error)
	MemberStats(guildID, userID uint64, at time.Time) (questions.MemberStats, error)
	ActiveStreaks(guildID uint64, at time.Time, limit int) ([]questions.Score, error)

	SaveBanks(guildID uint64, files []questions.BankFile, draftID uint64) error
	Banks(guildID uint64) ([]questions.BankFile, error)
	DeleteBank(guildID uint64, name string) error

	SaveDraft(d questions.Draft) (questions.Draft, error)
	Draft(guildID, id uint64) (questions.Draft, error)
	DeleteDraft(guildID, id uint64) error
	Suggestions(guildID uint64) ([]questions.Draft, error)

	ResetGuild(guildID uint64) error
	ResetMember(guildID, userID uint64) error
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

	sess *discordgo.Session

	// inflight counts interaction handlers; once closing, new ones only
	// say the bot is restarting.
	inflightMu sync.Mutex
	inflight   int
	idle       chan struct{} // closed when inflight drops to zero
	closing    bool

	wake    chan struct{}  // pokes the scheduler after a post or setting changes
	refresh chan uint64    // posts whose live count needs an edit
	postMu  [64]sync.Mutex // striped by post id: serialise each post's message edits

	// editMu serialises changes to imported banks (import, paste, approve,
	// remove): each is planned from the banks as they are and stored whole.
	editMu sync.Mutex

	importedMu sync.Mutex
	imports    map[uint64]*guildBanks // guild → its imported banks, parsed; loaded on first use

	// Scheduler goroutine only: when to retry a failed reveal, and how
	// many times it failed.
	revealAt    map[uint64]time.Time
	revealTries map[uint64]int
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
		refresh:  make(chan uint64, 1024),
		imports:  map[uint64]*guildBanks{},
		revealAt: map[uint64]time.Time{}, revealTries: map[uint64]int{},
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

// rewriteTransport sends requests for discord.com to the configured API
// base, same path: this is how the bot runs against a local
// Discord-compatible server.
type rewriteTransport struct {
	base *url.URL
	next http.RoundTripper
}

func (t rewriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == "discord.com" && (t.base.Host != "discord.com" || t.base.Scheme != "https") {
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host, req.Host = t.base.Scheme, t.base.Host, t.base.Host
	}
	return t.next.RoundTrip(req)
}

// Run connects to Discord, registers the commands, re-arms the timers of
// open questions and serves interactions until ctx is cancelled. Then it
// stops taking interactions, waits for those in flight (up to
// ShutdownGrace), stops its timers and closes the gateway. It does not
// close the Store: that is the caller's.
func (b *Bot) Run(ctx context.Context) error {
	base, _ := apiBase(b.cfg.APIBase)
	s, err := discordgo.New("Bot " + b.cfg.Token)
	if err != nil {
		return fmt.Errorf("discord session: %w", err)
	}
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: rewriteTransport{base: base, next: http.DefaultTransport}}
	s.Identify.Intents = discordgo.IntentsGuilds
	s.LogLevel = discordgo.LogError
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

	if err := s.Open(); err != nil {
		return fmt.Errorf("connect to the Discord gateway: %w", err)
	}
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
	// shutdown stops taking interactions (new ones are told the bot is
	// restarting), waits for those in flight (up to ShutdownGrace), closes
	// the gateway, then stops the timers, all within shutdownBudget. Every
	// way out of Run after Open goes through it.
	shutdown := func() error {
		deadline := time.Now().Add(shutdownBudget)
		b.inflightMu.Lock()
		b.closing = true
		b.inflightMu.Unlock()
		if !b.waitIdle(min(b.cfg.ShutdownGrace, time.Until(deadline)-1500*time.Millisecond)) {
			b.log.Warn("interactions still in flight at shutdown")
		}
		closeErr := s.Close()              // takes about a second
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

	<-ctx.Done()
	b.log.Info("shutting down")
	return shutdown()
}

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
func (b *Bot) postLock(id uint64) *sync.Mutex { return &b.postMu[id%uint64(len(b.postMu))] }

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
