package fakediscord_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
)

func TestDirectMessages(t *testing.T) {
	t.Parallel()
	g := discordtest.DefaultGuild()
	g.Members = append(g.Members, discordtest.Member{ID: "7002", Username: "bob"})
	srv := discordtest.Start(t, discordtest.Options{Guilds: []discordtest.Guild{g}})
	dg := session(t, srv.URL())
	dg.LogLevel = discordgo.LogError - 1 // REST only: its results are checked
	// A heartbeat that meets the close frame must not start a reconnect
	// loop against a server that is gone (a leak at the end of the run).
	dg.ShouldReconnectOnError = false
	noPings := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}

	ch, err := dg.UserChannelCreate("7001")
	if err != nil || ch.Type != discordgo.ChannelTypeDM || len(ch.Recipients) != 1 || ch.Recipients[0].ID != "7001" {
		t.Fatalf("UserChannelCreate = %+v, %v; want a DM channel with 7001", ch, err)
	}
	if again, _ := dg.UserChannelCreate("7001"); again == nil || again.ID != ch.ID {
		t.Errorf("a second UserChannelCreate gave channel %+v, want the same %s", again, ch.ID)
	}
	if _, err := dg.ChannelMessageSendComplex(ch.ID, &discordgo.MessageSend{Content: "hello", AllowedMentions: noPings}); err != nil {
		t.Fatal(err)
	}
	if got := srv.WaitDMs(t, "7001", 1, wait); got[0].Content != "hello" || got[0].ChannelID != ch.ID {
		t.Errorf("DMs = %+v, want hello in %s", got, ch.ID)
	}
	if _, err := dg.UserChannelCreate("9999"); restCode(err) != 50033 {
		t.Errorf("DM to an unknown user: %v, want code 50033", err)
	}

	// Closed DMs: the channel opens, the message is refused with 50007.
	srv.CloseDMs("7002")
	bobDM, err := dg.UserChannelCreate("7002")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dg.ChannelMessageSendComplex(bobDM.ID, &discordgo.MessageSend{Content: "hello", AllowedMentions: noPings})
	var re *discordgo.RESTError
	if restCode(err) != 50007 || !errors.As(err, &re) || re.Response.StatusCode != http.StatusForbidden {
		t.Errorf("message to closed DMs: %v, want 403 code 50007", err)
	}
	if got := srv.DMs("7002"); len(got) != 0 {
		t.Errorf("closed DMs recorded %d messages", len(got))
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations %q, want none", v)
	}
}
