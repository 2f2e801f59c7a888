package discord

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/quizhost/quizhost/internal/sharding"
)

// shard is one gateway session of the bot: shard id of the layout's count,
// with its own connection attempt, close watch and drop signal.
type shard struct {
	id        int
	s         *discordgo.Session
	att       *attempt
	closeSent *closeWatch
	dropped   chan struct{} // a Disconnect happened (buffered, 1)
	up        atomic.Bool   // connected now
	// resumable: the session got a READY, so discordgo reconnects it with a
	// RESUME, which Discord's identify rate limit does not count.
	resumable atomic.Bool
}

// Shards asks Discord (GET /gateway/bot) how to start the shards of want:
// it resolves want's zero value (as many shards as Discord recommends),
// waits when fewer session starts remain today than there are shards to
// start, and returns the layout to run and the identify concurrency
// (max_concurrency, at least 1) for Open. Its errors are explained (see
// Open); when ctx ends it returns ctx's error.
func (c *Client) Shards(ctx context.Context, want sharding.Layout) (sharding.Layout, int, error) {
	gb, err := c.rest.GatewayBot(discordgo.WithContext(ctx))
	if err != nil {
		msg, _ := c.connectError(err)
		return sharding.Layout{}, 0, msg
	}
	l := want
	if l.IsZero() {
		n := max(gb.Shards, 1)
		l = sharding.Layout{First: 0, Last: n - 1, Count: n}
	}
	lim := gb.SessionStartLimit
	need := l.Last - l.First + 1
	if lim.Total > 0 && lim.Remaining < need {
		wait := time.Duration(lim.ResetAfter) * time.Millisecond
		c.log.Warn("too few gateway session starts remain today: waiting for Discord to reset the limit before connecting",
			"remaining", lim.Remaining, "shards", need, "reset_after", wait)
		if err := sleepCtx(ctx, wait); err != nil {
			return sharding.Layout{}, 0, err
		}
	}
	return l, max(lim.MaxConcurrency, 1), nil
}

// Open makes one gateway session for each shard of l and connects them
// all, those of different identify buckets (shard id % concurrency) at
// once, each in its identify turn. Every interaction a shard receives, now
// and until Close, is handed to onInteraction synchronously in the
// shard's event loop: onInteraction must return at once (handing the
// work to a goroutine of its own), and so can count each interaction in
// before the gateway closes. On the first failure Open stops the other
// attempts and returns the failure explained for the operator: the
// configured API base rather than discord.com, what to do about a refused
// token or a fatal close code. Cancelling ctx stops it (the error is then
// of no interest). Call Open once.
func (c *Client) Open(ctx context.Context, l sharding.Layout, concurrency int, onInteraction func(*discordgo.InteractionCreate)) error {
	shards := make([]*shard, 0, l.Last-l.First+1)
	for id := l.First; id <= l.Last; id++ {
		sh, err := c.newShard(id, l.Count, onInteraction)
		if err != nil {
			return err
		}
		shards = append(shards, sh)
	}
	c.shards = shards
	c.want.Store(int32(len(shards)))
	c.pace = newPacer(concurrency, c.cfg.IdentifyInterval, func(shard int, wait time.Duration) {
		c.log.Debug("gateway identify rate limit: waiting", "shard", shard, "wait", wait)
	})
	if err := c.connectAll(ctx); err != nil {
		msg, _ := c.connectError(err)
		return msg
	}
	return nil
}

// Keep reconnects each shard that drops until ctx ends (then it returns
// nil, once no reconnection is under way), or until a shard's gateway
// refuses the bot for good (a fatal close code): then it stops the others'
// reconnections and returns that refusal, explained.
func (c *Client) Keep(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fatal := make(chan error, len(c.shards))
	var wg sync.WaitGroup
	for _, sh := range c.shards {
		wg.Go(func() {
			if err := c.keepConnected(ctx, sh); err != nil {
				fatal <- err
				cancel()
			}
		})
	}
	wg.Wait()
	select {
	case err := <-fatal:
		return err
	default:
		return nil
	}
}

// Close closes every shard's gateway connection at once (see
// closeGateway), giving up at deadline. Call it after Keep returned.
func (c *Client) Close(deadline time.Time) error {
	errs := make(chan error, len(c.shards))
	for _, sh := range c.shards {
		go func() { errs <- closeGateway(sh.s, sh.closeSent, time.Until(deadline)) }()
	}
	var first error
	for range c.shards {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Connected reports whether every shard Open made is connected now
// (vacuously true before Open).
func (c *Client) Connected() bool { return c.up.Load() == c.want.Load() }

// Reached reports whether any shard ever connected.
func (c *Client) Reached() bool { return c.reached.Load() }

// Me is who the gateway says the bot is: its application's id and its
// user name (as the first shard's READY told; "" before Open).
func (c *Client) Me() (appID, user string) {
	if len(c.shards) == 0 {
		return "", ""
	}
	if st := c.shards[0].s.State; st != nil {
		if st.Application != nil {
			appID = st.Application.ID
		}
		if st.User != nil {
			user = st.User.Username
			if appID == "" {
				appID = st.User.ID
			}
		}
	}
	return appID, user
}

// GuildName is a server's name as the gateway told it (the State of the
// shards' sessions), or "" when no shard knows it.
func (c *Client) GuildName(guild string) string {
	for _, sh := range c.shards {
		if sh.s.State == nil {
			continue
		}
		if g, err := sh.s.State.Guild(guild); err == nil && g.Name != "" {
			return g.Name
		}
	}
	return ""
}

// newShard makes the session of shard id of count, which hands its
// interactions to onInteraction; its REST client is used only for the
// gateway's own GET /gateway (everything else goes through c.rest).
func (c *Client) newShard(id, count int, onInteraction func(*discordgo.InteractionCreate)) (*shard, error) {
	s, err := discordgo.New("Bot " + c.cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("discord session: %w", err)
	}
	sh := &shard{id: id, s: s, att: &attempt{}, closeSent: &closeWatch{sent: make(chan struct{})}, dropped: make(chan struct{}, 1)}
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: &transport{base: c.base, next: c.cfg.Transport, connecting: sh.att}}
	dialer := *websocket.DefaultDialer
	dialer.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := sh.att.dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: conn, w: sh.closeSent}, nil
	}
	s.Dialer = &dialer
	s.ShouldReconnectOnError = false // keepConnected does it
	s.Identify.Intents = discordgo.IntentsGuilds
	s.ShardID, s.ShardCount = id, count
	// discordgo logs through a package-global function; the bot keeps its
	// sessions silent and logs what matters itself (undecodable
	// interactions, gateway drops and reconnects, REST errors where they
	// are handled), so that each bot's log is its own.
	s.LogLevel = discordgoSilent
	// Handlers run synchronously in dg's event loop: onInteraction only
	// counts the interaction in and hands it on, so that none received
	// before the gateway closes escapes the bot's shutdown wait.
	s.SyncEvents = true
	s.AddHandler(func(_ *discordgo.Session, ic *discordgo.InteractionCreate) { onInteraction(ic) })
	s.AddHandler(func(*discordgo.Session, *discordgo.Ready) { sh.resumable.Store(true) })
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		c.shardDown(sh)
		select {
		case sh.dropped <- struct{}{}:
		default:
		}
	})
	return sh, nil
}

// shardUp and shardDown keep the count of connected shards.
func (c *Client) shardUp(sh *shard) {
	if sh.up.CompareAndSwap(false, true) {
		c.up.Add(1)
	}
	c.reached.Store(true)
}

func (c *Client) shardDown(sh *shard) {
	if sh.up.CompareAndSwap(true, false) {
		c.up.Add(-1)
	}
}

// pacer keeps gateway IDENTIFYs within Discord's rate limit: shards share a
// bucket when their id % max_concurrency is the same, and two IDENTIFYs of
// one bucket must be at least every apart. A connection attempt holds its
// bucket from before it dials until READY (or its failure).
type pacer struct {
	every   time.Duration
	buckets []chan struct{} // a token each: held by the attempt under way
	last    []time.Time     // when each bucket's last attempt ended; read and written holding its token
	log     func(shard int, wait time.Duration)
}

func newPacer(concurrency int, every time.Duration, log func(shard int, wait time.Duration)) *pacer {
	p := &pacer{every: every, buckets: make([]chan struct{}, concurrency), last: make([]time.Time, concurrency), log: log}
	for i := range p.buckets {
		p.buckets[i] = make(chan struct{}, 1)
	}
	return p
}

// take waits until shard may identify, or ctx ends (then it returns ctx's
// error). release must be called once the attempt has ended.
func (p *pacer) take(ctx context.Context, shard int) (release func(), err error) {
	i := shard % len(p.buckets)
	select {
	case p.buckets[i] <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if !p.last[i].IsZero() {
		if d := time.Until(p.last[i].Add(p.every)); d > 0 {
			p.log(shard, d)
			if err := sleepCtx(ctx, d); err != nil {
				<-p.buckets[i]
				return nil, err
			}
		}
	}
	return func() {
		p.last[i] = time.Now()
		<-p.buckets[i]
	}, nil
}

// connectShard opens sh's gateway connection in its identify turn.
func (c *Client) connectShard(ctx context.Context, sh *shard) error {
	release := func() {}
	if !sh.resumable.Load() { // an IDENTIFY takes its turn; a RESUME need not
		r, err := c.pace.take(ctx, sh.id)
		if err != nil {
			return err
		}
		release = r
	}
	err := connect(ctx, sh.s, sh.att)
	release()
	if err != nil {
		return err
	}
	c.shardUp(sh)
	c.log.Debug("gateway shard connected", "shard", sh.id)
	return nil
}

// connectAll connects every shard, those of different identify buckets at
// once. On the first failure it stops the others and returns it.
func (c *Client) connectAll(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(c.shards))
	for _, sh := range c.shards {
		go func() { errs <- c.connectShard(ctx, sh) }()
	}
	var first error
	for range c.shards {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}
