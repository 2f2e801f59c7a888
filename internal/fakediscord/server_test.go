package fakediscord_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/fakediscord"
)

// TestMain runs the parallel tests several at once, then fails on any
// goroutine left over, a discordgo Close still in its fixed pause aside
// (closeSessions leaves them to it).
func TestMain(m *testing.M) { discordtest.VerifyTestMainStrict(m) }

const wait = 5 * time.Second

// checkEvents makes dg silent and fails t if an event the server
// dispatched does not decode into discordgo's type for it (which discordgo
// itself would only log, through its package-global logger: tests that
// set that cannot run in parallel). Call it before Open, and before
// registering dg's Close, so that the check runs after the session ends.
func checkEvents(t *testing.T, dg *discordgo.Session) {
	t.Helper()
	dg.LogLevel = discordgo.LogError - 1
	var mu sync.Mutex
	var bad []string
	dg.AddHandler(func(_ *discordgo.Session, e *discordgo.Event) {
		if e.Struct == nil { // an event type discordgo does not know
			return
		}
		v := reflect.New(reflect.TypeOf(e.Struct).Elem()).Interface()
		if err := json.Unmarshal(e.RawData, v); err != nil {
			mu.Lock()
			defer mu.Unlock()
			bad = append(bad, fmt.Sprintf("%s: %v", e.Type, err))
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("event does not decode with discordgo's type: %s", b)
		}
	})
}

// session is a discordgo session with the bot's token whose requests go
// to the server at url.
func session(t *testing.T, url string) *discordgo.Session {
	t.Helper()
	dg, err := discordgo.New("Bot test-token")
	if err != nil {
		t.Fatal(err)
	}
	dg.Client = &http.Client{Timeout: wait, Transport: discordtest.Transport(url)}
	return dg
}

// closeSessions closes the discordgo sessions when the test ends, as the
// bot closes its own (bot/internal/discord closeGateway): discordgo's
// Close writes the close frame, then pauses a fixed second holding the
// session before it closes the socket. The test waits until the server
// has read every session's close frame and let its connection go, not for
// the pauses, which end after the test (VerifyTestMain allows for them).
// Register it after discordtest.Start or the server's Close, so that it
// runs first.
func closeSessions(t *testing.T, srv *fakediscord.Server, sessions ...*discordgo.Session) {
	t.Helper()
	t.Cleanup(func() {
		for _, dg := range sessions {
			go func() { _ = dg.Close() }()
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		gone := func() bool {
			for i := range srv.Shards() {
				if srv.ShardConnected(i) {
					return false
				}
			}
			return true
		}
		if err := srv.Wait(ctx, gone); err != nil {
			t.Errorf("the server still holds a session %v after its Close", wait)
		}
	})
}

func restCode(err error) int {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Message != nil {
		return re.Message.Code
	}
	return -1
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// TestDiscordgoEndToEnd drives one real discordgo session through the whole
// surface: gateway, commands, interactions, messages, validation, injected
// failures and a resume.
func TestDiscordgoEndToEnd(t *testing.T) {
	t.Parallel() // the resume waits out discordgo's second after the drop
	srv := discordtest.Start(t, discordtest.Options{})

	dg := session(t, srv.URL())
	checkEvents(t, dg)
	dg.Identify.Intents = discordgo.IntentsGuilds

	readyc := make(chan *discordgo.Ready, 4)
	guildc := make(chan *discordgo.GuildCreate, 4)
	interc := make(chan *discordgo.Interaction, 16)
	dg.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { readyc <- r })
	dg.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) { guildc <- g })
	dg.AddHandler(func(_ *discordgo.Session, ic *discordgo.InteractionCreate) { interc <- ic.Interaction })

	if err := dg.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	closeSessions(t, srv.Server, dg)

	r := recv(t, readyc, "READY")
	if r.SessionID == "" || r.User.ID != "9001" || r.Application.ID != "9001" || len(r.Guilds) != 1 {
		t.Fatalf("READY = %+v", r)
	}
	g := recv(t, guildc, "GUILD_CREATE")
	if g.ID != "8001" || g.Name != "Study Group" || len(g.Channels) != 1 || len(g.Members) != 2 {
		t.Fatalf("GUILD_CREATE = %+v", g.Guild)
	}
	srv.WaitConnected(t, wait)
	if got := srv.IdentifyPayloads(); len(got) != 1 || got[0].Token != "Bot test-token" || got[0].Intents != int(discordgo.IntentsGuilds) {
		t.Fatalf("identify = %+v", got)
	}

	// Commands.
	minLen := 1
	cmds, err := dg.ApplicationCommandBulkOverwrite(r.Application.ID, "8001", []*discordgo.ApplicationCommand{{
		Name: "quiz", Description: "Run quizzes",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "ask", Description: "Ask",
				Options: []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionString,
					Name: "bank", Description: "Bank", Autocomplete: true, MinLength: &minLen, MaxLength: 100}}},
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "import", Description: "Import",
				Options: []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionAttachment,
					Name: "file", Description: "File", Required: true}}},
		},
	}})
	if err != nil || len(cmds) != 1 || cmds[0].ID == "" {
		t.Fatalf("bulk overwrite = %v, %v", cmds, err)
	}
	if got := srv.Commands("8001"); len(got) != 1 || got[0]["id"] != cmds[0].ID || got[0]["guild_id"] != "8001" {
		t.Fatalf("Commands = %v", got)
	}
	_, err = dg.ApplicationCommandBulkOverwrite(r.Application.ID, "", []*discordgo.ApplicationCommand{{Name: "Bad Name", Description: "x"}})
	if restCode(err) != 50035 {
		t.Fatalf("invalid command name: err = %v, want code 50035", err)
	}

	// A slash command with an attachment: deferred ephemeral, edit, follow-up, second callback.
	p := srv.SlashCommand("8001", "6001", discordtest.Member{ID: "7001"}, "quiz",
		discordtest.Option{Name: "import", Type: discordgo.ApplicationCommandOptionSubCommand, Options: []discordtest.Option{
			{Name: "file", Type: discordgo.ApplicationCommandOptionAttachment, Value: discordtest.Attachment{Filename: "bank.txt", Data: []byte("Q1\n")}},
		}})
	i := recv(t, interc, "INTERACTION_CREATE")
	if i.Type != discordgo.InteractionApplicationCommand || i.ID != p.ID() || i.Member == nil || i.Member.User.Username != "alice" ||
		i.AppPermissions != discordtest.DefaultPermissions || i.Member.Permissions != discordtest.DefaultPermissions {
		t.Fatalf("interaction = %+v", i)
	}
	d := i.ApplicationCommandData()
	if d.ID != cmds[0].ID || d.Options[0].Name != "import" || d.Resolved == nil {
		t.Fatalf("data = %+v", d)
	}
	attID, _ := d.Options[0].Options[0].Value.(string) // StringValue() panics on ATTACHMENT options
	att := d.Resolved.Attachments[attID]
	if att == nil || att.Filename != "bank.txt" || att.Size != 3 {
		t.Fatalf("attachment = %+v", att)
	}
	resp, err := dg.Client.Get(att.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "Q1\n" {
		t.Fatalf("attachment body = %q", body)
	}

	err = dg.InteractionRespond(i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
	})
	if err != nil {
		t.Fatalf("InteractionRespond: %v", err)
	}
	if got := p.WaitResponse(t, wait); got.Type != 5 || got.Flags != discordgo.MessageFlagsEphemeral {
		t.Fatalf("response = %+v", got)
	}
	if o, ok := p.Original(); !ok || !o.Loading() || !o.Ephemeral() {
		t.Fatalf("original after defer = %+v, %v", o, ok)
	}
	text := "Imported 1 question"
	noPings := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	if _, err := dg.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &text, AllowedMentions: noPings}); err != nil {
		t.Fatalf("InteractionResponseEdit: %v", err)
	}
	o := p.WaitOriginal(t, wait, nil)
	if o.Content != text || !o.Ephemeral() || o.AllowedMentions == nil || o.AllowedMentions.Parse == nil || len(o.AllowedMentions.Parse) != 0 {
		t.Fatalf("original = %+v", o)
	}
	fm, err := dg.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "follow-up",
		Files: []*discordgo.File{{Name: "out.txt", ContentType: "text/plain", Reader: strings.NewReader("data")}}})
	if err != nil || fm.ID == "" || fm.Content != "follow-up" || len(fm.Attachments) != 1 {
		t.Fatalf("FollowupMessageCreate = %+v, %v", fm, err)
	}
	if fs := p.WaitFollowups(t, 1, wait); fs[0].ID != fm.ID || !fs[0].Webhook {
		t.Fatalf("followups = %+v", fs)
	}
	err = dg.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "again"}})
	if restCode(err) != 40060 {
		t.Fatalf("second callback: err = %v, want code 40060", err)
	}

	// A channel message with a select, edited, then clicked.
	n := 2
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		CustomID: "q:8001:42", Placeholder: "Select 2", MinValues: &n, MaxValues: n,
		Options: []discordgo.SelectMenuOption{{Label: "A", Value: "A"}, {Label: "B", Value: "B"}, {Label: "C", Value: "C"}},
	}}}
	msg, err := dg.ChannelMessageSendComplex("6001", &discordgo.MessageSend{
		Embeds:          []*discordgo.MessageEmbed{{Title: "Question 42"}},
		Components:      []discordgo.MessageComponent{row},
		AllowedMentions: noPings,
	})
	if err != nil || msg.ID == "" || len(msg.Components) != 1 || msg.Author.ID != "9001" {
		t.Fatalf("ChannelMessageSendComplex = %+v, %v", msg, err)
	}
	embeds := []*discordgo.MessageEmbed{{Title: "Question 42", Description: "closed"}}
	if _, err := dg.ChannelMessageEditComplex(&discordgo.MessageEdit{Channel: "6001", ID: msg.ID, Embeds: &embeds}); err != nil {
		t.Fatalf("ChannelMessageEditComplex: %v", err)
	}
	stored, ok := srv.Message("6001", msg.ID)
	if !ok || stored.Edits != 1 || stored.Embeds[0].Description != "closed" || len(stored.Components) != 1 {
		t.Fatalf("stored = %+v, %v", stored, ok)
	}
	if sel := stored.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu); sel.CustomID != "q:8001:42" {
		t.Fatalf("stored select = %+v", sel)
	}
	cp := srv.Component("8001", "6001", discordtest.Member{ID: "7001"}, msg.ID, "q:8001:42", "A", "C")
	ci := recv(t, interc, "component INTERACTION_CREATE")
	cd := ci.MessageComponentData()
	if cd.CustomID != "q:8001:42" || cd.ComponentType != discordgo.SelectMenuComponent || len(cd.Values) != 2 ||
		ci.Message == nil || ci.Message.ID != msg.ID || len(ci.Message.Components) != 1 {
		t.Fatalf("component interaction = %+v / %+v", ci, cd)
	}
	empty := []discordgo.MessageComponent{}
	if err := dg.InteractionRespond(ci, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{Content: "answered", Components: empty, Embeds: ci.Message.Embeds}}); err != nil {
		t.Fatalf("update message: %v", err)
	}
	cp.WaitResponse(t, wait)
	if m, _ := srv.Message("6001", msg.ID); m.Content != "answered" || len(m.Components) != 0 || len(m.Embeds) != 1 {
		t.Fatalf("after update = %+v", m)
	}

	// Autocomplete.
	ap := srv.Autocomplete("8001", "6001", discordtest.Member{ID: "7001"}, "quiz",
		discordtest.Option{Name: "ask", Type: discordgo.ApplicationCommandOptionSubCommand, Options: []discordtest.Option{
			{Name: "bank", Type: discordgo.ApplicationCommandOptionString, Value: "Clo"}}})
	ai := recv(t, interc, "autocomplete")
	if ai.Type != discordgo.InteractionApplicationCommandAutocomplete || !ai.ApplicationCommandData().Options[0].Options[0].Focused {
		t.Fatalf("autocomplete = %+v", ai)
	}
	if err := dg.InteractionRespond(ai, &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "Cloud", Value: "Cloud"}}}}); err != nil {
		t.Fatal(err)
	}
	if got := ap.WaitResponse(t, wait); len(got.Choices) != 1 || got.Choices[0].Name != "Cloud" {
		t.Fatalf("choices = %+v", got.Choices)
	}

	// Validation rejections.
	_, err = dg.ChannelMessageSend("6001", strings.Repeat("x", 2001))
	if restCode(err) != 50035 {
		t.Fatalf("long content: err = %v, want 50035", err)
	}
	_, err = dg.ChannelMessageSendEmbed("6001", &discordgo.MessageEmbed{Title: strings.Repeat("t", 257)})
	if restCode(err) != 50035 {
		t.Fatalf("long title: err = %v, want 50035", err)
	}

	// Injected 429: discordgo sleeps retry_after and retries.
	srv.FailNext("POST", "/channels/6001/messages", http.StatusTooManyRequests, `{"message":"slow down","retry_after":0.01,"global":false}`)
	if _, err := dg.ChannelMessageSend("6001", "after a 429"); err != nil {
		t.Fatalf("send after 429: %v", err)
	}
	srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Injected && r.Status == 429 }, wait)

	// Drop the websocket: discordgo resumes; an interaction dispatched meanwhile is replayed.
	srv.Disconnect()
	rp := srv.SlashCommand("8001", "6001", discordtest.Member{ID: "7001"}, "quiz",
		discordtest.Option{Name: "ask", Type: discordgo.ApplicationCommandOptionSubCommand})
	ri := recv(t, interc, "interaction after resume")
	if ri.ID != rp.ID() {
		t.Fatalf("got interaction %s, want %s", ri.ID, rp.ID())
	}
	srv.WaitConnected(t, wait)
	if srv.Resumes() != 1 || srv.Identifies() != 1 {
		t.Fatalf("resumes = %d, identifies = %d; want 1, 1", srv.Resumes(), srv.Identifies())
	}
	if err := dg.InteractionRespond(ri, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: "pong"}}); err != nil {
		t.Fatalf("respond after resume: %v", err)
	}
	if m := rp.WaitOriginal(t, wait, nil); m.Content != "pong" || m.Ephemeral() {
		t.Fatalf("original after resume = %+v", m)
	}

	// Unauthenticated request and unknown route.
	res, err := http.Get(srv.URL() + "/api/v9/users/@me")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 || len(srv.AuthViolations()) != 1 {
		t.Fatalf("no auth: status %d, violations %d", res.StatusCode, len(srv.AuthViolations()))
	}
	if _, err := dg.Request("GET", discordgo.EndpointAPI+"nope", nil); restCode(err) != 0 {
		t.Fatalf("unknown route: err = %v", err)
	}

	want := []string{"50035", "40060", "50035", "50035", "Authorization", "unknown route"}
	got := srv.Violations()
	if len(got) != len(want) {
		t.Fatalf("violations = %q", got)
	}
	for k := range want {
		if !strings.Contains(got[k], want[k]) {
			t.Errorf("violation %d = %q, want it to mention %q", k, got[k], want[k])
		}
	}
}

// TestGatewayFrames speaks the gateway protocol directly (no discordgo
// sleeps): HELLO, a refused RESUME, IDENTIFY, heartbeats and decoding of the
// frames with discordgo's types.
func TestGatewayFrames(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{Token: "tok", Guilds: []discordtest.Guild{{ID: "1", Members: []discordtest.Member{{ID: "2", Username: "bob"}}}}})
	ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL()+"/?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	read := func() (f struct {
		Op int             `json:"op"`
		S  int64           `json:"s"`
		T  string          `json:"t"`
		D  json.RawMessage `json:"d"`
	}) {
		t.Helper()
		_ = ws.SetReadDeadline(time.Now().Add(wait))
		mt, data, err := ws.ReadMessage()
		if err != nil || mt != websocket.TextMessage {
			t.Fatalf("read: %v (type %d)", err, mt)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("frame %s: %v", data, err)
		}
		return f
	}
	if f := read(); f.Op != 10 || !strings.Contains(string(f.D), `"heartbeat_interval":41250`) {
		t.Fatalf("hello = %+v", f)
	}
	_ = ws.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": "Bot tok", "session_id": "nope", "seq": 3}})
	if f := read(); f.Op != 9 || string(f.D) != "false" {
		t.Fatalf("resume answer = %+v", f)
	}
	_ = ws.WriteJSON(map[string]any{"op": 2, "d": map[string]any{"token": "Bot tok", "intents": 1}})
	f := read()
	var ready discordgo.Ready
	if err := json.Unmarshal(f.D, &ready); err != nil || f.T != "READY" || f.S != 1 || ready.SessionID == "" {
		t.Fatalf("READY %+v: %v", f, err)
	}
	f = read()
	var gc discordgo.GuildCreate
	if err := json.Unmarshal(f.D, &gc); err != nil || f.S != 2 || gc.ID != "1" || len(gc.Members) != 2 || gc.Members[0].User.Username != "bob" {
		t.Fatalf("GUILD_CREATE %+v: %v", f, err)
	}
	_ = ws.WriteJSON(map[string]any{"op": 1, "d": 2})
	if f := read(); f.Op != 11 {
		t.Fatalf("heartbeat answer = %+v", f)
	}
	p := srv.SlashCommand("1", gc.Channels[0].ID, discordtest.Member{ID: "2"}, "quiz",
		discordtest.Option{Name: "who", Type: discordgo.ApplicationCommandOptionUser, Value: "2"},
		discordtest.Option{Name: "n", Type: discordgo.ApplicationCommandOptionInteger, Value: 5})
	f = read()
	var ic discordgo.InteractionCreate
	if err := json.Unmarshal(f.D, &ic); err != nil || f.S != 3 || ic.ID != p.ID() {
		t.Fatalf("INTERACTION_CREATE %+v: %v", f, err)
	}
	d := ic.ApplicationCommandData()
	if d.Resolved.Users["2"].Username != "bob" || d.Options[1].IntValue() != 5 {
		t.Fatalf("data = %+v", d)
	}

	// Drop the socket and RESUME from seq 2: RESUMED, then seq 3 replayed.
	_ = ws.Close()
	srv.Disconnect()
	ws, _, err = websocket.DefaultDialer.Dial(srv.GatewayURL()+"/?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	read() // HELLO
	_ = ws.WriteJSON(map[string]any{"op": 6, "d": map[string]any{"token": "Bot tok", "session_id": ready.SessionID, "seq": 2}})
	if f := read(); f.T != "RESUMED" || f.S != 2 {
		t.Fatalf("resume answer = %+v", f)
	}
	if f := read(); f.T != "INTERACTION_CREATE" || f.S != 3 {
		t.Fatalf("replayed = %+v", f)
	}
	srv.WaitConnected(t, wait)
	if srv.Resumes() != 2 || srv.Identifies() != 1 {
		t.Fatalf("resumes = %d, identifies = %d; want 2, 1", srv.Resumes(), srv.Identifies())
	}

	// A dispatch to a fresh token before any callback: follow-ups are refused.
	req, _ := http.NewRequest("POST", srv.URL()+"/api/v9/webhooks/9001/"+p.Token()+"?wait=true", strings.NewReader(`{"content":"x"}`))
	req.Header.Set("Authorization", "Bot tok")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("follow-up before callback: status %d, want 404", res.StatusCode)
	}
}

// TestReplies: a channel message replying to another (message_reference)
// is recorded as a reply to it; one naming a message that is not in the
// channel is refused, unless fail_if_not_exists is false, when it is sent
// as no reply.
func TestReplies(t *testing.T) {
	t.Parallel()
	srv := discordtest.Start(t, discordtest.Options{})
	dg := session(t, srv.URL())
	// A heartbeat that meets the close frame must not start a reconnect
	// loop against a server that is gone (a leak at the end of the run).
	dg.ShouldReconnectOnError = false
	post, err := dg.ChannelMessageSend("6001", "the post")
	if err != nil {
		t.Fatal(err)
	}
	no := false
	reply, err := dg.ChannelMessageSendComplex("6001", &discordgo.MessageSend{Content: "part 2",
		Reference: &discordgo.MessageReference{MessageID: post.ID, ChannelID: "6001", GuildID: "8001", FailIfNotExists: &no}})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Type != discordgo.MessageTypeReply || reply.MessageReference == nil || reply.MessageReference.MessageID != post.ID {
		t.Errorf("reply served as type %d referencing %+v, want a reply to %s", reply.Type, reply.MessageReference, post.ID)
	}
	if m, _ := srv.Message("6001", reply.ID); m.Reference == nil || m.Reference.MessageID != post.ID || m.Reference.ChannelID != "6001" {
		t.Errorf("recorded reference %+v, want the post", m.Reference)
	}
	if m, _ := srv.Message("6001", post.ID); m.Reference != nil {
		t.Errorf("the post is recorded as a reply to %+v", m.Reference)
	}
	// A reply to a message that is not there.
	if _, err := dg.ChannelMessageSendComplex("6001", &discordgo.MessageSend{Content: "lost",
		Reference: &discordgo.MessageReference{MessageID: "424242"}}); restCode(err) != 50035 {
		t.Errorf("reply to an unknown message: %v, want 50035", err)
	}
	if got := srv.Violations(); len(got) != 1 || !strings.Contains(got[0], "Unknown message") {
		t.Errorf("violations %q, want the unknown reply", got)
	}
	sent, err := dg.ChannelMessageSendComplex("6001", &discordgo.MessageSend{Content: "lost, sent anyway",
		Reference: &discordgo.MessageReference{MessageID: "424242", FailIfNotExists: &no}})
	if err != nil || sent.MessageReference != nil || sent.Type != discordgo.MessageTypeDefault {
		t.Errorf("reply to an unknown message with fail_if_not_exists false: %+v, %v; want a plain message", sent, err)
	}
}
