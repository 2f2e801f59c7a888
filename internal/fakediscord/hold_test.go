package fakediscord_test

import (
	"net/http"
	"testing"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// get sends an authorised GET of path (under /api/v9) and returns its status.
func get(client *http.Client, srv *discordtest.Server, path string) (int, error) {
	req, err := http.NewRequest("GET", srv.URL()+"/api/v9"+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bot x")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func recorded(srv *discordtest.Server, route string) bool {
	for _, r := range srv.Requests() {
		if r.Route == route {
			return true
		}
	}
	return false
}

// TestHoldNext: a held request waits for Release while other requests
// are answered, and is then handled and recorded as usual.
func TestHoldNext(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{})
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	h := srv.HoldNext("GET", "/users/")
	held := make(chan int, 1)
	go func() {
		st, err := get(client, srv, "/users/@me")
		if err != nil {
			t.Errorf("held request: %v", err)
		}
		held <- st
	}()
	h.WaitArrived(t, wait)

	// Another route goes through while the first is held, and so does a
	// second request of the held route (a hold is used once).
	for _, p := range []string{"/guilds/8001", "/users/9001"} {
		if st, err := get(client, srv, p); err != nil || st != http.StatusOK {
			t.Fatalf("GET %s while another is held: got %d, %v; want 200", p, st, err)
		}
	}
	if recorded(srv, "/users/@me") {
		t.Fatal("the held request was answered before Release")
	}
	h.Release()
	if st := <-held; st != http.StatusOK {
		t.Errorf("held request: got status %d, want 200", st)
	}
	if !recorded(srv, "/users/@me") {
		t.Error("the held request was not recorded after Release")
	}
	h.Release() // idempotent
}

// TestCloseReleasesHolds: closing the server lets a held request finish
// (its HTTP server waits for every handler).
func TestCloseReleasesHolds(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{})
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	h := srv.HoldNext("", "/api/v9/gateway")
	done := make(chan error, 1)
	go func() {
		_, err := get(client, srv, "/gateway")
		done <- err
	}()
	h.WaitArrived(t, wait)
	srv.Close()
	if err := <-done; err != nil {
		t.Errorf("held request after Close: %v, want an answer", err)
	}
}
