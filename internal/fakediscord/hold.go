package fakediscord

import (
	"net/http"
	"strings"
	"sync"
)

// Hold is a REST request held before the server answers it (see
// [Server.HoldNext]). Safe for concurrent use.
type Hold struct {
	method, prefix string

	taken   bool          // a request matched it (guarded by Server.mu)
	arrived chan struct{} // closed when the request arrives and is held
	release chan struct{} // closed by Release
	once    sync.Once
}

// HoldNext makes the next REST request whose method equals method (""
// matches any) and whose path starts with pathPrefix (with or without
// "/api/v9", as for [Server.FailNext]) wait before it is handled, until
// the returned Hold is released: the client sees a round trip that takes
// as long as the test wants. The request is handled and recorded as usual
// once released. A held request also goes on when its client gives up
// (its connection closes) or the server closes. Holds queue up and each
// is used once; one registered earlier is matched first.
func (s *Server) HoldNext(method, pathPrefix string) *Hold {
	h := &Hold{method: strings.ToUpper(method), prefix: pathPrefix,
		arrived: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		h.Release()
	}
	s.holds = append(s.holds, h)
	return h
}

// Arrived returns a channel that is closed once the request arrived and
// is being held.
func (h *Hold) Arrived() <-chan struct{} { return h.arrived }

// Release lets the held request go on (or, when it has not arrived yet,
// lets it through without waiting). It is idempotent.
func (h *Hold) Release() { h.once.Do(func() { close(h.release) }) }

// hold blocks req until its Hold (if one matches) is released, the
// client's request ends or the server closes.
func (s *Server) hold(r *http.Request, req *Request) {
	s.mu.Lock()
	var h *Hold
	for _, c := range s.holds {
		if !c.taken && (c.method == "" || c.method == req.Method) &&
			(strings.HasPrefix(req.Path, c.prefix) || strings.HasPrefix(req.Route, c.prefix)) {
			h, c.taken = c, true
			break
		}
	}
	s.mu.Unlock()
	if h == nil {
		return
	}
	close(h.arrived)
	select {
	case <-h.release:
	case <-r.Context().Done():
	}
}

// releaseHoldsLocked lets every held request go on, and every later one
// through: the server is closing, and its HTTP server waits for its
// handlers.
func (s *Server) releaseHoldsLocked() {
	for _, h := range s.holds {
		h.Release()
	}
}
