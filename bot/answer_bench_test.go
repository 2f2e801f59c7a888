package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// answerPathStore answers the calls of the answer path from memory: the
// post and the settings as a store returns them (fresh copies), and
// RecordAnswer graded as storage grades it, stored nowhere. The rest of
// Store is reads, the embedded one's (nil when the benchmark reads nothing
// else).
type answerPathStore struct {
	Store
	post   questions.Post
	set    questions.Settings
	memory bool // Post and Settings from memory; else from the embedded Store
}

func (s *answerPathStore) Post(id questions.PostID) (questions.Post, error) {
	if !s.memory {
		return s.Store.Post(id)
	}
	p := s.post
	p.Correct, p.Tallies, p.Tags = slices.Clone(p.Correct), slices.Clone(p.Tallies), slices.Clone(p.Tags)
	return p, nil
}

func (s *answerPathStore) Settings(guild questions.GuildID) (questions.Settings, error) {
	if !s.memory {
		return s.Store.Settings(guild)
	}
	set := s.set
	set.Banks = slices.Clone(set.Banks)
	return set, nil
}

func (s *answerPathStore) RecordAnswer(_ context.Context, a questions.Answer) (questions.Answer, error) {
	choice, err := questions.NormalizeChoice(a.Choice, s.post.OptionCount, s.post.SelectCount)
	if err != nil {
		return questions.Answer{}, err
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(s.post.Correct, choice)
	return a, nil
}

// noContent answers every request as Discord answers an interaction
// callback: 204, after reading the body.
type noContent struct{ requests int }

func (n *noContent) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	n.requests++
	return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Header: http.Header{},
		Body: http.NoBody, Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// BenchmarkAnswerBotSide is the bot's own work for one answer, from the
// decoded interaction to the reply's request leaving through the REST
// transport: dispatch, custom-ID decoding, the post and settings reads,
// the grade, rendering and JSON encoding of the reply, and discordgo's
// request path. The gateway read and the commit are left out (the first
// is discordgo's, the second storage's): RecordAnswer grades in memory.
// reads=memory takes the post and settings from memory, reads=bbolt from
// a real database; reveal=off is the ceiling's one-line reply.
func BenchmarkAnswerBotSide(b *testing.B) {
	builtin, err := questions.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	cat, _ := questions.NewCatalogue(builtin)
	q := &builtin[0].Questions[0]
	const guild, channel, message = questions.GuildID(8001), questions.ChannelID(6001), questions.MessageID(5001)
	for _, bc := range []struct {
		name   string
		memory bool
		reveal bool
	}{
		{"reads=memory/reveal=on", true, true},
		{"reads=memory/reveal=off", true, false},
		{"reads=bbolt/reveal=on", false, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			db, err := storage.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), storage.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			post, err := db.CreatePost(b.Context(), questions.Post{GuildID: guild, ChannelID: channel, QuestionID: q.ID, Bank: q.Bank,
				Tags: q.Tags, Correct: q.Correct(), OptionCount: len(q.Options), SelectCount: q.SelectCount(),
				OpenedAt: time.Now(), ClosesAt: time.Now().Add(time.Hour)})
			if err != nil {
				b.Fatal(err)
			}
			if err := db.SetPostMessage(b.Context(), post.ID, message); err != nil {
				b.Fatal(err)
			}
			post.MessageID = message
			set, err := db.UpdateSettings(b.Context(), guild, func(s *questions.Settings) error {
				s.RevealOnAnswer = bc.reveal
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			st := &answerPathStore{Store: db, post: post, set: set, memory: bc.memory}
			rt := &noContent{}
			bt, err := New(Config{Token: "x", Store: st, Catalogue: cat, Logger: slog.New(slog.DiscardHandler), Transport: rt})
			if err != nil {
				b.Fatal(err)
			}

			ic := &discordgo.InteractionCreate{Interaction: &discordgo.Interaction{
				ID: "1300000000000000001", AppID: "9001", Type: discordgo.InteractionMessageComponent,
				Token:   "aW50ZXJhY3Rpb246MTMwMDAwMDAwMDAwMDAwMDAwMTo" + strings.Repeat("x", 150),
				GuildID: formatID(guild), ChannelID: formatID(channel),
				Member:  &discordgo.Member{User: &discordgo.User{ID: "1000000001", Username: "m1"}},
				Message: &discordgo.Message{ID: formatID(message), ChannelID: formatID(channel)},
				Data: discordgo.MessageComponentInteractionData{CustomID: kindAnswer.id(componentID{post: post.ID}),
					ComponentType: discordgo.SelectMenuComponent, Values: post.Correct},
			}}
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				bt.onInteraction(ctx, ic, false)
			}
			if rt.requests != b.N {
				b.Fatalf("got %d requests, want %d (one reply per answer)", rt.requests, b.N)
			}
		})
	}
}
