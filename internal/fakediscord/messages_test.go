package fakediscord_test

import (
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// TestSnapshotsFollowChanges: a message looked at again after an edit or
// its deletion shows the change (the server keeps what it made of each
// state of a message), and a snapshot taken before keeps what it showed.
func TestSnapshotsFollowChanges(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{})
	dg := session(t, srv.URL())
	noPings := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	sent, err := dg.ChannelMessageSendComplex("6001", &discordgo.MessageSend{Content: "first",
		Embeds: []*discordgo.MessageEmbed{{Title: "one"}}, AllowedMentions: noPings})
	if err != nil {
		t.Fatal(err)
	}
	before, ok := srv.Message("6001", sent.ID)
	if again, _ := srv.Message("6001", sent.ID); !ok || before.Content != "first" || again.Content != "first" || len(again.Embeds) != 1 {
		t.Fatalf("message as sent: %q, then %q with %d embeds; want \"first\" with one", before.Content, again.Content, len(again.Embeds))
	}
	content := "second"
	embeds := []*discordgo.MessageEmbed{{Title: "two"}}
	if _, err := dg.ChannelMessageEditComplex(&discordgo.MessageEdit{Channel: "6001", ID: sent.ID, Content: &content,
		Embeds: &embeds, AllowedMentions: noPings}); err != nil {
		t.Fatal(err)
	}
	edited, _ := srv.Message("6001", sent.ID)
	if edited.Content != "second" || edited.Edits != 1 || edited.Embeds[0].Title != "two" || edited.EditedAt.IsZero() {
		t.Errorf("after the edit: %q, %d edits, embeds %s; want \"second\", one edit, the embed two", edited.Content, edited.Edits, edited.RawEmbeds)
	}
	if err := dg.ChannelMessageDelete("6001", sent.ID); err != nil {
		t.Fatal(err)
	}
	if gone, _ := srv.Message("6001", sent.ID); !gone.Deleted || gone.Content != "second" {
		t.Errorf("after the deletion: %q deleted %v, want \"second\" deleted", gone.Content, gone.Deleted)
	}
	if all := srv.AllMessages(); len(all) != 1 || !all[0].Deleted {
		t.Errorf("AllMessages after the deletion: %d messages, the first deleted %v; want the one, deleted", len(all), len(all) > 0 && all[0].Deleted)
	}
	if before.Content != "first" || before.Edits != 0 || before.Deleted || before.Embeds[0].Title != "one" {
		t.Errorf("the first snapshot changed: %q, %d edits, deleted %v, embeds %s", before.Content, before.Edits, before.Deleted, before.RawEmbeds)
	}
}
