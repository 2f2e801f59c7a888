package bot_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// One server never holds up another: the tests here stop one server's
// work with its banks in the store (a gate) and check that another
// server's members are served meanwhile.

const (
	otherGuild     = "8002"
	otherGuildChan = "6003"
)

// secondGuild is another server with the same members.
func secondGuild() discordtest.Guild {
	return discordtest.Guild{ID: otherGuild, Name: "Other Group", OwnerID: alice.ID,
		Channels: []discordtest.Channel{{ID: otherGuildChan, Name: "quiz"}},
		Members:  []discordtest.Member{alice, bob, carol}}
}

// gate holds the calls that reach it until released.
type gate struct {
	entered chan struct{} // closed when the first call arrives
	release chan struct{} // closed to let every call through
	once    sync.Once
}

func newGate(t *testing.T) *gate {
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(g.open) // before the bot stops: a held call would hold it up
	return g
}

func (g *gate) pass() {
	g.once.Do(func() { close(g.entered) })
	<-g.release
}

func (g *gate) open() {
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

// wait waits for a call to arrive at the gate.
func (g *gate) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(wait):
		t.Fatalf("%s never reached the store", what)
	}
}

// gatedStore passes one guild's Banks or SaveBanks through a gate (nil:
// not gated).
type gatedStore struct {
	*storage.DB
	guild       questions.GuildID
	banks, save *gate
}

func (s *gatedStore) Banks(g questions.GuildID) ([]questions.BankFile, error) {
	if g == s.guild && s.banks != nil {
		s.banks.pass()
	}
	return s.DB.Banks(g)
}

func (s *gatedStore) SaveBanks(ctx context.Context, g questions.GuildID, files []questions.BankFile, draftID questions.DraftID) error {
	if g == s.guild && s.save != nil {
		s.save.pass()
	}
	return s.DB.SaveBanks(ctx, g, files, draftID)
}

// oneQuestionBank is a YAML bank of one question whose explanation names
// the bank.
func oneQuestionBank(name string) string {
	return fmt.Sprintf("bank: %s\nquestions:\n- id: %s-1\n  question: Which comes first?\n  options:\n  - text: one\n    correct: true\n  - text: two\n  explanation: %s explains it.\n", name, strings.ToLower(name), name)
}

// importIn imports a bank file into guild as alice and returns the reply.
func (e *env) importIn(guild, channel, file, data string) string {
	e.t.Helper()
	return e.replyText(e.srv.SlashCommand(guild, channel, alice, "quizadmin", sub("import", fileOpt("file", file, data))))
}

// askIn posts a question of bank in guild's channel and returns the post.
func (e *env) askIn(guild, channel, bank string) questions.Post {
	e.t.Helper()
	armed := e.clk.Armed()
	if got := e.replyText(e.srv.SlashCommand(guild, channel, alice, "quiz", sub("ask", str("bank", bank)))); !strings.Contains(got, "Posted question") {
		e.t.Fatalf("ask in %s: %q", guild, got)
	}
	e.waitScheduler(armed)
	g, c := mustID(e.t, guild), mustID(e.t, channel)
	posts, err := e.db.OpenPostsIn(questions.GuildID(g), questions.ChannelID(c))
	if err != nil || len(posts) != 1 {
		e.t.Fatalf("open posts in %s: %v, %v", guild, posts, err)
	}
	return posts[0]
}

func mustID(t testing.TB, s string) uint64 {
	var id uint64
	if _, err := fmt.Sscan(s, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// answerIn sends m's pick on post (in guild's channel) and returns the
// pending interaction.
func (e *env) answerIn(m discordtest.Member, guild, channel string, post questions.Post, values ...string) *discordtest.Pending {
	return e.srv.Component(guild, channel, m, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), values...)
}

// While one server's banks are being read from the store (its snapshot
// loading after a start, held here at the store), another server's
// members answer and get their reveal at once, and the first server's
// own answers are stored and replied to within Discord's deadline,
// without the reveal, which the next answer has once the banks are in.
func TestBanksLoadingStallNoOtherServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), secondGuild())
	st := &gatedStore{guild: 8001}
	e.store = func(db *storage.DB) bot.Store { st.DB = db; return st }
	e.start()
	for _, g := range []struct{ guild, channel, bank string }{{guildID, channelID, "Alpha"}, {otherGuild, otherGuildChan, "Beta"}} {
		if got := e.importIn(g.guild, g.channel, "b.yaml", oneQuestionBank(g.bank)); !strings.Contains(got, "(new bank)") {
			t.Fatalf("import into %s: %q", g.guild, got)
		}
	}
	alpha := e.askIn(guildID, channelID, "Alpha")
	beta := e.askIn(otherGuild, otherGuildChan, "Beta")

	// A start: the snapshots are loaded again (ahead, or on first use such
	// as this /quiz banks), this server's held.
	e.stop()
	st.banks = newGate(t)
	// The bot's answer waits this long for the held banks (1 s by default),
	// then replies without them.
	e.banksWait = 100 * time.Millisecond
	e.start()
	listing := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks"))
	st.banks.wait(t, "the first server's banks")

	if got := e.replyText(e.answerIn(bob, otherGuild, otherGuildChan, beta, "A")); !strings.Contains(got, "Right!") || !strings.Contains(got, "Beta explains it.") {
		t.Errorf("answer in the other server while this one's banks load: %q, want graded with the reveal", got)
	}
	p := e.answerIn(bob, guildID, channelID, alpha, "A")
	if got := e.replyText(p); !strings.Contains(got, "Right!") || !strings.Contains(got, "show when the question closes") {
		t.Errorf("answer in the server whose banks load: %q, want graded, the reveal at the close", got)
	}
	if r := p.WaitResponse(t, wait); r.Latency > 2*time.Second {
		t.Errorf("answer replied to %v after it arrived, want within the %v the answer waits for banks", r.Latency, e.banksWait)
	}
	if a, err := e.db.Answer(alpha.ID, questions.UserID(mustID(t, bob.ID))); err != nil || !a.Right {
		t.Errorf("bob's answer in the first server: %+v, %v; want stored", a, err)
	}
	st.banks.open()
	if got := e.replyText(listing); !strings.Contains(got, "**Alpha** · 1 question") {
		t.Errorf("/quiz banks once the banks are in: %q", got)
	}
	if got := e.replyText(e.answerIn(carol, guildID, channelID, alpha, "A")); !strings.Contains(got, "Alpha explains it.") {
		t.Errorf("answer once the banks are in: %q, want the reveal", got)
	}
	e.checkWire()
}

// One server's import, held in its store write, holds up no other
// server's import.
func TestImportStallsNoOtherServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), secondGuild())
	st := &gatedStore{guild: 8001}
	st.save = newGate(t)
	e.store = func(db *storage.DB) bot.Store { st.DB = db; return st }
	e.start()
	held := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("import", fileOpt("file", "a.yaml", oneQuestionBank("Alpha"))))
	st.save.wait(t, "the first server's import")
	if got := e.importIn(otherGuild, otherGuildChan, "b.yaml", oneQuestionBank("Beta")); !strings.Contains(got, "**Beta** (new bank): added 1") {
		t.Errorf("import in the other server while the first one's is held: %q", got)
	}
	st.save.open()
	if got := e.replyText(held); !strings.Contains(got, "**Alpha** (new bank): added 1") {
		t.Errorf("the held import: %q", got)
	}
	e.checkWire()
}
