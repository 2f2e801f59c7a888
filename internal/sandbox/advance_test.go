package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// advanceBy posts a jump to the page's API and returns what it answered.
func advanceBy(t *testing.T, sb *Sandbox, by string) (int, advanced) {
	t.Helper()
	status, body := webRequest{}.do(t, sb, http.MethodPost, "/api/advance", fmt.Sprintf(`{"by":%q}`, by))
	var out advanced
	if status == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("advance by %q: %v in %s", by, err, body)
		}
	}
	return status, out
}

// TestAdvance: a jump moves the clock the bot and the embedded server run
// on, the page shows how far ahead it is, and jumps the page would not
// offer are refused with a reason and move nothing.
func TestAdvance(t *testing.T) {
	sb := startSandbox(t, testBank)
	tests := []struct {
		by        string
		wantAhead time.Duration // the clock's total lead after the jump
		wantErr   string
	}{
		{"daily", 0, "no daily quiz is set: /quizadmin daily set starts one"},
		{"soon", 0, `advance by "soon": want a duration`},
		{"-1h", 0, "want a duration"},
		{"200h", 0, "want a duration"},
		{"10m", 10 * time.Minute, ""},
		{"1h", 70 * time.Minute, ""},
	}
	for _, tt := range tests {
		status, out := advanceBy(t, sb, tt.by)
		if status != http.StatusOK || out.Error != "" && !strings.Contains(out.Error, tt.wantErr) || (out.Error == "") != (tt.wantErr == "") {
			t.Errorf("advance by %q: got %d %+v, want error %q", tt.by, status, out, tt.wantErr)
		}
		if got := sb.clock.Offset(); got != tt.wantAhead || out.Offset != tt.wantAhead.Milliseconds() {
			t.Errorf("advance by %q: the clock is %v ahead (the page was told %d ms), want %v", tt.by, got, out.Offset, tt.wantAhead)
		}
	}
	_, page := webRequest{}.do(t, sb, http.MethodGet, "/channels/"+quizChannel+"?as=7001", "")
	for _, want := range []string{`data-offset="4200000"`, "1 h 10 min ahead of real time", "No daily quiz set"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page after the jumps: want %q in it", want)
		}
	}
	// The embedded server's time jumped too: what it records now is
	// stamped an hour and ten minutes ahead.
	status, _ := webRequest{}.do(t, sb, http.MethodPost, "/api/command",
		`{"channel":"6001","as":"7001","name":"quiz","path":["banks"]}`)
	if status != http.StatusOK {
		t.Fatalf("/quiz banks: got %d", status)
	}
	reqs := sb.srv.Requests()
	if at := reqs[len(reqs)-1].At; time.Until(at) < time.Hour {
		t.Errorf("the embedded server's time after the jumps: got %v, want over an hour ahead of %v", at, time.Now())
	}
}

func TestSpan(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 min"},
		{10 * time.Minute, "10 min"},
		{70 * time.Minute, "1 h 10 min"},
		{2 * time.Hour, "2 h"},
		{26*time.Hour + 29*time.Second, "1 d 2 h"},
		{49*time.Hour + 5*time.Minute, "2 d 1 h 5 min"},
	}
	for _, tt := range tests {
		if got := span(tt.d); got != tt.want {
			t.Errorf("span(%v): got %q, want %q", tt.d, got, tt.want)
		}
	}
}
