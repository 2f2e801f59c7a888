// Package discord is the bot's connection to Discord, and the one place
// of package bot that talks to it: the gateway shards that bring the
// interactions in, and every REST request that goes out (interaction
// responses, channel messages, direct messages, the commands'
// registration), with the transport and the rate-limit handling they
// share. Package bot decides what to send and renders it; this package
// sends it. No other file of bot/ holds a discordgo session or builds a
// REST request (.ci/run checks), and Client hands out none.
//
// Where things are:
//
//   - client.go: Client, Config and New; what goes out besides
//     interaction replies: channel messages (Post and Edit, and PostNow
//     and EditNow, which do not wait out a rate limit), direct messages
//     (DM), the commands (RegisterCommands); how Discord's refusals read
//     (ErrRateLimited, ErrDMClosed, RateLimited, Permanent).
//   - replybuckets.go: interaction replies (Respond, EditReply, FollowUp)
//     and the rate-limit buckets they share.
//   - transport.go: REST through the configured API base, Discord's global
//     rate limit kept away from interaction responses, Background.
//   - shards.go: the gateway as the bot runs it: the shards (one session
//     each; the layout is internal/sharding's), identify pacing, and
//     Open, Keep and Close; what the gateway told (Me, GuildName).
//   - gateway.go: one shard's connection: connecting under a context,
//     reconnecting, fatal close codes, closing.
package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Config is what a Client is made from. Token is required.
type Config struct {
	// Token is the bot token, without the "Bot " prefix. Never logged.
	Token string
	// APIBase is where REST requests go (default https://discord.com);
	// the gateway address is whatever that base's /api/v9/gateway returns.
	APIBase string
	// Transport carries the REST requests after the Client's own redirect
	// and rate-limit handling (default NewTransport()).
	Transport http.RoundTripper
	// Logger receives the gateway's drops, reconnects and identify waits
	// (default: discard).
	Logger *slog.Logger
	// IdentifyInterval is the least time between two gateway IDENTIFYs of
	// one rate-limit bucket (shard id % max_concurrency); default 5 s,
	// Discord's.
	IdentifyInterval time.Duration
	// Reconnected, when set, is called after each reconnection of a shard
	// that dropped (metrics).
	Reconnected func()
}

// Client is the bot's connection to Discord: one REST session for every
// request (one rate limiter for the token) and, once opened, the gateway
// sessions of the shards run, which only receive. Its methods are safe for
// concurrent use, except that Open is called once, before Keep and Close.
type Client struct {
	cfg  Config
	log  *slog.Logger
	base *url.URL
	rest *discordgo.Session // every REST request; never opens a gateway connection

	// The gateway (shards.go), set by Open before any shard connects.
	shards  []*shard
	pace    *pacer
	reached atomic.Bool  // a shard connected once
	up      atomic.Int32 // shards connected now
	want    atomic.Int32 // shards run
}

// New checks cfg and returns a Client. It makes no request: the gateway
// connects with Open.
func New(cfg Config) (*Client, error) {
	if cfg.Token == "" {
		return nil, errors.New("discord: missing Token")
	}
	if cfg.APIBase == "" {
		cfg.APIBase = "https://discord.com"
	}
	base, err := apiBase(cfg.APIBase)
	if err != nil {
		return nil, err
	}
	if cfg.Transport == nil {
		cfg.Transport = NewTransport()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.IdentifyInterval <= 0 {
		cfg.IdentifyInterval = 5 * time.Second
	}
	if cfg.Reconnected == nil {
		cfg.Reconnected = func() {}
	}
	rs, err := discordgo.New("Bot " + cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("discord session: %w", err)
	}
	rs.Client = &http.Client{Timeout: 20 * time.Second, Transport: &transport{base: base, next: cfg.Transport, connecting: &attempt{}}}
	rs.LogLevel = discordgoSilent
	return &Client{cfg: cfg, log: cfg.Logger, base: base, rest: rs}, nil
}

// CloseIdleConnections closes the REST connections kept idle (call it
// once the bot stopped).
func (c *Client) CloseIdleConnections() { c.rest.Client.CloseIdleConnections() }

// RateLimiter is discordgo's limiter that every REST request of c waits
// in, for tests and diagnostics that count its buckets: no request is
// sent through it.
func (c *Client) RateLimiter() *discordgo.RateLimiter { return c.rest.Ratelimiter }

// Post sends m to a channel and returns the new message's id. A rate
// limit is waited out as discordgo waits. Under a Background ctx a 429 is
// not retried (it fails with a *discordgo.RateLimitError), and a limit
// already known for the route is waited out only for as long as ctx lasts
// (discordgo would sleep through it, deaf to ctx).
func (c *Client) Post(ctx context.Context, channel string, m *discordgo.MessageSend) (messageID string, err error) {
	if !background(ctx) {
		msg, err := c.rest.ChannelMessageSendComplex(channel, m, rest(ctx)...)
		if err != nil {
			return "", err
		}
		return msg.ID, nil
	}
	return c.post(ctx, channel, m, -1)
}

// Edit edits a channel message (m.Channel, m.ID), waiting out a rate
// limit as Post does.
func (c *Client) Edit(ctx context.Context, m *discordgo.MessageEdit) error {
	if !background(ctx) {
		_, err := c.rest.ChannelMessageEditComplex(m, rest(ctx)...)
		return err
	}
	return c.edit(ctx, m, -1)
}

// maxRateWait is the longest EditNow and PostNow wait for a rate-limited
// route.
const maxRateWait = time.Second

// ErrRateLimited is returned by EditNow and PostNow when the route is rate
// limited for longer than they wait.
var ErrRateLimited = errors.New("rate limited: try again later")

// EditNow edits a channel message without waiting out a rate limit of
// more than a second: discordgo would sleep through it before sending
// (deaf to ctx), so an interaction whose reply waits on the edit (a reveal
// by /quizadmin close) would answer far too late. A limited route fails at
// once with ErrRateLimited (and a 429 with a *discordgo.RateLimitError:
// RateLimited reports both); the caller leaves the edit to a later retry.
// It takes the route's discordgo bucket itself, so discordgo's own
// requests and this one still count together.
func (c *Client) EditNow(ctx context.Context, m *discordgo.MessageEdit) error {
	return c.edit(ctx, m, maxRateWait)
}

// PostNow sends m to a channel as EditNow edits one: without waiting out a
// long rate limit (ErrRateLimited), in discordgo's bucket of the route.
func (c *Client) PostNow(ctx context.Context, channel string, m *discordgo.MessageSend) error {
	_, err := c.post(ctx, channel, m, maxRateWait)
	return err
}

// edit is Edit's request, made by request: waiting at most maxWait for
// the route (any time ctx allows when maxWait < 0), not retrying a 429.
func (c *Client) edit(ctx context.Context, m *discordgo.MessageEdit, maxWait time.Duration) error {
	if m.Embeds != nil {
		richEmbeds(*m.Embeds)
	}
	if _, err := c.request(ctx, http.MethodPatch, discordgo.EndpointChannelMessage(m.Channel, m.ID),
		discordgo.EndpointChannelMessage(m.Channel, ""), m, m.Files, maxWait); err != nil {
		return fmt.Errorf("edit message %s: %w", m.ID, err)
	}
	return nil
}

// post is Post's request as edit is Edit's; it returns the new message's id.
func (c *Client) post(ctx context.Context, channel string, m *discordgo.MessageSend, maxWait time.Duration) (string, error) {
	richEmbeds(m.Embeds)
	route := discordgo.EndpointChannelMessages(channel)
	resp, err := c.request(ctx, http.MethodPost, route, route, m, m.Files, maxWait)
	if err != nil {
		return "", fmt.Errorf("send message: %w", err)
	}
	var msg discordgo.Message
	if err := json.Unmarshal(resp, &msg); err != nil {
		return "", fmt.Errorf("send message: %w", err)
	}
	return msg.ID, nil
}

// richEmbeds sets the type discordgo sets on embeds it sends itself.
func richEmbeds(embeds []*discordgo.MessageEmbed) {
	for _, e := range embeds {
		if e.Type == "" {
			e.Type = discordgo.EmbedTypeRich
		}
	}
}

// request makes a REST request of data (JSON, or multipart with files as
// discordgo sends them) in discordgo's rate-limit bucket of route, and
// returns the response's body. It waits for the bucket under ctx: when
// the route is limited for longer than maxWait (if maxWait >= 0) it fails
// at once with ErrRateLimited, and when ctx ends first it returns ctx's
// error (discordgo would sleep through either wait, deaf to ctx). A 429 is
// not retried: it fails with a *discordgo.RateLimitError (see EditNow).
func (c *Client) request(ctx context.Context, method, uri, route string, data any, files []*discordgo.File, maxWait time.Duration) ([]byte, error) {
	contentType, body := "application/json", []byte(nil)
	var err error
	if len(files) > 0 {
		contentType, body, err = discordgo.MultipartBodyWithJSON(data, files)
	} else {
		body, err = json.Marshal(data)
	}
	if err != nil {
		return nil, err
	}
	rl := c.rest.Ratelimiter
	bucket := rl.GetBucket(route)
	give := time.Now().Add(maxWait)
	for !bucket.TryLock() { // another request of the route is in flight, or asleep
		if maxWait >= 0 && time.Now().After(give) {
			return nil, ErrRateLimited
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
	}
	if wait := rl.GetWaitTime(bucket, 1); wait > 0 {
		if maxWait >= 0 && wait > maxWait {
			bucket.Unlock()
			return nil, fmt.Errorf("%w (for %v)", ErrRateLimited, wait.Round(time.Millisecond))
		}
		if err := sleepCtx(ctx, wait); err != nil {
			bucket.Unlock()
			return nil, err
		}
	}
	bucket.Remaining--
	return c.rest.RequestWithLockedBucket(method, uri, contentType, body, bucket, 0,
		append(rest(ctx), discordgo.WithRetryOnRatelimit(false))...)
}

// ErrDMClosed is returned by DM when the member's direct messages are
// closed to the bot (Discord answers 403, code 50007).
var ErrDMClosed = errors.New("the member's direct messages are closed")

// DM sends m to a user by direct message, opening the channel first. A
// user whose direct messages are closed to the bot fails with an error
// that wraps ErrDMClosed (and Discord's *discordgo.RESTError).
func (c *Client) DM(ctx context.Context, user string, m *discordgo.MessageSend) error {
	err := c.dm(ctx, user, m)
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusForbidden &&
		re.Message != nil && re.Message.Code == discordgo.ErrCodeCannotSendMessagesToThisUser {
		return fmt.Errorf("%w: %w", ErrDMClosed, err)
	}
	return err
}

// dm opens the direct-message channel and sends m in it; under a
// Background ctx as Post does.
func (c *Client) dm(ctx context.Context, user string, m *discordgo.MessageSend) error {
	if !background(ctx) {
		ch, err := c.rest.UserChannelCreate(user, rest(ctx)...)
		if err == nil {
			_, err = c.rest.ChannelMessageSendComplex(ch.ID, m, rest(ctx)...)
		}
		return err
	}
	resp, err := c.request(ctx, http.MethodPost, discordgo.EndpointUserChannels("@me"), discordgo.EndpointUserChannels(""),
		struct {
			RecipientID string `json:"recipient_id"`
		}{user}, nil, -1)
	if err != nil {
		return fmt.Errorf("open direct message channel: %w", err)
	}
	var ch discordgo.Channel
	if err := json.Unmarshal(resp, &ch); err != nil {
		return fmt.Errorf("open direct message channel: %w", err)
	}
	_, err = c.post(ctx, ch.ID, m, -1)
	return err
}

// RegisterCommands replaces the application's commands with cmds (one
// bulk overwrite): in guild only, when guild is set, else globally. It is
// discordgo's ApplicationCommandBulkOverwrite without decoding the
// commands Discord sends back, which the bot does not read.
func (c *Client) RegisterCommands(ctx context.Context, appID, guild string, cmds []*discordgo.ApplicationCommand) error {
	endpoint := discordgo.EndpointApplicationGlobalCommands(appID)
	if guild != "" {
		endpoint = discordgo.EndpointApplicationGuildCommands(appID, guild)
	}
	_, err := c.rest.RequestWithBucketID("PUT", endpoint, cmds, endpoint, discordgo.WithContext(ctx))
	return err
}

// RateLimited reports whether err is a request refused for a rate limit:
// ErrRateLimited, or a 429 that was not retried (*discordgo.RateLimitError).
func RateLimited(err error) bool {
	var rl *discordgo.RateLimitError
	return errors.Is(err, ErrRateLimited) || errors.As(err, &rl)
}

// Permanent reports whether a Discord error will not go away by retrying:
// 403 (missing access or permissions) or 404 (unknown message or channel).
func Permanent(err error) bool {
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Response != nil &&
		(re.Response.StatusCode == http.StatusForbidden || re.Response.StatusCode == http.StatusNotFound)
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
