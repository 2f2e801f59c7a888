package bot_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// keysBank has five sound questions (g1…g5, key A), one whose key is
// wrong (bad: the key says B, the answer is C), one the bank's strong
// members get wrong and its weak members right (neg), and one whose
// source site's members voted for another answer than the key (comm).
const keysBank = `bank: Keys
questions:
  - {id: g1, question: "Good one?", options: [{text: yes, correct: true}, {text: no}, {text: maybe}, {text: never}]}
  - {id: g2, question: "Good two?", options: [{text: yes, correct: true}, {text: no}, {text: maybe}, {text: never}]}
  - {id: g3, question: "Good three?", options: [{text: yes, correct: true}, {text: no}, {text: maybe}, {text: never}]}
  - {id: g4, question: "Good four?", options: [{text: yes, correct: true}, {text: no}, {text: maybe}, {text: never}]}
  - {id: g5, question: "Good five?", options: [{text: yes, correct: true}, {text: no}, {text: maybe}, {text: never}]}
  - {id: bad, question: "Which is the capital of Australia?", options: [{text: Sydney}, {text: Melbourne, correct: true}, {text: Canberra}, {text: Perth}]}
  - {id: neg, question: "A trick question?", options: [{text: this, correct: true}, {text: that}, {text: other}, {text: none}]}
  - id: comm
    question: "The community's pick?"
    options: [{text: one, correct: true}, {text: two}, {text: three}, {text: four}]
    community: [{answer: C, percent: 71}, {answer: A, percent: 29}]
`

// TestInsightsFlagRegradeDismiss: twelve members answer a bank through
// the bot, six strong and six weak. /quizadmin insights flags the
// question whose strong members pick C over the key B with that reason,
// the one with a negative discrimination and the one the source site
// disagrees with, and no sound question; Regrade… from the entry changes
// the key and the flag clears; Dismiss hides a flag until an answer
// changes the question's statistics.
func TestInsightsFlagRegradeDismiss(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	if got := e.admin(alice, sub("import", attachment("keys.yaml", keysBank))); !strings.Contains(got, "added 8") {
		t.Fatalf("import: %q", got)
	}
	var strong, weak []discordtest.Member
	for i := range 6 {
		strong = append(strong, discordtest.Member{ID: fmt.Sprint(7100 + i), Username: fmt.Sprintf("strong%d", i), Permissions: discordtest.DefaultPermissions})
		weak = append(weak, discordtest.Member{ID: fmt.Sprint(7200 + i), Username: fmt.Sprintf("weak%d", i), Permissions: discordtest.DefaultPermissions})
	}
	// One post of each question, all open at once (an admin is not held
	// to the cap of open questions).
	posts := map[string]questions.Post{}
	for len(posts) < 8 {
		p, _ := e.ask(alice, str("bank", "Keys"), integer("minutes", 600))
		posts[p.QuestionID] = p
	}
	// The sound questions first, so that every member has five answers on
	// the rest of the bank when they answer the others.
	for _, id := range []string{"g1", "g2", "g3", "g4", "g5", "comm"} {
		for _, m := range strong {
			e.choose(m, posts[id], "A")
		}
		for _, m := range weak {
			e.choose(m, posts[id], "D")
		}
	}
	for _, m := range strong {
		e.choose(m, posts["bad"], "C")
		e.choose(m, posts["neg"], "B")
	}
	for i, m := range weak {
		bad := "D"
		if i == 0 {
			bad = "B" // the one right answer to the wrong key
		}
		e.choose(m, posts["bad"], bad)
		e.choose(m, posts["neg"], "A")
	}

	// Members can't look.
	if got := e.admin(bob, sub("insights")); !strings.Contains(got, "Manage Server") {
		t.Errorf("member's insights: %q", got)
	}
	p := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("insights", str("bank", "Keys")))
	content, embeds, eph := e.reply(p)
	if !eph {
		t.Errorf("insights reply is public")
	}
	if !strings.Contains(content, "**3 flagged**") || !strings.Contains(content, "8 questions") {
		t.Errorf("insights head %q, want 8 questions, 3 flagged", content)
	}
	if len(embeds) != 4 {
		t.Fatalf("first page has %d entries, want 4", len(embeds))
	}
	if !strings.Contains(embeds[0].Description, "`bad`") ||
		!strings.Contains(embeds[0].Description, "strong members pick C over the key B: 100% vs 0%") ||
		!strings.Contains(embeds[0].Description, "discrimination −") {
		t.Errorf("first entry:\n%s\nwant bad, with strong members picking C over the key B and a negative discrimination", embeds[0].Description)
	}
	flagged := embedsText(embeds[:3])
	for _, want := range []string{"`neg`", "members who do well on the rest of the bank get it wrong more often",
		"`comm`", "the source site's members chose C (71%), the key is A"} {
		if !strings.Contains(flagged, want) {
			t.Errorf("flagged entries lack %q:\n%s", want, flagged)
		}
	}
	if strings.Contains(embeds[3].Title, "⚠️") || !strings.Contains(embeds[3].Description, "facility 50%") {
		t.Errorf("fourth entry %q %q, want a sound question, unflagged, facility 50%%", embeds[3].Title, embeds[3].Description)
	}
	// The bank's chart follows, edited into the reply.
	req := e.srv.WaitRequest(t, func(r discordtest.Request) bool {
		return r.Method == "PATCH" && strings.Contains(r.Route, p.Token()) && len(r.Files) > 0
	}, wait)
	if f := req.Files[0]; f.Name != "insights.png" || !bytes.HasPrefix(f.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("chart attached: %q, %d bytes", f.Name, len(f.Data))
	}
	list := p.WaitOriginal(t, wait, nil)
	button := func(m discordtest.Message, label string) *discordgo.Button {
		t.Helper()
		for _, row := range m.Components {
			for _, c := range row.(*discordgo.ActionsRow).Components {
				if b := c.(*discordgo.Button); b.Label == label {
					return b
				}
			}
		}
		t.Fatalf("no button %q in %+v", label, m.Components)
		return nil
	}

	// Show: the statistics with the picks of each option, and the question.
	sp := e.srv.Component(guildID, channelID, alice, list.ID, button(list, "Show 1").CustomID)
	show := e.replyText(sp)
	for _, want := range []string{"12 answers · facility 8%", "**C** `█████░░░░░` 50% · picked 6× (0 in right answers, 6 in wrong, 6 by strong members)",
		"Most picked wrong answer: **C** · 6 answers (50%)"} {
		if !strings.Contains(show, want) {
			t.Errorf("Show lacks %q:\n%s", want, show)
		}
	}
	// The question as posted follows.
	e.srv.WaitRequest(t, func(r discordtest.Request) bool {
		body, _ := json.Marshal(r.JSON)
		return r.Method == "POST" && strings.Contains(r.Route, sp.Token()) && bytes.Contains(body, []byte("Which is the capital of Australia?"))
	}, wait)
	// Regrade…: a form with the suggested key; the question must be
	// closed first.
	regrade := button(list, "Regrade… 1")
	if got := e.srv.Component(guildID, channelID, bob, list.ID, regrade.CustomID).WaitResponse(t, wait); !strings.Contains(got.Content, "Manage Server") {
		t.Errorf("member's Regrade…: %q", got.Content)
	}
	form := e.srv.Component(guildID, channelID, alice, list.ID, regrade.CustomID).WaitResponse(t, wait)
	if form.Type != discordgo.InteractionResponseModal || !strings.HasPrefix(form.CustomID, "ik1:") {
		t.Fatalf("Regrade… answered type %d %q, want the regrade form", form.Type, form.CustomID)
	}
	input := form.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.TextInput)
	if input.Value != "C" || !strings.Contains(input.Label, "suggested C") {
		t.Errorf("regrade form input %q %q, want C suggested", input.Label, input.Value)
	}
	if got := e.replyText(e.srv.ModalSubmit(guildID, channelID, alice, list.ID, form.CustomID, map[string]string{"key": "C"})); !strings.Contains(got, "close it first") {
		t.Errorf("regrade of an open question: %q", got)
	}
	if got := e.admin(alice, sub("close")); !strings.Contains(got, "Closed") {
		t.Fatalf("close: %q", got)
	}
	// The channel's reveal names the wrong answer half the members picked.
	e.srv.WaitRequest(t, func(r discordtest.Request) bool {
		body, _ := json.Marshal(r.JSON)
		return r.Method == "PATCH" && strings.HasSuffix(r.Route, fmt.Sprint(posts["bad"].MessageID)) &&
			bytes.Contains(body, []byte("Most picked wrong answer: C (50% of the answers)"))
	}, wait)
	if got := e.replyText(e.srv.ModalSubmit(guildID, channelID, alice, list.ID, form.CustomID, map[string]string{"key": "Z"})); !strings.Contains(got, "not a key") {
		t.Errorf("regrade to Z: %q", got)
	}
	got := e.replyText(e.srv.ModalSubmit(guildID, channelID, alice, list.ID, form.CustomID, map[string]string{"key": "c"}))
	if !strings.Contains(got, "is now **C** (it was B)") || !strings.Contains(got, "12 answers, **7 changed**") {
		t.Errorf("regrade reply %q, want the key now C and 7 of 12 answers changed", got)
	}
	after := e.replyText(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("insights", str("bank", "Keys"))))
	if !strings.Contains(after, "**2 flagged**") || strings.Contains(after, "over the key") {
		t.Errorf("insights after the regrade:\n%s\nwant bad no longer flagged", after)
	}

	// Dismiss the negative discrimination: hidden until its statistics change.
	p = e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("insights", str("bank", "Keys"), str("sort", "discrimination")))
	e.reply(p)
	list = p.WaitOriginal(t, wait, nil)
	pos := 0
	for i, em := range list.Embeds {
		if strings.Contains(em.Description, "`neg`") {
			pos = i + 1
		}
	}
	if pos == 0 {
		t.Fatalf("neg not on the first page:\n%s", embedsText(list.Embeds))
	}
	d := e.srv.Component(guildID, channelID, alice, list.ID, button(list, fmt.Sprintf("Dismiss %d", pos)).CustomID).WaitResponse(t, wait)
	if d.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(d.Content, "Dismissed the flags of `neg`") || !strings.Contains(d.Content, "**1 flagged**") {
		t.Errorf("dismiss: type %d %q", d.Type, d.Content)
	}
	if !strings.Contains(embedsText(d.Embeds), "Flags dismissed") {
		t.Errorf("after dismiss:\n%s", embedsText(d.Embeds))
	}
	// A new answer to neg changes its statistics: flagged again.
	var again questions.Post
	for again.QuestionID != "neg" {
		again, _ = e.ask(alice, str("bank", "Keys"), integer("minutes", 600))
	}
	e.choose(carol, again, "B")
	if got := e.admin(alice, sub("insights", str("bank", "Keys"))); !strings.Contains(got, "**2 flagged**") || strings.Contains(got, "Flags dismissed") {
		t.Errorf("insights after a new answer to the dismissed question:\n%s", got)
	}
	e.checkWire()
}
