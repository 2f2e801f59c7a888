package discord

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestNewTransportKeepsConnectionsForABurst sends two waves of concurrent
// requests, each wave holding all its connections open at once (the
// server answers none until every request of the wave has arrived), and
// counts the connections the second wave had to open: with NewTransport
// none, the first wave's connections are reused; with the settings of
// http.DefaultTransport (2 idle connections per host) most are new.
func TestNewTransportKeepsConnectionsForABurst(t *testing.T) {
	t.Parallel()
	const wave = 64
	stdlib := func() *http.Transport {
		return http.DefaultTransport.(*http.Transport).Clone()
	}
	tests := []struct {
		name      string
		transport func() *http.Transport
		reuse     bool
	}{
		{"NewTransport", NewTransport, true},
		{"http.DefaultTransport's settings", stdlib, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var arrived sync.WaitGroup
			var mu sync.Mutex
			var release chan struct{}
			var opened atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				mu.Lock()
				r := release
				mu.Unlock()
				arrived.Done()
				<-r
				io.WriteString(w, "ok")
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					opened.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			tr := tt.transport()
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}

			burst := func() int64 {
				before := opened.Load()
				mu.Lock()
				release = make(chan struct{})
				r := release
				mu.Unlock()
				arrived.Add(wave)
				var done sync.WaitGroup
				errs := make(chan error, wave)
				for range wave {
					done.Go(func() {
						resp, err := client.Get(srv.URL)
						if err != nil {
							errs <- err
							return
						}
						// Reading to EOF returns once the connection is idle again.
						_, err = io.ReadAll(resp.Body)
						resp.Body.Close()
						if err != nil {
							errs <- err
						}
					})
				}
				arrived.Wait()
				close(r)
				done.Wait()
				close(errs)
				for err := range errs {
					t.Fatalf("request: %v", err)
				}
				return opened.Load() - before
			}
			if got := burst(); got != wave {
				t.Fatalf("first wave opened %d connections, want %d", got, wave)
			}
			got := burst()
			if tt.reuse && got != 0 {
				t.Errorf("second wave opened %d new connections, want 0", got)
			}
			if !tt.reuse && got == 0 {
				t.Errorf("second wave opened no new connection, want some (the control case)")
			}
		})
	}
}
