package fakediscord

import (
	"net"
	"net/http"
	"sync"
)

// httpServer serves a handler on a listener and, on close, waits for the
// requests in flight, as net/http/httptest's Server does (without linking
// httptest, and so the testing package, into the programs that run the
// fake: the sandbox). Connections are tracked by state: close shuts the
// listener, turns keep-alives off, closes the idle and new connections
// (a new one is a client's spare dial that never sent a request) and waits
// until every active one has answered and closed. Hijacked connections
// (the gateway's websockets) are the Server's to close.
type httpServer struct {
	srv *http.Server
	ln  net.Listener
	wg  sync.WaitGroup // Serve, and each connection until it closes or is hijacked

	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]http.ConnState
}

// serveHTTP starts serving h on ln.
func serveHTTP(ln net.Listener, h http.Handler) *httpServer {
	hs := &httpServer{ln: ln, conns: map[net.Conn]http.ConnState{}}
	hs.srv = &http.Server{Handler: h, ConnState: hs.track}
	hs.wg.Add(1)
	go func() {
		defer hs.wg.Done()
		_ = hs.srv.Serve(ln)
	}()
	return hs
}

// track follows each connection's state. net/http calls it with StateNew
// from Serve's goroutine, so the WaitGroup never goes from zero to one
// while close waits.
func (hs *httpServer) track(c net.Conn, st http.ConnState) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	switch st {
	case http.StateNew:
		hs.wg.Add(1)
		hs.conns[c] = st
		if hs.closed {
			_ = c.Close() // accepted as close ran: it will never be served
		}
	case http.StateActive:
		hs.conns[c] = st
	case http.StateIdle:
		hs.conns[c] = st
		if hs.closed {
			_ = c.Close()
		}
	case http.StateHijacked, http.StateClosed:
		if _, ok := hs.conns[c]; ok {
			delete(hs.conns, c)
			hs.wg.Done()
		}
	}
}

// close stops serving and waits for the requests in flight. Idempotent.
func (hs *httpServer) close() {
	hs.mu.Lock()
	if !hs.closed {
		hs.closed = true
		_ = hs.ln.Close()
		hs.srv.SetKeepAlivesEnabled(false)
		for c, st := range hs.conns {
			if st == http.StateIdle || st == http.StateNew {
				_ = c.Close()
			}
		}
	}
	hs.mu.Unlock()
	hs.wg.Wait()
}
