// Package bot is everything Discord: the slash commands, custom IDs,
// rendering, the interaction lifecycle and the timers that close questions
// and post the daily quiz. It reaches the database only through Store.
//
// Where things are:
//
//   - routes.go: the interaction table. Each route is a slash command with
//     its options' autocomplete, who may use it (Manage Server or not) and
//     how it is acknowledged, and the buttons, menus and forms of its
//     messages by custom-ID kind (the kinds are declared there too).
//     table.go: the table's types, its checks, the commands registered and
//     the lookup by command path or custom-ID prefix; dispatch.go: the
//     entry point of every interaction, which resolves its route, refuses
//     members who lack Manage Server where the route needs it, and
//     acknowledges it as the route says; customid.go: the custom-ID codec
//     (patterns such as "a1:<post>"); autocomplete.go: the suggesters.
//   - respond.go: the response a handler returns (reply, update, modal,
//     choices, later) and sending it, deferrals, edits, allowed_mentions,
//     and outbound, every request the bot sends Discord; options.go:
//     reading command options; errors.go: messages for members, store
//     errors, token redaction.
//   - One file per command family, the handler first, then the pure
//     function that renders its message: ask.go (/quiz ask and the draw),
//     answer.go (answering a posted question), leaderboard.go, stats.go,
//     banks.go, question.go, settings.go, daily.go, import.go, export.go,
//     reset.go, paste.go (/quizadmin add, /quiz suggest and their drafts),
//     suggest.go (the suggestion queue, /quizadmin suggestions), review.go
//     (/quiz review, and the showing and grading of its questions that
//     /quiz drill shares), drill.go (/quiz drill), misses.go (/quiz misses
//     export), study.go (/quiz exam, the exam plan of the review schedule,
//     the readiness and chart of /quiz stats), report.go (the Report button, /quizadmin reports and
//     regrade).
//   - confirm.go: the prompts to confirm (reset, and the bank changes of
//     undo.go) and their one-use buttons; undo.go: bank remove, import
//     mode:replace and question remove once confirmed, with the version
//     they keep, and /quizadmin bank undo; bankedit.go: planning and
//     storing a change to a server's own banks; bankset.go: each server's
//     imported banks in memory, one snapshot per change.
//   - scheduler.go: the one timer (closes, reveal retries, the daily quiz);
//     refresher.go: live answer counts; reveal.go: close, reveal and the
//     retry; revealcache.go: each answered post's reveal, rendered once.
//   - render.go and preview.go: pure rendering of domain values into
//     Discord payloads (and quizhost preview's text); layout.go: cutting
//     long texts and packing embeds into messages; plaintext.go: select
//     labels as plain text.
//   - ratelimit.go: the per-member rate limits of suggestion and review
//     steps (the fair play of /quiz ask is in ask.go, held by the store).
//   - bot.go: Store, Config, New and Run (start, shutdown).
//   - internal/discord: the connection to Discord, the one place that
//     talks to it: the gateway's shards (connecting, reconnecting, fatal
//     close codes, closing, identify pacing; the layout, and so which
//     servers are the bot's own, is internal/sharding's), which hand each
//     interaction to Run's handler, and every REST request: interaction
//     replies through their own rate-limit buckets, channel messages
//     (Post, Edit, and PostNow, EditNow, which do not wait out a rate
//     limit), direct messages, the commands' registration; the transport
//     (the configured API base, Discord's global rate limit kept away from
//     interaction responses). Feature files describe messages and send
//     them through outbound (respond.go); none holds a discordgo session
//     (.ci/run checks).
package bot

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot/internal/discord"
	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
)

// Store is what the bot needs from the database: every call it makes, in
// one interface, as the bot is its one consumer; the methods are grouped
// by concern. storage.DB
// implements it; see there for the contract of each method. Writes take a
// context: it bounds the wait for the write (a cancelled wait writes
// nothing); a write under way commits or fails whatever the context does.
type Store interface {
	// Settings: a guild's settings and its daily schedule.
	Settings(guildID questions.GuildID) (questions.Settings, error)
	UpdateSettings(ctx context.Context, guildID questions.GuildID, fn func(*questions.Settings) error) (questions.Settings, error)
	DailyGuilds() ([]questions.Settings, error)
	ClaimDaily(ctx context.Context, guildID questions.GuildID, due, next time.Time, localDate string) (bool, error)
	DailyFailed(ctx context.Context, guildID questions.GuildID, msg string) error

	// Posts: the questions posted, their close and reveal, and which
	// questions a guild was asked; a member's ask is held to the guild's
	// fair-play limits (CreateAsk) in the transaction that posts it.
	CreatePost(ctx context.Context, p questions.Post) (questions.Post, error)
	CreateAsk(ctx context.Context, p questions.Post, lim questions.AskLimits) (questions.Post, error)
	LastAsk(guildID questions.GuildID, userID questions.UserID) (time.Time, error)
	SetPostMessage(ctx context.Context, postID questions.PostID, messageID questions.MessageID) error
	DeletePost(ctx context.Context, postID questions.PostID) error
	Post(postID questions.PostID) (questions.Post, error)
	OpenPosts() ([]questions.Post, error)
	OpenPostsIn(guildID questions.GuildID, channelID questions.ChannelID) ([]questions.Post, error)
	ClosePost(ctx context.Context, postID questions.PostID, at time.Time) (questions.Post, bool, error)
	MarkRevealed(ctx context.Context, postID questions.PostID) error
	SetRevealSent(ctx context.Context, postID questions.PostID, sent int) error
	UnrevealedPosts() ([]questions.Post, error)
	Asked(guildID questions.GuildID) (map[string]bool, error)

	// Answers: members' answers to posts.
	RecordAnswer(ctx context.Context, a questions.Answer) (questions.Answer, error)

	// Scores: leaderboards, standings, stats and streaks.
	Leaderboard(guildID questions.GuildID, p questions.Period, r questions.Ranking, at time.Time, offset, limit int) (questions.Leaderboard, error)
	Standing(guildID questions.GuildID, userID questions.UserID, p questions.Period, r questions.Ranking, at time.Time) (questions.Standing, error)
	MemberStats(guildID questions.GuildID, userID questions.UserID, at time.Time) (questions.MemberStats, error)
	ActiveStreaks(guildID questions.GuildID, at time.Time, limit int) ([]questions.Score, error)

	// Banks: a guild's imported banks, the versions kept for undo and
	// its drafts (pastes and suggestions).
	SaveBanks(ctx context.Context, guildID questions.GuildID, files []questions.BankFile, draftID questions.DraftID) error
	Banks(guildID questions.GuildID) ([]questions.BankFile, error)
	EditBanks(ctx context.Context, guildID questions.GuildID, e questions.BankEdit) error
	BankVersions(guildID questions.GuildID) ([]questions.BankVersion, error)
	SaveDraft(ctx context.Context, d questions.Draft) (questions.Draft, error)
	Draft(guildID questions.GuildID, id questions.DraftID) (questions.Draft, error)
	DeleteDraft(ctx context.Context, guildID questions.GuildID, id questions.DraftID) error
	Suggestions(guildID questions.GuildID) ([]questions.Draft, error)

	// Confirmations waiting for an admin's click.
	SaveConfirmation(ctx context.Context, c questions.Confirmation) (questions.Confirmation, error)
	Confirmation(guildID questions.GuildID, id questions.ConfirmationID) (questions.Confirmation, error)
	TakeConfirmation(ctx context.Context, guildID questions.GuildID, id questions.ConfirmationID) (questions.Confirmation, error)

	// Resets: wiping scores.
	ResetGuild(ctx context.Context, guildID questions.GuildID) error
	ResetMember(ctx context.Context, guildID questions.GuildID, userID questions.UserID) error

	// Study: what members remember (the memory model), their private
	// reviews and drills, and exam dates.
	Memories(guildID questions.GuildID, userID questions.UserID) ([]questions.Memory, error)
	GroupMemories(guildID questions.GuildID, users []questions.UserID, questionIDs []string) ([]questions.Memory, error)
	Players(guildID questions.GuildID, now time.Time) ([]questions.UserID, error)
	OpenQuestions(guildID questions.GuildID) (map[string]bool, error)
	ReviewQueue(guildID questions.GuildID, userID questions.UserID, now time.Time, inBank func(questionID string) bool, exam questions.ExamPlan) (questions.ReviewQueue, error)
	StartReview(ctx context.Context, r questions.Review) (questions.Review, error)
	Review(guildID questions.GuildID, reviewID questions.ReviewID) (questions.Review, error)
	RecordReview(ctx context.Context, a questions.Answer) (questions.Answer, error)
	SetExamDate(ctx context.Context, e questions.ExamDate) error
	ExamDate(guildID questions.GuildID, userID questions.UserID) (questions.ExamDate, error)
	SaveDrill(ctx context.Context, d questions.Drill) error
	Drill(guildID questions.GuildID, userID questions.UserID) (questions.Drill, error)

	// Mock exams: members' timed attempts, the scheduler's index of them,
	// and the exam settings a guild's admins set for banks.
	StartMock(ctx context.Context, m questions.Mock) (questions.Mock, error)
	LatestMock(guildID questions.GuildID, userID questions.UserID) (questions.Mock, error)
	Mock(guildID questions.GuildID, userID questions.UserID, id questions.MockID) (questions.Mock, error)
	Mocks(guildID questions.GuildID, userID questions.UserID, limit int) ([]questions.Mock, error)
	UpdateMock(ctx context.Context, guildID questions.GuildID, userID questions.UserID, id questions.MockID, fn func(*questions.Mock) error) (questions.Mock, error)
	MocksDue() ([]questions.MockDue, error)
	MockNotified(ctx context.Context, guildID questions.GuildID, userID questions.UserID, id questions.MockID) error
	BankExams(guildID questions.GuildID) (map[string]questions.Exam, error)
	SetBankExam(ctx context.Context, guildID questions.GuildID, bank string, e questions.Exam) error

	// Reports: members' reports about questions, and re-grading a
	// question's stored answers.
	AddReport(ctx context.Context, r questions.Report) (questions.Report, error)
	Reports(guildID questions.GuildID) ([]questions.Report, error)
	CloseReport(ctx context.Context, guildID questions.GuildID, reportID questions.ReportID) error
	Regrade(ctx context.Context, guildID questions.GuildID, questionID string, correct []string, optionCount int) (questions.Regraded, error)

	// Insights: the questions' statistics (kept by RecordAnswer) and the
	// flags an admin dismissed (/quizadmin insights).
	QuestionStats(guildID questions.GuildID, bank string) ([]questions.QuestionStats, error)
	QuestionStat(guildID questions.GuildID, num uint32) (questions.QuestionStats, error)
	QuestionNumbers(ctx context.Context, guildID questions.GuildID, qids []string) (map[string]uint32, error)
	DismissFlags(ctx context.Context, guildID questions.GuildID, num uint32) error
	StatsVersion(guildID questions.GuildID) (uint64, error)
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
	// Metrics receives measurements (answers and their latency, gateway
	// reconnects, scheduler lag); nil records nothing.
	Metrics Recorder
	// Transport carries the REST requests to Discord after the bot's own
	// redirect and rate-limit handling (default NewTransport()); a
	// metrics wrapper goes here.
	Transport http.RoundTripper
	// Shards is the range of gateway shards the bot runs, one session each
	// (QUIZHOST_SHARDS); its Store must hold exactly their servers. Discord
	// sends every event of a server to shard (server ID >> 22) % Count, so
	// the bot serves exactly the servers of its shards. The zero value runs
	// every shard, as many as Discord recommends. Only the bot that runs
	// shard 0 registers the commands.
	Shards sharding.Layout
	// IdentifyInterval is the least time between two gateway IDENTIFYs of
	// one rate-limit bucket (shard id % max_concurrency); default 5 s,
	// Discord's.
	IdentifyInterval time.Duration
	// AnswerAckWait is how long an answer may take to be graded and
	// stored, counted from the interaction's arrival, before the bot
	// defers the interaction (default 2 s: Discord wants a response within
	// 3 s). Real time, not Clock's: Discord's deadline is.
	AnswerAckWait time.Duration
	// AnswerBanksWait is how long after its interaction arrived an answer
	// waits at most for its server's banks to load (the first answer after
	// a start, with the reveal on answer on) before it replies without the
	// reveal; the answer path never loads banks itself (default 1 s). Real
	// time, as AnswerAckWait.
	AnswerBanksWait time.Duration
	// ImportPace is how many times as long as each stretch of an import's
	// heavy work (parsing a file, checking or encoding a bank) the import
	// then waits, so that imports one after another take at most
	// 1/(ImportPace+1) of a core and the answers of every server keep the
	// rest (default 7; negative: no wait, for tests). Real time.
	ImportPace int
	// ChartPace is how many times as long as each chart took to draw the
	// bot rests before it draws the next, so that charts one after
	// another take at most 1/(ChartPace+1) of a core (default 3;
	// negative: no rest, for tests). Real time.
	ChartPace int
}

// CheckAPIBase reports whether s can be Config.APIBase: an http(s) URL
// with a host, such as https://discord.com.
func CheckAPIBase(s string) error { return discord.CheckAPIBase(s) }

// NewTransport returns the transport the bot sends REST requests over by
// default (Config.Transport): http.DefaultTransport's settings with room
// for a burst of replies' connections to stay open (see
// bot/internal/discord).
func NewTransport() *http.Transport { return discord.NewTransport() }

// Recorder is what the bot reports to metrics. internal/metrics.Metrics
// implements it. Methods must be safe for concurrent use and quick.
type Recorder interface {
	// AnswerRecorded counts a new answer, stored and graded latency after
	// its interaction arrived.
	AnswerRecorded(latency time.Duration)
	// Reconnect counts a gateway reconnection after a drop.
	Reconnect()
	// SchedulerLag records how late the scheduler did a job: a close or a
	// daily post, d after it was due.
	SchedulerLag(d time.Duration)
}

// noRecorder records nothing.
type noRecorder struct{}

func (noRecorder) AnswerRecorded(time.Duration) {}
func (noRecorder) Reconnect()                   {}
func (noRecorder) SchedulerLag(time.Duration)   {}

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

	// conn is the connection to Discord (bot/internal/discord): the
	// gateway's shards, which Run opens, and every REST request. out is
	// conn as the features see it: what they send.
	conn    *discord.Client
	out     outbound
	shards  sharding.Layout // the shards run, resolved by Run before any connects
	running atomic.Bool     // Run got past its first connect and is not shutting down

	// inflight counts interaction handlers; once closing, new ones only
	// say the bot is restarting.
	inflightMu sync.Mutex
	inflight   int
	idle       chan struct{} // closed when inflight drops to zero
	closing    bool

	wake        chan struct{}                          // pokes the scheduler after a post or setting changes
	refresh     chan questions.PostID                  // posts whose live count needs an edit
	posts       postLocks                              // serialise each post's message edits
	reveals     revealCache                            // each answered post's reveal, rendered once for all its replies
	charts      *guildCache[insightsKey, chartEntry]   // the last chart of each bank's insights (insights.go)
	lists       *guildCache[insightsKey, insightsList] // the last list of each bank's insights (insights.go)
	statsCharts *guildCache[memberKey, chartEntry]     // the last /quiz stats charts of each member (study.go)
	drawer      *drawer                                // draws the charts one at a time (draw.go)

	// suggests and reviews rate-limit each member's suggestion and review
	// writes (ratelimit.go).
	suggests, reviews *limiter

	// bankSets holds each guild's imported banks (questions.GuildID →
	// *bankSlot): a snapshot parsed once per change, and the lock that
	// serialises the guild's own changes (import, paste, approve, remove,
	// undo; see bankset.go).
	bankSets sync.Map
	loads    sync.WaitGroup // snapshot loads running in the background

	table *table // the interaction table (routes.go), resolved

	// Scheduler goroutine only: when to retry a failed reveal, and how
	// many times it failed.
	revealAt    map[questions.PostID]time.Time
	revealTries map[questions.PostID]int
	// Scheduler goroutine only: when to try again to send a timed-out
	// mock exam's result, and how many tries failed.
	mockRetryAt map[mockRef]time.Time
	mockTries   map[mockRef]int
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
	if err := cfg.Shards.Check(); err != nil {
		return nil, fmt.Errorf("bot config: Shards %s: %w", cfg.Shards, err)
	}
	if cfg.IdentifyInterval <= 0 {
		cfg.IdentifyInterval = 5 * time.Second
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noRecorder{}
	}
	if cfg.Transport == nil {
		cfg.Transport = NewTransport()
	}
	if cfg.APIBase == "" {
		cfg.APIBase = "https://discord.com"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	conn, err := discord.New(discord.Config{Token: cfg.Token, APIBase: cfg.APIBase, Transport: cfg.Transport,
		Logger: cfg.Logger, IdentifyInterval: cfg.IdentifyInterval, Reconnected: cfg.Metrics.Reconnect})
	if err != nil {
		return nil, err
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
	if cfg.AnswerAckWait <= 0 {
		cfg.AnswerAckWait = 2 * time.Second
	}
	if cfg.AnswerBanksWait <= 0 {
		cfg.AnswerBanksWait = time.Second
	}
	switch {
	case cfg.ImportPace == 0:
		cfg.ImportPace = 7
	case cfg.ImportPace < 0:
		cfg.ImportPace = 0
	}
	switch {
	case cfg.ChartPace == 0:
		cfg.ChartPace = 3
	case cfg.ChartPace < 0:
		cfg.ChartPace = 0
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 2500 * time.Millisecond
	}
	t, err := newTable(routes())
	if err != nil {
		return nil, fmt.Errorf("bot routes: %w", err)
	}
	return &Bot{
		cfg: cfg, store: cfg.Store, log: cfg.Logger, clock: cfg.Clock, rand: cfg.Rand,
		conn: conn, out: conn,
		wake:     make(chan struct{}, 1),
		refresh:  make(chan questions.PostID, 1024),
		revealAt: map[questions.PostID]time.Time{}, revealTries: map[questions.PostID]int{},
		mockRetryAt: map[mockRef]time.Time{}, mockTries: map[mockRef]int{},
		table:    t,
		suggests: newLimiter(suggestLimit), reviews: newLimiter(reviewLimit),
		drawer:      newDrawer(cfg.ChartPace),
		charts:      newGuildCache[insightsKey, chartEntry](maxInsightsCharts, maxInsightsChartsPerGuild),
		lists:       newGuildCache[insightsKey, insightsList](maxInsightsLists, maxInsightsListsPerGuild),
		statsCharts: newGuildCache[memberKey, chartEntry](maxMemberCharts, maxMemberChartsPerGuild),
	}, nil
}

// Run connects to Discord, registers the commands, re-arms the timers of
// open questions and serves interactions until ctx is cancelled. Then it
// stops taking interactions, waits for those in flight (up to
// ShutdownGrace), stops its timers and closes the gateway. It does not
// close the Store: that is the caller's.
//
// It runs one gateway session per shard of Config.Shards (asking Discord,
// GET /gateway/bot, how many when that is zero), identifying them at the
// pace Discord allows, and registers the commands only when it runs shard
// 0. An interaction of a server of another shard is refused (see
// dispatch), and the timers act only on the bot's own servers.
//
// Cancelling ctx while connecting stops at once and returns nil. A gateway
// that closes with a fatal code (4004 authentication failed, 4010–4014),
// at start or later, on any shard, stops the bot the same way as ctx and
// returns an error saying why; so does a token refused at start (HTTP
// 401). Other connection failures at start are returned; later drops are
// reconnected.
func (b *Bot) Run(ctx context.Context) error {
	defer b.conn.CloseIdleConnections()
	stopped := func(err error) error {
		if ctx.Err() != nil {
			b.log.Info("stopped while connecting")
			return nil
		}
		return err
	}
	layout, concurrency, err := b.conn.Shards(ctx, b.cfg.Shards)
	if err != nil {
		return stopped(err)
	}
	b.shards = layout

	bg, stopBG := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// The gateway watcher stops first, before the gateways close (their
	// Disconnect must not be taken for a drop).
	gwCtx, stopGW := context.WithCancel(ctx)
	var gwWatch sync.WaitGroup
	gwErr := make(chan error, 1)
	// shutdown stops taking interactions (new ones are told the bot is
	// restarting), waits for those in flight (up to ShutdownGrace), closes
	// the gateways, then stops the timers, all within shutdownBudget. Every
	// way out of Run after the first connect goes through it.
	shutdown := func() error {
		deadline := time.Now().Add(shutdownBudget)
		b.inflightMu.Lock()
		b.closing = true
		b.inflightMu.Unlock()
		b.running.Store(false)
		b.log.Info("shutting down: new interactions are refused")
		stopGW()
		gwWatch.Wait() // returns at once: any connection attempt is cancelled with gwCtx
		if !b.waitIdle(min(b.cfg.ShutdownGrace, time.Until(deadline)-1500*time.Millisecond)) {
			b.log.Warn("interactions still in flight at shutdown")
		}
		closeErr := b.conn.Close(deadline)
		b.waitIdle(300 * time.Millisecond) // refusals of any that arrived meanwhile
		stopBG()
		timers := make(chan struct{})
		go func() { wg.Wait(); b.loads.Wait(); close(timers) }()
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

	// Each interaction is counted in while the shard's event loop hands it
	// over, and handled in a goroutine of its own.
	onInteraction := func(ic *discordgo.InteractionCreate) {
		closing := b.enter()
		go func() {
			defer b.leave()
			b.onInteraction(ctx, ic, closing)
		}()
	}
	if err := b.conn.Open(ctx, layout, concurrency, onInteraction); err != nil {
		if b.Reached() {
			shutdown() // shards that did connect may have taken interactions
		}
		return stopped(err)
	}
	b.running.Store(true)
	defer b.running.Store(false)
	appID, user := b.conn.Me()
	b.log.Info("connected", "user", user, "application", appID, "shards", layout.String())

	gwWatch.Add(1)
	go func() {
		defer gwWatch.Done()
		if err := b.conn.Keep(gwCtx); err != nil {
			gwErr <- err
		}
	}()

	if layout.First != 0 {
		b.log.Info("commands not registered: the process that runs shard 0 registers them", "shards", layout.String())
	} else if err := b.conn.RegisterCommands(ctx, appID, b.cfg.GuildID, b.table.applicationCommands()); err != nil {
		serr := shutdown()
		if ctx.Err() != nil {
			return serr // stopped while starting: a clean stop
		}
		return fmt.Errorf("register commands: %w", err)
	} else {
		b.log.Info("commands registered", "guild", b.cfg.GuildID)
	}

	wg.Add(2)
	go func() { defer wg.Done(); b.scheduler(discord.Background(bg)) }()
	go func() { defer wg.Done(); b.refresher(discord.Background(bg)) }()
	b.warm(b.busyGuilds(), bg.Done())

	select {
	case <-ctx.Done():
		return shutdown()
	case err := <-gwErr:
		b.log.Error("gateway refused the bot: stopping", "err", err)
		shutdown()
		return err
	}
}

// busyGuilds are the guilds whose banks are needed soon after a start:
// those with open questions (answers, closes) or a daily schedule.
func (b *Bot) busyGuilds() []questions.GuildID {
	var out []questions.GuildID
	seen := map[questions.GuildID]bool{}
	add := func(g questions.GuildID) {
		if !seen[g] && b.shards.Owns(uint64(g)) {
			seen[g] = true
			out = append(out, g)
		}
	}
	posts, err := b.store.OpenPosts()
	if err != nil {
		b.log.Warn("open posts: banks not loaded ahead", "err", err)
	}
	for _, p := range posts {
		add(p.GuildID)
	}
	daily, err := b.store.DailyGuilds()
	if err != nil {
		b.log.Warn("daily guilds: banks not loaded ahead", "err", err)
	}
	for _, s := range daily {
		add(s.GuildID)
	}
	return out
}

// Connected reports whether the gateway is connected now, every shard of
// it: after Run's first connect and until it stops, except while a drop of
// any shard is being reconnected. Safe for concurrent use.
func (b *Bot) Connected() bool {
	return b.running.Load() && b.conn.Connected()
}

// Reached reports whether Run ever connected to the gateway, any shard of
// it (false when it failed or was stopped before any shard connected:
// then no interaction was served). Safe for concurrent use.
func (b *Bot) Reached() bool { return b.conn.Reached() }

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

func (b *Bot) pick(n int) int {
	b.randMu.Lock()
	defer b.randMu.Unlock()
	return b.rand.IntN(n)
}

// postLock serialises the message edits of one post (a close, a live
// count): lock and unlock it once, as a sync.Mutex. Each post has its own:
// a post waiting on the disk or on Discord holds up no other post, of its
// server or another.
func (b *Bot) postLock(id questions.PostID) *postMutex { return b.posts.get(id) }

// postLocks holds the lock of each post that has an edit in flight or
// waiting; a post's lock goes when its last holder unlocks it. The zero
// value is ready.
type postLocks struct {
	mu    sync.Mutex // guards posts and refs; held for no work
	posts map[questions.PostID]*postMutex
}

// postMutex is one post's lock (see postLock).
type postMutex struct {
	mu    sync.Mutex
	locks *postLocks
	id    questions.PostID
	refs  int // holders and waiters, under locks.mu
}

// get returns id's lock, counting the caller in until its Unlock.
func (l *postLocks) get(id questions.PostID) *postMutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.posts == nil {
		l.posts = map[questions.PostID]*postMutex{}
	}
	m := l.posts[id]
	if m == nil {
		m = &postMutex{locks: l, id: id}
		l.posts[id] = m
	}
	m.refs++
	return m
}

// Lock waits for the post's edits before it.
func (m *postMutex) Lock() { m.mu.Lock() }

// Unlock lets the next edit of the post go, and drops the post's lock
// once nobody holds or waits for it.
func (m *postMutex) Unlock() {
	m.mu.Unlock()
	m.locks.mu.Lock()
	defer m.locks.mu.Unlock()
	if m.refs--; m.refs == 0 {
		delete(m.locks.posts, m.id)
	}
}
