package discordtest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
)

// Listen starts a server outside tests, on addr ("127.0.0.1:0" picks a free
// port). The host must be a loopback address: the server is meant for one
// machine. Unless opts sets Token and OwnHostOnly, it accepts any token
// and any Host, which lets other programs on the machine, and web pages
// that rebind their name to 127.0.0.1, use it. Stop it with Close.
func Listen(addr string, opts Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("discordtest: listen %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("discordtest: listen %q: want a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("discordtest: %w", err)
	}
	s := newServer(opts)
	s.hs = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(s.serveHTTP)}}
	s.hs.Start()
	s.url = s.hs.URL
	s.wsURL = "ws://" + strings.TrimPrefix(s.url, "http://") + "/ws"
	return s, nil
}

// Changed returns a channel that is closed at the server's next change of
// state: a REST request answered (and recorded), a dispatch sent, a gateway
// connection coming or going. Call it again after each close to follow the
// next change; a watcher that reads the state after the channel closes
// misses nothing.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}
