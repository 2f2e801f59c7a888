package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// shardGuilds are n guilds whose shard among 2 shards is k % 2 ((id >> 22)
// = k), each with one channel and alice and bob.
func shardGuilds(n int) []discordtest.Guild {
	var gs []discordtest.Guild
	for k := range n {
		gs = append(gs, discordtest.Guild{ID: fmt.Sprint(uint64(k)<<22 | 777),
			Channels: []discordtest.Channel{{ID: fmt.Sprint(6100 + k)}}, Members: []discordtest.Member{alice, bob}})
	}
	return gs
}

// logWait is a bot's log that tests can wait on.
type logWait struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{} // closed and replaced on each write
}

func newLogWait() *logWait { return &logWait{changed: make(chan struct{})} }

func (l *logWait) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.changed)
	l.changed = make(chan struct{})
	return l.b.Write(p)
}

func (l *logWait) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wait waits until the log holds text, failing the test after timeout.
func (l *logWait) wait(t *testing.T, text string, timeout time.Duration) {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		l.mu.Lock()
		found, changed := strings.Contains(l.b.String(), text), l.changed
		l.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("the bot did not log %q within %v; log:\n%s", text, timeout, l.String())
		}
	}
}

// shardBot is a bot running against a sharded test server.
type shardBot struct {
	b    *bot.Bot
	db   *storage.DB
	logs *logWait
	stop func() error
}

// runShardBot starts a bot with cfg's Shards and IdentifyInterval against
// srv on a new database (whose open is passed to seed first, if not nil).
func runShardBot(t *testing.T, srv *discordtest.Server, cfg bot.Config, seed func(*storage.DB)) *shardBot {
	t.Helper()
	db, err := storage.Open(t.Context(), filepath.Join(t.TempDir(), "quizhost.db"), storage.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if seed != nil {
		seed(db)
	}
	banks, err := questions.Parse("test.txt", []byte(testBank))
	if err != nil {
		t.Fatal(err)
	}
	cat, probs := questions.NewCatalogue(banks)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	sb := &shardBot{db: db, logs: newLogWait()}
	cfg.Token, cfg.APIBase, cfg.Store, cfg.Catalogue = token, srv.URL(), db, cat
	cfg.Logger = slog.New(slog.NewTextHandler(sb.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if sb.b, err = bot.New(cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sb.b.Run(ctx) }()
	var once sync.Once
	var stopErr error
	sb.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(8 * time.Second):
				stopErr = fmt.Errorf("bot did not stop within 8 s")
			}
			if err := db.Close(); err != nil && stopErr == nil {
				stopErr = err
			}
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := sb.stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		if t.Failed() {
			t.Logf("bot log:\n%s", sb.logs.String())
		}
	})
	return sb
}

// askAndAnswer posts a question in guild g with /quiz ask and has member m
// answer it, and returns the post.
func askAndAnswer(t *testing.T, srv *discordtest.Server, db *storage.DB, g discordtest.Guild, m discordtest.Member) questions.Post {
	t.Helper()
	ch := g.Channels[0].ID
	p := srv.SlashCommand(g.ID, ch, alice, "quiz", sub("ask", str("bank", "Test Bank"), integer("minutes", 600)))
	if content, _, _ := (&env{t: t}).reply(p); !strings.Contains(content, "Posted question") {
		t.Fatalf("guild %s: /quiz ask replied %q, want \"Posted question\"", g.ID, content)
	}
	gid, _ := questions.ParseGuildID(g.ID)
	cid, _ := questions.ParseChannelID(ch)
	posts, err := db.OpenPostsIn(gid, cid)
	if err != nil || len(posts) != 1 {
		t.Fatalf("guild %s: open posts %v, %v; want 1", g.ID, posts, err)
	}
	answerPost(t, srv, db, g, posts[0], m)
	return posts[0]
}

// answerPost has m answer post in guild g and checks the answer is stored.
func answerPost(t *testing.T, srv *discordtest.Server, db *storage.DB, g discordtest.Guild, post questions.Post, m discordtest.Member) {
	t.Helper()
	r := srv.Component(g.ID, g.Channels[0].ID, m, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), post.Correct...).WaitResponse(t, wait)
	if r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("guild %s: answer reply %q is public, want ephemeral", g.ID, r.Content)
	}
	uid, _ := questions.ParseUserID(m.ID)
	if _, err := db.Answer(post.ID, uid); err != nil {
		t.Errorf("guild %s: %s's answer: %v", g.ID, m.Username, err)
	}
}

// TestShardsServeTheirServers: with QUIZHOST_SHARDS empty the bot runs as
// many shards as Discord recommends, one session each, identifying them no
// faster than the rate limit allows (two shards in one bucket), registers
// the commands once, and serves the servers of every shard, also after
// every session dropped and reconnected.
func TestShardsServeTheirServers(t *testing.T) {
	t.Parallel()
	guilds := shardGuilds(4)
	const interval = 100 * time.Millisecond // 5 s at Discord: the second shard waits it out
	srv := discordtest.Start(t, discordtest.Options{Token: token, Guilds: guilds, Shards: 2, MaxConcurrency: 1, IdentifyInterval: interval})
	sb := runShardBot(t, srv, bot.Config{IdentifyInterval: interval}, nil)
	srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PUT" }, wait)
	srv.WaitConnected(t, wait)
	if !sb.b.Connected() || !sb.b.Reached() {
		t.Errorf("Connected %v, Reached %v after start; want both true", sb.b.Connected(), sb.b.Reached())
	}
	if got := srv.Identifies(); got != 2 {
		t.Errorf("IDENTIFYs: got %d, want 2 (one per shard)", got)
	}
	if !strings.Contains(sb.logs.String(), "gateway identify rate limit: waiting") {
		t.Error("the bot did not log waiting for the identify rate limit (two shards of one bucket)")
	}
	if !strings.Contains(sb.logs.String(), "shards=0-1/2") {
		t.Error("the bot did not log the shards it runs (0-1/2, Discord's recommendation)")
	}
	for _, g := range guilds {
		askAndAnswer(t, srv, sb.db, g, bob)
	}

	srv.Disconnect() // every shard drops; each reconnects on its own
	srv.WaitShardConnected(t, 0, wait)
	srv.WaitShardConnected(t, 1, wait)
	for _, g := range guilds {
		gid, _ := questions.ParseGuildID(g.ID)
		cid, _ := questions.ParseChannelID(g.Channels[0].ID)
		posts, err := sb.db.OpenPostsIn(gid, cid)
		if err != nil || len(posts) != 1 {
			t.Fatalf("guild %s: open posts %v, %v", g.ID, posts, err)
		}
		answerPost(t, srv, sb.db, g, posts[0], alice)
	}
	if err := sb.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if n := countPUTs(srv); n != 1 {
		t.Errorf("command registrations: got %d, want 1", n)
	}
	if n := srv.IdentifiesLimited(); n != 0 {
		t.Errorf("IDENTIFYs refused for coming too soon: %d, want 0", n)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}
}

func countPUTs(srv *discordtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == "PUT" && strings.HasSuffix(r.Route, "/commands") {
			n++
		}
	}
	return n
}

// TestForeignServerRefused: a bot that runs shard 0 of 2 refuses an
// interaction of a shard-1 server that reaches it (Discord and the
// configuration disagree) with a logged error and a message, storing
// nothing, and its scheduler leaves the posts of such a server alone;
// its own servers are served.
func TestForeignServerRefused(t *testing.T) {
	t.Parallel()
	guilds := shardGuilds(2) // guild 0 on shard 0, guild 1 on shard 1
	own, foreign := guilds[0], guilds[1]
	srv := discordtest.Start(t, discordtest.Options{Token: token, Guilds: guilds, Shards: 2, MaxConcurrency: 2})
	foreignID, _ := questions.ParseGuildID(foreign.ID)
	var stale questions.Post
	sb := runShardBot(t, srv, bot.Config{Shards: sharding.Layout{First: 0, Last: 0, Count: 2}}, func(db *storage.DB) {
		// A post of the foreign server, overdue: the scheduler must not close it.
		var err error
		stale, err = db.CreatePost(t.Context(), questions.Post{GuildID: foreignID, ChannelID: 6101, MessageID: 1, QuestionID: "x#1",
			Bank: "Test Bank", Correct: []string{"A"}, OptionCount: 2, SelectCount: 1,
			OpenedAt: time.Now().Add(-2 * time.Hour), ClosesAt: time.Now().Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
	})
	srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PUT" }, wait)
	srv.WaitShardConnected(t, 0, wait)
	sb.logs.wait(t, "posts of servers of other shards left alone", wait)

	ask := json.RawMessage(`{"id":"5201","application_id":"9001","type":2,"token":"tok-5201","version":1,
	  "guild_id":"` + foreign.ID + `","channel_id":"6101","app_permissions":"2248473465835073","context":0,
	  "member":{"user":{"id":"7001","username":"alice"},"roles":[],"joined_at":"2024-01-01T00:00:00.000000+00:00","permissions":"2248473465835105"},
	  "data":{"id":"4001","name":"quiz","type":1,"options":[{"name":"ask","type":1,"options":[]}]}}`)
	r := srv.DispatchToShard(0, ask).WaitResponse(t, wait)
	if !strings.Contains(r.Content, "misconfigured") || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("a foreign server's /quiz ask: got %q (flags %d), want a private \"misconfigured\" message", r.Content, r.Flags)
	}
	sb.logs.wait(t, "interaction of a server of another shard refused", wait)
	for _, m := range srv.Messages("6101") {
		if m.InteractionID == "" {
			t.Errorf("the foreign server's channel got a message: %q", m.Content)
		}
	}
	askAndAnswer(t, srv, sb.db, own, bob)
	if err := sb.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	db, err := storage.Open(t.Context(), sb.db.Path(), storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	posts, err := db.OpenPosts()
	if err != nil {
		t.Fatal(err)
	}
	var foreignPosts []questions.PostID
	for _, p := range posts {
		if p.GuildID == foreignID {
			foreignPosts = append(foreignPosts, p.ID)
		}
	}
	if len(foreignPosts) != 1 || foreignPosts[0] != stale.ID {
		t.Errorf("the foreign server's open posts: got %v, want only the stale one (%d), still open", foreignPosts, stale.ID)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}
}

// TestFewSessionStartsWait: when fewer session starts remain today than
// there are shards to start, the bot says so and waits for the reset
// instead of identifying; cancelling it meanwhile stops it cleanly.
func TestFewSessionStartsWait(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{Token: token, Guilds: shardGuilds(2), Shards: 2, MaxConcurrency: 2, SessionStarts: 1})
	sb := runShardBot(t, srv, bot.Config{}, nil)
	sb.logs.wait(t, "too few gateway session starts remain today", wait)
	if !strings.Contains(sb.logs.String(), "remaining=1 shards=2") {
		t.Errorf("the wait does not say what remains and what is needed; log:\n%s", sb.logs.String())
	}
	if err := sb.stop(); err != nil {
		t.Errorf("Run: got %v, want nil (stopped while waiting)", err)
	}
	if n := srv.Identifies(); n != 0 {
		t.Errorf("IDENTIFYs: got %d, want 0", n)
	}
	if sb.b.Reached() {
		t.Error("Reached: got true, want false")
	}
}
