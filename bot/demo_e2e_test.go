package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
)

// TestNewRouteTakesOneEntry: the test-only /quiz demo (demo_test.go),
// added to the table as one route, is registered with its option's
// autocomplete; its buttons turn the private message in place and open
// its form; the form, which its route reserves for Manage Server, refuses
// a member and, as its route says, answers an admin after a private
// deferral.
func TestNewRouteTakesOneEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.prepare = bot.WithDemoRoute
	e.start()

	registered := ""
	for _, c := range e.srv.Commands("") {
		if c["name"] != "quiz" {
			continue
		}
		for _, o := range c["options"].([]any) {
			if o := o.(map[string]any); o["name"] == "demo" {
				bank := o["options"].([]any)[0].(map[string]any)
				registered = o["description"].(string)
				if bank["name"] != "bank" || bank["autocomplete"] != true {
					t.Errorf("/quiz demo's option %v, want bank with autocomplete", bank)
				}
			}
		}
	}
	if registered == "" {
		t.Fatal("/quiz demo is not registered")
	}
	if choices := e.srv.Autocomplete(guildID, channelID, bob, "quiz", sub("demo", str("bank", "tes"))).WaitResponse(t, wait).Choices; len(choices) != 1 || choices[0].Value != "Test Bank" {
		t.Errorf("/quiz demo bank autocomplete %v, want Test Bank", choices)
	}

	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("demo"))
	r := p.WaitResponse(t, wait)
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 ||
		!strings.HasPrefix(r.Content, "🧪 Demo question 1: ") {
		t.Fatalf("/quiz demo answered type %d flags %d %q, want a private first question", r.Type, r.Flags, r.Content)
	}
	msg, _ := p.Original()
	b := buttons(msg.Components)
	if b["Next"] == nil || b["Note"] == nil {
		t.Fatalf("demo question buttons %v, want Next and Note", b)
	}
	r, msg = e.click(bob, msg, b["Next"].CustomID)
	if r.Type != discordgo.InteractionResponseUpdateMessage || !strings.HasPrefix(msg.Content, "🧪 Demo question 2: ") {
		t.Errorf("Next answered type %d, message %q; want the second question in place", r.Type, msg.Content)
	}
	form, _ := e.click(bob, msg, buttons(msg.Components)["Note"].CustomID)
	if form.Type != discordgo.InteractionResponseModal || form.CustomID != "dy1:1" {
		t.Fatalf("Note answered type %d with form %q, want the note form dy1:1", form.Type, form.CustomID)
	}

	note := map[string]string{"note": "read the docs"}
	if c, _, _ := e.reply(e.srv.ModalSubmit(guildID, channelID, bob, msg.ID, form.CustomID, note)); c != "You need the Manage Server permission to keep notes on questions." {
		t.Errorf("a member's note: %q, want the refusal", c)
	}
	p = e.srv.ModalSubmit(guildID, channelID, alice, msg.ID, form.CustomID, note)
	if r := p.WaitResponse(t, wait); r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("an admin's note answered type %d flags %d, want a private deferral", r.Type, r.Flags)
	}
	if m := p.WaitOriginal(t, wait, nil); m.Content != "📝 Noted on demo question 2: read the docs" {
		t.Errorf("an admin's note: %q", m.Content)
	}
	e.checkWire()
}
