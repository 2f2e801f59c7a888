package fakediscord

// RequestsFrom returns the REST requests recorded from index i on (Index
// i, i+1, …), in arrival order: a watcher that remembers how many it has
// seen reads only the new ones. An i past the end returns none. Treat the
// JSON values as read-only.
func (s *Server) RequestsFrom(i int) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 {
		i = 0
	}
	if i >= len(s.requests) {
		return nil
	}
	return append([]Request(nil), s.requests[i:]...)
}
