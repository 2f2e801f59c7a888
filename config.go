package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/joho/godotenv"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/admin"
	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/questions"
)

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
// real environment variables win over .env. A UTF-8 byte-order mark at the
// file's start (Notepad's "UTF-8 with BOM") is skipped. An error never
// quotes the file, which holds the bot token.
func envWithDotenv(getenv func(string) string, path string) (func(string) string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return getenv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	vals, err := godotenv.UnmarshalBytes(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if err != nil {
		return nil, fmt.Errorf("read %s: %s (lines must be NAME=value; the file's text is not shown, as it holds the bot token)", path, dotenvProblem(err))
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return vals[k]
	}, nil
}

// dotenvProblem is godotenv's error without the text of the file it
// quotes ("… near "<the rest of the file>"", "unterminated quoted value
// <the rest of the file>").
func dotenvProblem(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, " near "); i >= 0 {
		msg = msg[:i]
	}
	if strings.HasPrefix(msg, "unterminated quoted value") {
		msg = "a quoted value is never closed"
	}
	return msg
}

// bankPaths is the Loader's paths for QUIZHOST_QUESTIONS.
func bankPaths(env string) []string {
	if env == "" {
		return nil
	}
	return []string{env}
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
