package hostcheck

import (
	"net"
	"testing"
)

func TestHostPolicy(t *testing.T) {
	tests := []struct {
		name       string
		configured string
		bound      *net.TCPAddr
		host       string
		want       bool
	}{
		{"address and port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "127.0.0.1:8080", true},
		{"address without port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "127.0.0.1", true},
		{"localhost", "127.0.0.1:0", tcp("127.0.0.1", 8080), "localhost:8080", true},
		{"localhost in capitals", "127.0.0.1:0", tcp("127.0.0.1", 8080), "LocalHost:8080", true},
		{"localhost without port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "localhost", true},
		{"IPv6 loopback", "127.0.0.1:0", tcp("127.0.0.1", 8080), "[::1]:8080", true},
		{"IPv6 loopback without port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "[::1]", true},
		{"IPv6 loopback written out", "127.0.0.1:0", tcp("127.0.0.1", 8080), "[0:0:0:0:0:0:0:1]:8080", true},
		{"the configured address", "127.0.0.2:8080", tcp("127.0.0.2", 8080), "127.0.0.2:8080", true},
		{"the configured IPv6 address", "[::1]:0", tcp("::1", 8080), "[::1]:8080", true},
		{"another loopback address", "127.0.0.1:0", tcp("127.0.0.1", 8080), "127.0.0.2:8080", false},
		{"another port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "127.0.0.1:8081", false},
		{"a rebinding name", "127.0.0.1:0", tcp("127.0.0.1", 8080), "attacker.example:8080", false},
		{"a rebinding name without port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "attacker.example", false},
		{"a subdomain of localhost", "127.0.0.1:0", tcp("127.0.0.1", 8080), "x.localhost:8080", false},
		{"localhost with a trailing dot", "127.0.0.1:0", tcp("127.0.0.1", 8080), "localhost.:8080", false},
		{"IPv6 without brackets", "127.0.0.1:0", tcp("127.0.0.1", 8080), "::1", false},
		{"empty port", "127.0.0.1:0", tcp("127.0.0.1", 8080), "localhost:", false},
		{"empty brackets", "127.0.0.1:0", tcp("127.0.0.1", 8080), "[]", false},
		{"no host", "127.0.0.1:0", tcp("127.0.0.1", 8080), "", false},
		{"only a port", "127.0.0.1:0", tcp("127.0.0.1", 8080), ":8080", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.configured, tt.bound)
			if got := p.Allows(tt.host); got != tt.want {
				t.Errorf("listening on %s (asked for %s): Allows(%q): got %v, want %v", tt.bound, tt.configured, tt.host, got, tt.want)
			}
		})
	}
}

func tcp(ip string, port int) *net.TCPAddr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }

// TestZeroPolicy: a Policy that was not built allows nothing.
func TestZeroPolicy(t *testing.T) {
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]", ""} {
		if (Policy{}).Allows(h) {
			t.Errorf("zero Policy allows %q", h)
		}
	}
}
