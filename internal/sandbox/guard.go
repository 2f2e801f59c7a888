package sandbox

import (
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The page lets whoever reaches it act as any member, admin imports
// included, so it answers only the browser tab that opened it. Binding to
// loopback keeps other machines out; these checks keep other web pages out:
//
//   - a DNS rebinding page (an attacker's name resolving to 127.0.0.1) is
//     same-origin with itself, so it could read anything here; its requests
//     carry its own name in Host, which hostPolicy refuses;
//   - a cross-site page can send a "simple" POST (a form, or text/plain)
//     without asking first; the API wants application/json, which a browser
//     sends cross-site only after a CORS preflight the sandbox never
//     answers, and it refuses any Origin but its own.

// hostPolicy is the Host values the sandbox answers to: the loopback names
// and the address it was told to listen on, with or without the port it
// listens on. It is read-only once built.
type hostPolicy struct {
	// names are host names in lower case and IP addresses in Go's
	// canonical form (IPv6 without brackets).
	names map[string]bool
	port  string
	url   string // where the page is, for the refusal's message
}

// newHostPolicy builds the policy of a sandbox asked to listen on
// configured ("127.0.0.1:8080", "localhost:0") and listening on bound.
func newHostPolicy(configured string, bound net.Addr) hostPolicy {
	p := hostPolicy{names: map[string]bool{}}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		p.names[canonicalHost(h)] = true
	}
	if h, _, err := net.SplitHostPort(configured); err == nil && h != "" {
		p.names[canonicalHost(h)] = true
	}
	if h, port, err := net.SplitHostPort(bound.String()); err == nil {
		p.names[canonicalHost(h)] = true
		p.port = port
	}
	p.url = "http://" + bound.String()
	return p
}

// allows reports whether a request's Host header names this sandbox.
func (p hostPolicy) allows(hostHeader string) bool {
	host, port, ok := splitHostHeader(hostHeader)
	if !ok || (port != "" && port != p.port) {
		return false
	}
	return p.names[canonicalHost(host)]
}

// splitHostHeader splits "name", "name:port", "[v6]" or "[v6]:port"; ok
// is false for anything else (a bare IPv6 address, an empty host).
func splitHostHeader(h string) (host, port string, ok bool) {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		return h[1 : len(h)-1], "", len(h) > 2
	}
	if !strings.Contains(h, ":") {
		return h, "", h != ""
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil || host == "" || port == "" {
		return "", "", false
	}
	return host, port, true
}

// canonicalHost lower-cases a name and writes an IP address one way
// (0:0:0:0:0:0:0:1 is ::1).
func canonicalHost(h string) string {
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return strings.ToLower(h)
}

// sameOrigin reports whether a request's Origin header, when present, is
// the page's own origin: http and the host the request was sent to.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Values("Origin")
	if len(o) == 0 {
		return true // not from a browser's cross-origin-capable request
	}
	if len(o) > 1 {
		return false
	}
	u, err := url.Parse(o[0])
	if err != nil {
		return false
	}
	return u.Scheme == "http" && u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" &&
		strings.EqualFold(u.Host, r.Host)
}

// guard refuses, with 403 and a plain-text reason, every request whose
// Host is not this sandbox's, before next sees it.
func (p hostPolicy) guard(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.allows(r.Host) {
			log.Warn("refused a request for another host", "host", r.Host, "path", r.URL.Path)
			http.Error(w, "forbidden: host "+quoteHeader(r.Host)+" is not this sandbox's; open "+p.url+
				" in the browser", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// fromPage refuses, with 403, a request whose Origin is another site's.
func fromPage(log *slog.Logger, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r) {
			origin := r.Header.Get("Origin")
			log.Warn("refused a cross-origin request", "origin", origin, "path", r.URL.Path)
			http.Error(w, "forbidden: cross-origin request from "+quoteHeader(origin)+
				"; only the sandbox's own page may use it", http.StatusForbidden)
			return
		}
		next(w, r)
	}
}

// jsonAPI is fromPage plus a Content-Type of application/json, refused
// with 415 otherwise: a browser sends that type to another origin only
// after a CORS preflight, which the sandbox never answers.
func jsonAPI(log *slog.Logger, next http.HandlerFunc) http.HandlerFunc {
	return fromPage(log, func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			log.Warn("refused an API request that is not JSON", "content_type", ct, "path", r.URL.Path)
			http.Error(w, "unsupported media type "+quoteHeader(ct)+": want Content-Type: application/json",
				http.StatusUnsupportedMediaType)
			return
		}
		next(w, r)
	})
}

// quoteHeader quotes a header value for a message, cut to a readable
// length.
func quoteHeader(v string) string {
	const max = 100
	if len(v) > max {
		v = v[:max] + "…"
	}
	return strconv.Quote(v)
}

// pagePolicy is the Content-Security-Policy of every answer: no other
// site may frame the page (a framed page's buttons, clicked through a
// decoy, act as any member), and the page loads nothing from elsewhere.
// Inline styles are allowed: the page colours avatars with them.
const pagePolicy = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// securityHeaders sets pagePolicy, and X-Frame-Options for browsers that
// predate frame-ancestors, on every answer, refusals included; a handler
// may set a stricter policy.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pagePolicy)
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}
