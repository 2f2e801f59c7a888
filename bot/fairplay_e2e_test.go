package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// askRefused sends /quiz ask as a member, expects a private refusal that
// says want, and checks that nothing was posted: a post is sent before the
// reply, so the channel is as it was once the reply is there.
func (e *env) askRefused(by discordtest.Member, want string, opts ...discordtest.Option) string {
	e.t.Helper()
	before := e.channelPosts()
	content, _, eph := e.reply(e.srv.SlashCommand(guildID, channelID, by, "quiz", sub("ask", opts...)))
	if !eph || !strings.Contains(content, want) {
		e.t.Errorf("ask by %s: reply %q (ephemeral %v), want a private refusal saying %q", by.Username, content, eph, want)
	}
	if n := e.channelPosts(); n != before {
		e.t.Errorf("a refused ask by %s posted %d messages", by.Username, n-before)
	}
	return content
}

// channelPosts counts the bot's own messages in the channel (not replies
// to interactions).
func (e *env) channelPosts() int {
	n := 0
	for _, m := range e.srv.Messages(channelID) {
		if m.InteractionID == "" {
			n++
		}
	}
	return n
}

// TestMemberCannotFarmABank is issue 19's "members farm points": a member
// alone asked a 2-question bank over and over, every copy open at once.
// Now a member waits the cooldown between asks and cannot post a bank
// whose questions have all been asked; an admin still can.
func TestMemberCannotFarmABank(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	bank := str("bank", "Test Bank")

	first, _ := e.ask(bob, bank)
	got := e.askRefused(bob, "You can ask again", bank)
	if again := first.OpenedAt.Add(time.Minute).Unix(); !strings.Contains(got, "every 60 seconds") || !strings.Contains(got, fmt.Sprintf("<t:%d:R>", again)) {
		t.Errorf("cooldown reply %q, want the 60-second cooldown and when it ends (<t:%d:R>)", got, again)
	}
	// Another member is not held to bob's cooldown.
	e.advance(59 * time.Second)
	second, _ := e.ask(carol, bank)
	if second.QuestionID == first.QuestionID {
		t.Fatalf("both posts ask %s", first.QuestionID)
	}
	e.askRefused(bob, "You can ask again")

	// The cooldown over, the bank is exhausted for members.
	e.advance(time.Second)
	got = e.askRefused(bob, "has been asked already in this round", bank)
	for _, want := range []string{"Test Bank", "/quizadmin reset scope:all", "`/quiz ask`"} {
		if !strings.Contains(got, want) {
			t.Errorf("exhausted reply %q lacks %q", got, want)
		}
	}
	// An admin asks it again at once, as often as they like, whatever is
	// open in the channel.
	for range 3 {
		e.ask(alice, bank)
	}
	if open, _ := e.db.OpenPostsIn(8001, 6001); len(open) != 5 {
		t.Errorf("%d questions open, want 5 (two members', three admin's)", len(open))
	}
	e.checkWire()
}

// TestAsksAtOnce: the cooldown and the cap of open questions hold when
// asks arrive together: they are decided in the transaction that posts.
func TestAsksAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()

	// One member, two asks at once: one posts.
	posted, refused := e.asksAtOnce(bob, 2)
	if posted != 1 || len(refused) != 1 || !strings.Contains(refused[0], "You can ask again") {
		t.Errorf("two asks at once by one member: %d posted, refused %q; want one posted, one on cooldown", posted, refused)
	}

	// No cooldown, a cap of 3: one member's five asks at once fill the
	// channel to 3 (bob's first counts).
	got := e.admin(alice, sub("settings", integer("ask_cooldown_seconds", 0), integer("ask_max_open", 3)))
	if !strings.Contains(got, "no cooldown; none while 3 questions are open in the channel") {
		t.Errorf("settings reply %q", got)
	}
	posted, refused = e.asksAtOnce(carol, 5)
	if posted != 2 || len(refused) != 3 {
		t.Errorf("five asks at once into a channel with 1 of 3 open: %d posted, %d refused; want 2 and 3", posted, len(refused))
	}
	for _, r := range refused {
		if !strings.Contains(r, "3 questions are open in this channel already") {
			t.Errorf("refusal %q, want the channel's cap", r)
		}
	}
	if open, _ := e.db.OpenPostsIn(8001, 6001); len(open) != 3 {
		t.Errorf("%d questions open, want 3", len(open))
	}
	// The settings say what members are held to.
	got = e.admin(alice, sub("settings", integer("ask_cooldown_seconds", 300), integer("ask_max_open", 0)))
	if !strings.Contains(got, "one per member every 5 minutes; no cap on open questions") {
		t.Errorf("settings reply %q", got)
	}
	if got := e.admin(alice, sub("settings", integer("ask_cooldown_seconds", -1))); !strings.Contains(got, "between") {
		t.Errorf("a negative cooldown: %q", got)
	}
	e.checkWire()
}

// asksAtOnce sends n /quiz ask of a member together and returns how many
// posted and the refusals.
func (e *env) asksAtOnce(by discordtest.Member, n int) (posted int, refused []string) {
	e.t.Helper()
	pending := make([]*discordtest.Pending, n)
	for i := range pending {
		pending[i] = e.srv.SlashCommand(guildID, channelID, by, "quiz", sub("ask"))
	}
	for _, p := range pending {
		content, _, _ := e.reply(p)
		if strings.Contains(content, "Posted question") {
			posted++
		} else {
			refused = append(refused, content)
		}
	}
	return posted, refused
}

// A member cannot hold one of the channel's open slots longer than the
// server's ask_minutes by asking with a long `minutes`; an admin can.
func TestMemberAskMinutesCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	e.askRefused(bob, "Members' questions stay open at most 10 minutes here", integer("minutes", 10080))
	if post, _ := e.ask(bob, integer("minutes", 10)); !post.ClosesAt.Equal(post.OpenedAt.Add(10 * time.Minute)) {
		t.Errorf("a member's 10-minute ask closes at %v, want 10 minutes after %v", post.ClosesAt, post.OpenedAt)
	}
	if post, _ := e.ask(alice, integer("minutes", 10080)); !post.ClosesAt.Equal(post.OpenedAt.Add(10080 * time.Minute)) {
		t.Errorf("an admin's week-long ask closes at %v, want a week after %v", post.ClosesAt, post.OpenedAt)
	}
	e.checkWire()
}
