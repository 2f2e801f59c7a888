package discord

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

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
func (c *Client) connectError(err error) (msg error, fatal bool) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		if why, ok := fatalClose(ce.Code); ok {
			return fmt.Errorf("the Discord gateway closed the connection with code %d (%s)", ce.Code, why), true
		}
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("the Discord API at %s refused the bot token (HTTP 401 Unauthorized): check DISCORD_TOKEN", c.cfg.APIBase), true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("connect to Discord at %s: %w", c.cfg.APIBase, err), false
}

// connect opens the gateway connection, giving up when ctx ends.
func connect(ctx context.Context, s *discordgo.Session, a *attempt) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.begin(ctx)
	defer a.end()
	return s.Open()
}

// keepConnected reconnects shard sh each time it drops (discordgo's own
// reconnecting is off: it retries fatal close codes forever and cannot be
// stopped), in its identify turn, waiting 1 s, 2 s, 4 s … up to 10 minutes
// between failed tries, like discordgo. It returns when ctx ends (nil) or
// on a fatal close code (the error to stop the bot with).
func (c *Client) keepConnected(ctx context.Context, sh *shard) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sh.dropped:
		}
		c.log.Warn("gateway connection dropped: reconnecting", "shard", sh.id)
		wait := time.Second
		for {
			err := c.connectShard(ctx, sh)
			if err == nil || errors.Is(err, discordgo.ErrWSAlreadyOpen) {
				c.shardUp(sh)
				c.log.Info("reconnected to the gateway", "shard", sh.id)
				c.cfg.Reconnected()
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			msg, fatal := c.connectError(err)
			if fatal {
				return msg
			}
			c.log.Warn("reconnect to the gateway", "shard", sh.id, "err", msg, "retry_in", wait)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			wait = min(2*wait, 10*time.Minute)
		}
	}
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
