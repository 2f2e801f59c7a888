package sandbox

import (
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/quizhost/quizhost/internal/hostcheck"
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

// hostPolicy is the Host values the sandbox answers to (hostcheck.Policy:
// the loopback names and the address it was told to listen on, with or
// without the port it listens on), and where its page is, for refusals.
type hostPolicy struct {
	hostcheck.Policy
	url string
}

// newHostPolicy builds the policy of a sandbox asked to listen on
// configured ("127.0.0.1:8080", "localhost:0") and listening on bound.
func newHostPolicy(configured string, bound net.Addr) hostPolicy {
	return hostPolicy{Policy: hostcheck.New(configured, bound), url: "http://" + bound.String()}
}

// allows reports whether a request's Host header names this sandbox.
func (p hostPolicy) allows(hostHeader string) bool { return p.Allows(hostHeader) }

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
