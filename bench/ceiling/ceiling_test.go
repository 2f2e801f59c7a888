package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/internal/fakediscord"
	"github.com/quizhost/quizhost/questions"
)

func TestStoreGradesAndRecordsNothing(t *testing.T) {
	ctx := context.Background()
	s := newStore(false)
	closes := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	post := func(select_ int, correct ...string) questions.Post {
		p, err := s.CreatePost(ctx, questions.Post{GuildID: 1, ChannelID: 2, QuestionID: "q", Correct: correct,
			OptionCount: 4, SelectCount: select_, ClosesAt: closes})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	one, two, closed := post(1, "B"), post(2, "A", "C"), post(1, "B")
	if _, _, err := s.ClosePost(ctx, closed.ID, closes.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	before := closes.Add(-time.Minute)
	for _, tc := range []struct {
		name    string
		a       questions.Answer
		want    questions.Grade
		wantErr error
	}{
		{"right", questions.Answer{PostID: one.ID, GuildID: 1, Choice: []string{"B"}, At: before}, questions.Grade{Right: true, RightPicks: 1, Points: 1}, nil},
		{"wrong", questions.Answer{PostID: one.ID, GuildID: 1, Choice: []string{"A"}, At: before}, questions.Grade{}, nil},
		{"two picks right", questions.Answer{PostID: two.ID, GuildID: 1, Choice: []string{"C", "A"}, At: before}, questions.Grade{Right: true, RightPicks: 2, Points: 2}, nil},
		{"two picks, one right", questions.Answer{PostID: two.ID, GuildID: 1, Choice: []string{"A", "D"}, At: before}, questions.Grade{RightPicks: 1}, nil},
		{"not an option", questions.Answer{PostID: one.ID, GuildID: 1, Choice: []string{"E"}, At: before}, questions.Grade{}, questions.ErrBadChoice},
		{"another guild's post", questions.Answer{PostID: one.ID, GuildID: 9, Choice: []string{"B"}, At: before}, questions.Grade{}, questions.ErrWrongGuild},
		{"closed by hand", questions.Answer{PostID: closed.ID, GuildID: 1, Choice: []string{"B"}, At: before}, questions.Grade{}, questions.ErrClosed},
		{"at the close", questions.Answer{PostID: one.ID, GuildID: 1, Choice: []string{"B"}, At: closes}, questions.Grade{}, questions.ErrClosed},
		{"unknown post", questions.Answer{PostID: 99, GuildID: 1, Choice: []string{"B"}, At: before}, questions.Grade{}, questions.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.RecordAnswer(ctx, tc.a)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("got error %v, want %v", err, tc.wantErr)
			}
			if err == nil && got.Grade != tc.want {
				t.Errorf("got grade %+v, want %+v", got.Grade, tc.want)
			}
		})
	}
	// The same member again is graded again: nothing was recorded.
	for range 2 {
		if _, err := s.RecordAnswer(ctx, questions.Answer{PostID: one.ID, GuildID: 1, UserID: 5, Choice: []string{"B"}, At: before}); err != nil {
			t.Fatalf("a repeated answer: got %v, want it graded", err)
		}
	}
	if got, _ := s.Post(one.ID); got.Answers != 0 || got.Tallies[1] != 0 {
		t.Errorf("post after answers: got %d answers, tallies %v; want nothing counted", got.Answers, got.Tallies)
	}
	if _, err := s.Answer(one.ID, 5); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("Answer: got %v, want ErrNotFound", err)
	}
	if set, _ := s.Settings(1); set.RevealOnAnswer {
		t.Error("Settings: got RevealOnAnswer on, want off (a one-line reply)")
	}
}

// TestCeilingRepliesOneLine runs the ceiling's bot against the test
// server: /quiz ask posts the question, and each answer gets its grade in
// one ephemeral line that pings no one.
func TestCeilingRepliesOneLine(t *testing.T) {
	bank := filepath.Join(t.TempDir(), "bench-bank.txt")
	if err := os.WriteFile(bank, []byte(harness.BenchBank), 0o600); err != nil {
		t.Fatal(err)
	}
	g := fakediscord.DefaultGuild()
	admin := fakediscord.Member{ID: "7001", Username: "alice", Permissions: fakediscord.AdminPermissions}
	g.Members = []fakediscord.Member{admin}
	srv, err := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{Token: harness.Token, Guilds: []fakediscord.Guild{g}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b, err := newBot(harness.Token, srv.URL(), bank, false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- b.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if err := harness.Wait(ctx, srv, "the ceiling to register its commands", func() bool { return harness.CommandSyncs(srv) > 0 }); err != nil {
		t.Fatal(err)
	}
	ask := srv.SlashCommand(g.ID, g.Channels[0].ID, admin, "quiz", fakediscord.Option{Name: "ask",
		Type: discordgo.ApplicationCommandOptionSubCommand, Options: []fakediscord.Option{
			{Name: "bank", Type: discordgo.ApplicationCommandOptionString, Value: "Bench Bank"}}})
	if _, _, _, err := harness.Reply(ctx, srv, ask); err != nil {
		t.Fatal(err)
	}
	q, err := harness.FindQuestion(srv, g.ID, g.Channels[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct{ pick, want string }{
		{"B", "✅ **Right!** You chose **B**. **+1 point**."},
		{"A", "❌ **Not quite.** You chose **A**. **+0 points**."},
	} {
		m := fakediscord.Member{ID: "90" + string(rune('0'+i)), Username: "m"}
		reply, _, _, err := harness.Reply(ctx, srv, srv.Component(g.ID, g.Channels[0].ID, m, q.MessageID, q.CustomID, tc.pick))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(reply.Content, tc.want) || strings.Contains(reply.Content, "\n") || len(reply.Embeds) > 0 {
			t.Errorf("pick %s: got %q with %d embeds, want one line starting %q and no embed", tc.pick, reply.Content, len(reply.Embeds), tc.want)
		}
		if !harness.IsGrade(reply.Content, tc.pick) {
			t.Errorf("pick %s: IsGrade(%q): got false, want true", tc.pick, reply.Content)
		}
		if reply.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Errorf("pick %s: got flags %d, want ephemeral", tc.pick, reply.Flags)
		}
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("the server refused: %v", v)
	}
}
