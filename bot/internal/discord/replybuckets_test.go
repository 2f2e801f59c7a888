package discord

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// replyServer answers every request with one status and body, and counts
// them.
type replyServer struct {
	status int
	body   string

	mu    sync.Mutex
	paths []string
}

func (r *replyServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	r.mu.Lock()
	r.paths = append(r.paths, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return &http.Response{StatusCode: r.status, Status: http.StatusText(r.status), Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(r.body)), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

func (r *replyServer) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...)
}

// call is one interaction's replies, under ctx, through c.
type call struct {
	ctx context.Context
	c   *Client
	i   *discordgo.Interaction
}

// testClient is a Client whose REST session sends its requests to rt
// directly (none of the bot's transport around it).
func testClient(t testing.TB, rt http.RoundTripper) *Client {
	t.Helper()
	s, err := discordgo.New("Bot x")
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Transport: rt}
	s.LogLevel = discordgoSilent
	return &Client{rest: s}
}

// replyCall is an interaction's call on a session whose REST requests
// rt answers.
func replyCall(t *testing.T, ctx context.Context, rt http.RoundTripper) *call {
	t.Helper()
	return &call{ctx: ctx, c: testClient(t, rt), i: &discordgo.Interaction{ID: "1300000000000000001", AppID: "9001", Token: "tok"}}
}

// bucketKeys returns the keys of the buckets rl holds, sorted. It reads
// the limiter's unexported map: discordgo has no other way to see it.
func bucketKeys(rl *discordgo.RateLimiter) []string {
	rl.Lock()
	defer rl.Unlock()
	m := reflect.ValueOf(rl).Elem().FieldByName("buckets")
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	return keys
}

// setGlobalLimit makes discordgo's limiter of s hold every request until
// d from now, as a global 429 would.
func setGlobalLimit(t *testing.T, s *discordgo.Session, d time.Duration) {
	t.Helper()
	b := s.Ratelimiter.GetBucket("test")
	b.Lock() // Release unlocks
	h := http.Header{"X-Ratelimit-Global": {"true"}, "X-Ratelimit-Reset-After": {strconv.FormatFloat(d.Seconds(), 'f', 3, 64)}}
	if err := b.Release(h); err != nil {
		t.Fatal(err)
	}
}

// noPings is the bot's allowed_mentions: nobody.
func noPings() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// replyCalls are the three ways an interaction's replies reach Discord, by name.
var replyCalls = []struct {
	name string
	send func(c *call) error
}{
	{"respond", func(c *call) error {
		return c.c.Respond(c.ctx, c.i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "hi", AllowedMentions: noPings()}})
	}},
	{"editOriginal", func(c *call) error {
		content := "hi"
		return c.c.EditReply(c.ctx, c.i, &discordgo.WebhookEdit{Content: &content, AllowedMentions: noPings()})
	}},
	{"followup", func(c *call) error {
		return c.c.FollowUp(c.ctx, c.i, &discordgo.WebhookParams{Content: "hi", AllowedMentions: noPings()})
	}},
}

// TestReplyHonoursGlobalLimit: a reply waits out a global rate limit in
// discordgo's limiter (as discordgo would), for as long as the call's
// context allows: cancelled, it gives up without sending and leaves its
// slot free.
func TestReplyHonoursGlobalLimit(t *testing.T) {
	t.Parallel()
	// Long enough to tell a wait from none (a reply sent at once takes
	// well under a millisecond here), and waited out by the three calls
	// side by side.
	const limit = 50 * time.Millisecond
	for _, rc := range replyCalls {
		t.Run(rc.name+"/waits", func(t *testing.T) {
			t.Parallel()
			rt := &replyServer{status: http.StatusOK, body: `{"id":"1","channel_id":"6001"}`}
			c := replyCall(t, context.Background(), rt)
			start := time.Now()
			setGlobalLimit(t, c.c.rest, limit)
			if err := rc.send(c); err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if d := time.Since(start); d < limit {
				t.Errorf("sent after %v, want after the global limit's %v", d, limit)
			}
			if got := rt.sent(); len(got) != 1 {
				t.Errorf("got requests %q, want one", got)
			}
		})
		t.Run(rc.name+"/cancelled", func(t *testing.T) {
			t.Parallel()
			rt := &replyServer{status: http.StatusOK, body: `{"id":"1","channel_id":"6001"}`}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			c := replyCall(t, ctx, rt)
			setGlobalLimit(t, c.c.rest, time.Hour)
			if err := rc.send(c); !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			if got := rt.sent(); len(got) != 0 {
				t.Errorf("got requests %q, want none", got)
			}
			b := c.c.rest.Ratelimiter.GetBucket(slotKey(slotOf(c.i.ID)))
			if !b.TryLock() {
				t.Fatal("the reply's slot is still locked after it gave up")
			}
			b.Unlock()
		})
	}
}

// TestReplyErrors: a reply Discord refuses returns discordgo's
// *RESTError, with Discord's error code, as discordgo's own calls do.
func TestReplyErrors(t *testing.T) {
	for _, rc := range replyCalls {
		t.Run(rc.name, func(t *testing.T) {
			rt := &replyServer{status: http.StatusNotFound, body: `{"message":"Unknown interaction","code":10062}`}
			err := rc.send(replyCall(t, context.Background(), rt))
			var re *discordgo.RESTError
			if !errors.As(err, &re) || re.Message == nil || re.Message.Code != discordgo.ErrCodeUnknownInteraction {
				t.Errorf("got %v, want a *discordgo.RESTError with code %d", err, discordgo.ErrCodeUnknownInteraction)
			}
		})
	}
}

// TestReplyTakesAFreeSlot: a reply whose slot carries another request goes
// through another slot instead of waiting for it.
func TestReplyTakesAFreeSlot(t *testing.T) {
	rt := &replyServer{status: http.StatusNoContent}
	c := replyCall(t, context.Background(), rt)
	home := c.c.rest.Ratelimiter.GetBucket(slotKey(slotOf(c.i.ID)))
	home.Lock() // another interaction's request is in flight on it
	defer home.Unlock()
	done := make(chan error, 1)
	go func() { done <- replyCalls[0].send(c) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reply waited for its busy slot")
	}
	if got := rt.sent(); len(got) != 1 {
		t.Errorf("got requests %q, want one", got)
	}
}

// TestReplyBucketsBounded: after more interactions than there are reply
// slots, each replied to in every way (16 at a time, so that slots are
// busy and replies move on to free ones), discordgo's limiter holds the
// slots' buckets only: at most ReplySlots, none for an interaction's own
// route. (The bot's end-to-end test of the same name checks that its
// replies all go through the slots.)
func TestReplyBucketsBounded(t *testing.T) {
	t.Parallel()
	const interactions, wave = ReplySlots + 64, 16
	cl := testClient(t, slowServer{})
	for i := 0; i < interactions; i += wave {
		var wg sync.WaitGroup
		for j := i; j < min(i+wave, interactions); j++ {
			id := strconv.Itoa(1300000000000000000 + j)
			c := &call{ctx: context.Background(), c: cl, i: &discordgo.Interaction{ID: id, AppID: "9001", Token: "tok" + id}}
			wg.Go(func() {
				for _, rc := range replyCalls {
					if err := rc.send(c); err != nil {
						t.Errorf("%s of %s: %v", rc.name, id, err)
					}
				}
			})
		}
		wg.Wait()
	}
	keys := bucketKeys(cl.rest.Ratelimiter)
	if len(keys) > ReplySlots {
		t.Errorf("after %d interactions discordgo holds %d buckets, want at most %d", interactions, len(keys), ReplySlots)
	}
	for _, k := range keys {
		if n, err := strconv.Atoi(strings.TrimPrefix(k, "interaction:")); err != nil || n < 0 || n >= ReplySlots {
			t.Errorf("bucket %q: want only the reply slots' (interaction:0 to interaction:%d)", k, ReplySlots-1)
			break
		}
	}
}

func TestSlotKey(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "interaction:0"}, {7, "interaction:7"}, {42, "interaction:42"}, {ReplySlots - 1, "interaction:255"}} {
		if got := slotKey(tc.n); got != tc.want {
			t.Errorf("slotKey(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, id := range []string{"", "1", "5001", "1300000000000000001", "18446744073709551615"} {
		if n := slotOf(id); n < 0 || n >= ReplySlots {
			t.Errorf("slotOf(%q) = %d, want within [0, %d)", id, n, ReplySlots)
		}
	}
}

// slowServer answers every request 204 (200 with a message for webhook
// routes) after a fixed round trip, like a server a few milliseconds away.
type slowServer struct{ rtt time.Duration }

func (s slowServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	time.Sleep(s.rtt) // the network's round trip, simulated
	status, body := http.StatusNoContent, ""
	if strings.Contains(req.URL.Path, "/webhooks/") {
		status, body = http.StatusOK, `{"id":"1","channel_id":"6001"}`
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(body)), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// replySenders are the bot's reply calls and discordgo's own, to compare.
var replySenders = []struct {
	name    string
	respond func(c *call) error
	edit    func(c *call) error
}{
	{"discordgo",
		func(c *call) error {
			return c.c.rest.InteractionRespond(c.i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource})
		},
		func(c *call) error {
			content := "hi"
			_, err := c.c.rest.InteractionResponseEdit(c.i, &discordgo.WebhookEdit{Content: &content, AllowedMentions: noPings()})
			return err
		}},
	{"slots",
		func(c *call) error {
			return c.c.Respond(c.ctx, c.i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource})
		},
		func(c *call) error {
			content := "hi"
			return c.c.EditReply(c.ctx, c.i, &discordgo.WebhookEdit{Content: &content, AllowedMentions: noPings()})
		}},
}

// BenchmarkReplyRetained is the memory one reply leaves behind in
// discordgo's rate limiter, each from a new interaction (retained-B/op,
// the live heap's growth after a GC) and the buckets it then holds.
func BenchmarkReplyRetained(b *testing.B) {
	for _, rs := range replySenders {
		b.Run(rs.name, func(b *testing.B) {
			cl := testClient(b, slowServer{})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := 0; b.Loop(); i++ {
				id := strconv.Itoa(1300000000000000000 + i)
				c := &call{ctx: context.Background(), c: cl, i: &discordgo.Interaction{ID: id, AppID: "9001",
					Token: "aW50ZXJhY3Rpb246" + id + strings.Repeat("x", 150)}}
				if err := rs.respond(c); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "retained-B/op")
			b.ReportMetric(float64(len(bucketKeys(cl.rest.Ratelimiter))), "buckets")
			runtime.KeepAlive(cl)
		})
	}
}

// BenchmarkReplyEdits is 16 interactions' edits of their replies at once,
// each round trip 5 ms: one op is the 16 edits done.
func BenchmarkReplyEdits(b *testing.B) {
	const editors = 16
	for _, rs := range replySenders {
		b.Run(rs.name, func(b *testing.B) {
			cl := testClient(b, slowServer{rtt: 5 * time.Millisecond})
			calls := make([]*call, editors)
			for i := range calls {
				id := strconv.Itoa(1300000000000000000 + i)
				calls[i] = &call{ctx: context.Background(), c: cl, i: &discordgo.Interaction{ID: id, AppID: "9001", Token: "tok" + id}}
			}
			for b.Loop() {
				var wg sync.WaitGroup
				for _, c := range calls {
					wg.Go(func() {
						if err := rs.edit(c); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
		})
	}
}
