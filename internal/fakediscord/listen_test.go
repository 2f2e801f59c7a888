package fakediscord_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/fakediscord"
)

func TestListenAddress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, addr string
		wantErr    string
	}{
		{name: "loopback v4", addr: "127.0.0.1:0"},
		{name: "localhost", addr: "localhost:0"},
		{name: "any interface", addr: ":0", wantErr: "want a loopback address"},
		{name: "all v4", addr: "0.0.0.0:0", wantErr: "want a loopback address"},
		{name: "no port", addr: "127.0.0.1", wantErr: "missing port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := fakediscord.Listen(tt.addr, fakediscord.Options{})
			if err == nil {
				s.Close()
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Listen(%q): got error %v, want none", tt.addr, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Listen(%q): got error %v, want one containing %q", tt.addr, err, tt.wantErr)
			}
		})
	}
}

// TestListenChangedAndUserID runs a real discordgo session against a
// server made with Listen: Wait sees it connect, Changed closes on new
// state, and each message an
// interaction creates records the member it is for.
func TestListenChangedAndUserID(t *testing.T) {
	t.Parallel()
	srv, err := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL: got %s, want http://127.0.0.1:PORT", srv.URL())
	}
	dg := session(t, srv.URL())
	checkEvents(t, dg)
	// A heartbeat that meets the close frame must not start a reconnect
	// loop against a server that is gone (a leak at the end of the run).
	dg.ShouldReconnectOnError = false
	dg.Identify.Intents = discordgo.IntentsGuilds
	done := make(chan error, 1)
	dg.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		err := s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "only for you", Flags: discordgo.MessageFlagsEphemeral,
				AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}},
		})
		if err == nil {
			_, err = s.FollowupMessageCreate(ic.Interaction, true, &discordgo.WebhookParams{Content: "and more",
				AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}})
		}
		done <- err
	})
	if err := dg.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	closeSessions(t, srv, dg)
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	if err := srv.Wait(ctx, srv.Connected); err != nil {
		t.Fatalf("Wait(Connected): %v", err)
	}

	changed := srv.Changed()
	bob := discordtest.Member{ID: "7002", Username: "bob"}
	srv.SlashCommand("8001", "6001", bob, "hello")
	if err := recv(t, done, "the handler"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Fatal("Changed: channel still open after a reply, want closed")
	}
	msgs := srv.Messages("6001")
	if len(msgs) != 2 {
		t.Fatalf("messages: got %d, want 2", len(msgs))
	}
	for _, m := range msgs {
		if m.UserID != bob.ID {
			t.Errorf("message %q: got UserID %q, want %q", m.Content, m.UserID, bob.ID)
		}
	}
	if !msgs[0].Ephemeral() {
		t.Errorf("message %q: got not ephemeral, want ephemeral", msgs[0].Content)
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("violations: got %q, want none", v)
	}
}
