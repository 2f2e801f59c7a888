// Command ceiling is the benchmarks' ceiling: the least a bot can do for
// an answer. It connects to Discord the way quizhost's bot does (the same
// discordgo session settings, HTTP client and transport, gateway intents
// and event handling, mirrored from bot.Run), stores nothing, and answers
// every component interaction with a one-line ephemeral reply that pings
// no one. It registers one command at start, as quizhost does, so a
// harness can tell when it is ready.
//
// It reads DISCORD_TOKEN and DISCORD_API_BASE, and stops on SIGINT or
// SIGTERM. It is not part of quizhost: bench/answers runs it.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/quizhost/quizhost/bot"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(log); err != nil {
		log.Error("ceiling", "err", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	base, err := url.Parse(os.Getenv("DISCORD_API_BASE"))
	if err != nil || base.Host == "" {
		return fmt.Errorf("DISCORD_API_BASE %q: want an http(s) URL", os.Getenv("DISCORD_API_BASE"))
	}
	s, err := discordgo.New("Bot " + os.Getenv("DISCORD_TOKEN"))
	if err != nil {
		return fmt.Errorf("discord session: %w", err)
	}
	// As bot.Run: a 20 s client whose transport sends discord.com to the
	// API base over the bot's own transport (bot.NewTransport: keep-alive
	// connections sized for a burst); the default websocket dialer;
	// the Guilds intent; handlers called synchronously, each interaction
	// handled in a goroutine of its own.
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: redirect{base: base, next: bot.NewTransport()}}
	dialer := *websocket.DefaultDialer
	s.Dialer = &dialer
	s.ShouldReconnectOnError = false
	s.Identify.Intents = discordgo.IntentsGuilds
	s.LogLevel = discordgo.LogError
	s.SyncEvents = true
	var wg sync.WaitGroup
	noPings := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		wg.Go(func() {
			if ic.Type != discordgo.InteractionMessageComponent {
				return
			}
			err := s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "Answer received.",
					Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noPings},
			}, discordgo.WithContext(context.WithoutCancel(ctx)))
			if err != nil {
				log.Error("reply", "err", err)
			}
		})
	})
	if err := s.Open(); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	appID := s.State.User.ID
	if s.State.Application != nil {
		appID = s.State.Application.ID
	}
	cmds := []*discordgo.ApplicationCommand{{Name: "quiz", Description: "Study-group quizzes"}}
	if _, err := s.ApplicationCommandBulkOverwrite(appID, "", cmds, discordgo.WithContext(ctx)); err != nil {
		s.Close()
		return fmt.Errorf("register commands: %w", err)
	}
	log.Info("ready")
	<-ctx.Done()
	wg.Wait()
	if err := s.Close(); err != nil {
		return fmt.Errorf("close gateway: %w", err)
	}
	return nil
}

// redirect sends requests for discord.com to base, same path, like the
// bot's transport.
type redirect struct {
	base *url.URL
	next http.RoundTripper
}

func (t redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == "discord.com" {
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host, req.Host = t.base.Scheme, t.base.Host, t.base.Host
	}
	return t.next.RoundTrip(req)
}
