package discordtest

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

func TestValidateModal(t *testing.T) {
	t.Parallel()
	input := func(extra string) string {
		return `{"type":1,"components":[{"type":4,"custom_id":"text","style":2,"label":"Questions"` + extra + `}]}`
	}
	modal := func(title string, rows ...string) string {
		return `{"custom_id":"m","title":"` + title + `","components":[` + strings.Join(rows, ",") + `]}`
	}
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"paragraph", modal("Paste", input(`,"max_length":4000,"value":"`+strings.Repeat("v", 4000)+`"`)), true},
		{"five rows", modal("Paste", input(""), strings.Replace(input(""), `"text"`, `"b"`, 1), strings.Replace(input(""), `"text"`, `"c"`, 1),
			strings.Replace(input(""), `"text"`, `"d"`, 1), strings.Replace(input(""), `"text"`, `"e"`, 1)), true},
		{"title 45", modal(strings.Repeat("t", 45), input("")), true},
		{"title 46", modal(strings.Repeat("t", 46), input("")), false},
		{"no rows", modal("Paste"), false},
		{"six rows", modal("Paste", input(""), input(""), input(""), input(""), input(""), input("")), false},
		{"label 46", modal("Paste", strings.Replace(input(""), `"Questions"`, `"`+strings.Repeat("l", 46)+`"`, 1)), false},
		{"max_length 4001", modal("Paste", input(`,"max_length":4001`)), false},
		{"value 4001", modal("Paste", input(`,"value":"`+strings.Repeat("v", 4001)+`"`)), false},
		{"style 3", modal("Paste", strings.Replace(input(""), `"style":2`, `"style":3`, 1)), false},
		{"button in a modal", modal("Paste", `{"type":1,"components":[{"type":2,"style":1,"label":"x","custom_id":"b"}]}`), false},
		{"two inputs in a row", modal("Paste", `{"type":1,"components":[{"type":4,"custom_id":"a","style":1,"label":"A"},{"type":4,"custom_id":"b","style":1,"label":"B"}]}`), false},
		{"duplicate custom_id", modal("Paste", input(""), input("")), false},
		{"custom_id 101", `{"custom_id":"` + strings.Repeat("c", 101) + `","title":"t","components":[` + input("") + `]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data map[string]any
			if err := json.Unmarshal([]byte(tt.body), &data); err != nil {
				t.Fatal(err)
			}
			fe := validateModal(data)
			if got := fe == nil; got != tt.ok {
				t.Errorf("valid = %v (%v), want %v", got, fe, tt.ok)
			}
		})
	}
}

func TestDirectMessages(t *testing.T) {
	t.Parallel()
	g := DefaultGuild()
	g.Members = append(g.Members, Member{ID: "7002", Username: "bob"})
	srv := Start(t, Options{Guilds: []Guild{g}})
	dg, err := discordgo.New("Bot test-token")
	if err != nil {
		t.Fatal(err)
	}
	dg.LogLevel = discordgo.LogError - 1 // REST only: its results are checked
	dg.Client = &http.Client{Timeout: wait, Transport: Transport(srv.URL())}
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
