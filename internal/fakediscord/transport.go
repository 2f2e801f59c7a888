package fakediscord

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Transport returns an http.RoundTripper that sends requests for Discord's
// hosts (discord.com, discordapp.com, discordapp.net and any of their
// subdomains, such as cdn.discordapp.com) to baseURL, keeping path and
// query, and every other request unchanged, through http.DefaultTransport.
// Use it as a discordgo session's Client transport in tests; the bot has its
// own equivalent driven by DISCORD_API_BASE. An unparsable baseURL makes
// every rewritten request fail.
func Transport(baseURL string) http.RoundTripper {
	u, err := url.Parse(baseURL)
	if err == nil && (u.Scheme == "" || u.Host == "") {
		err = fmt.Errorf("base URL %q has no scheme or host", baseURL)
	}
	return rewriteTransport{base: u, err: err, next: http.DefaultTransport}
}

type rewriteTransport struct {
	base *url.URL
	err  error
	next http.RoundTripper
}

func (t rewriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isDiscordHost(req.URL.Hostname()) {
		return t.next.RoundTrip(req)
	}
	if t.err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("fakediscord: %w", t.err)
	}
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = t.base.Scheme, t.base.Host, t.base.Host
	return t.next.RoundTrip(req)
}

func isDiscordHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for _, d := range []string{"discord.com", "discordapp.com", "discordapp.net"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}
