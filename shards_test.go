package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// shardProc is a quizhost process (this test binary) that runs a shard
// range against the test server.
type shardProc struct {
	layout, db string
	cmd        *exec.Cmd
	out        *output
	exited     chan struct{} // closed once cmd.Wait returned
}

// startShardProc runs quizhost with QUIZHOST_SHARDS=layout and its
// database at db, in dir.
func startShardProc(t *testing.T, srv *discordtest.Server, dir, layout, db string) *shardProc {
	t.Helper()
	p := &shardProc{layout: layout, db: db, out: newOutput(), exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "QUIZHOST_TEST_MAIN=1", "DISCORD_TOKEN=secret-token-123",
		"DISCORD_API_BASE="+srv.URL(), "QUIZHOST_DB="+db, "QUIZHOST_SHARDS="+layout)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("quizhost %s log:\n%s", layout, p.out.String())
		}
	})
	return p
}

// wait waits up to within for the process to exit and returns its status.
func (p *shardProc) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("quizhost %s still running after %v; output:\n%s", p.layout, within, p.out.String())
		return -1
	}
}

// stop sends SIGTERM and checks the process exits with status 0.
func (p *shardProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(os.Interrupt)
	if code := p.wait(t, 5*time.Second); code != 0 {
		t.Fatalf("quizhost %s exited with %d after SIGINT, want 0; output:\n%s", p.layout, code, p.out.String())
	}
}

// questionIn waits for the question posted in channel and returns its
// message id, select menu custom id and as many of its first option
// values as it takes.
func questionIn(t *testing.T, srv *discordtest.Server, channel string) (msgID, customID string, values []string) {
	t.Helper()
	menu := func(m discordtest.Message) *discordgo.SelectMenu {
		for _, c := range m.Components {
			if row, ok := c.(*discordgo.ActionsRow); ok {
				for _, rc := range row.Components {
					if sm, ok := rc.(*discordgo.SelectMenu); ok && len(sm.Options) > 0 {
						return sm
					}
				}
			}
		}
		return nil
	}
	m := srv.WaitMessage(t, 10*time.Second, func(m discordtest.Message) bool { return m.ChannelID == channel && menu(m) != nil })
	sm := menu(m)
	n := 1
	if sm.MinValues != nil {
		n = max(*sm.MinValues, 1)
	}
	for _, o := range sm.Options[:min(n, len(sm.Options))] {
		values = append(values, o.Value)
	}
	return m.ID, sm.CustomID, values
}

// answer has member answer the question of guild g and returns the
// interaction, its reply awaited unless wait is false.
func answer(t *testing.T, srv *discordtest.Server, g discordtest.Guild, member discordtest.Member, wait bool) *discordtest.Pending {
	t.Helper()
	ch := g.Channels[0].ID
	msgID, customID, values := questionIn(t, srv, ch)
	p := srv.Component(g.ID, ch, member, msgID, customID, values...)
	if wait {
		checkAnswered(t, g, member, p)
	}
	return p
}

func checkAnswered(t *testing.T, g discordtest.Guild, member discordtest.Member, p *discordtest.Pending) {
	t.Helper()
	r := p.WaitResponse(t, 10*time.Second)
	if r.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Content, "You chose") {
		t.Errorf("guild %s: %s's answer got %q (flags %d), want a private grade", g.ID, member.Username, r.Content, r.Flags)
	}
}

// TestTwoProcessesOfTwoShards runs two quizhost processes, shards 0-1 and
// 2-3 of 4, each with its own database file, against a server of four
// shards: questions are asked and answered in servers of every shard,
// each answer lands in exactly one file (the one of its server's shard),
// only the process of shard 0 registers the commands, a process started
// on the other's file is refused, and while one process restarts the
// other's servers keep answering (and the restarted one answers what
// arrived meanwhile).
func TestTwoProcessesOfTwoShards(t *testing.T) {
	t.Parallel() // two child processes
	bob := discordtest.Member{ID: "7002", Username: "bob"}
	carol := discordtest.Member{ID: "7003", Username: "carol"}
	dave := discordtest.Member{ID: "7004", Username: "dave"}
	admin := discordtest.Member{ID: "7001", Username: "alice", Permissions: discordtest.AdminPermissions}
	var guilds []discordtest.Guild
	for k := range 8 { // two servers per shard: (id >> 22) % 4 = k % 4
		guilds = append(guilds, discordtest.Guild{ID: fmt.Sprint(uint64(k)<<22 | 777),
			Channels: []discordtest.Channel{{ID: fmt.Sprint(6100 + k)}}, Members: []discordtest.Member{admin, bob, carol, dave}})
	}
	shardOf := func(g discordtest.Guild) int {
		id, err := strconv.ParseUint(g.ID, 10, 64)
		if err != nil {
			t.Fatalf("guild ID %q: %v", g.ID, err)
		}
		return sharding.ShardOf(id, 4)
	}
	// Each shard is a bucket of its own (max_concurrency 4), so neither
	// process waits to identify. The rate limit is off: Discord's applies
	// across processes, which this test does not coordinate (a restarted
	// process identifies again at once); bot's tests check the pacing.
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123", Guilds: guilds,
		Shards: 4, MaxConcurrency: 4, IdentifyInterval: -1})
	dir := t.TempDir()
	dbA, dbB := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	a := startShardProc(t, srv, dir, "0-1/4", dbA)
	b := startShardProc(t, srv, dir, "2-3/4", dbB)
	srv.WaitConnected(t, 10*time.Second)
	srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PUT" && r.Status == 200 }, 10*time.Second)
	if !b.out.wait("commands not registered", 5*time.Second) {
		t.Errorf("the process of shards 2-3 does not say it leaves the commands to shard 0's")
	}

	for _, g := range guilds {
		ask := srv.SlashCommand(g.ID, g.Channels[0].ID, admin, "quiz", discordtest.Option{Name: "ask", Type: discordgo.ApplicationCommandOptionSubCommand})
		reply := ask.WaitResponse(t, 10*time.Second).Content
		if ask.WaitResponse(t, 0).Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			reply = ask.WaitOriginal(t, 10*time.Second, nil).Content
		}
		if !strings.Contains(reply, "Posted question") {
			t.Fatalf("guild %s: /quiz ask replied %q, want \"Posted question\"", g.ID, reply)
		}
		answer(t, srv, g, bob, true)
	}

	// Process B stops; A's servers answer meanwhile, and B's servers'
	// answers wait for B (the server queues them for its shards).
	b.stop(t)
	var queued []*discordtest.Pending
	for _, g := range guilds {
		if shardOf(g) <= 1 {
			answer(t, srv, g, carol, true)
		} else {
			queued = append(queued, answer(t, srv, g, carol, false))
		}
	}
	// A process started with the wrong layout on B's file is refused.
	wrong := startShardProc(t, srv, dir, "0-1/4", dbB)
	if code := wrong.wait(t, 10*time.Second); code != 1 {
		t.Errorf("quizhost 0-1/4 on the file of 2-3/4: exit status %d, want 1", code)
	}
	if out := wrong.out.String(); !strings.Contains(out, "holds the servers of shards 2-3/4") || !strings.Contains(out, "quizhost reshard") {
		t.Errorf("the refusal does not say which layout the file holds and what to do:\n%s", out)
	}

	b = startShardProc(t, srv, dir, "2-3/4", dbB)
	srv.WaitShardConnected(t, 2, 10*time.Second)
	srv.WaitShardConnected(t, 3, 10*time.Second)
	k := 0
	for _, g := range guilds {
		if shardOf(g) >= 2 {
			checkAnswered(t, g, carol, queued[k])
			k++
			answer(t, srv, g, dave, true)
		}
	}
	a.stop(t)
	b.stop(t)

	puts := 0
	for _, r := range srv.Requests() {
		if r.Method == "PUT" && strings.HasSuffix(r.Route, "/commands") {
			puts++
		}
	}
	if puts != 1 {
		t.Errorf("command registrations: got %d, want 1 (by the process of shard 0)", puts)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}

	files := map[string]*storage.DB{}
	for _, path := range []string{dbA, dbB} {
		db, err := storage.Open(t.Context(), path, storage.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		files[path] = db
	}
	for _, g := range guilds {
		gid, _ := questions.ParseGuildID(g.ID)
		cid, _ := questions.ParseChannelID(g.Channels[0].ID)
		want := []string{"7002", "7003"}
		home := dbA
		if shardOf(g) >= 2 {
			home = dbB
			want = append(want, "7004")
		}
		for path, db := range files {
			posts, err := db.OpenPostsIn(gid, cid)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range posts {
				answers, err := db.Answers(p.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range answers {
					got = append(got, fmt.Sprint(a.UserID))
				}
			}
			slices.Sort(got)
			if path == home && (len(posts) != 1 || !slices.Equal(got, want)) {
				t.Errorf("guild %s (shard %d) in %s: %d posts, answers of %v; want 1 post, answers of %v",
					g.ID, shardOf(g), filepath.Base(path), len(posts), got, want)
			}
			if path != home && len(posts)+len(got) != 0 {
				t.Errorf("guild %s (shard %d) in %s, the other process's file: %d posts, answers of %v; want none",
					g.ID, shardOf(g), filepath.Base(path), len(posts), got)
			}
		}
	}
	for path, want := range map[string]string{dbA: "0-1/4", dbB: "2-3/4"} {
		if l, err := files[path].ShardLayout(); err != nil || l.String() != want {
			t.Errorf("%s records layout %v (%v), want %s", filepath.Base(path), l, err, want)
		}
	}
}
