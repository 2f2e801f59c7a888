package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

func TestOpsConfig(t *testing.T) {
	base := map[string]string{"DISCORD_TOKEN": "x"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	bad := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"admin on every interface without a token", with("QUIZHOST_ADMIN_ADDR", "0.0.0.0:9090"),
			[]string{`QUIZHOST_ADMIN_ADDR "0.0.0.0:9090" is not a loopback address`, "set QUIZHOST_ADMIN_TOKEN"}},
		{"admin address without a port", with("QUIZHOST_ADMIN_ADDR", "localhost"), []string{"want host:port"}},
		{"short admin token", with("QUIZHOST_ADMIN_ADDR", "127.0.0.1:9090", "QUIZHOST_ADMIN_TOKEN", "abc"), []string{"at least 16 characters"}},
		{"backup interval negative", with("QUIZHOST_BACKUP_EVERY", "-6h"), []string{`QUIZHOST_BACKUP_EVERY "-6h"`, "0 to turn automatic backups off"}},
		{"backup interval not a duration", with("QUIZHOST_BACKUP_DIR", "b", "QUIZHOST_BACKUP_EVERY", "often"), []string{`QUIZHOST_BACKUP_EVERY "often"`}},
		{"backup interval too short", with("QUIZHOST_BACKUP_DIR", "b", "QUIZHOST_BACKUP_EVERY", "30s"), []string{"at least 1m"}},
		{"keep no backups", with("QUIZHOST_BACKUP_DIR", "b", "QUIZHOST_BACKUP_KEEP", "0"), []string{`QUIZHOST_BACKUP_KEEP "0"`}},
		{"score retention not a duration", with("QUIZHOST_KEEP_SCORES", "forever"), []string{`QUIZHOST_KEEP_SCORES "forever"`, "off"}},
		{"every problem at once", with("QUIZHOST_ADMIN_ADDR", ":9090", "QUIZHOST_KEEP_SCORES", "-3d", "QUIZHOST_LOG_LEVEL", "loud"),
			[]string{"QUIZHOST_LOG_LEVEL", "QUIZHOST_ADMIN_ADDR", "QUIZHOST_KEEP_SCORES"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			err := run(context.Background(), nil, envMap(tt.env), io.Discard, io.Discard)
			var ec exitCode
			if !errors.As(err, &ec) || ec.code != 2 {
				t.Fatalf("run = %v, want exit 2", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(ec.msg, w) {
					t.Errorf("message %q lacks %q", ec.msg, w)
				}
			}
		})
	}

	good := []struct {
		name string
		env  map[string]string
		want config
	}{
		{"defaults: backups next to the database, pruning", base,
			config{backupDir: "backups", backupEvery: 24 * time.Hour, backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"empty variables are the defaults", with("QUIZHOST_DB", "", "QUIZHOST_BACKUP_DIR", " ", "QUIZHOST_BACKUP_EVERY", "", "QUIZHOST_BACKUP_KEEP", "", "QUIZHOST_KEEP_SCORES", ""),
			config{backupDir: "backups", backupEvery: 24 * time.Hour, backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"backups next to a database in another folder", with("QUIZHOST_DB", "/srv/quiz/q.db"),
			config{backupDir: "/srv/quiz/backups", backupEvery: 24 * time.Hour, backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"backups off", with("QUIZHOST_BACKUP_EVERY", "0"), config{backupDir: "backups", backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"backups off, in words", with("QUIZHOST_BACKUP_EVERY", "Off", "QUIZHOST_BACKUP_DIR", "/b"), config{backupDir: "/b", backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"backups off, in days", with("QUIZHOST_BACKUP_EVERY", "0d"), config{backupDir: "backups", backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"backup interval only", with("QUIZHOST_BACKUP_EVERY", "6h"), config{backupDir: "backups", backupEvery: 6 * time.Hour, backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"loopback admin without a token", with("QUIZHOST_ADMIN_ADDR", "127.0.0.1:9090"),
			config{adminAddr: "127.0.0.1:9090", backupDir: "backups", backupEvery: 24 * time.Hour, backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"open admin with a token", with("QUIZHOST_ADMIN_ADDR", ":9090", "QUIZHOST_ADMIN_TOKEN", "0123456789abcdef"),
			config{adminAddr: ":9090", adminToken: "0123456789abcdef", backupDir: "backups", backupEvery: 24 * time.Hour, backupKeep: 7, keepScores: 90 * 24 * time.Hour}},
		{"backups in days, pruning off", with("QUIZHOST_BACKUP_DIR", "/b", "QUIZHOST_BACKUP_EVERY", "1d", "QUIZHOST_BACKUP_KEEP", "30", "QUIZHOST_KEEP_SCORES", "OFF"),
			config{backupDir: "/b", backupEvery: 24 * time.Hour, backupKeep: 30, keepScores: -1}},
		{"prune as soon as a period ends", with("QUIZHOST_KEEP_SCORES", "0"), config{backupDir: "backups", backupEvery: 24 * time.Hour, backupKeep: 7}},
		{"retention as a Go duration", with("QUIZHOST_KEEP_SCORES", "36h"), config{backupDir: "backups", backupEvery: 24 * time.Hour, backupKeep: 7, keepScores: 36 * time.Hour}},
	}
	for _, tt := range good {
		t.Run(tt.name, func(t *testing.T) {
			c, err := readConfig(envMap(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			got := config{adminAddr: c.adminAddr, adminToken: c.adminToken, backupDir: c.backupDir,
				backupEvery: c.backupEvery, backupKeep: c.backupKeep, keepScores: c.keepScores}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// logWaiter collects a process's log and lets a test wait for a line.
type logWaiter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogWaiter() *logWaiter { return &logWaiter{changed: make(chan struct{})} }

func (l *logWaiter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.changed)
	l.changed = make(chan struct{})
	return l.buf.Write(p)
}

func (l *logWaiter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// wait waits up to timeout for a log line matching re and returns its
// submatches.
func (l *logWaiter) wait(t *testing.T, re string, timeout time.Duration) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		m, ch := rx.FindStringSubmatch(l.buf.String()), l.changed
		l.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no log line matching %q within %v; log:\n%s", re, timeout, l.String())
		}
	}
}

// botProcess is quizhost's run, in this process, against a test server.
type botProcess struct {
	log    *logWaiter
	cancel context.CancelFunc
	done   chan error
}

// startBot runs quizhost (run with no command) with env plus the test
// server's address and token, in dir, and waits until it has registered
// its commands (it is connected).
func startBot(t *testing.T, srv *discordtest.Server, env map[string]string) *botProcess {
	t.Helper()
	all := map[string]string{"DISCORD_TOKEN": "secret-token-123", "DISCORD_API_BASE": srv.URL()}
	for k, v := range env {
		all[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &botProcess{log: newLogWaiter(), cancel: cancel, done: make(chan error, 1)}
	seen := len(srv.Requests())
	go func() { p.done <- run(ctx, nil, envMap(all), io.Discard, p.log) }()
	t.Cleanup(func() { p.stop(t) })
	srv.WaitRequest(t, func(r discordtest.Request) bool {
		return r.Index >= seen && r.Method == "PUT" && r.Status == 200
	}, 10*time.Second)
	return p
}

// httptestListener holds a port on 127.0.0.1 until the test ends and
// returns its address.
func httptestListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// stop stops quizhost as SIGTERM does and checks it ended cleanly.
func (p *botProcess) stop(t *testing.T) {
	t.Helper()
	if p.cancel == nil {
		return
	}
	p.cancel()
	p.cancel = nil
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("quizhost returned %v, want nil; log:\n%s", err, p.log.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("quizhost still running 10 s after stop; log:\n%s", p.log.String())
	}
}

// adminGet sends GET path to the admin listener, with token when not "".
func adminGet(t *testing.T, base, path, token string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

var alice = discordtest.Member{ID: "7001", Username: "alice"}

// answerPosted answers the question last posted in the channel as m, with
// its first option, and waits for the reply.
func answerPosted(t *testing.T, srv *discordtest.Server, m discordtest.Member) {
	t.Helper()
	msgs := srv.Messages("6001")
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].Components) == 0 {
			continue
		}
		row, ok := msgs[i].Components[0].(*discordgo.ActionsRow)
		if !ok || len(row.Components) == 0 {
			continue
		}
		menu, ok := row.Components[0].(*discordgo.SelectMenu)
		if !ok {
			continue
		}
		values := []string{}
		for _, o := range menu.Options[:max(1, *menu.MinValues)] {
			values = append(values, o.Value)
		}
		p := srv.Component("8001", "6001", m, msgs[i].ID, menu.CustomID, values...)
		if r := p.WaitResponse(t, 10*time.Second); r.Type != discordgo.InteractionResponseChannelMessageWithSource {
			t.Fatalf("answer: response type %d, want a reply", r.Type)
		}
		return
	}
	t.Fatal("no question with a select menu in the channel")
}

// askQuestion posts a question with /quiz ask as alice.
func askQuestion(t *testing.T, srv *discordtest.Server) {
	t.Helper()
	p := srv.SlashCommand("8001", "6001", alice, "quiz", discordtest.Option{Name: "ask", Type: 1})
	content := p.WaitResponse(t, 10*time.Second).Content
	if content == "" { // deferred: the reply is the original message
		content = p.WaitOriginal(t, 10*time.Second, nil).Content
	}
	if !strings.Contains(content, "Posted question") {
		t.Fatalf("/quiz ask replied %q, want \"Posted question\"", content)
	}
}

// TestAdminListener runs the bot with the admin listener on 127.0.0.1
// behind a token and uses every endpoint over HTTP: health, metrics (the
// open question counted), and a backup downloaded, opened and checked.
func TestAdminListener(t *testing.T) {
	const token = "an-admin-token-of-32-characters!"
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	dir := t.TempDir()
	t.Chdir(dir)
	bot := startBot(t, srv, map[string]string{"QUIZHOST_DB": filepath.Join(dir, "q.db"),
		"QUIZHOST_ADMIN_ADDR": "127.0.0.1:0", "QUIZHOST_ADMIN_TOKEN": token})
	base := "http://" + bot.log.wait(t, `msg="admin listener" addr=(\S+) token_required=true`, 5*time.Second)[1]

	for _, path := range []string{"/healthz", "/metrics", "/backup"} {
		if code, h, _ := adminGet(t, base, path, ""); code != 401 || h.Get("WWW-Authenticate") == "" {
			t.Errorf("GET %s without the token: got %d, want 401 with WWW-Authenticate", path, code)
		}
		if code, _, _ := adminGet(t, base, path, token+"x"); code != 401 {
			t.Errorf("GET %s with a wrong token: got %d, want 401", path, code)
		}
	}

	code, _, body := adminGet(t, base, "/healthz", token)
	var h struct {
		OK                bool
		Gateway, Database string
	}
	if err := json.Unmarshal(body, &h); err != nil || code != 200 || !h.OK || h.Gateway != "connected" || h.Database != "writable" {
		t.Errorf("GET /healthz: got %d %s, want 200 with the gateway connected and the database writable", code, body)
	}

	askQuestion(t, srv)
	code, _, body = adminGet(t, base, "/metrics", token)
	for _, w := range []string{"\nquizhost_open_questions 1\n", "\nquizhost_answers_total 0\n", "\ngo_goroutines "} {
		if code != 200 || !strings.Contains(string(body), w) {
			t.Errorf("GET /metrics: status %d, body lacks %q", code, w)
		}
	}
	// A member answers: the answer and its commit are counted by the bot
	// and storage before the reply goes out; the transport counted the
	// gateway lookup before the bot could take any interaction.
	answerPosted(t, srv, discordtest.Member{ID: "7002", Username: "bob"})
	code, _, body = adminGet(t, base, "/metrics", token)
	for _, w := range []string{"\nquizhost_answers_total 1\n", "\nquizhost_answer_latency_seconds_count 1\n",
		"\nquizhost_storage_answers_per_commit_sum 1\n", "\nquizhost_discord_rest_requests_total{route=\"GET /gateway\"} 1\n"} {
		if code != 200 || !strings.Contains(string(body), w) {
			t.Errorf("GET /metrics after an answer: status %d, body lacks %q:\n%s", code, w, body)
		}
	}

	code, hdr, body := adminGet(t, base, "/backup", token)
	if code != 200 || hdr.Get("Content-Length") != fmt.Sprint(len(body)) ||
		!regexp.MustCompile(`^attachment; filename="quizhost-\d{8}T\d{6}Z\.db"$`).MatchString(hdr.Get("Content-Disposition")) {
		t.Fatalf("GET /backup: status %d, %d bytes, headers %v", code, len(body), hdr)
	}
	copyPath := filepath.Join(dir, "downloaded.db")
	if err := os.WriteFile(copyPath, body, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(t.Context(), copyPath, storage.Options{})
	if err != nil {
		t.Fatalf("open the downloaded backup: %v", err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Errorf("check the downloaded backup: %v", err)
	}
	if posts, err := db.OpenPosts(); err != nil || len(posts) != 1 {
		t.Errorf("open posts in the downloaded backup: got %d, %v; want the one asked", len(posts), err)
	}

	bot.stop(t)
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the admin listener still answers after quizhost stopped")
	}
}

// TestAdminAddressInUse: an admin address that cannot be bound stops
// start-up with the reason, before Discord is contacted.
func TestAdminAddressInUse(t *testing.T) {
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	busy := httptestListener(t)
	dir := t.TempDir()
	t.Chdir(dir)
	err := run(context.Background(), nil, envMap(map[string]string{"DISCORD_TOKEN": "secret-token-123",
		"DISCORD_API_BASE": srv.URL(), "QUIZHOST_ADMIN_ADDR": busy}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "admin listener") || !strings.Contains(err.Error(), busy) {
		t.Errorf("run = %v, want an admin listener error naming %s", err, busy)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached Discord, want none", n)
	}
}

// TestAutomaticBackupRestore follows README's restore procedure with an
// automatic backup: the bot backs up at start, a question is asked after
// the backup, the bot is stopped, the backup is copied over the database,
// and the bot starts on it: the data of the backup is there, the later
// question is not.
func TestAutomaticBackupRestore(t *testing.T) {
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	dir := t.TempDir()
	t.Chdir(dir)
	dbPath, backupDir := filepath.Join(dir, "quizhost.db"), filepath.Join(dir, "backups")
	db, err := storage.Open(t.Context(), dbPath, storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: 8001, TimeZone: "Europe/Berlin"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	env := map[string]string{"QUIZHOST_DB": dbPath, "QUIZHOST_BACKUP_DIR": backupDir, "QUIZHOST_BACKUP_EVERY": "6h", "QUIZHOST_BACKUP_KEEP": "2"}

	bot := startBot(t, srv, env)
	backup := bot.log.wait(t, `msg="automatic backup written" dest=(\S+)`, 10*time.Second)[1]
	if filepath.Dir(backup) != backupDir {
		t.Errorf("backup written to %s, want it in %s", backup, backupDir)
	}
	askQuestion(t, srv) // after the backup
	bot.stop(t)

	// README, Operations, Restore: stop the bot, move the old file aside,
	// copy the backup in its place, start it.
	if err := os.Rename(dbPath, dbPath+".damaged"); err != nil {
		t.Fatal(err)
	}
	copyFile(t, backup, dbPath)
	bot = startBot(t, srv, env)
	bot.stop(t)
	if strings.Contains(bot.log.String(), "automatic backup written") {
		t.Errorf("a restart %v after a backup took another one (every 6h); log:\n%s", time.Second, bot.log.String())
	}

	db, err = storage.Open(t.Context(), dbPath, storage.Options{})
	if err != nil {
		t.Fatalf("open the restored database: %v", err)
	}
	defer db.Close()
	if s, err := db.Settings(8001); err != nil || s.TimeZone != "Europe/Berlin" {
		t.Errorf("settings after the restore: got %+v, %v; want the backup's Europe/Berlin", s, err)
	}
	if posts, err := db.OpenPosts(); err != nil || len(posts) != 0 {
		t.Errorf("open posts after the restore: got %d, %v; want none (the question came after the backup)", len(posts), err)
	}
}

// TestPruneAtStart: quizhost prunes at start the periods that ended more
// than QUIZHOST_KEEP_SCORES ago, and the leaderboards members read still
// count every answer (all time: both; this month: the recent one).
func TestPruneAtStart(t *testing.T) {
	srv := discordtest.Start(t, discordtest.Options{Token: "secret-token-123"})
	dir := t.TempDir()
	t.Chdir(dir)
	dbPath := filepath.Join(dir, "quizhost.db")
	db, err := storage.Open(t.Context(), dbPath, storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, at := range []time.Time{now.AddDate(0, 0, -200), now.Add(-time.Minute)} {
		p, err := db.CreatePost(t.Context(), questions.Post{GuildID: 8001, ChannelID: 6001, QuestionID: fmt.Sprintf("old#%d", i), Bank: "b",
			Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: at.Add(-time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.RecordAnswer(t.Context(), questions.Answer{GuildID: 8001, PostID: p.ID, UserID: 7001, InteractionID: uint64(100 + i),
			Choice: []string{"B"}, At: at}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.ClosePost(t.Context(), p.ID, at); err != nil {
			t.Fatal(err)
		}
		if err := db.MarkRevealed(t.Context(), p.ID); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	bot := startBot(t, srv, map[string]string{"QUIZHOST_DB": dbPath, "QUIZHOST_KEEP_SCORES": "30d"})
	bot.log.wait(t, `msg="old scores pruned" periods=3 guilds=1`, 10*time.Second)
	for _, tc := range []struct{ period, want string }{{"all", "100% of 2"}, {"month", "100% of 1"}} {
		p := srv.SlashCommand("8001", "6001", alice, "quiz", discordtest.Option{Name: "leaderboard", Type: 1,
			Options: []discordtest.Option{{Name: "period", Type: 3, Value: tc.period}}})
		r := p.WaitResponse(t, 10*time.Second)
		if len(r.Embeds) == 0 || !strings.Contains(r.Embeds[0].Description, "<@7001>") || !strings.Contains(r.Embeds[0].Description, tc.want) {
			t.Errorf("/quiz leaderboard %s: got %+v, want alice with %q", tc.period, r.Embeds, tc.want)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedDatabaseNamesNewestBackup: the restore steps for a damaged
// file name the newest automatic backup, in QUIZHOST_BACKUP_DIR or in the
// default folder next to the database; with none they say so.
func TestDamagedDatabaseNamesNewestBackup(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		folder string // where the backups are, under the test's folder
		want   string // in the message; "" for none of the hint lines
	}{
		{"QUIZHOST_BACKUP_DIR", map[string]string{"QUIZHOST_BACKUP_DIR": "saved"}, "saved",
			"cp saved/quizhost-20250301T060000Z.db quizhost.db"},
		{"the default folder", nil, "backups", "cp backups/quizhost-20250301T060000Z.db quizhost.db"},
		{"the default folder of a database elsewhere", map[string]string{"QUIZHOST_DB": "data/quizhost.db"}, "data/backups",
			"cp data/backups/quizhost-20250301T060000Z.db data/quizhost.db"},
		{"no backup yet", nil, "", "The backups folder backups (QUIZHOST_BACKUP_DIR) holds no automatic backup."},
		{"backups off", map[string]string{"QUIZHOST_BACKUP_EVERY": "0"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if tt.folder != "" {
				os.MkdirAll(tt.folder, 0o700)
				for _, name := range []string{"quizhost-20250101T000000Z.db", "quizhost-20250301T060000Z.db", "notes.txt"} {
					os.WriteFile(filepath.Join(tt.folder, name), []byte("x"), 0o600)
				}
			}
			env := map[string]string{"DISCORD_TOKEN": "x", "DISCORD_API_BASE": "http://127.0.0.1:1"}
			for k, v := range tt.env {
				env[k] = v
			}
			db := cmp.Or(env["QUIZHOST_DB"], "quizhost.db")
			os.MkdirAll(filepath.Dir(db), 0o700)
			os.WriteFile(db, nil, 0o600) // empty: damaged
			err := run(context.Background(), nil, envMap(env), io.Discard, io.Discard)
			var ec exitCode
			if !errors.As(err, &ec) || ec.code != 1 || !strings.Contains(ec.msg, "mv "+db) {
				t.Fatalf("run = %v, want exit 1 with the restore steps", err)
			}
			if tt.want == "" && (strings.Contains(ec.msg, "automatic backup")) {
				t.Errorf("message names automatic backups, which are off:\n%s", ec.msg)
			}
			if !strings.Contains(ec.msg, tt.want) {
				t.Errorf("message lacks %q:\n%s", tt.want, ec.msg)
			}
		})
	}
}
