package fakediscord_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// shardGuilds are six guilds whose shard among 2, 3 or 6 shards is k % N:
// (id >> 22) = k.
func shardGuilds() []discordtest.Guild {
	var gs []discordtest.Guild
	for k := range 6 {
		id := fmt.Sprint(uint64(k)<<22 | 777)
		gs = append(gs, discordtest.Guild{ID: id, Channels: []discordtest.Channel{{ID: fmt.Sprint(6100 + k)}},
			Members: []discordtest.Member{{ID: "7001", Username: "alice"}}})
	}
	return gs
}

// shardSession is a discordgo session of one shard and what it received.
type shardSession struct {
	dg     *discordgo.Session
	ready  chan *discordgo.Ready
	guilds chan string
	inter  chan *discordgo.Interaction
	events chan string // guild_id of each MESSAGE_CREATE
}

func openShard(t *testing.T, srv *discordtest.Server, id, count int) *shardSession {
	t.Helper()
	dg := session(t, srv.URL())
	checkEvents(t, dg)
	dg.Identify.Intents = discordgo.IntentsGuilds
	dg.ShardID, dg.ShardCount = id, count
	// A heartbeat that meets the close frame (the test ends right after
	// Open) must not start discordgo's reconnect loop against a server
	// that is gone.
	dg.ShouldReconnectOnError = false
	ss := &shardSession{dg: dg, ready: make(chan *discordgo.Ready, 4), guilds: make(chan string, 16),
		inter: make(chan *discordgo.Interaction, 16), events: make(chan string, 16)}
	dg.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ss.ready <- r })
	dg.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) { ss.guilds <- g.ID })
	dg.AddHandler(func(_ *discordgo.Session, ic *discordgo.InteractionCreate) { ss.inter <- ic.Interaction })
	dg.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { ss.events <- m.GuildID })
	if err := dg.Open(); err != nil {
		t.Fatalf("Open shard %d: %v", id, err)
	}
	return ss
}

// closeShards closes the sessions together when the test ends (see
// closeSessions).
func closeShards(t *testing.T, srv *discordtest.Server, shards []*shardSession) {
	t.Helper()
	var dgs []*discordgo.Session
	for _, ss := range shards {
		dgs = append(dgs, ss.dg)
	}
	closeSessions(t, srv.Server, dgs...)
}

// TestShardedGateway runs three discordgo sessions, one per shard: each
// gets READY with its shard and GUILD_CREATE for its guilds only, and the
// interactions and events of a guild arrive on the session of its shard.
func TestShardedGateway(t *testing.T) {
	t.Parallel()
	guilds := shardGuilds()
	srv := discordtest.Start(t, discordtest.Options{Guilds: guilds, Shards: 3, MaxConcurrency: 3})
	var shards []*shardSession
	for i := range 3 {
		shards = append(shards, openShard(t, srv, i, 3))
	}
	closeShards(t, srv, shards)
	srv.WaitConnected(t, wait)
	for i, ss := range shards {
		r := recv(t, ss.ready, fmt.Sprintf("READY of shard %d", i))
		if r.Shard == nil || *r.Shard != [2]int{i, 3} {
			t.Errorf("shard %d: READY shard %v, want [%d 3]", i, r.Shard, i)
		}
		var want, got []string
		for k, g := range guilds {
			if k%3 == i {
				want = append(want, g.ID)
			}
		}
		for range want {
			got = append(got, recv(t, ss.guilds, fmt.Sprintf("GUILD_CREATE on shard %d", i)))
		}
		var stubs []string
		for _, g := range r.Guilds {
			stubs = append(stubs, g.ID)
		}
		slices.Sort(got) // discordgo runs each handler in its own goroutine
		slices.Sort(want)
		slices.Sort(stubs)
		if !slices.Equal(got, want) || !slices.Equal(stubs, want) {
			t.Errorf("shard %d: READY guilds %v, GUILD_CREATE %v; want %v", i, stubs, got, want)
		}
	}

	for k, g := range guilds {
		p := srv.SlashCommand(g.ID, g.Channels[0].ID, discordtest.Member{ID: "7001"}, "quiz")
		srv.DispatchEvent("MESSAGE_CREATE", map[string]any{"id": fmt.Sprint(9000 + k), "channel_id": g.Channels[0].ID,
			"guild_id": g.ID, "content": "hi", "author": map[string]any{"id": "7001", "username": "alice"}})
		on := shards[k%3]
		if ic := recv(t, on.inter, "the interaction on its shard"); ic.ID != p.ID() || ic.GuildID != g.ID {
			t.Errorf("guild %s: shard %d got interaction %s of guild %s, want %s", g.ID, k%3, ic.ID, ic.GuildID, p.ID())
		}
		if got := recv(t, on.events, "the event on its shard"); got != g.ID {
			t.Errorf("guild %s: shard %d got MESSAGE_CREATE of guild %s", g.ID, k%3, got)
		}
	}
	srv.DispatchEvent("MESSAGE_CREATE", map[string]any{"id": "9100", "channel_id": "55",
		"content": "dm", "author": map[string]any{"id": "7001", "username": "alice"}})
	if got := recv(t, shards[0].events, "the DM event on shard 0"); got != "" {
		t.Errorf("DM event: got guild %q, want none", got)
	}
	// Every delivery above was awaited; had one gone to a wrong shard, that
	// shard's channel would hold it now.
	for i, ss := range shards {
		if n := len(ss.inter) + len(ss.events); n != 0 {
			t.Errorf("shard %d: %d deliveries of other shards", i, n)
		}
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}

}

// A RESUME finds its shard by the session id: the resumed connection gets
// that shard's guilds' interactions again.
func TestShardResume(t *testing.T) {
	t.Parallel()
	guilds := shardGuilds()
	srv := discordtest.Start(t, discordtest.Options{Guilds: guilds, Shards: 2, MaxConcurrency: 2})
	var sessions []string
	for i := range 2 {
		f := dialGateway(t, srv).identify(i, 2)
		var r discordgo.Ready
		if err := json.Unmarshal(f.D, &r); err != nil || f.T != "READY" {
			t.Fatalf("shard %d: got %+v, %v; want READY", i, f, err)
		}
		sessions = append(sessions, r.SessionID)
	}
	srv.WaitConnected(t, wait)
	srv.Disconnect()
	c := dialGateway(t, srv)
	if err := c.ws.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": "Bot x", "session_id": sessions[1], "seq": 0}}); err != nil {
		t.Fatal(err)
	}
	p := srv.SlashCommand(guilds[3].ID, guilds[3].Channels[0].ID, discordtest.Member{ID: "7001"}, "quiz") // shard 1
	var got []string
	for len(got) == 0 || got[len(got)-1] != "INTERACTION_CREATE" {
		f, err := c.read()
		if err != nil {
			t.Fatalf("after RESUME: %v (frames %v)", err, got)
		}
		got = append(got, f.T)
		if f.T == "INTERACTION_CREATE" && !strings.Contains(string(f.D), p.ID()) {
			t.Fatalf("resumed shard 1 got another interaction: %s", f.D)
		}
	}
	if got[0] != "RESUMED" {
		t.Errorf("frames after RESUME: got %v, want RESUMED first", got)
	}
	srv.WaitShardConnected(t, 1, wait)
	if srv.ShardConnected(0) {
		t.Errorf("shard 0 connected after Disconnect without a new session")
	}
}

func TestGatewayBot(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{Guilds: shardGuilds(), Shards: 2, MaxConcurrency: 2, SessionStarts: 5, IdentifyInterval: -1})
	get := func() map[string]any {
		t.Helper()
		_, b := discordtest.Do(t, srv.URL(), "x", http.MethodGet, "/api/v10/gateway/bot", "")
		var out map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return out
	}
	want := `map[max_concurrency:2 remaining:5 reset_after:8.64e+07 total:1000]`
	if g := get(); g["shards"] != 2.0 || fmt.Sprint(g["session_start_limit"]) != want || g["url"] != srv.GatewayURL() {
		t.Fatalf("gateway/bot: got %v, want 2 shards, %s", g, want)
	}
	c := dialGateway(t, srv)
	if f := c.identify(0, 2); f.T != "READY" {
		t.Fatalf("IDENTIFY: got %+v, want READY", f)
	}
	if got := fmt.Sprint(get()["session_start_limit"].(map[string]any)["remaining"]); got != "4" {
		t.Errorf("remaining after one IDENTIFY: got %s, want 4", got)
	}
}

// rawGateway is a websocket client that speaks the gateway by hand.
type rawGateway struct {
	t  *testing.T
	ws *websocket.Conn
}

type frame struct {
	Op int             `json:"op"`
	S  int64           `json:"s"`
	T  string          `json:"t"`
	D  json.RawMessage `json:"d"`
}

func dialGateway(t *testing.T, srv *discordtest.Server) *rawGateway {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL()+"/?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	c := &rawGateway{t: t, ws: ws}
	if f, err := c.read(); err != nil || f.Op != 10 {
		t.Fatalf("HELLO: got %+v, %v", f, err)
	}
	return c
}

func (c *rawGateway) read() (frame, error) {
	var f frame
	_ = c.ws.SetReadDeadline(time.Now().Add(wait))
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal(data, &f)
}

// identify sends IDENTIFY (shard [id, count], or none when count is 0)
// and returns the answer's first frame.
func (c *rawGateway) identify(id, count int) frame {
	c.t.Helper()
	d := map[string]any{"token": "Bot x", "intents": 1}
	if count > 0 {
		d["shard"] = []int{id, count}
	}
	if err := c.ws.WriteJSON(map[string]any{"op": 2, "d": d}); err != nil {
		c.t.Fatal(err)
	}
	f, err := c.read()
	if err != nil {
		c.t.Fatalf("answer to IDENTIFY %v: %v", d["shard"], err)
	}
	return f
}

// closeCode sends IDENTIFY and returns the close code the server ends the
// connection with.
func (c *rawGateway) closeCode(id, count int) int {
	c.t.Helper()
	d := map[string]any{"token": "Bot x", "intents": 1}
	if count > 0 {
		d["shard"] = []int{id, count}
	}
	if err := c.ws.WriteJSON(map[string]any{"op": 2, "d": d}); err != nil {
		c.t.Fatal(err)
	}
	for {
		f, err := c.read()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		if err != nil {
			c.t.Fatalf("IDENTIFY %v: got %v, want a close frame", d["shard"], err)
		}
		c.t.Fatalf("IDENTIFY %v: got %+v, want a close frame", d["shard"], f)
	}
}

func TestShardIdentifyRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		id, count int
		want      int
		says      string
	}{
		{name: "no shard", count: 0, want: 4011, says: "no shard"},
		{name: "too few shards", id: 0, count: 1, want: 4011, says: "2 shards required"},
		{name: "id out of range", id: 2, count: 2, want: 4010, says: "invalid shard"},
		{name: "negative id", id: -1, count: 2, want: 4010, says: "invalid shard"},
		{name: "more shards than served", id: 0, count: 4, want: 4010, says: "this server has 2 shards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := discordtest.Start(t, discordtest.Options{Guilds: shardGuilds(), Shards: 2})
			if got := dialGateway(t, srv).closeCode(tt.id, tt.count); got != tt.want {
				t.Errorf("close code: got %d, want %d", got, tt.want)
			}
			if v := srv.Violations(); len(v) != 1 || !strings.Contains(v[0], tt.says) {
				t.Errorf("violations: got %q, want one saying %q", v, tt.says)
			}
		})
	}
}

// An IDENTIFY sooner than IdentifyInterval after the last one of its
// bucket (shard id % MaxConcurrency) gets op 9 and is a violation; other
// buckets are not held up.
func TestIdentifyRateLimit(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{Guilds: shardGuilds(), Shards: 3, MaxConcurrency: 2, IdentifyInterval: time.Hour})
	if f := dialGateway(t, srv).identify(0, 3); f.T != "READY" {
		t.Fatalf("shard 0: got %+v, want READY", f)
	}
	if f := dialGateway(t, srv).identify(2, 3); f.Op != 9 || string(f.D) != "false" {
		t.Fatalf("shard 2 (bucket 0, too soon): got %+v, want op 9", f)
	}
	if f := dialGateway(t, srv).identify(1, 3); f.T != "READY" {
		t.Fatalf("shard 1 (bucket 1): got %+v, want READY", f)
	}
	if got := srv.IdentifiesLimited(); got != 1 {
		t.Errorf("IdentifiesLimited: got %d, want 1", got)
	}
	if v := srv.Violations(); len(v) != 1 || !strings.Contains(v[0], "bucket 0") {
		t.Errorf("violations: got %q, want one about bucket 0", v)
	}
	if srv.ShardConnected(2) || !srv.ShardConnected(0) || !srv.ShardConnected(1) {
		t.Errorf("connected shards: got %t %t %t, want true true false", srv.ShardConnected(0), srv.ShardConnected(1), srv.ShardConnected(2))
	}

	// A window shorter than the gap between two IDENTIFYs lets both in.
	srv = discordtest.Start(t, discordtest.Options{Guilds: shardGuilds(), Shards: 2, IdentifyInterval: time.Nanosecond})
	for i := range 2 {
		if f := dialGateway(t, srv).identify(i, 2); f.T != "READY" {
			t.Fatalf("shard %d with a 1 ns window: got %+v, want READY", i, f)
		}
	}
}

// DispatchToShard sends an interaction to the shard named, not its
// guild's, and its callback is accepted as any other's.
func TestDispatchToShard(t *testing.T) {
	t.Parallel()
	guilds := shardGuilds()
	srv := discordtest.Start(t, discordtest.Options{Guilds: guilds, Shards: 2, MaxConcurrency: 2})
	shards := []*shardSession{openShard(t, srv, 0, 2), openShard(t, srv, 1, 2)}
	closeShards(t, srv, shards)
	srv.WaitConnected(t, wait)
	g := guilds[1] // shard 1's
	p := srv.DispatchToShard(0, json.RawMessage(`{"id":"5301","application_id":"9001","type":2,"token":"tok-5301","version":1,
	  "guild_id":"`+g.ID+`","channel_id":"`+g.Channels[0].ID+`","member":{"user":{"id":"7001","username":"alice"},"roles":[],"permissions":"0"},
	  "data":{"id":"4001","name":"quiz","type":1}}`))
	if ic := recv(t, shards[0].inter, "the interaction on shard 0"); ic.ID != "5301" || ic.GuildID != g.ID {
		t.Errorf("shard 0 got interaction %s of guild %s, want 5301 of %s", ic.ID, ic.GuildID, g.ID)
	}
	if n := len(shards[1].inter); n != 0 {
		t.Errorf("shard 1 got %d interactions, want 0", n)
	}
	err := shards[0].dg.InteractionRespond(&discordgo.Interaction{ID: "5301", Token: "tok-5301", AppID: "9001"},
		&discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "misrouted", AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}}})
	if err != nil {
		t.Fatalf("callback: %v", err)
	}
	if r, ok := p.Responded(); !ok || r.Content != "misrouted" {
		t.Errorf("response: got %+v, %v; want \"misrouted\"", r, ok)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}
}
