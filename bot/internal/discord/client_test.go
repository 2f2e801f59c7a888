package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// dmServer opens every DM channel (as 7001) and answers the message sent
// in it with status and body.
type dmServer struct {
	status int
	body   string
}

func (d dmServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	status, body := d.status, d.body
	if req.URL.Path == "/api/v9/users/@me/channels" {
		status, body = http.StatusOK, `{"id":"7001","type":1}`
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(body)), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// TestDM: a direct message Discord refuses because the member's direct
// messages are closed (403, code 50007) reads as ErrDMClosed; other
// refusals do not, and Permanent tells those that retrying cannot help.
func TestDM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		body      string
		ok        bool
		closed    bool
		permanent bool
	}{
		{"sent", http.StatusOK, `{"id":"1","channel_id":"7001"}`, true, false, false},
		{"closed", http.StatusForbidden, `{"message":"Cannot send messages to this user","code":50007}`, false, true, true},
		{"missing access", http.StatusForbidden, `{"message":"Missing Access","code":50001}`, false, false, true},
		{"server error", http.StatusInternalServerError, `{"message":"oops","code":0}`, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := testClient(t, dmServer{status: tt.status, body: tt.body})
			err := c.DM(context.Background(), "5001", &discordgo.MessageSend{Content: "hi", AllowedMentions: noPings()})
			if got := err == nil; got != tt.ok {
				t.Fatalf("got %v, want success %v", err, tt.ok)
			}
			if got := errors.Is(err, ErrDMClosed); got != tt.closed {
				t.Errorf("errors.Is(%v, ErrDMClosed) = %v, want %v", err, got, tt.closed)
			}
			if got := Permanent(err); got != tt.permanent {
				t.Errorf("Permanent(%v) = %v, want %v", err, got, tt.permanent)
			}
		})
	}
}

func TestRateLimited(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused before sending", fmt.Errorf("edit message 1: %w", ErrRateLimited), true},
		{"a 429 not retried", fmt.Errorf("edit message 1: %w", &discordgo.RateLimitError{RateLimit: &discordgo.RateLimit{}}), true},
		{"another error", errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		if got := RateLimited(tt.err); got != tt.want {
			t.Errorf("%s: RateLimited(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
