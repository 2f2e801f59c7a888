// Package hostcheck tells whether a request's Host header names a local
// listener: the loopback names or the address it was configured with. It
// is the defence against DNS rebinding of the listeners that trust the
// local machine without credentials (the sandbox's page, the admin
// listener without a token): a web page whose name an attacker rebinds to
// 127.0.0.1 is same-origin with itself, so a browser lets it read what the
// listener answers, but its requests carry its own name in Host.
package hostcheck

import (
	"net"
	"strings"
)

// Policy is the Host values a listener answers to: the loopback names
// (localhost, 127.0.0.1, ::1) and the address it was told to listen on,
// each with the port it listens on or without a port. The zero Policy
// allows nothing; a Policy is read-only once built and safe for
// concurrent use.
type Policy struct {
	// names are host names in lower case and IP addresses in Go's
	// canonical form (IPv6 without brackets).
	names map[string]bool
	port  string
}

// New builds the policy of a listener asked to listen on configured
// ("127.0.0.1:8080", "localhost:0") and listening on bound.
func New(configured string, bound net.Addr) Policy {
	p := Policy{names: map[string]bool{}}
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
	return p
}

// Allows reports whether a request's Host header (http.Request.Host)
// names this listener. Names compare case-insensitively and IP addresses
// by value; a name with a trailing dot, a subdomain of localhost, another
// port, an IPv6 address without brackets and an empty host are refused.
func (p Policy) Allows(hostHeader string) bool {
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
