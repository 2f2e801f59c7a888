package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// nowhere answers every HTTP request in memory: 200 and an empty JSON
// object. Nothing leaves the process.
type nowhere struct{}

func (nowhere) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

// panicLog records whether a handler panicked (onInteraction recovers and logs it).
type panicLog struct {
	mu     sync.Mutex
	panics []string
}

func (p *panicLog) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("handler panic")) {
		p.mu.Lock()
		p.panics = append(p.panics, string(b))
		p.mu.Unlock()
	}
	return len(b), nil
}

// FuzzInteraction feeds arbitrary INTERACTION_CREATE payloads to the bot's
// one entry point, as discordgo would hand them over (partly decoded when
// the JSON does not fit), and fails on any panic.
func FuzzInteraction(f *testing.F) {
	member := `"member":{"user":{"id":"7001","username":"a"},"permissions":"2248473465835105"}`
	head := `"id":"5001","application_id":"9001","token":"t","version":1,"guild_id":"8001","channel_id":"6001","app_permissions":"2248473465835073",` + member
	cmd := func(name, opts string) string {
		return `{"type":2,` + head + `,"data":{"id":"1","name":"` + name + `","type":1,"options":` + opts + `}}`
	}
	for _, s := range []string{
		cmd("quiz", `[{"name":"ask","type":1,"options":[{"name":"bank","type":3,"value":"quizhost Sample"},{"name":"minutes","type":4,"value":5}]}]`),
		cmd("quiz", `[{"name":"ask","type":1,"options":[{"name":"bank","type":3,"value":7},{"name":"minutes","type":4,"value":"x"}]}]`),
		cmd("quiz", `[{"name":"leaderboard","type":1,"options":[{"name":"period","type":3,"value":"year"}]}]`),
		cmd("quiz", `[{"name":"stats","type":1,"options":[{"name":"member","type":6,"value":"0"}]}]`),
		cmd("quiz", `[{"name":"banks","type":1}]`),
		cmd("quiz", `[]`),
		cmd("quizadmin", `[{"name":"daily","type":2,"options":[{"name":"set","type":1,"options":[{"name":"channel","type":7,"value":"6001"},{"name":"time","type":3,"value":"25:61"},{"name":"timezone","type":3,"value":"Local"}]}]}]`),
		cmd("quizadmin", `[{"name":"daily","type":2,"options":[{"name":"status","type":1}]}]`),
		cmd("quizadmin", `[{"name":"settings","type":1,"options":[{"name":"banks","type":3,"value":",,all"},{"name":"ask_minutes","type":4,"value":1e9}]}]`),
		cmd("quizadmin", `[{"name":"import","type":1,"options":[{"name":"file","type":11,"value":"3001"}]}]`),
		cmd("quizadmin", `[{"name":"bank","type":2,"options":[{"name":"export","type":1,"options":[{"name":"name","type":3,"value":"x"}]}]}]`),
		cmd("quizadmin", `[{"name":"reset","type":1,"options":[{"name":"scope","type":3,"value":"member"}]}]`),
		`{"type":4,` + head + `,"data":{"id":"1","name":"quiz","type":1,"options":[{"name":"ask","type":1,"options":[{"name":"bank","type":3,"value":"qu","focused":true}]}]}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"a1:1","component_type":3,"values":["A","B"]},"message":{"id":"2001","channel_id":"6001"}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"lb1:week:a:3","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"rs1:all:0:7001","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"cf1:confirm:1","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"cf1:cancel:2","component_type":2}}`,
		cmd("quizadmin", `[{"name":"bank","type":2,"options":[{"name":"undo","type":1,"options":[{"name":"name","type":3,"value":"Mine"}]}]}]`),
		cmd("quizadmin", `[{"name":"bank","type":2,"options":[{"name":"remove","type":1,"options":[{"name":"name","type":3,"value":"Mine"}]}]}]`),
		`{"type":4,` + head + `,"data":{"id":"1","name":"quizadmin","type":1,"options":[{"name":"bank","type":2,"options":[{"name":"undo","type":1,"options":[{"name":"name","type":3,"value":"m","focused":true}]}]}]}}`,
		`{"type":3,"id":"1","token":"t","data":{"custom_id":"a1:1","component_type":3,"values":["A"]}}`,
		`{"type":5,` + head + `,"data":{"custom_id":"m","components":[]}}`,
		`{"type":5,` + head + `,"data":{"custom_id":"pm1:1","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"X Question 1\r\nSelect 1A?\r\n- A\r\nx\r\n- B\r\ny\r\nCorrect answer: A"}]}]}}`,
		`{"type":5,` + head + `,"data":{"custom_id":"pm1:2","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":7}]},null]},"message":{"id":"2002","channel_id":"6001"}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"pd1:add:1","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"pd1:fix:1","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"pd1:cancel:2","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"sg1:approve:1","component_type":2}}`,
		`{"type":3,` + head + `,"data":{"custom_id":"sg1:next:1","component_type":2}}`,
		cmd("quizadmin", `[{"name":"add","type":1,"options":[{"name":"bank","type":3,"value":"Mine"}]}]`),
		cmd("quiz", `[{"name":"suggest","type":1}]`),
		cmd("quizadmin", `[{"name":"suggestions","type":1}]`),
		cmd("quizadmin", `[{"name":"question","type":2,"options":[{"name":"remove","type":1,"options":[{"name":"id","type":3,"value":"Mine#1"}]}]}]`),
		cmd("quizadmin", `[{"name":"question","type":2,"options":[{"name":"show","type":1,"options":[{"name":"id","type":3,"value":7}]}]}]`),
		cmd("quizadmin", `[{"name":"import","type":1,"options":[{"name":"file","type":11,"value":"3001"},{"name":"file2","type":11,"value":"3002"},{"name":"mode","type":3,"value":"replace"}]}]`),
		`{"type":4,` + head + `,"data":{"id":"1","name":"quizadmin","type":1,"options":[{"name":"question","type":2,"options":[{"name":"show","type":1,"options":[{"name":"id","type":3,"value":"prime","focused":true}]}]}]}}`,
		`{"type":2}`, `{}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	db, err := storage.Open(f.Context(), filepath.Join(f.TempDir(), "fuzz.db"), storage.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	builtin, err := questions.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	cat, _ := questions.NewCatalogue(builtin)
	logs := &panicLog{}
	b, err := New(Config{Token: "x", Store: db, Catalogue: cat, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		HTTPClient: &http.Client{Transport: nowhere{}}, Transport: nowhere{}})
	if err != nil {
		f.Fatal(err)
	}
	// A post to answer, as the seeds' custom ID a1:1 names.
	q := cat.Banks()[0].Questions[0]
	if _, err := db.CreatePost(f.Context(), questions.Post{GuildID: 8001, ChannelID: 6001, MessageID: 2001, QuestionID: q.ID,
		Bank: q.Bank, Correct: q.Correct(), OptionCount: len(q.Options), SelectCount: q.SelectCount()}); err != nil {
		f.Fatal(err)
	}

	// Drafts that the seeds' custom IDs name: a paste (1) and a queued
	// suggestion (2) of the member the seeds come from.
	for _, d := range []questions.Draft{
		{GuildID: 8001, UserID: 7001, Kind: questions.DraftPaste, Text: "X Question 1\nSelect 1A?\n- A\nx\n- B\ny\nShow answer and explanation\nCorrect answer: A"},
		{GuildID: 8001, UserID: 7001, Kind: questions.DraftSuggestion, Text: "broken", Queued: true},
	} {
		if _, err := db.SaveDraft(f.Context(), d); err != nil {
			f.Fatal(err)
		}
	}

	// A bank and the confirmations the seeds' cf1 IDs name: a bank remove
	// (1) and a reset (2) of the member the seeds come from.
	mine, err := questions.MarshalYAML(questions.Bank{Name: "Mine", Questions: []questions.Question{{ID: "Mine#1", Bank: "Mine", Number: 1,
		Stem: "A?", Options: []questions.Option{{Letter: "A", Text: "x", Correct: true}, {Letter: "B", Text: "y"}}}}})
	if err != nil {
		f.Fatal(err)
	}
	if err := db.SaveBanks(f.Context(), 8001, []questions.BankFile{{Name: "Mine", Format: questions.FormatYAML, Data: mine}}, 0); err != nil {
		f.Fatal(err)
	}
	for _, c := range []questions.Confirmation{
		{GuildID: 8001, UserID: 7001, Action: questions.ConfirmBankRemove, Bank: "Mine", Stamp: questions.Digest(mine)},
		{GuildID: 8001, UserID: 7001, Action: questions.ConfirmReset},
	} {
		if _, err := db.SaveConfirmation(f.Context(), c); err != nil {
			f.Fatal(err)
		}
	}

	f.Fuzz(func(t *testing.T, payload []byte) {
		var ic discordgo.InteractionCreate
		_ = json.Unmarshal(payload, &ic) // dg hands over whatever decoded
		if ic.Interaction == nil {
			ic.Interaction = &discordgo.Interaction{}
		}
		b.onInteraction(context.Background(), &ic, false)
		logs.mu.Lock()
		defer logs.mu.Unlock()
		if len(logs.panics) > 0 {
			t.Fatalf("handler panicked on %q:\n%s", payload, logs.panics[0])
		}
	})
}
