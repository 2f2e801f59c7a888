package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// words is n characters of distinct words ("stem0 stem1 …") in paragraphs
// of forty words: text whose every character can be found again, in order.
func words(prefix string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		switch {
		case i > 0 && i%40 == 0:
			b.WriteString("\n\n")
		case i > 0:
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s%d", prefix, i)
	}
	return strings.TrimSpace(b.String()[:n])
}

// longBank is issue 18's long question: a 3,800-character stem, a
// 4,000-character explanation and five options with 1,000-character
// rationales.
func longBank() questions.Bank {
	q := questions.Question{ID: "Long#1", Bank: "Long", Number: 1, Line: 1,
		Stem: words("stem", 3800), Explanation: words("explanation", 4000)}
	for i := range 5 {
		l := questions.Letter(i)
		q.Options = append(q.Options, questions.Option{Letter: l, Text: "Option " + l, Correct: i == 1,
			Rationale: words("rationale"+l+"-", 1000)})
	}
	return questions.Bank{Name: "Long", Questions: []questions.Question{q}}
}

// useBanks makes the bot's catalogue banks (and the built-in bank).
func (e *env) useBanks(banks ...questions.Bank) {
	e.t.Helper()
	builtin, err := questions.Builtin()
	if err != nil {
		e.t.Fatal(err)
	}
	if ps := questions.Validate(banks); len(ps) > 0 {
		e.t.Fatal(ps)
	}
	cat, ps := questions.NewCatalogue(banks, builtin)
	if len(ps) > 0 {
		e.t.Fatal(ps)
	}
	e.cat = cat
}

// partsText is the embed texts of messages in order: each description and
// field value on a line of its own.
func partsText(msgs ...[]*discordgo.MessageEmbed) string {
	var b strings.Builder
	for _, embeds := range msgs {
		for _, em := range embeds {
			b.WriteString(em.Description + "\n")
			for _, f := range em.Fields {
				b.WriteString(f.Value + "\n")
			}
		}
	}
	return b.String()
}

// wholeInOrder reports the first of texts that does not appear in got,
// whole, after the one before it, white space compared as runs.
func wholeInOrder(got string, texts ...string) (int, bool) {
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	got, at := flat(got), 0
	for i, w := range texts {
		k := strings.Index(got[at:], flat(w))
		if k < 0 {
			return i, false
		}
		at += k + len(flat(w))
	}
	return 0, true
}

// continuations are the messages replying to the post's message, in the
// order they were created.
func (e *env) continuations(post questions.Post) []discordtest.Message {
	var out []discordtest.Message
	for _, m := range e.srv.Messages(channelID) {
		if m.Reference != nil && m.Reference.MessageID == fmt.Sprint(post.MessageID) {
			out = append(out, m)
		}
	}
	return out
}

// TestLongQuestionShownWhole: the long question of issue 18 is posted
// whole in one message; the reply to an answer carries its whole reveal in
// follow-ups; at the close, the post is edited and the reveal continues in
// replies to it, in order; the review shows it whole too. Every character
// of the stem, the explanation and each rationale reaches the member, and
// Discord would have accepted every request.
func TestLongQuestionShownWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	bank := longBank()
	q := bank.Questions[0]
	e.useBanks(bank)
	e.start()
	post, msg := e.ask(alice, str("bank", "Long"))
	if i, ok := wholeInOrder(partsText(msg.Embeds), append([]string{q.Stem}, "Option A", "Option E")...); !ok || len(msg.Embeds) != 1 {
		t.Errorf("the post (%d embeds) lacks text %d of the question", len(msg.Embeds), i)
	}
	rationales := make([]string, len(q.Options))
	for i, o := range q.Options {
		rationales[i] = o.Rationale
	}
	reveal := append([]string{q.Explanation}, rationales...)

	// Bob's answer: graded with the whole reveal, continued in a follow-up.
	p := e.srv.Component(guildID, channelID, bob, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), "A")
	r := p.WaitResponse(t, wait)
	fups := p.WaitFollowups(t, 1, wait)
	got := [][]*discordgo.MessageEmbed{r.Embeds}
	for _, f := range fups {
		if !f.Ephemeral() || f.UserID != bob.ID {
			t.Errorf("follow-up %q is not bob's alone", f.Content)
		}
		got = append(got, f.Embeds)
	}
	if !strings.Contains(r.Content, "Not quite") || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("answer reply %q (flags %d), want bob's private grade", r.Content, r.Flags)
	}
	if last := fups[len(fups)-1].Content; !strings.Contains(last, fmt.Sprintf("(%d of %d)", len(fups)+1, len(fups)+1)) {
		t.Errorf("last follow-up says %q, want the last part", last)
	}
	if i, ok := wholeInOrder(partsText(got...), reveal...); !ok {
		t.Errorf("bob's reveal lacks text %d (0 the explanation, then the rationales)", i)
	}

	// The close: the post edited, the reveal continued in replies to it.
	e.advance(11 * time.Minute)
	closed, _ := e.srv.Message(channelID, fmt.Sprint(post.MessageID))
	more := e.continuations(post)
	if len(more) == 0 {
		t.Fatalf("no message continues the reveal; the post says %q", closed.Content)
	}
	if want := fmt.Sprintf("the reveal continues in %d more messages below", len(more)); !strings.Contains(closed.Content, want) ||
		!strings.Contains(closed.Content, "Closed") {
		t.Errorf("closed post says %q, want %q", closed.Content, want)
	}
	channel := [][]*discordgo.MessageEmbed{closed.Embeds}
	for i, m := range more {
		if want := fmt.Sprintf("(%d of %d)", i+2, len(more)+1); !strings.Contains(m.Content, want) || m.Ephemeral() {
			t.Errorf("continuation %d says %q, want a public %q", i+2, m.Content, want)
		}
		channel = append(channel, m.Embeds)
	}
	if i, ok := wholeInOrder(partsText(channel...), append([]string{q.Stem}, reveal...)...); !ok {
		t.Errorf("the channel's reveal lacks text %d (0 the stem, 1 the explanation, then the rationales)", i)
	}
	if !strings.Contains(embedsText(more[0].Embeds), "Answer: B") {
		t.Errorf("the first continuation lacks the key:\n%s", embedsText(more[0].Embeds))
	}
	// A restart does not reveal it again.
	e.stop()
	e.start()
	if n := len(e.continuations(post)); n != len(more) {
		t.Errorf("after a restart %d continuations, want %d", n, len(more))
	}

	// Bob's review of his miss: the reveal again, whole, Next and Stop below it.
	e.advance(time.Minute)
	rv, rvMsg := e.startReview(bob)
	sel := reviewSelect(t, rv)
	gp := e.srv.Component(guildID, channelID, bob, rvMsg.ID, sel.CustomID, "B")
	g := gp.WaitResponse(t, wait)
	gf := gp.WaitFollowups(t, 1, wait)
	got = [][]*discordgo.MessageEmbed{g.Embeds}
	for _, f := range gf {
		got = append(got, f.Embeds)
	}
	if !strings.Contains(g.Content, "Right!") || g.Type != discordgo.InteractionResponseUpdateMessage {
		t.Errorf("graded review %q type %d, want an update saying Right", g.Content, g.Type)
	}
	if i, ok := wholeInOrder(partsText(got...), reveal...); !ok {
		t.Errorf("the review's reveal lacks text %d", i)
	}
	e.checkWire()
}

// TestCommunityLineAtReveal: where the practice site's community chose
// another answer than the key, the reveal says so in one line, in the
// reply to an answer and in the channel; where it agrees, nothing is said.
func TestCommunityLineAtReveal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	question := func(bank string, community ...questions.CommunityVote) questions.Bank {
		return questions.Bank{Name: bank, Questions: []questions.Question{{ID: bank + "#12", Bank: bank, Number: 12, Line: 1,
			Stem: "Which AWS service is the MOST suitable?", Explanation: "ElastiCache keeps session state in memory.",
			Options: []questions.Option{{Letter: "A", Text: "Amazon S3 Glacier"}, {Letter: "B", Text: "Amazon ElastiCache", Correct: true},
				{Letter: "C", Text: "Amazon EC2 instance store"}, {Letter: "D", Text: "AWS Snowball"}},
			Community: community}}}
	}
	e.useBanks(
		question("Disputed", questions.CommunityVote{Letters: []string{"C"}, Percent: 71}, questions.CommunityVote{Letters: []string{"B"}, Percent: 29}),
		question("Agreed", questions.CommunityVote{Letters: []string{"B"}, Percent: 88}, questions.CommunityVote{Letters: []string{"C"}, Percent: 12}),
	)
	e.start()
	const line = "Key: B · most members of the source site chose C (71%)"
	for _, tt := range []struct {
		bank string
		want bool
	}{{"Disputed", true}, {"Agreed", false}} {
		post, _ := e.ask(alice, str("bank", tt.bank), integer("minutes", 5))
		reply := e.choose(bob, post, "B")
		if strings.Contains(reply, line) != tt.want || strings.Contains(reply, "source site") != tt.want {
			t.Errorf("%s: answer reply says the community line %v, want %v:\n%s", tt.bank, !tt.want, tt.want, reply)
		}
		e.advance(6 * time.Minute)
		closed, _ := e.srv.Message(channelID, fmt.Sprint(post.MessageID))
		text := embedsText(closed.Embeds)
		if strings.Contains(text, line) != tt.want || strings.Contains(text, "source site") != tt.want {
			t.Errorf("%s: channel reveal says the community line %v, want %v:\n%s", tt.bank, !tt.want, tt.want, text)
		}
		if !strings.Contains(text, "Answer: B") {
			t.Errorf("%s: channel reveal lacks the key:\n%s", tt.bank, text)
		}
	}
	e.checkWire()
}

// TestLongRevealResumesAfterAFailure: when a message continuing a reveal
// fails, the retry posts what is missing, after what reached the channel,
// without editing the post or posting any message again.
func TestLongRevealResumesAfterAFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	bank := longBank()
	e.useBanks(bank)
	e.start()
	post, _ := e.ask(alice, str("bank", "Long"))

	// The close: the first continuation goes out, the second fails.
	first := e.srv.HoldNext("POST", "/channels/"+channelID+"/messages")
	second := e.srv.HoldNext("POST", "/channels/"+channelID+"/messages")
	armed := e.clk.Armed()
	e.clk.Set(e.clk.Now().Add(11 * time.Minute))
	first.WaitArrived(t, wait)
	first.Release()
	second.WaitArrived(t, wait) // the first is in: the bot sends one at a time
	e.srv.FailNext("POST", "/channels/"+channelID+"/messages", 500, "")
	second.Release()
	e.waitScheduler(armed)
	if got := e.continuations(post); len(got) != 1 || !strings.Contains(got[0].Content, "(2 of 3)") {
		t.Fatalf("after the failure %d continuations, want part 2 of 3 alone", len(got))
	}
	if p := e.revealed(post.ID); p.Revealed || p.RevealSent != 2 {
		t.Fatalf("post after the failure: revealed %v, %d sent; want not revealed, 2 sent", p.Revealed, p.RevealSent)
	}

	// The retry, a minute later: part 3 alone.
	e.advance(time.Minute)
	got := e.continuations(post)
	if len(got) != 2 || !strings.Contains(got[0].Content, "(2 of 3)") || !strings.Contains(got[1].Content, "(3 of 3)") {
		t.Fatalf("after the retry %d continuations, want parts 2 and 3 once each", len(got))
	}
	if p := e.revealed(post.ID); !p.Revealed {
		t.Error("post not revealed after the retry")
	}
	if closed, _ := e.srv.Message(channelID, fmt.Sprint(post.MessageID)); closed.Edits != 1 {
		t.Errorf("the post was edited %d times, want once", closed.Edits)
	}
	e.checkWireExcept(0)
}
