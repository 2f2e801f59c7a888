// Command quizhost is a Discord bot that hosts quizzes for study groups.
//
//	quizhost                                  run the bot (configuration from the environment and .env)
//	quizhost help                             every command and environment variable
//	quizhost version                          the version, source revision and Go version
//	quizhost validate [--strict] [PATH...]    check bank files as start-up would
//	quizhost preview [PATH...]                print questions as posted and revealed
//	quizhost backup [--force] DEST            copy the database of a stopped bot (while it runs, send it SIGUSR1)
//	quizhost sandbox [--addr A] [--db PATH]   try the bot in a browser, without Discord
//	quizhost reshard --to N [--processes P] --out DIR FILE...
//	                                          split or merge stopped database files into N shards' files
//
// See README.md for setup and configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/joho/godotenv"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/admin"
	"github.com/quizhost/quizhost/internal/clock"
	"github.com/quizhost/quizhost/internal/metrics"
	"github.com/quizhost/quizhost/internal/sandbox"
	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/internal/upkeep"
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
and put its token in .env (cp .env.example .env first; see README.md, section
"Setting up the Discord application"). To try the bot without Discord: quizhost sandbox.`

// config is everything quizhost reads from its environment.
type config struct {
	token     string
	guildID   string
	apiBase   string
	dbPath    string
	questions string
	logLevel  slog.Level
	shards    sharding.Layout // zero: every shard, as many as Discord recommends

	adminAddr   string // empty: no admin listener
	adminToken  string
	backupDir   string        // automatic backups' folder (default: backups next to dbPath)
	backupEvery time.Duration // 0: no automatic backups
	backupKeep  int
	keepScores  time.Duration // < 0: never prune

	quota questions.Quota // each server's imported banks
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
		c.apiBase = defaultAPIBase
	}
	if err := bot.CheckAPIBase(c.apiBase); err != nil {
		problems = append(problems, err.Error())
	}
	if c.guildID != "" && strings.Trim(c.guildID, "0123456789") != "" {
		problems = append(problems, fmt.Sprintf("DISCORD_GUILD_ID %q: want a server ID (digits only)", c.guildID))
	}
	if c.dbPath == "" {
		c.dbPath = defaultDB
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
	shards, err := sharding.ParseLayout(getenv("QUIZHOST_SHARDS"))
	if err != nil {
		problems = append(problems, "QUIZHOST_SHARDS: "+err.Error())
	}
	c.shards = shards
	problems = append(problems, c.readOps(getenv)...)
	quota, quotaProblems := readQuota(getenv)
	c.quota, problems = quota, append(problems, quotaProblems...)
	if len(problems) > 0 {
		return c, exitCode{2, "quizhost: configuration:\n  " + strings.Join(problems, "\n  ")}
	}
	return c, nil
}

// readOps reads the admin listener's, the automatic backups' and the
// pruning's settings and returns their problems.
func (c *config) readOps(getenv func(string) string) []string {
	var problems []string
	c.adminAddr = strings.TrimSpace(getenv("QUIZHOST_ADMIN_ADDR"))
	c.adminToken = strings.TrimSpace(getenv("QUIZHOST_ADMIN_TOKEN"))
	if c.adminAddr != "" {
		problems = append(problems, admin.CheckConfig(c.adminAddr, c.adminToken)...)
	}

	// Automatic backups are on unless QUIZHOST_BACKUP_EVERY is 0; an empty
	// variable is its default, so an env file listing it empty (docker run
	// --env-file) changes nothing.
	c.backupDir = strings.TrimSpace(getenv("QUIZHOST_BACKUP_DIR"))
	if c.backupDir == "" {
		c.backupDir = filepath.Join(filepath.Dir(c.dbPath), defaultBackupDir)
	}
	c.backupEvery, c.backupKeep = defaultBackupEvery, defaultBackupKeep
	switch every := strings.TrimSpace(getenv("QUIZHOST_BACKUP_EVERY")); strings.ToLower(every) {
	case "":
	case "0", "off":
		c.backupEvery = 0
	default:
		d, err := parseDays(every)
		if err != nil || d != 0 && d < time.Minute {
			problems = append(problems, fmt.Sprintf("QUIZHOST_BACKUP_EVERY %q: want a duration of at least 1m, e.g. 6h or 1d, or 0 to turn automatic backups off", every))
		}
		c.backupEvery = d
	}
	if keep := strings.TrimSpace(getenv("QUIZHOST_BACKUP_KEEP")); keep != "" {
		n, err := strconv.Atoi(keep)
		if err != nil || n < 1 {
			problems = append(problems, fmt.Sprintf("QUIZHOST_BACKUP_KEEP %q: want a whole number of backups, at least 1", keep))
		}
		c.backupKeep = n
	}

	c.keepScores = defaultKeepScores
	switch v := strings.TrimSpace(getenv("QUIZHOST_KEEP_SCORES")); strings.ToLower(v) {
	case "":
	case "off":
		c.keepScores = -1
	default:
		d, err := parseDays(v)
		if err != nil || d < 0 {
			problems = append(problems, fmt.Sprintf("QUIZHOST_KEEP_SCORES %q: want a duration such as 90d or 0 (prune as soon as a period ends), or off", v))
		}
		c.keepScores = d
	}
	return problems
}

// parseDays parses a Go duration ("6h", "90m") or a whole number of days
// ("90d").
func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 100000 {
			return 0, fmt.Errorf("bad number of days %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
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

// run is quizhost: it returns when the bot stops or the command is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return serve(ctx, getenv, stderr)
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], getenv, stdout, stderr)
		}
	}
	return exitCode{2, fmt.Sprintf("quizhost: unknown command %q\n%s", args[0], commandList())}
}

// serve runs the bot until ctx ends or SIGINT or SIGTERM comes.
func serve(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
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

	cat, ps := questions.Loader{Paths: bankPaths(cfg.questions)}.Load()
	for _, w := range ps.Warnings() {
		log.Warn("question banks", "problem", w.Error())
	}
	if errs := ps.Errors(); len(errs) > 0 {
		return exitCode{1, "quizhost: question banks:\n" + errs.Error()}
	}
	log.Info("question banks loaded", "banks", len(cat.Banks()), "questions", cat.Len())

	// Metrics are kept when the admin listener serves them.
	var m *metrics.Metrics
	dbOpts := storage.Options{Timeout: 3 * time.Second, Quota: cfg.quota}
	botCfg := bot.Config{Token: cfg.token, GuildID: cfg.guildID, APIBase: cfg.apiBase, Catalogue: cat, Logger: log,
		Shards: cfg.shards}
	if cfg.adminAddr != "" {
		m = metrics.New()
		dbOpts.OnCommit = m.Commit
		botCfg.Metrics, botCfg.Transport = m, m.Transport(bot.NewTransport())
	}

	_, statErr := os.Stat(cfg.dbPath)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	db, err := storage.Open(ctx, cfg.dbPath, dbOpts)
	if err != nil && ctx.Err() != nil {
		return nil // stopped while waiting for the database's lock
	}
	if errors.Is(err, storage.ErrDamaged) {
		return exitCode{1, damagedHelp(cfg.dbPath, err) + newestBackupHint(cfg.backupDir, cfg.backupEvery > 0, cfg.dbPath)}
	}
	if err != nil {
		return fmt.Errorf("QUIZHOST_DB: %w", err)
	}
	var b *bot.Bot
	defer func() {
		if err := db.Close(); err != nil {
			log.Error("close database", "err", err)
		}
		// A start that never reached Discord leaves no new, empty file.
		if fresh && (b == nil || !b.Reached()) {
			os.Remove(cfg.dbPath)
		}
	}()
	// The file must hold the servers of the shards this process runs (a
	// new file takes the layout).
	if err := db.ClaimShardLayout(ctx, cfg.shards); err != nil {
		if errors.Is(err, storage.ErrShardLayout) {
			return exitCode{1, "quizhost: " + err.Error()}
		}
		return err
	}
	go backupOnSignal(ctx, db, cfg.dbPath+".bak", log)

	botCfg.Store = db
	b, err = bot.New(botCfg)
	if err != nil {
		return err
	}
	// The admin listener and the upkeep jobs stop, and are waited for,
	// before the database closes.
	ops, stopOps := context.WithCancel(ctx)
	var opsDone sync.WaitGroup
	defer func() {
		stopOps()
		opsDone.Wait()
	}()
	if err := startOps(ops, &opsDone, cfg, db, b, m, fresh, log); err != nil {
		return err
	}
	if err := b.Run(ctx); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// startOps starts what the configuration asks for besides the bot: the
// admin listener (bound here, so a bad address stops start-up before
// Discord is contacted), automatic backups and the daily pruning of old
// scores; and, always, the hourly deletion of expired reviews, drafts,
// prompts to confirm and banks kept for undo. Each runs until ctx ends; wg counts them. m is what the admin
// listener serves at /metrics (the bot and storage record into it); nil
// when there is no listener.
func startOps(ctx context.Context, wg *sync.WaitGroup, cfg config, db *storage.DB, b *bot.Bot, m *metrics.Metrics, fresh bool, log *slog.Logger) error {
	if cfg.adminAddr != "" {
		m.OpenQuestions(db.OpenPostCount)
		srv, err := admin.Listen(admin.Config{Addr: cfg.adminAddr, Token: cfg.adminToken, Gateway: b, Database: db,
			Backup: db, Metrics: m.Handler(), Logger: log})
		if err != nil {
			return err
		}
		log.Info("admin listener", "addr", srv.Addr().String(), "token_required", cfg.adminToken != "")
		wg.Go(func() {
			if err := srv.Serve(ctx); err != nil {
				log.Error("admin listener stopped", "err", err)
			}
		})
	}
	if cfg.backupEvery > 0 {
		if err := os.MkdirAll(cfg.backupDir, 0o700); err != nil {
			return fmt.Errorf("QUIZHOST_BACKUP_DIR: %w (QUIZHOST_BACKUP_EVERY=0 turns automatic backups off)", err)
		}
		log.Info("automatic backups", "dir", cfg.backupDir, "every", cfg.backupEvery, "keep", cfg.backupKeep)
		bk := upkeep.Backups{Dir: cfg.backupDir, Every: cfg.backupEvery, Keep: cfg.backupKeep,
			Write: db.BackupFile, Clock: clock.Real{}, Log: log, Fresh: fresh}
		wg.Go(func() { bk.Run(ctx) })
	}
	if cfg.keepScores >= 0 {
		p := upkeep.Pruner{Keep: cfg.keepScores, Every: 24 * time.Hour, Prune: db.PruneScores, Clock: clock.Real{}, Log: log}
		wg.Go(func() { p.Run(ctx) })
	}
	x := upkeep.Expirer{Every: time.Hour, Prune: db.PruneExpired, Clock: clock.Real{}, Log: log}
	wg.Go(func() { x.Run(ctx) })
	return nil
}

// bankPaths is the Loader's paths for QUIZHOST_QUESTIONS.
func bankPaths(env string) []string {
	if env == "" {
		return nil
	}
	return []string{env}
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

// newestBackupHint names the newest automatic backup in dir, if any, as
// the file to restore path from; when there is none it says so, unless
// automatic backups are off (on says whether they are on).
func newestBackupHint(dir string, on bool, path string) string {
	names, err := upkeep.ListBackups(dir)
	if err != nil || len(names) == 0 {
		if !on {
			return ""
		}
		return fmt.Sprintf("\nThe backups folder %s (QUIZHOST_BACKUP_DIR) holds no automatic backup.", dir)
	}
	newest := filepath.Join(dir, names[len(names)-1])
	return fmt.Sprintf("\nThe newest automatic backup is %s: in step 2, cp %s %s", newest, newest, path)
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

// command is a quizhost subcommand: its name, its arguments as usage shows
// them, what it does, and how it runs. commands() is the one list that
// dispatch and help read.
type command struct {
	name, args, summary string
	run                 func(args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"help", "", "show this help: every command and every environment variable", help},
		{"version", "", "show the version, the source revision and the Go version it was built with", version},
		{"validate", "[--strict] [PATH...]", "check bank files or folders as start-up would (no PATH: what the bot would load)", validate},
		{"preview", "[PATH...]", "print each question as it will be posted and as revealed (no PATH: what the bot would load)", preview},
		{"backup", "[--force] DEST", "copy the database of a stopped bot to the file DEST, or into the folder DEST", backup},
		{"sandbox", "[--addr 127.0.0.1:8080] [--db PATH]", "try the bot in a browser, without Discord", sandboxCmd},
		{"reshard", "--to N [--processes P] --out DIR FILE...", "split or merge stopped database files into the files of N shards (see README.md, \"Sharding\")", reshardCmd},
	}
}

// reshardCmd splits or merges database files offline into the files of a
// new shard layout and prints what it read and wrote.
func reshardCmd(args []string, _ func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("reshard", "--to N [--processes P] --out DIR FILE...",
		"Split or merge the database files of one shard layout (every file of it, or one unsharded file)\n"+
			"into the files of N shards. Each server's whole state moves to the file of its shard,\n"+
			"(server ID >> 22) % N. By default each shard gets a file: DIR/"+storage.ShardFileName(0, 4)+" and so on.\n"+
			"With --processes P, P processes share the N shards evenly and each gets one file of N/P shards:\n"+
			"DIR/"+storage.LayoutFileName(sharding.Layout{First: 0, Last: 1, Count: 4})+" for QUIZHOST_SHARDS=0-1/4.\n"+
			"Stop every quizhost process first and keep a backup. The new files are verified (every answer once,\n"+
			"every server unchanged) before they appear; the old files are only read.\n"+
			"Exit status: 0 when written, 1 when refused, 2 on bad usage.")
	to := fs.Int("to", 0, "the number `N` of shards of the new layout")
	out := fs.String("out", "", "the directory `DIR` for the new files (created if missing; must be empty)")
	procs := fs.Int("processes", 0, "the number `P` of processes, one file each, sharing the N shards evenly (default N: a file per shard)")
	files, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	var problems []string
	if *to < 1 {
		problems = append(problems, "--to: want the number of shards, at least 1")
	}
	if *out == "" {
		problems = append(problems, "--out: want the directory for the new files")
	}
	if len(files) == 0 {
		problems = append(problems, "want the database files of the old layout")
	}
	if *procs == 0 {
		*procs = *to
	}
	layouts, err := storage.EvenRanges(*to, *procs)
	if err != nil && *to >= 1 {
		problems = append(problems, "--processes: "+err.Error())
	}
	if len(problems) > 0 {
		return exitCode{2, fmt.Sprintf("quizhost reshard: %s\n%s", strings.Join(problems, "; "), usageOf(fs))}
	}
	rep, err := storage.ReshardRanges(layouts, *out, files)
	if err != nil {
		return exitCode{1, "quizhost " + err.Error()}
	}
	line := func(verb string, f storage.ReshardFile) {
		fmt.Fprintf(stdout, "%-5s %s (shards %s): %s, %s, %s\n", verb, f.Path, f.Layout,
			plural(f.Guilds, "server", "servers"), plural(f.Posts, "post", "posts"), plural(f.Answers, "answer", "answers"))
	}
	for _, f := range rep.Inputs {
		line("read", f)
	}
	for _, f := range rep.Outputs {
		line("wrote", f)
	}
	fmt.Fprintln(stdout, "verified: every answer in exactly one new file, every server's state and leaderboards unchanged.")
	for _, f := range rep.Outputs {
		fmt.Fprintf(stdout, "start: QUIZHOST_SHARDS=%s QUIZHOST_DB=%s\n", f.Layout, f.Path)
	}
	return nil
}

// sandboxCmd runs `quizhost sandbox` until SIGINT or SIGTERM.
func sandboxCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	getenv, err := envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = sandbox.Run(ctx, args, getenv, stdout, stderr)
	switch {
	case errors.Is(err, sandbox.ErrUsage):
		return exitCode{2, err.Error()}
	case errors.Is(err, syscall.EADDRINUSE):
		return exitCode{1, fmt.Sprintf("quizhost %v\nAnother program uses that port: give the sandbox another one, e.g. --addr 127.0.0.1:8081.", err)}
	}
	return helpShown(err)
}

// commandList is the usage line of every command.
func commandList() string {
	const width = 40 // a usage longer than this puts its summary on the next line
	var b strings.Builder
	b.WriteString("usage:\n")
	line := func(usage, summary string) {
		if len(usage) > width {
			fmt.Fprintf(&b, "  %s\n  %-*s %s\n", usage, width, "", summary)
			return
		}
		fmt.Fprintf(&b, "  %-*s %s\n", width, usage, summary)
	}
	line("quizhost", "run the bot (configuration from the environment and .env)")
	for _, c := range commands() {
		line(strings.TrimSpace("quizhost "+c.name+" "+c.args), c.summary)
	}
	line("quizhost COMMAND -h", "a command's usage")
	return b.String()
}

const (
	defaultAPIBase     = "https://discord.com"
	defaultDB          = "quizhost.db"
	defaultBackupDir   = "backups" // next to the database file
	defaultBackupEvery = 24 * time.Hour
	defaultBackupKeep  = 7
	defaultKeepScores  = 90 * 24 * time.Hour
)

// envVars lists every environment variable quizhost reads, for help.
func envVars() []struct{ name, def, meaning string } {
	return []struct{ name, def, meaning string }{
		{"DISCORD_TOKEN", "(required)", "the bot token from the Discord developer portal"},
		{"DISCORD_GUILD_ID", "(empty)", "register the commands in this server only (instant); empty: globally"},
		{"DISCORD_API_BASE", defaultAPIBase, "where Discord's API is; changed only for a local test server"},
		{"QUIZHOST_DB", defaultDB, "the database file"},
		{"QUIZHOST_QUESTIONS", "(empty)", "a bank file or a folder of them (" + questions.BankFileTypes + "), besides the built-in bank"},
		{"QUIZHOST_LOG_LEVEL", "info", "debug, info, warn or error"},
		{"QUIZHOST_SHARDS", "(empty: all)", "i-j/N: run gateway shards i to j of N, for the servers of the database file; empty: every shard Discord recommends"},
		{"QUIZHOST_ADMIN_ADDR", "(empty: off)", "host:port of the admin listener (/healthz, /metrics, /backup), e.g. 127.0.0.1:9090"},
		{"QUIZHOST_ADMIN_TOKEN", "(empty)", "bearer token every admin request must carry; required unless the address is loopback"},
		{"QUIZHOST_BACKUP_DIR", "backups (next to the db)", "folder for automatic, verified backups (quizhost-<UTC time>.db), created if missing"},
		{"QUIZHOST_BACKUP_EVERY", "24h", "time between automatic backups (e.g. 6h, 1d); 0: no automatic backups"},
		{"QUIZHOST_BACKUP_KEEP", "7", "how many automatic backups to keep (the newest)"},
		{"QUIZHOST_KEEP_SCORES", "90d", "drop day, week and month scores this long after their period ends (off: keep all)"},
		{"QUIZHOST_QUOTA_BANKS", "50", "imported banks each server may keep (0: no limit)"},
		{"QUIZHOST_QUOTA_QUESTIONS", "20000", "questions each server's imported banks may hold in all (0: no limit)"},
		{"QUIZHOST_QUOTA_BANK_BYTES", "20MiB", "bytes each server's imported banks may take as stored: bytes, or KiB, MiB, GiB (0: no limit)"},
	}
}

// help prints every command and every environment variable.
func help(args []string, _ func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("help", "", "Show every command and every environment variable.")
	if _, err := parseFlags(fs, args, 0, stdout); err != nil {
		return helpShown(err)
	}
	fmt.Fprintf(stdout, "quizhost hosts quizzes for study groups on Discord (see README.md).\n\n%s\n", commandList())
	fmt.Fprintln(stdout, "environment (also read from .env in the working directory; real environment variables win;")
	fmt.Fprintln(stdout, "a variable set empty takes its default):")
	vars := envVars()
	width := 0
	for _, v := range vars {
		width = max(width, len(v.name))
	}
	for _, v := range vars {
		fmt.Fprintf(stdout, "  %-*s %-24s %s\n", width, v.name, v.def, v.meaning)
	}
	return nil
}

// version prints the build's version, source revision and Go version.
func version(args []string, _ func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("version", "", "Show the version, the source revision and the Go version quizhost was built with.")
	if _, err := parseFlags(fs, args, 0, stdout); err != nil {
		return helpShown(err)
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info, ok))
	return nil
}

// versionText describes a build: the module version, the version-control
// revision, time and modified flag when the build recorded them, and the
// Go version.
func versionText(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "quizhost (no build information)\n"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "quizhost %s\n", v)
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified":
			fmt.Fprintf(&b, "%-13s %s\n", s.Key, s.Value)
		}
	}
	fmt.Fprintf(&b, "%-13s %s\n", "go", info.GoVersion)
	return b.String()
}

// validate checks bank files as start-up would and prints, per bank, its
// name, question count and files, then every warning, then every error.
func validate(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flagSet("validate", "[--strict] [PATH...]",
		"Check bank files and folders exactly as start-up does: each file, the banks named by several files,\n"+
			"questions defined twice, the built-in bank's name. With no PATH, check what the bot would load\n"+
			"(QUIZHOST_QUESTIONS from the environment and .env, and the built-in bank).\n"+
			"Exit status: 0 when the banks load (warnings included), 1 on any error, 2 on bad usage.")
	strict := fs.Bool("strict", false, "fail (exit 1) on warnings too")
	paths, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	cat, ps, explicit, err := loadBanks(paths, getenv)
	if err != nil {
		return err
	}
	ps = append(ps, longReveals(cat, explicit)...)
	warns, errs := ps.Warnings(), ps.Errors()
	// A question an error names at its first line does not load (start-up
	// would refuse the whole set): it is not counted.
	failed := map[string]bool{}
	for _, p := range errs {
		failed[fmt.Sprintf("%s:%d", p.Path, p.Line)] = true
	}
	nb, nq := 0, 0
	for _, b := range cat.Banks() {
		if explicit && len(b.Files()) == 0 {
			continue // the built-in bank, when checking named files
		}
		n := 0
		for i := range b.Questions {
			if q := &b.Questions[i]; !failed[fmt.Sprintf("%s:%d", q.Path, q.Line)] {
				n++
			}
		}
		nb++
		nq += n
		fmt.Fprintf(stdout, "%s: %s %s\n", b.Name, plural(n, "question", "questions"), describeFiles(b.Files()))
	}
	for _, p := range append(warns, errs...) {
		fmt.Fprintln(stderr, p.Error())
	}
	// The last line is always the totals, with the verdict.
	fail := len(errs) > 0 || *strict && len(warns) > 0
	verdict := "ok"
	if fail {
		verdict = "failed"
	}
	summary := fmt.Sprintf("%s: %s, %s; %s, %s", verdict, plural(nb, "bank", "banks"), plural(nq, "question", "questions"),
		plural(len(errs), "error", "errors"), plural(len(warns), "warning", "warnings"))
	if *strict && len(warns) > 0 {
		summary += " (--strict: warnings fail too)"
	}
	fmt.Fprintln(stdout, summary)
	if fail {
		return exitCode{1, ""}
	}
	return nil
}

// longReveals warns of each question of cat's banks (the built-in bank
// too unless explicit) whose reveal takes more than one message.
func longReveals(cat *questions.Catalogue, explicit bool) questions.Problems {
	var ps questions.Problems
	for _, b := range cat.Banks() {
		if explicit && len(b.Files()) == 0 {
			continue
		}
		for i := range b.Questions {
			q := &b.Questions[i]
			if n := bot.RevealMessageCount(q); n > 1 {
				path := q.Path
				if path == "" {
					path = "(built in)"
				}
				ps = append(ps, questions.Problem{Path: path, Line: q.Line, Warning: true,
					Msg: fmt.Sprintf("question %d's reveal takes %d messages: the closed post, then %s replying to it (quizhost preview shows them)",
						q.Number, n, plural(n-1, "message", "messages"))})
			}
		}
	}
	return ps
}

// preview prints each question as it will be posted and as revealed.
func preview(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flagSet("preview", "[PATH...]",
		"Print each question of the bank files and folders as the bot will post it and then as revealed,\n"+
			"to proofread a bank without Discord. With no PATH, preview what the bot would load.\n"+
			"Problems are printed as \"quizhost validate\" prints them; exit 1 on any error.")
	paths, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	cat, ps, explicit, err := loadBanks(paths, getenv)
	if err != nil {
		return err
	}
	for _, b := range cat.Banks() {
		if explicit && len(b.Files()) == 0 {
			continue
		}
		for i := range b.Questions {
			q := &b.Questions[i]
			where := "built in"
			if q.Path != "" {
				where = fmt.Sprintf("%s:%d", q.Path, q.Line)
			}
			fmt.Fprintf(stdout, "######## %s (%s)\n%s\n", q.ID, where, bot.PreviewText(q))
		}
	}
	for _, p := range append(ps.Warnings(), ps.Errors()...) {
		fmt.Fprintln(stderr, p.Error())
	}
	if len(ps.Errors()) > 0 {
		return exitCode{1, ""}
	}
	return nil
}

// loadBanks loads paths as start-up would, or, with none, what the bot
// would load: QUIZHOST_QUESTIONS from the environment and .env. explicit
// says paths were given.
func loadBanks(paths []string, getenv func(string) string) (cat *questions.Catalogue, ps questions.Problems, explicit bool, err error) {
	if len(paths) == 0 {
		getenv, err = envWithDotenv(getenv, ".env")
		if err != nil {
			return nil, nil, false, err
		}
		paths = bankPaths(strings.TrimSpace(getenv("QUIZHOST_QUESTIONS")))
	} else {
		explicit = true
	}
	cat, ps = questions.Loader{Paths: paths}.Load()
	return cat, ps, explicit, nil
}

// describeFiles names the files a bank came from: all of them when few,
// else per folder.
func describeFiles(files []string) string {
	if len(files) == 0 {
		return "(built in)"
	}
	if len(files) <= 3 {
		return "from " + strings.Join(files, ", ")
	}
	var dirs []string
	count := map[string]int{}
	first := map[string]string{}
	for _, f := range files {
		d := filepath.Dir(f)
		if count[d] == 0 {
			dirs = append(dirs, d)
			first[d] = f
		}
		count[d]++
	}
	parts := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if count[d] == 1 {
			parts = append(parts, first[d])
		} else {
			parts = append(parts, fmt.Sprintf("%d in %s%c", count[d], d, filepath.Separator))
		}
	}
	return fmt.Sprintf("from %d files: %s", len(files), strings.Join(parts, ", "))
}

// backup copies the database of a stopped bot to a file, or to a
// timestamped file in a folder.
func backup(args []string, getenv func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("backup", "[--force] DEST",
		"Copy the database (QUIZHOST_DB, from the environment or .env; default "+defaultDB+") to the file DEST,\n"+
			"or, when DEST is a folder (or ends in /), to a new file in it named like the automatic backups,\n"+
			"quizhost-<UTC time>.db. The copy is checked before it takes its name. An existing file is only\n"+
			"replaced with --force. The bot must be stopped; while it runs, send it SIGUSR1 to write\n"+
			"QUIZHOST_DB.bak instead. Exit status: 0 when written, 1 when it fails, 2 on bad usage.")
	force := fs.Bool("force", false, "replace DEST if it is a file that exists")
	rest, err := parseFlags(fs, args, 1, stdout)
	if err != nil {
		return helpShown(err)
	}
	getenv, err = envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	path := strings.TrimSpace(getenv("QUIZHOST_DB"))
	if path == "" {
		path = defaultDB
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return exitCode{1, fmt.Sprintf("quizhost backup: no database at %s; set QUIZHOST_DB (environment or .env) to the file to copy", path)}
	} else if err != nil {
		return exitCode{1, fmt.Sprintf("quizhost backup: QUIZHOST_DB: %v", err)}
	}
	dest, err := backupDest(rest[0], time.Now())
	if err != nil {
		return exitCode{1, "quizhost backup: " + err.Error()}
	}
	if sameFile(dest, path) {
		return exitCode{2, fmt.Sprintf("quizhost backup: %s is the database itself (QUIZHOST_DB); name another DEST", dest)}
	}
	if _, err := os.Lstat(dest); err == nil && !*force {
		return exitCode{2, fmt.Sprintf("quizhost backup: %s exists; use --force to replace it, or name a folder to write a new timestamped file in", dest)}
	}
	db, err := storage.Open(context.Background(), path, storage.Options{Timeout: time.Second})
	if errors.Is(err, storage.ErrInUse) {
		return exitCode{1, "quizhost backup: the bot is running and holds " + path + "; send it SIGUSR1 to write " + path + ".bak instead"}
	}
	if err != nil {
		return exitCode{1, "quizhost backup: QUIZHOST_DB: " + err.Error()}
	}
	defer db.Close()
	if err := db.BackupFile(dest); err != nil {
		return exitCode{1, "quizhost " + err.Error()}
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", path, dest)
	return nil
}

// backupDest is the file `quizhost backup DEST` writes at now: DEST, or a
// file named like an automatic backup in DEST when it is a folder or ends
// in a path separator (a folder, created if missing). The folder of the
// file must exist.
func backupDest(dest string, now time.Time) (string, error) {
	folder := strings.HasSuffix(dest, "/") || strings.HasSuffix(dest, string(filepath.Separator))
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		folder = true
	} else if folder {
		if err := os.MkdirAll(dest, 0o700); err != nil {
			return "", err
		}
	}
	if folder {
		return filepath.Join(dest, upkeep.BackupName(now)), nil
	}
	if fi, err := os.Stat(filepath.Dir(dest)); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: the folder %s does not exist", dest, filepath.Dir(dest))
	}
	return dest, nil
}

// sameFile reports whether the paths a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// flagSet is a subcommand's flag set, its usage the command line and what
// the command does, then its flags.
func flagSet(name, args, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\n", strings.TrimSpace("quizhost "+name+" "+args), about)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(fs.Output(), "\nflags:")
			printFlags(fs)
		}
	}
	return fs
}

// printFlags is flag.PrintDefaults with the flags written as usage and
// README write them: --name (Go's flag package takes -name too).
func printFlags(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		switch f.DefValue {
		case "", "0", "false":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(fs.Output(), "%s\n        %s\n", line, usage)
	})
}

// usageOf is fs's usage text, without its final newline.
func usageOf(fs *flag.FlagSet) string {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.Usage()
	fs.SetOutput(out)
	return strings.TrimSuffix(b.String(), "\n")
}

// parseFlags parses a subcommand's arguments, flags before, between or
// after its operands ("--" ends the flags), and checks it has want
// operands (-1: any number). -h or --help prints the usage to stdout and
// returns flag.ErrHelp (see helpShown); a bad flag or the wrong number of
// operands is exit status 2 with the usage.
func parseFlags(fs *flag.FlagSet, args []string, want int, stdout io.Writer) ([]string, error) {
	var operands []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usageOf(fs))
			return nil, flag.ErrHelp
		}
		if err != nil {
			return nil, exitCode{2, fmt.Sprintf("quizhost %s: %v\n%s", fs.Name(), err, usageOf(fs))}
		}
		used := len(args) - fs.NArg()
		ended := used > 0 && args[used-1] == "--"
		args = fs.Args()
		if ended {
			operands = append(operands, args...)
			break
		}
		if len(args) == 0 {
			break
		}
		operands = append(operands, args[0])
		args = args[1:]
	}
	if want >= 0 && len(operands) != want {
		msg := fmt.Sprintf("want %s, got %d", plural(want, "argument", "arguments"), len(operands))
		if want == 0 {
			msg = fmt.Sprintf("unexpected argument %q", operands[0])
		}
		return nil, exitCode{2, fmt.Sprintf("quizhost %s: %s\n%s", fs.Name(), msg, usageOf(fs))}
	}
	return operands, nil
}

// helpShown turns the flag.ErrHelp of a -h into success.
func helpShown(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// plural is "1 question" or "2 questions".
func plural(n int, one, many string) string { return bot.Plural(n, one, many) }
