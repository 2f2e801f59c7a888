package bot_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
)

// TestReplyBucketsBounded: discordgo keeps every rate-limit bucket it
// ever made, keyed by route; an interaction's callback route holds its id
// and token, so answering through discordgo's own calls would leave one
// bucket per answer behind, for ever. The bot's replies share a fixed set
// of buckets instead, the ReplySlots slots "interaction:<n>": after its
// answers, every bucket the limiter holds for replies is one of them (so
// there are never more than ReplySlots, however many answers come), and
// only a few are held for everything else. That the slots stay within
// ReplySlots after more replies than that is the Client's own
// TestReplyBucketsBounded (bot/internal/discord).
func TestReplyBucketsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	post, _ := e.ask(alice)

	const answers, wave = 48, 16
	for i := 0; i < answers; i += wave {
		ps := make([]*discordtest.Pending, 0, wave)
		for j := i; j < min(i+wave, answers); j++ {
			m := discordtest.Member{ID: fmt.Sprint(100000 + j), Username: fmt.Sprintf("member%d", j)}
			ps = append(ps, e.srv.Component(guildID, channelID, m, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), post.Correct...))
		}
		for _, p := range ps {
			if c, _, _ := e.reply(p); !strings.Contains(c, "Right!") {
				t.Fatalf("answer %s: reply %q, want the grade", p.ID(), c)
			}
		}
	}
	if as, err := e.db.Answers(post.ID); err != nil || len(as) != answers {
		t.Errorf("got %d stored answers (err %v), want %d", len(as), err, answers)
	}
	e.stop()

	keys := bot.RateLimitBuckets(e.bot)
	t.Logf("%d answers: discordgo holds %d buckets", answers, len(keys))
	var replies, other []string
	for _, k := range keys {
		if strings.Contains(k, "/interactions/") || strings.Contains(k, "/webhooks/") || strings.HasPrefix(k, "interaction:") {
			replies = append(replies, k)
		} else {
			other = append(other, k)
		}
	}
	for _, k := range replies {
		if n, err := strconv.Atoi(strings.TrimPrefix(k, "interaction:")); err != nil || n < 0 || n >= bot.ReplySlots {
			t.Errorf("discordgo holds bucket %q for a reply, want only the %d reply slots' (interaction:0 to interaction:%d)",
				k, bot.ReplySlots, bot.ReplySlots-1)
			break
		}
	}
	if len(replies) > bot.ReplySlots {
		t.Errorf("after %d answers discordgo holds %d buckets for interaction routes, want at most %d (e.g. %q)",
			answers, len(replies), bot.ReplySlots, replies[:3])
	}
	if len(other) > 16 {
		t.Errorf("discordgo holds %d buckets for other routes, want at most 16: %q", len(other), other)
	}
	e.checkWire()
}

// TestRepliesEditConcurrently: discordgo sends every edit of an
// interaction's reply through one bucket, whose lock it holds for the
// whole round trip, so one slow edit would hold up every other reply's.
// The bot's edits do not wait for each other: while one deferred reply's
// edit is held at the server, another's goes through.
func TestRepliesEditConcurrently(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()

	h := e.srv.HoldNext("PATCH", "/webhooks/")
	t.Cleanup(h.Release) // before the bot stops, on failure too
	first := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("close"))
	if r := first.WaitResponse(t, wait); r.Type != 5 {
		t.Fatalf("first close answered with type %d, want a deferral (5)", r.Type)
	}
	h.WaitArrived(t, wait) // its edit is on its way, and held

	second := e.srv.SlashCommand(guildID, otherChan, alice, "quizadmin", sub("close"))
	if c, _, _ := e.reply(second); !strings.Contains(c, "no open questions") {
		t.Errorf("second close, while the first's edit is held: reply %q, want \"no open questions\"", c)
	}
	if m, _ := first.Original(); !m.Loading() {
		t.Fatalf("the first close's reply was edited before its edit was released: %q", m.Content)
	}

	h.Release()
	if m := first.WaitOriginal(t, wait, nil); !strings.Contains(m.Content, "no open questions") {
		t.Errorf("first close, released: reply %q, want \"no open questions\"", m.Content)
	}
	e.checkWire()
}

// TestReplyRetries: a reply that meets a 502 or a 429 is sent again, as
// discordgo does for any route, through the reply's own bucket: the
// member gets the reply all the same.
func TestReplyRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		method string
		route  string // the prefix of the failing route
		status int    // 502, or 429
		answer bool   // an answer (its callback is the reply); else /quizadmin close (an edit)
	}{
		{"callback 502", "POST", "/interactions/", 502, true},
		{"callback 429", "POST", "/interactions/", 429, true},
		{"edit of @original 502", "PATCH", "/webhooks/", 502, false},
		{"edit of @original 429", "PATCH", "/webhooks/", 429, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
			e.start()
			post, _ := e.ask(alice)
			if tc.status == 429 {
				e.srv.RateLimitNext(tc.method, tc.route, 50*time.Millisecond, false)
			} else {
				e.srv.FailNext(tc.method, tc.route, tc.status, "")
			}
			var got, want string
			if tc.answer {
				got, want = e.choose(bob, post, post.Correct...), "Right!"
			} else {
				got, _, _ = e.reply(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("close")))
				want = "Closed 1 question"
			}
			if !strings.Contains(got, want) {
				t.Errorf("reply %q, want %q", got, want)
			}
			var injected []string
			for _, r := range e.srv.Requests() {
				if r.Injected {
					injected = append(injected, fmt.Sprintf("%d %s %s", r.Status, r.Method, r.Route))
				}
			}
			if len(injected) != 1 || !strings.HasPrefix(injected[0], fmt.Sprintf("%d %s %s", tc.status, tc.method, tc.route)) {
				t.Errorf("injected failures met: %q, want one %d on %s %s…", injected, tc.status, tc.method, tc.route)
			}
			e.checkWire()
		})
	}
}
