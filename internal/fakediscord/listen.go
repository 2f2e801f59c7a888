package fakediscord

import (
	"context"
	"fmt"
	"net"
	"net/http"
)

// Listen starts a server on addr ("127.0.0.1:0" picks a free port); HTTP
// and the websocket gateway share it. The host must be a loopback address:
// the server is meant for one machine. Unless opts sets Token and
// OwnHostOnly, it accepts any token and any Host, which lets other
// programs on the machine, and web pages that rebind their name to
// 127.0.0.1, use it. Stop it with Close.
func Listen(addr string, opts Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("fakediscord: listen %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("fakediscord: listen %q: want a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakediscord: %w", err)
	}
	s := newServer(opts)
	s.url = "http://" + ln.Addr().String()
	s.wsURL = "ws://" + ln.Addr().String() + "/ws"
	s.hs = serveHTTP(ln, http.HandlerFunc(s.serveHTTP))
	return s, nil
}

// Changed returns a channel that is closed at the server's next change of
// state: a REST request answered (and recorded), a dispatch sent, a gateway
// connection coming or going. Call it again after each close to follow the
// next change; a watcher that reads the state after the channel closes
// misses nothing (see Wait).
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Wait calls cond now and after each change of the server's state (see
// Changed) until it returns true, and returns nil then, or ctx's error
// once ctx ends. cond runs without the server's lock: it reads the state
// through the Server's methods.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		ch := s.Changed()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
