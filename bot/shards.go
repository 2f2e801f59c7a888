package bot

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
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

// newShard makes the session of shard id of count. Its interactions go to
// the bot's handler under ctx; its REST client is used only for the
// gateway's own GET /gateway (everything else goes through b.sess).
func (b *Bot) newShard(ctx context.Context, base *url.URL, id, count int) (*shard, error) {
	s, err := discordgo.New("Bot " + b.cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("discord session: %w", err)
	}
	sh := &shard{id: id, s: s, att: &attempt{}, closeSent: &closeWatch{sent: make(chan struct{})}, dropped: make(chan struct{}, 1)}
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: &transport{base: base, next: b.cfg.Transport, connecting: sh.att}}
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
	s.AddHandler(func(*discordgo.Session, *discordgo.Ready) { sh.resumable.Store(true) })
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		b.shardDown(sh)
		select {
		case sh.dropped <- struct{}{}:
		default:
		}
	})
	return sh, nil
}

// shardUp and shardDown keep the count of connected shards.
func (b *Bot) shardUp(sh *shard) {
	if sh.up.CompareAndSwap(false, true) {
		b.shardsUp.Add(1)
	}
	b.reached.Store(true)
}

func (b *Bot) shardDown(sh *shard) {
	if sh.up.CompareAndSwap(true, false) {
		b.shardsUp.Add(-1)
	}
}

// layout asks Discord (GET /gateway/bot) how to start: it resolves the
// configured shards (the zero value: as many as Discord recommends), waits
// when fewer session starts remain today than there are shards to start,
// and returns the identify concurrency (max_concurrency, at least 1).
func (b *Bot) layout(ctx context.Context, rs *discordgo.Session) (sharding.Layout, int, error) {
	gb, err := rs.GatewayBot(discordgo.WithContext(ctx))
	if err != nil {
		return sharding.Layout{}, 0, err
	}
	l := b.cfg.Shards
	if l.IsZero() {
		n := max(gb.Shards, 1)
		l = sharding.Layout{First: 0, Last: n - 1, Count: n}
	}
	lim := gb.SessionStartLimit
	need := l.Last - l.First + 1
	if lim.Total > 0 && lim.Remaining < need {
		wait := time.Duration(lim.ResetAfter) * time.Millisecond
		b.log.Warn("too few gateway session starts remain today: waiting for Discord to reset the limit before connecting",
			"remaining", lim.Remaining, "shards", need, "reset_after", wait)
		if err := sleepCtx(ctx, wait); err != nil {
			return sharding.Layout{}, 0, err
		}
	}
	return l, max(lim.MaxConcurrency, 1), nil
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
func (b *Bot) connectShard(ctx context.Context, sh *shard, p *pacer) error {
	release := func() {}
	if !sh.resumable.Load() { // an IDENTIFY takes its turn; a RESUME need not
		r, err := p.take(ctx, sh.id)
		if err != nil {
			return err
		}
		release = r
	}
	err := b.connect(ctx, sh.s, sh.att)
	release()
	if err != nil {
		return err
	}
	b.shardUp(sh)
	b.log.Debug("gateway shard connected", "shard", sh.id)
	return nil
}

// connectAll connects every shard, those of different identify buckets at
// once. On the first failure it stops the others and returns it.
func (b *Bot) connectAll(ctx context.Context, shards []*shard, p *pacer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(shards))
	for _, sh := range shards {
		go func() { errs <- b.connectShard(ctx, sh, p) }()
	}
	var first error
	for range shards {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}
