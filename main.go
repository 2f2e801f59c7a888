// Command quizhost is a Discord bot that hosts quizzes for study groups.
//
//	quizhost                  run the bot (configuration from the environment and .env)
//	quizhost validate PATH... check question bank files or directories
//	quizhost backup DEST      copy the database (the bot must be stopped; while it runs, send it SIGUSR1)
//
// See README.md for setup and configuration.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/joho/godotenv"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

var _ bot.Store = (*storage.DB)(nil)

func main() {
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	var ec exitCode
	switch {
	case err == nil:
	case errors.As(err, &ec):
		if ec.msg != "" {
			fmt.Fprintln(os.Stderr, ec.msg)
		}
		os.Exit(ec.code)
	default:
		fmt.Fprintln(os.Stderr, "quizhost:", err)
		os.Exit(1)
	}
}

// exitCode ends the program with a status and an optional message.
type exitCode struct {
	code int
	msg  string
}

func (e exitCode) Error() string { return fmt.Sprintf("exit %d: %s", e.code, e.msg) }

const setupHelp = `quizhost: DISCORD_TOKEN is not set.
Create a Discord application and bot, invite it with the scopes "bot applications.commands",
and put its token in .env (see README.md, section "Setting up the Discord application").`

// config is everything quizhost reads from its environment.
type config struct {
	token     string
	guildID   string
	apiBase   string
	dbPath    string
	questions string
	logLevel  slog.Level
}

// readConfig reads the configuration, reporting every problem at once.
func readConfig(getenv func(string) string) (config, error) {
	c := config{
		token:     strings.TrimSpace(getenv("DISCORD_TOKEN")),
		guildID:   strings.TrimSpace(getenv("DISCORD_GUILD_ID")),
		apiBase:   strings.TrimSpace(getenv("DISCORD_API_BASE")),
		dbPath:    strings.TrimSpace(getenv("QUIZHOST_DB")),
		questions: strings.TrimSpace(getenv("QUIZHOST_QUESTIONS")),
	}
	if c.token == "" {
		return c, exitCode{2, setupHelp}
	}
	c.token = strings.TrimPrefix(c.token, "Bot ")
	var problems []string
	if c.apiBase == "" {
		c.apiBase = "https://discord.com"
	}
	if err := bot.CheckAPIBase(c.apiBase); err != nil {
		problems = append(problems, err.Error())
	}
	if c.guildID != "" && strings.Trim(c.guildID, "0123456789") != "" {
		problems = append(problems, fmt.Sprintf("DISCORD_GUILD_ID %q: want a server ID (digits only)", c.guildID))
	}
	if c.dbPath == "" {
		c.dbPath = "quizhost.db"
	}
	switch strings.ToLower(strings.TrimSpace(getenv("QUIZHOST_LOG_LEVEL"))) {
	case "", "info":
	case "debug":
		c.logLevel = slog.LevelDebug
	case "warn":
		c.logLevel = slog.LevelWarn
	case "error":
		c.logLevel = slog.LevelError
	default:
		problems = append(problems, "QUIZHOST_LOG_LEVEL: want debug, info, warn or error")
	}
	if len(problems) > 0 {
		return c, exitCode{2, "quizhost: configuration:\n  " + strings.Join(problems, "\n  ")}
	}
	return c, nil
}

// envWithDotenv layers the .env file at path (a missing file is fine) under getenv:
// real environment variables win over .env.
func envWithDotenv(getenv func(string) string, path string) (func(string) string, error) {
	vals, err := godotenv.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return getenv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return vals[k]
	}, nil
}

// run is quizhost: it returns when the bot stops or the subcommand is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "validate":
			return validate(args[1:], stdout, stderr)
		case "backup":
			return backup(args[1:], getenv, stdout)
		case "help", "-h", "-help", "--help":
			fmt.Fprintln(stdout, "usage: quizhost [validate PATH... | backup DEST]")
			return nil
		default:
			return exitCode{2, fmt.Sprintf("quizhost: unknown command %q (usage: quizhost [validate PATH... | backup DEST])", args[0])}
		}
	}
	getenv, err := envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	cfg, err := readConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	cat, err := questions.Loader{Path: cfg.questions}.Load()
	if err != nil {
		return exitCode{1, "quizhost: question banks:\n" + err.Error()}
	}
	log.Info("question banks loaded", "banks", len(cat.Banks()), "questions", cat.Len())

	_, statErr := os.Stat(cfg.dbPath)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	db, err := storage.Open(cfg.dbPath, storage.Options{Timeout: 3 * time.Second})
	if errors.Is(err, storage.ErrDamaged) {
		return exitCode{1, damagedHelp(cfg.dbPath, err)}
	}
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	var b *bot.Bot
	defer func() {
		if err := db.Close(); err != nil {
			log.Error("close database", "err", err)
		}
		// A start that never reached Discord leaves no new, empty file.
		if fresh && (b == nil || !b.Connected()) {
			os.Remove(cfg.dbPath)
		}
	}()
	go backupOnSignal(ctx, db, cfg.dbPath+".bak", log)

	b, err = bot.New(bot.Config{Token: cfg.token, GuildID: cfg.guildID, APIBase: cfg.apiBase,
		Store: db, Catalogue: cat, Logger: log})
	if err != nil {
		return err
	}
	if err := b.Run(ctx); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// damagedHelp is the message for a database file that Open refused as
// damaged: what happened and how to restore from a backup.
func damagedHelp(path string, err error) string {
	return fmt.Sprintf(`quizhost: %v
quizhost has not changed %[2]s. To restore it from a backup:
  1. keep the damaged file aside:   mv %[2]s %[2]s.damaged
  2. copy the backup in its place:  cp %[2]s.bak %[2]s   (or your own copy)
  3. start quizhost again.
%[2]s.bak is written when the running bot gets SIGUSR1 (see README.md, "Operations").
Without a backup, moving the file aside starts quizhost with an empty database.`, err, path)
}

// backupOnSignal writes a hot backup of the running bot's database to dest
// on SIGUSR1.
func backupOnSignal(ctx context.Context, db *storage.DB, dest string, log *slog.Logger) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			if err := db.BackupFile(dest); err != nil {
				log.Error("backup", "dest", dest, "err", err)
			} else {
				log.Info("backup written", "dest", dest)
			}
		}
	}
}

// backup copies the database of a stopped bot to a file.
func backup(args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) != 1 {
		return exitCode{2, "usage: quizhost backup DEST"}
	}
	getenv, err := envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	path := getenv("QUIZHOST_DB")
	if path == "" {
		path = "quizhost.db"
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	db, err := storage.Open(path, storage.Options{Timeout: time.Second})
	if errors.Is(err, storage.ErrInUse) {
		return exitCode{1, "quizhost: the bot is running and holds " + path + "; send it SIGUSR1 to write " + path + ".bak instead"}
	}
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.BackupFile(args[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", path, args[0])
	return nil
}

// validate checks bank files: per file, its banks and question counts; on
// any problem, every path:line: message and exit status 1.
func validate(paths []string, stdout, stderr io.Writer) error {
	if len(paths) == 0 {
		builtin, err := questions.Builtin()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitCode{1, ""}
		}
		printBanks(stdout, builtin)
		return nil
	}
	banks, err := questions.LoadFiles(paths...)
	printBanks(stdout, banks)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitCode{1, ""}
	}
	return nil
}

func printBanks(w io.Writer, banks []questions.Bank) {
	for _, b := range banks {
		src := b.Path
		if src == "" {
			src = "(built in)"
		}
		fmt.Fprintf(w, "%s: %s: %d questions\n", src, b.Name, len(b.Questions))
	}
}
