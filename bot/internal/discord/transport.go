package discord

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
)

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

// restConns is how many idle connections NewTransport keeps to one host:
// enough for the interactions a large server sends in the same few seconds
// (each reply is one request; over HTTP/1.1 each request in flight holds
// a connection).
const restConns = 256

// NewTransport returns the transport the bot sends REST requests over by
// default (Config.Transport): http.DefaultTransport's settings (proxy from
// the environment, keep-alives, HTTP/2 over TLS) with room for restConns
// idle connections per host instead of 2, so that a burst of replies
// reuses connections instead of dialling a new one for most of them.
func NewTransport() *http.Transport {
	t := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	if d, ok := http.DefaultTransport.(*http.Transport); ok {
		t = d.Clone()
	}
	t.MaxIdleConns = restConns
	t.MaxIdleConnsPerHost = restConns
	return t
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

// CloseIdleConnections closes the next transport's idle connections, if
// it keeps any (http.Client.CloseIdleConnections calls it).
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// interactionRoute reports whether path is an interaction response:
// a callback or a webhook call with an interaction token (follow-ups and
// edits of the original reply). Discord exempts these from the global
// rate limit.
func interactionRoute(path string) bool {
	return strings.Contains(path, "/interactions/") || strings.Contains(path, "/webhooks/")
}

type backgroundKey struct{}

// Background marks ctx as the scheduler's or the refresher's. Their REST
// calls do not retry a request Discord answered 429 (discordgo would sleep
// through the wait, deaf to the context, which could hold up shutdown):
// they fail with a *discordgo.RateLimitError, and the work is retried
// later. A rate limit already known for a route their Post, Edit or DM
// goes to is waited out for as long as the context lasts, and no longer.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// background reports whether ctx is marked by Background.
func background(ctx context.Context) bool { return ctx.Value(backgroundKey{}) != nil }

// rest is the request options of a REST call made under ctx.
func rest(ctx context.Context) []discordgo.RequestOption {
	opts := []discordgo.RequestOption{discordgo.WithContext(ctx)}
	if background(ctx) {
		opts = append(opts, discordgo.WithRetryOnRatelimit(false))
	}
	return opts
}
