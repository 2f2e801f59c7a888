package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// drillBank has seven questions tagged net and one tagged sec, A right in
// each.
var drillBank = func() string {
	var b strings.Builder
	b.WriteString("bank: Drill\nquestions:\n")
	for i := 1; i <= 8; i++ {
		tag := "net"
		if i == 8 {
			tag = "sec"
		}
		fmt.Fprintf(&b, "  - id: d%d\n    question: Drill question number %d?\n    options:\n      - {text: Right %d, correct: true}\n      - {text: Wrong %d}\n    explanation: Explained %d.\n    tags: [%s]\n",
			i, i, i, i, i, tag)
	}
	return b.String()
}()

// TestDrillOrder: /quiz drill topic:net count:5 shows, privately and one at
// a time, the member's misses (least recalled first), then questions they
// never answered (in bank order, leaving out the one open in the channel),
// then one they know; each answer is graded at once, moves their memory
// like a review and gives no points; the end shows the score. Without a
// topic, the drill takes the member's weakest.
func TestDrillOrder(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := drillEnv(t, start)
	net := []string{"net"}
	e.played("d1", net, start.Add(-2*time.Hour), map[questions.UserID]string{7002: "B"})     // missed just now
	e.played("d4", net, start.Add(-3*24*time.Hour), map[questions.UserID]string{7002: "B"})  // missed days ago: less recalled
	e.played("d2", net, start.Add(-24*time.Hour), map[questions.UserID]string{7002: "A"})    // known
	e.played("d7", net, start.Add(-20*24*time.Hour), map[questions.UserID]string{7002: "A"}) // known, long ago: less recalled
	e.played("d8", []string{"sec"}, start.Add(-time.Hour), map[questions.UserID]string{7002: "A"})
	if r1, r4 := e.memory(7002, "d1").Retrievability(start), e.memory(7002, "d4").Retrievability(start); r4 >= r1 {
		t.Fatalf("constructed case: d4's recall %v, want below d1's %v", r4, r1)
	}
	e.openDrillQuestion("d3")
	boards := standings(t, e.db, start)
	before := e.memory(7002, "d4")

	if got := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("drill", str("topic", "nope")))); !strings.Contains(got, "No question here has the topic") || !strings.Contains(got, "`net`, `sec`") {
		t.Errorf("drill of an unknown topic: %q", got)
	}
	ac := e.srv.Autocomplete(guildID, channelID, bob, "quiz", sub("drill", str("topic", "ne"))).WaitResponse(t, wait)
	if len(ac.Choices) != 1 || ac.Choices[0].Value != "net" {
		t.Errorf("topic autocomplete for \"ne\": %+v, want net", ac.Choices)
	}

	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("drill", str("topic", "NET"), integer("count", 5)))
	r := p.WaitResponse(t, wait)
	msg, _ := p.Original()
	if r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("drill reply is public")
	}
	if !strings.Contains(r.Content, "**Drill** of **net**: 5 questions, 2 you missed last time, 2 new to you, 1 you know") {
		t.Errorf("drill plan line: %q", r.Content)
	}
	order := []struct {
		id, status, choice string
	}{
		{"d4", "you missed this one last time", "A"},
		{"d1", "you missed this one last time", "B"},
		{"d5", "new to you", "A"},
		{"d6", "new to you", "A"},
		{"d7", "you got this one right last time", "A"},
	}
	right := 0
	for i, step := range order {
		n := strings.TrimPrefix(step.id, "d")
		if want := fmt.Sprintf("question %d of 5 · %s", i+1, step.status); !strings.Contains(r.Content, want) || !strings.Contains(embedsText(r.Embeds), "Drill question number "+n+"?") {
			t.Fatalf("drill step %d: %q %s, want %s (%q)", i+1, r.Content, embedsText(r.Embeds), step.id, want)
		}
		sel := r.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu)
		if !strings.HasPrefix(sel.CustomID, "dq1:") {
			t.Fatalf("drill select %q, want dq1:", sel.CustomID)
		}
		g := e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, step.choice).WaitResponse(t, wait)
		text := g.Content + "\n" + embedsText(g.Embeds)
		verdict := "Not quite"
		if step.choice == "A" {
			verdict = "Right!"
			right++
		}
		if !strings.Contains(text, verdict) || !strings.Contains(text, "Explained "+n+".") {
			t.Errorf("drill step %d graded %q, want %q and the explanation", i+1, text, verdict)
		}
		m := e.memory(7002, step.id)
		if last := m.History[len(m.History)-1]; !last.Review || last.Right != (step.choice == "A") || !last.At.Equal(e.clk.Now()) {
			t.Errorf("drill step %d: %s's last attempt %+v, want this answer, counted as a review", i+1, step.id, last)
		}
		if i == len(order)-1 {
			if want := fmt.Sprintf("Drill of **net** done: **%d of 5 right**", right); !strings.Contains(g.Content, want) || len(g.Components) != 0 {
				t.Errorf("drill end %q with %d rows, want %q and no buttons", g.Content, len(g.Components), want)
			}
			break
		}
		if want := fmt.Sprintf("%d of %d right so far, %s to go", right, i+1, bot.Plural(4-i, "question", "questions")); !strings.Contains(g.Content, want) {
			t.Errorf("drill step %d: %q, want %q", i+1, g.Content, want)
		}
		next := g.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)
		r = e.srv.Component(guildID, channelID, bob, msg.ID, next.CustomID).WaitResponse(t, wait)
		if r.Type != discordgo.InteractionResponseUpdateMessage {
			t.Fatalf("Next: response type %d, want an update", r.Type)
		}
	}
	if after := e.memory(7002, "d4"); after.Reps != before.Reps+1 || after.Missed() {
		t.Errorf("d4 after the drill: %d reps, missed %v; want one more, right", after.Reps, after.Missed())
	}
	if got := standings(t, e.db, start); got != boards {
		t.Errorf("the drill changed the boards:\n%s\nwant\n%s", got, boards)
	}

	// Without a topic: the weakest, as questions.WeakestTopic defines it.
	mems, _ := e.db.Memories(8001, 7002)
	bk, err := questions.Parse("drill.yaml", []byte(drillBank))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]questions.Memory{}
	for _, m := range mems {
		known[m.QuestionID] = m
	}
	all := bk[0].Questions
	for _, b := range e.cat.Banks() {
		all = append(all, b.Questions...)
	}
	weakest, _, _ := questions.WeakestTopic(all, known, e.clk.Now())
	r = e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("drill")).WaitResponse(t, wait)
	if !strings.Contains(r.Content, "**Drill** of **"+weakest+"** (your weakest topic") {
		t.Errorf("drill without a topic: %q, want %s, bob's weakest", r.Content, weakest)
	}
	// A member who answered none of these questions (only one since
	// removed from the banks): the topic with the most questions.
	e.played("gone", nil, start.Add(-time.Hour), map[questions.UserID]string{7003: "A"})
	if r := e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("drill")).WaitResponse(t, wait); !strings.Contains(r.Content, "**Drill** of **net** (the topic with the most questions, as you have answered none of them yet)") ||
		!strings.Contains(r.Content, "6 new to you") {
		t.Errorf("carol's drill: %q, want net, its 6 questions not open", r.Content)
	}
	e.checkWire()
}

// drillEnv starts a bot at start whose server has imported drillBank.
func drillEnv(t *testing.T, start time.Time) *env {
	t.Helper()
	return importedEnv(t, start, "drill.yaml", drillBank, "added 8")
}

// openDrillQuestion posts question qid of the Drill bank in the channel,
// open for an hour, and waits for the scheduler to take it in.
func (e *env) openDrillQuestion(qid string) {
	e.t.Helper()
	e.settled(func() {
		_, err := e.db.CreatePost(e.t.Context(), questions.Post{GuildID: 8001, ChannelID: 6001, QuestionID: qid, Bank: "Drill",
			Correct: []string{"A"}, OptionCount: 2, SelectCount: 1, ClosesAt: e.clk.Now().Add(time.Hour)})
		if err != nil {
			e.t.Fatal(err)
		}
		e.admin(alice, sub("settings", discordtest.Option{Name: "ask_minutes", Type: discordgo.ApplicationCommandOptionInteger, Value: 10}))
	})
}

// TestDrillStaleButtons: Next pressed twice on one graded question moves
// the drill once; the buttons and the menu of an earlier drill's messages
// move nothing of the drill that replaced it, and say so.
func TestDrillStaleButtons(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := drillEnv(t, start)
	drill := func() (discordtest.Response, string) {
		p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("drill", str("topic", "net"), integer("count", 4)))
		r := p.WaitResponse(t, wait)
		msg, _ := p.Original()
		return r, msg.ID
	}
	selectOf := func(r discordtest.Response) string {
		return r.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu).CustomID
	}
	shown := func() int {
		d, err := e.db.Drill(8001, 7002)
		if err != nil {
			t.Fatal(err)
		}
		return d.Shown
	}

	r, msg := drill()
	g := e.srv.Component(guildID, channelID, bob, msg, selectOf(r), "A").WaitResponse(t, wait)
	next := g.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)
	if !strings.HasPrefix(next.CustomID, "dn2:next:") {
		t.Fatalf("Next %q, want dn2:next:<review>", next.CustomID)
	}
	second := e.srv.Component(guildID, channelID, bob, msg, next.CustomID).WaitResponse(t, wait)
	if !strings.Contains(second.Content, "question 2 of 4") || shown() != 2 {
		t.Fatalf("first Next: %q, drill at %d; want question 2 of 4", second.Content, shown())
	}
	if got := e.srv.Component(guildID, channelID, bob, msg, next.CustomID).WaitResponse(t, wait); !strings.Contains(got.Content, "from an earlier point of your drills") || shown() != 2 {
		t.Errorf("Next again on the same graded question: %q, drill at %d; want refused, still at 2", got.Content, shown())
	}

	// A new drill; the first drill's question 2 is still on screen.
	r2, msg2 := drill()
	if shown() != 1 {
		t.Fatalf("the new drill starts at %d, want 1", shown())
	}
	if got := e.srv.Component(guildID, channelID, bob, msg, next.CustomID).WaitResponse(t, wait); !strings.Contains(got.Content, "from an earlier point of your drills") || shown() != 1 {
		t.Errorf("the first drill's Next: %q, new drill at %d; want refused, still at 1", got.Content, shown())
	}
	old := e.srv.Component(guildID, channelID, bob, msg, selectOf(second), "A").WaitResponse(t, wait)
	if !strings.Contains(old.Content, "Right!") || !strings.Contains(old.Content, "from an earlier point of your drills") || len(old.Components) != 0 || shown() != 1 {
		t.Errorf("the first drill's question answered: %q with %d rows, new drill at %d; want graded, no buttons, still at 1", old.Content, len(old.Components), shown())
	}
	// The new drill goes on from its own message.
	g2 := e.srv.Component(guildID, channelID, bob, msg2, selectOf(r2), "A").WaitResponse(t, wait)
	next2 := g2.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)
	if got := e.srv.Component(guildID, channelID, bob, msg2, next2.CustomID).WaitResponse(t, wait); !strings.Contains(got.Content, "question 2 of 4") || shown() != 2 {
		t.Errorf("the new drill's Next: %q, at %d; want question 2 of 4", got.Content, shown())
	}
	e.checkWire()
}
