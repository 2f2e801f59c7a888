package fakediscord_test

import (
	"net/http"
	"testing"

	"github.com/quizhost/quizhost/internal/discordtest"
)

func TestRequestsFrom(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{})
	paths := []string{"/api/v9/users/@me", "/api/v9/gateway", "/api/v9/guilds/8001"}
	for _, p := range paths {
		req, err := http.NewRequest("GET", srv.URL()+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bot x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	for _, tc := range []struct {
		name  string
		from  int
		paths []string
	}{
		{"all", 0, paths},
		{"negative is all", -1, paths},
		{"from the second", 1, paths[1:]},
		{"last", 2, paths[2:]},
		{"at the end", 3, nil},
		{"past the end", 9, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := srv.RequestsFrom(tc.from)
			if len(got) != len(tc.paths) {
				t.Fatalf("got %d requests, want %d", len(got), len(tc.paths))
			}
			for i, r := range got {
				if r.Path != tc.paths[i] || r.Index != max(tc.from, 0)+i {
					t.Errorf("request %d: got %s (index %d), want %s (index %d)", i, r.Path, r.Index, tc.paths[i], max(tc.from, 0)+i)
				}
			}
		})
	}
}
