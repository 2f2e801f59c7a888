package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

func TestMain(m *testing.M) { discordtest.VerifyTestMain(m) }

const (
	guildID   = "8001"
	channelID = "6001"
	otherChan = "6002"
	token     = "test-token"
	wait      = 30 * time.Second // a guard against a hang, not a measure: -race on two busy cores is slow
)

var (
	alice = discordtest.Member{ID: "7001", Username: "alice", Permissions: discordtest.AdminPermissions}
	bob   = discordtest.Member{ID: "7002", Username: "bob", Permissions: discordtest.DefaultPermissions}
	carol = discordtest.Member{ID: "7003", Username: "carol", Permissions: discordtest.DefaultPermissions}
)

// testBank has questions whose answers the tests know.
const testBank = `Test Bank Question 1
Select 2Which two are prime?
- A
Four
- B
Five
- C
Seven
- D
Nine
Show answer and explanation
Correct answers: B, C
Explanation
Five and seven have no divisors but one and themselves. Ping @everyone <@&1>.
- A. Incorrect.
Four is two times two.
- B. Correct.
Five is prime.
- C. Correct.
Seven is prime.
- D. Incorrect.
Nine is three times three.
Test Bank Question 2
Select 1Which is a colour?
- A
Red
- B
Dog
Show answer and explanation
Correct answer: A
Explanation
Red is a colour.
`

// env is one end-to-end setup: the test Discord server, the database file
// and a fake clock, with the real bot started and stopped on them.
type env struct {
	t    testing.TB
	srv  *discordtest.Server
	path string
	clk  *clock.Fake
	cat  *questions.Catalogue
	logs *lockedBuffer
	// undecodable is how many interactions the bot is expected to log as
	// undecodable (garbled on purpose by the test).
	undecodable int
	// store, when set, wraps the database into the bot's Store (a fault
	// injected around it).
	store func(*storage.DB) bot.Store
	// ackWait, when set, is the bot's AnswerAckWait (default 2 s).
	ackWait time.Duration
	// banksWait, when set, is the bot's AnswerBanksWait (default 1 s).
	banksWait time.Duration
	// quota bounds each guild's imported banks (none when zero).
	quota questions.Quota
	// prepare, when set, is given the bot between New and Run.
	prepare func(*bot.Bot) error

	db     *storage.DB
	bot    *bot.Bot // the bot of the last start
	cancel context.CancelFunc
	done   chan error
}

type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed and replaced at each Write
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		close(l.written)
		l.written = nil
	}
	return l.b.Write(p)
}

// waitFor waits (up to timeout) until the log holds s, and reports whether
// it does.
func (l *lockedBuffer) waitFor(s string, timeout time.Duration) bool {
	give := time.After(timeout)
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), s) {
			l.mu.Unlock()
			return true
		}
		if l.written == nil {
			l.written = make(chan struct{})
		}
		written := l.written
		l.mu.Unlock()
		select {
		case <-written:
		case <-give:
			return false
		}
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testCatalogue is the test bank and the built-in banks, parsed once: a
// Catalogue does not change, and the bot only reads it.
var testCatalogue = sync.OnceValues(func() (*questions.Catalogue, error) {
	banks, err := questions.Parse("test.txt", []byte(testBank))
	if err != nil {
		return nil, err
	}
	builtin, err := questions.Builtin()
	if err != nil {
		return nil, err
	}
	cat, probs := questions.NewCatalogue(banks, builtin)
	if len(probs) > 0 {
		return nil, probs
	}
	return cat, nil
})

// importedEnv starts a bot at start whose server has imported the bank
// file name (content), and fails t unless the import's reply holds want.
func importedEnv(t *testing.T, start time.Time, name, content, want string) *env {
	t.Helper()
	e := newEnv(t, start)
	e.start()
	if got := e.admin(alice, sub("import", attachment(name, content))); !strings.Contains(got, want) {
		t.Fatalf("import of %s: reply %q, want it to hold %q", name, got, want)
	}
	return e
}

// newEnv starts the test server with the test guild (and more guilds, for
// tests across servers) and builds the catalogue; start runs the bot.
func newEnv(t testing.TB, start time.Time, more ...discordtest.Guild) *env {
	t.Helper()
	g := discordtest.DefaultGuild()
	g.Channels = append(g.Channels, discordtest.Channel{ID: otherChan, Name: "other"})
	g.Members = []discordtest.Member{alice, bob, carol}
	srv := discordtest.Start(t, discordtest.Options{Token: token, Guilds: append([]discordtest.Guild{g}, more...)})
	cat, err := testCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, path: filepath.Join(t.TempDir(), "quizhost.db"), clk: clock.NewFake(start), cat: cat, logs: &lockedBuffer{}}
	t.Cleanup(func() {
		e.stop()
		if n := strings.Count(e.logs.String(), "undecodable interaction"); n != e.undecodable {
			t.Errorf("bot logged %d undecodable interactions, want %d", n, e.undecodable)
		}
		if t.Failed() {
			t.Logf("bot log:\n%s", e.logs.String())
		}
	})
	return e
}

// start runs the bot and waits for its commands to be registered.
func (e *env) start() {
	e.t.Helper()
	db, err := storage.Open(e.t.Context(), e.path, storage.Options{Timeout: time.Second, Now: e.clk.Now, Quota: e.quota, NoSync: true})
	if err != nil {
		e.t.Fatal(err)
	}
	before := len(e.srv.Requests())
	var st bot.Store = db
	if e.store != nil {
		st = e.store(db)
	}
	b, err := bot.New(bot.Config{
		Token: token, APIBase: e.srv.URL(), Store: st, Catalogue: e.cat, Clock: e.clk,
		Rand:            rand.New(rand.NewPCG(1, 2)),
		Logger:          slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		RefreshEvery:    50 * time.Millisecond,
		AnswerAckWait:   e.ackWait,
		AnswerBanksWait: e.banksWait,
		ImportPace:      -1, // imports in tests are small; no test waits for the pacing
		ChartPace:       -1,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if e.prepare != nil {
		if err := e.prepare(b); err != nil {
			e.t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.db, e.bot, e.cancel, e.done = db, b, cancel, make(chan error, 1)
	armed := e.clk.Armed()
	go func() { e.done <- b.Run(ctx) }()
	e.srv.WaitRequest(e.t, func(r discordtest.Request) bool {
		return r.Index >= before && r.Method == "PUT" && r.Route == "/applications/9001/commands"
	}, wait)
	e.waitScheduler(armed) // it has run once and gone to sleep
}

// waitScheduler waits for the bot's scheduler to arm its next timer, which
// it does each time it has done what was due: the first arming after
// Armed() returned armed.
func (e *env) waitScheduler(armed int) {
	e.t.Helper()
	if !e.clk.WaitArmed(armed, wait) {
		e.t.Fatalf("the scheduler did not go back to sleep within %v", wait)
	}
}

// settled runs f, an action that wakes the scheduler (a command that
// pokes it), and waits until the scheduler has acted on it and gone back
// to sleep.
func (e *env) settled(f func()) {
	e.t.Helper()
	armed := e.clk.Armed()
	f()
	e.waitScheduler(armed)
}

// stop cancels the bot, checks it stopped cleanly and closes the database.
func (e *env) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	select {
	case err := <-e.done:
		if err != nil {
			e.t.Errorf("Run returned %v, want nil", err)
		}
	case <-time.After(8 * time.Second):
		e.t.Error("bot did not stop within 8 s")
	}
	if err := e.db.Check(); err != nil {
		e.t.Errorf("database check: %v", err)
	}
	if err := e.db.Close(); err != nil {
		e.t.Errorf("close database: %v", err)
	}
	e.cancel = nil
}

// advance moves the fake clock and, when that fires the scheduler's
// timer, waits for the scheduler to act and sleep again. Nothing else is
// waiting on the clock, so when no timer fires nothing is due.
func (e *env) advance(d time.Duration) {
	e.t.Helper()
	e.setClock(e.clk.Now().Add(d))
}

// setClock is advance to an instant.
func (e *env) setClock(t time.Time) {
	e.t.Helper()
	armed := e.clk.Armed()
	if e.clk.Set(t) > 0 {
		e.waitScheduler(armed)
	}
}

func sub(name string, opts ...discordtest.Option) discordtest.Option {
	return discordtest.Option{Name: name, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}
}

func group(name string, subs ...discordtest.Option) discordtest.Option {
	return discordtest.Option{Name: name, Type: discordgo.ApplicationCommandOptionSubCommandGroup, Options: subs}
}

func str(name, v string) discordtest.Option {
	return discordtest.Option{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
}

func integer(name string, v int) discordtest.Option {
	return discordtest.Option{Name: name, Type: discordgo.ApplicationCommandOptionInteger, Value: v}
}

// reply waits for the member-visible reply of an interaction: the
// immediate message, or the edit of a deferred one.
func (e *env) reply(p *discordtest.Pending) (content string, embeds []*discordgo.MessageEmbed, ephemeral bool) {
	e.t.Helper()
	r := p.WaitResponse(e.t, wait)
	switch r.Type {
	case discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseUpdateMessage:
		return r.Content, r.Embeds, r.Flags&discordgo.MessageFlagsEphemeral != 0
	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		m := p.WaitOriginal(e.t, wait, nil)
		return m.Content, m.Embeds, r.Flags&discordgo.MessageFlagsEphemeral != 0
	case discordgo.InteractionResponseDeferredMessageUpdate:
		m := p.WaitOriginal(e.t, wait, func(m discordtest.Message) bool { return m.Edits > 0 })
		return m.Content, m.Embeds, m.Ephemeral()
	}
	e.t.Fatalf("interaction answered with type %d", r.Type)
	return
}

// replyText is the reply's content and embed texts together.
func (e *env) replyText(p *discordtest.Pending) string {
	e.t.Helper()
	c, embeds, _ := e.reply(p)
	return c + "\n" + embedsText(embeds)
}

func embedsText(embeds []*discordgo.MessageEmbed) string {
	var b strings.Builder
	for _, em := range embeds {
		b.WriteString(em.Title + "\n" + em.Description + "\n")
		for _, f := range em.Fields {
			b.WriteString(f.Name + ": " + f.Value + "\n")
		}
		if em.Footer != nil {
			b.WriteString(em.Footer.Text + "\n")
		}
	}
	return b.String()
}

// ask posts a question with /quiz ask and returns its post and message.
func (e *env) ask(by discordtest.Member, opts ...discordtest.Option) (questions.Post, discordtest.Message) {
	e.t.Helper()
	armed := e.clk.Armed()
	p := e.srv.SlashCommand(guildID, channelID, by, "quiz", sub("ask", opts...))
	content, _, eph := e.reply(p)
	if !eph || !strings.Contains(content, "Posted question") {
		e.t.Fatalf("ask reply %q (ephemeral %v), want a private \"Posted question\"", content, eph)
	}
	e.waitScheduler(armed) // a new post wakes it: it arms the post's close
	posts, err := e.db.OpenPostsIn(8001, 6001)
	if err != nil || len(posts) == 0 {
		e.t.Fatalf("open posts after ask: %v, %v", posts, err)
	}
	post := posts[len(posts)-1]
	for _, x := range posts {
		if x.ID > post.ID {
			post = x
		}
	}
	msg, ok := e.srv.Message(channelID, fmt.Sprint(post.MessageID))
	if !ok {
		e.t.Fatalf("post %d's message %d is not in the channel", post.ID, post.MessageID)
	}
	return post, msg
}

// choose answers a post's select as a member.
func (e *env) choose(m discordtest.Member, post questions.Post, values ...string) string {
	e.t.Helper()
	p := e.srv.Component(guildID, channelID, m, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), values...)
	content, embeds, eph := e.reply(p)
	if !eph {
		e.t.Errorf("answer reply %q is public, want ephemeral", content)
	}
	return content + "\n" + embedsText(embeds)
}

// wrongOf returns a choice of the right size that is not the correct one.
func wrongOf(post questions.Post) []string {
	var out []string
	for i := 0; i < post.OptionCount && len(out) < post.SelectCount; i++ {
		l := questions.Letter(i)
		if !strings.Contains(strings.Join(post.Correct, ""), l) || len(out) == post.SelectCount-1 && i == post.OptionCount-1 {
			out = append(out, l)
		}
	}
	for i := 0; len(out) < post.SelectCount; i++ {
		out = append(out, questions.Letter(i))
	}
	return out
}

// checkWire asserts what must hold for every request the bot made: no
// payload Discord would refuse, a token on every request, and
// allowed_mentions with an empty parse list on every message it sent.
func (e *env) checkWire() {
	e.t.Helper()
	e.checkWireExcept(0)
}

// checkWireExcept is checkWire for a test that injected n failures.
func (e *env) checkWireExcept(n int) {
	e.t.Helper()
	if v := e.srv.Violations(); len(v) > n {
		e.t.Errorf("Discord would have refused: %q", v)
	}
	if v := e.srv.AuthViolations(); len(v) > 0 {
		e.t.Errorf("%d requests without the bot token", len(v))
	}
	for _, r := range e.srv.Requests() {
		body, ok := r.JSON.(map[string]any)
		if !ok || r.Method == "GET" || r.Method == "DELETE" {
			continue
		}
		isMsg := strings.HasPrefix(r.Route, "/channels/") || strings.HasPrefix(r.Route, "/webhooks/")
		if strings.HasPrefix(r.Route, "/interactions/") {
			if data, ok := body["data"].(map[string]any); ok && body["type"] != float64(8) && body["type"] != float64(9) { // not autocomplete or modal: a message
				body, isMsg = data, true
			}
		}
		if !isMsg {
			continue
		}
		am, ok := body["allowed_mentions"].(map[string]any)
		parse, isList := am["parse"].([]any)
		if !ok || !isList || len(parse) != 0 {
			e.t.Errorf("%s %s: allowed_mentions = %v, want {\"parse\": []}", r.Method, r.Route, body["allowed_mentions"])
		}
	}
}

func TestCommandsRegistered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	if ids := e.srv.IdentifyPayloads(); len(ids) != 1 || ids[0].Intents != int(discordgo.IntentsGuilds) {
		t.Errorf("identify payloads %+v, want one with intents %d (Guilds only)", ids, discordgo.IntentsGuilds)
	}
	cmds := e.srv.Commands("")
	got := map[string]map[string]any{}
	for _, c := range cmds {
		got[c["name"].(string)] = c
	}
	if len(got) != 2 || got["quiz"] == nil || got["quizadmin"] == nil {
		t.Fatalf("registered %d commands %v, want quiz and quizadmin", len(cmds), got)
	}
	if p := got["quizadmin"]["default_member_permissions"]; p != "32" {
		t.Errorf("quizadmin default_member_permissions = %v, want \"32\" (Manage Server)", p)
	}
	// The interface docs rely on: every subcommand, option name and type.
	want := map[string]string{
		"quiz ask":                  "bank:3 minutes:4",
		"quiz leaderboard":          "period:3",
		"quiz stats":                "member:6",
		"quiz banks":                "",
		"quiz suggest":              "bank:3",
		"quiz review":               "",
		"quiz drill":                "topic:3 count:4",
		"quiz misses export":        "",
		"quiz exam":                 "date:3 bank:3",
		"quiz mock":                 "bank:3 questions:4 minutes:4",
		"quizadmin bank exam":       "bank:3 questions:4 minutes:4 pass:3",
		"quizadmin reports":         "",
		"quizadmin regrade":         "id:3",
		"quizadmin close":           "",
		"quizadmin daily set":       "channel:7 time:3 timezone:3 bank:3 count:4",
		"quizadmin daily off":       "",
		"quizadmin daily status":    "",
		"quizadmin import":          "file:11 file2:11 file3:11 file4:11 file5:11 file6:11 file7:11 file8:11 file9:11 file10:11 bank:3 mode:3",
		"quizadmin add":             "bank:3",
		"quizadmin suggestions":     "",
		"quizadmin question show":   "id:3",
		"quizadmin question remove": "id:3",
		"quizadmin bank remove":     "name:3",
		"quizadmin bank export":     "name:3",
		"quizadmin bank undo":       "name:3",
		"quizadmin reset":           "scope:3 member:6",
		"quizadmin settings":        "reveal_on_answer:5 ask_minutes:4 ask_cooldown_seconds:4 ask_max_open:4 banks:3 timezone:3 daily_close_hours:4",
	}
	found := map[string]string{}
	var walk func(prefix string, opts []any)
	walk = func(prefix string, opts []any) {
		var vals []string
		for _, o := range opts {
			o := o.(map[string]any)
			typ := int(o["type"].(float64))
			if typ == 1 || typ == 2 {
				sub, _ := o["options"].([]any)
				walk(prefix+" "+o["name"].(string), sub)
				continue
			}
			vals = append(vals, fmt.Sprintf("%s:%d", o["name"], typ))
		}
		if len(vals) > 0 || len(opts) == 0 {
			found[prefix] = strings.Join(vals, " ")
		}
	}
	for name, c := range got {
		opts, _ := c["options"].([]any)
		walk(name, opts)
	}
	for path, opts := range want {
		if found[path] != opts {
			t.Errorf("/%s options = %q, want %q", path, found[path], opts)
		}
	}
	e.checkWire()
}

func TestAskAnswerClose(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	ctx := context.Background()
	_ = ctx

	post, msg := e.ask(alice, str("bank", "test bank"))
	q, ok := e.cat.Question(post.QuestionID)
	if !ok || q.Bank != "Test Bank" {
		t.Fatalf("posted question %q, want one of Test Bank", post.QuestionID)
	}
	// The public message: stem and every option in the embed, a select
	// with lettered labels and min = max = the select count.
	if msg.Ephemeral() || len(msg.Embeds) != 1 || !strings.Contains(msg.Embeds[0].Description, q.Stem) {
		t.Fatalf("question message %+v, want a public embed with the stem", msg)
	}
	for _, o := range q.Options {
		if !strings.Contains(msg.Embeds[0].Description, o.Text) {
			t.Errorf("embed lacks option %s %q", o.Letter, o.Text)
		}
	}
	if !strings.Contains(msg.Embeds[0].Title, fmt.Sprintf("Question %d", q.Number)) {
		t.Errorf("embed title %q lacks the question number", msg.Embeds[0].Title)
	}
	sel := msg.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu)
	if sel.CustomID != fmt.Sprintf("a1:%d", post.ID) || *sel.MinValues != q.SelectCount() || sel.MaxValues != q.SelectCount() || len(sel.Options) != len(q.Options) {
		t.Errorf("select %+v, want a1:%d with min=max=%d and %d options", sel, post.ID, q.SelectCount(), len(q.Options))
	}
	for i, o := range sel.Options {
		if !strings.HasPrefix(o.Label, questions.Letter(i)) || o.Value != questions.Letter(i) {
			t.Errorf("select option %d = %q/%q", i, o.Label, o.Value)
		}
	}
	// How to answer and when it closes: said once, in the line above.
	if f := msg.Embeds[0].Fields; len(f) != 0 {
		t.Errorf("question embed fields %+v, want none", f)
	}
	if !strings.Contains(msg.Content, fmt.Sprintf("Pick **%d** answer", q.SelectCount())) ||
		!strings.Contains(msg.Content, fmt.Sprintf("closes <t:%d:R>", post.ClosesAt.Unix())) || !strings.Contains(msg.Content, "0 answers") {
		t.Errorf("question content %q, want how many to pick, the close time and the answer count", msg.Content)
	}
	if n := strings.Count(msg.Content+embedsText(msg.Embeds), "Pick **"); n != 1 {
		t.Errorf("the post says how many to pick %d times, want once", n)
	}

	// Right and wrong answers, graded privately with the reveal.
	right := e.choose(alice, post, post.Correct...)
	if !strings.Contains(right, "Right!") || !strings.Contains(right, "Answer: "+strings.Join(post.Correct, ", ")) ||
		!strings.Contains(right, fmt.Sprintf("+%d point", len(post.Correct))) {
		t.Errorf("right answer reply:\n%s", right)
	}
	wrong := wrongOf(post)
	got := e.choose(bob, post, wrong...)
	if !strings.Contains(got, "Not quite") || !strings.Contains(got, "You chose **"+strings.Join(wrong, ", ")+"**") || !strings.Contains(got, "+0 points") {
		t.Errorf("wrong answer reply:\n%s", got)
	}
	// A second answer is refused and changes nothing.
	again := e.choose(bob, post, post.Correct...)
	if !strings.Contains(again, "already answered **"+strings.Join(wrong, ", ")+"**") {
		t.Errorf("second answer reply: %s", again)
	}
	// Forged and garbled component data: an error, nothing stored.
	forged := []struct {
		name     string
		customID string
		values   []string
	}{
		{"letter not offered", fmt.Sprintf("a1:%d", post.ID), append(post.Correct[1:], "Z")},
		{"too many values", fmt.Sprintf("a1:%d", post.ID), []string{"A", "B", "C"}},
		{"duplicates", fmt.Sprintf("a1:%d", post.ID), []string{"A", "A"}[:post.SelectCount]},
		{"unknown post", "a1:99999", post.Correct},
		{"garbled id", "a1:xyz", post.Correct},
		{"old format", "q:8001:42", post.Correct},
	}
	for _, f := range forged {
		p := e.srv.Component(guildID, channelID, carol, fmt.Sprint(post.MessageID), f.customID, f.values...)
		content, _, eph := e.reply(p)
		if !eph || strings.Contains(content, "Right") || strings.Contains(content, "Not quite") {
			t.Errorf("%s: reply %q (ephemeral %v), want a private refusal", f.name, content, eph)
		}
	}
	// The same post, answered from another server.
	p := e.srv.Component("8009", channelID, carol, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), post.Correct...)
	if content, _, eph := e.reply(p); !eph || !strings.Contains(content, "another server") {
		t.Errorf("answer from another guild: %q (ephemeral %v)", content, eph)
	}
	if _, err := e.db.Answer(post.ID, 7003); err == nil {
		t.Error("a forged answer was stored")
	}
	stored, err := e.db.Post(post.ID)
	if err != nil || stored.Answers != 2 || stored.Right != 1 {
		t.Errorf("post after answers: %+v, %v; want 2 answers, 1 right", stored, err)
	}
	// The live count reaches the public message.
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool {
		return m.ID == fmt.Sprint(post.MessageID) && strings.Contains(m.Content, "2 answers so far")
	})

	// /quizadmin close: refused for members, done for admins.
	content, _, _ := e.reply(e.srv.SlashCommand(guildID, channelID, bob, "quizadmin", sub("close")))
	if !strings.Contains(content, "Manage Server") {
		t.Errorf("member's /quizadmin close reply %q, want a refusal naming Manage Server", content)
	}
	if p, _ := e.db.Post(post.ID); p.Closed {
		t.Fatal("a member without permission closed the question")
	}
	content, _, _ = e.reply(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("close")))
	if !strings.Contains(content, "Closed 1 question") {
		t.Errorf("admin close reply %q", content)
	}
	closed, _ := e.srv.Message(channelID, fmt.Sprint(post.MessageID))
	text := closed.Content + "\n" + embedsText(closed.Embeds)
	for _, want := range []string{"Closed", "2 answers", "1 right", "Answer: " + strings.Join(post.Correct, ", "), q.Explanation, "vote"} {
		if !strings.Contains(text, want) {
			t.Errorf("closed message lacks %q:\n%s", want, text)
		}
	}
	for _, o := range q.Options {
		if o.Rationale != "" && !strings.Contains(text, o.Rationale) {
			t.Errorf("closed message lacks the rationale of %s", o.Letter)
		}
	}
	if !closed.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu).Disabled {
		t.Error("closed question's select is not disabled")
	}
	late := e.choose(carol, post, post.Correct...)
	if !strings.Contains(late, "closed") {
		t.Errorf("answer after close: %q, want a refusal", late)
	}
	e.checkWire()
}

func TestLeaderboardStatsBanks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	post, _ := e.ask(alice, str("bank", "Test Bank"))
	e.choose(alice, post, post.Correct...)
	e.choose(bob, post, wrongOf(post)...)

	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("leaderboard", str("period", "week")))
	content, embeds, eph := e.reply(p)
	if eph || len(embeds) != 1 {
		t.Fatalf("leaderboard reply %q %v (ephemeral %v), want a public embed", content, embeds, eph)
	}
	lines := strings.Split(embeds[0].Description, "\n")
	if !strings.HasPrefix(lines[0], "**1.** <@7001>") || !strings.HasPrefix(lines[1], "**2.** <@7002>") {
		t.Errorf("leaderboard lines %q, want alice then bob", lines)
	}
	if !strings.Contains(embeds[0].Title, "this week") {
		t.Errorf("leaderboard title %q", embeds[0].Title)
	}
	// A dozen more members, all ahead of bob: bob's own line shows below
	// the top 10, and the buttons page privately.
	for u := questions.UserID(7100); u < 7112; u++ {
		if _, err := e.db.RecordAnswer(t.Context(), questions.Answer{PostID: post.ID, GuildID: 8001, UserID: u, InteractionID: uint64(u),
			Choice: post.Correct, At: e.clk.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	p = e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("leaderboard"))
	_, embeds, _ = e.reply(p)
	desc := embeds[0].Description
	if strings.Count(desc, "**") < 20 || !strings.Contains(desc, "**You:** **14.** <@7002>") || !strings.Contains(embeds[0].Footer.Text, "Page 1 of 2 · 14 members") {
		t.Errorf("leaderboard with 14 members:\n%s\n%s", desc, embeds[0].Footer.Text)
	}
	resp := p.WaitResponse(t, wait)
	row := resp.Components[0].(*discordgo.ActionsRow)
	next := row.Components[1].(*discordgo.Button)
	orig, _ := p.Original()
	page2 := e.srv.Component(guildID, channelID, bob, orig.ID, next.CustomID)
	r := page2.WaitResponse(t, wait)
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 ||
		!strings.Contains(r.Embeds[0].Description, "**14.** <@7002>") || !strings.Contains(r.Embeds[0].Footer.Text, "Page 2 of 2") {
		t.Errorf("next page answered type %d flags %d:\n%s", r.Type, r.Flags, embedsText(r.Embeds))
	}
	// On the private copy, the ranking toggle turns it in place.
	priv, _ := page2.Original()
	toggle := r.Components[0].(*discordgo.ActionsRow).Components[2].(*discordgo.Button)
	r = e.srv.Component(guildID, channelID, bob, priv.ID, toggle.CustomID).WaitResponse(t, wait)
	if r.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(r.Embeds[0].Title, "by accuracy") {
		t.Errorf("ranking toggle answered type %d %q, want an update to the accuracy ranking", r.Type, r.Embeds[0].Title)
	}
	if public, _ := e.srv.Message(channelID, orig.ID); public.Edits != 0 {
		t.Errorf("the public leaderboard was edited %d times by a member's paging", public.Edits)
	}

	stats := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("stats",
		discordtest.Option{Name: "member", Type: discordgo.ApplicationCommandOptionUser, Value: alice.ID})))
	for _, want := range []string{"<@7001>", "1 answer", "1 correct (100%)", "rank #1", "Bank: Test Bank", "Streak: 1 study day"} {
		if !strings.Contains(stats, want) {
			t.Errorf("stats lack %q:\n%s", want, stats)
		}
	}
	banks := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks")))
	if !strings.Contains(banks, "**Test Bank** · 2 questions · 1 not yet asked") || !strings.Contains(banks, "quizhost Sample") {
		t.Errorf("banks reply:\n%s", banks)
	}
	// Autocomplete of bank names.
	ac := e.srv.Autocomplete(guildID, channelID, bob, "quiz", sub("ask", str("bank", "tes")))
	choices := ac.WaitResponse(t, wait).Choices
	if len(choices) != 1 || choices[0].Value != "Test Bank" {
		t.Errorf("autocomplete %v, want Test Bank", choices)
	}
	e.checkWire()
}

func TestTimersSurviveRestart(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, start)
	e.start()
	short, _ := e.ask(alice, integer("minutes", 5))
	long, _ := e.ask(alice, integer("minutes", 30))

	// The scheduler closes the short one when its time comes.
	e.advance(6 * time.Minute)
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool {
		return m.ID == fmt.Sprint(short.MessageID) && strings.Contains(m.Content, "Closed")
	})
	if p, _ := e.db.Post(long.ID); p.Closed {
		t.Fatal("the 30-minute question closed after 6 minutes")
	}
	e.choose(bob, long, long.Correct...)

	// Down across the long one's close time: it closes at start.
	e.stop()
	e.clk.Advance(30 * time.Minute)
	e.start()
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool {
		return m.ID == fmt.Sprint(long.MessageID) && strings.Contains(m.Content, "Closed") && strings.Contains(m.Content, "1 answer")
	})
	// And a question asked now is re-armed across another restart.
	third, _ := e.ask(carol, integer("minutes", 10))
	e.stop()
	e.start()
	if p, _ := e.db.Post(third.ID); p.Closed {
		t.Fatal("question closed before its time")
	}
	e.advance(11 * time.Minute)
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool {
		return m.ID == fmt.Sprint(third.MessageID) && strings.Contains(m.Content, "Closed")
	})
	// Scores survived the restarts.
	st, err := e.db.MemberStats(8001, 7002, e.clk.Now())
	if err != nil || st.All.Correct != 1 {
		t.Errorf("bob's stats after restarts: %+v, %v", st.All, err)
	}
	e.checkWire()
}

func TestGarbledInputAndResume(t *testing.T) {
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.undecodable = 2 // the payloads below are garbled on purpose: checked at cleanup
	e.start()
	post, _ := e.ask(alice)

	// The gateway drops; discordgo resumes after a second it waits out
	// holding the session. The drop comes before t.Parallel, so that the
	// second passes while the package's other tests run.
	e.srv.Disconnect() // synchronous: the server has no ready session now
	t.Parallel()
	e.srv.WaitConnected(t, wait)

	// Payloads dg cannot decode reach the bot as zero values: ignored, no crash.
	for _, raw := range []string{
		`{"id":"91","application_id":"9001","type":2,"token":"t91","version":1,"guild_id":"8001","channel_id":"6001",
		  "app_permissions":2248473465835073,"member":{"user":{"id":"7002","username":"bob"},"permissions":"0"},
		  "data":{"id":"1","name":"quiz","type":1,"options":[{"name":"banks","type":1}]}}`,
		`{"id":"92","application_id":"9001","type":3,"token":"t92","version":1,"guild_id":"8001","channel_id":"6001",
		  "member":{"user":{"id":"7002","username":"bob"},"permissions":"0"},
		  "data":{"custom_id":"a1:1","component_type":3,"values":"A"}}`,
	} {
		e.srv.Dispatch(json.RawMessage(raw))
	}
	// A direct message: a polite refusal.
	dm := e.srv.Dispatch(json.RawMessage(`{"id":"93","application_id":"9001","type":2,"token":"t93","version":1,
	  "channel_id":"5555","context":1,"user":{"id":"7002","username":"bob"},
	  "data":{"id":"1","name":"quiz","type":1,"options":[{"name":"banks","type":1}]}}`))
	if c, _, eph := e.reply(dm); !eph || !strings.Contains(c, "servers") {
		t.Errorf("DM reply %q (ephemeral %v)", c, eph)
	}
	// A subcommand nobody registered.
	if c := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("dance"))); !strings.Contains(c, "don't know that command") {
		t.Errorf("unknown subcommand reply %q", c)
	}

	// The bot carries on after the resume.
	if got := e.choose(bob, post, post.Correct...); !strings.Contains(got, "Right!") {
		t.Errorf("answer after a resume: %q", got)
	}
	if e.srv.Resumes() != 1 {
		t.Errorf("%d resumes, want 1", e.srv.Resumes())
	}
	// A RESUME is not an IDENTIFY: it does not wait for an identify turn
	// (5 s apart by default), although the IDENTIFY was a moment ago.
	if strings.Contains(e.logs.String(), "gateway identify rate limit: waiting") {
		t.Error("the resume waited for the identify rate limit")
	}
	if p, _ := e.db.Post(post.ID); p.Answers != 1 {
		t.Errorf("post has %d answers, want only bob's", p.Answers)
	}
	e.checkWire()
}
