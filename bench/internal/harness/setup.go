package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

// Token is the bot token the benchmarks' server accepts.
const Token = "bench-token"

// BenchBank is a bank of one single-answer question ("Bench Bank"), in
// exam text.
const BenchBank = `Bench Bank Question 1
Select 1Which is a prime number?
- A
Four
- B
Five
- C
Six
- D
Nine
Show answer and explanation
Correct answer: B
Explanation
Five has no divisors but one and itself.
`

// Binaries builds quizhost and the ceiling bot into dir.
func Binaries(ctx context.Context, dir string) (quizhost, ceiling string, err error) {
	if quizhost, err = Build(ctx, dir, "github.com/quizhost/quizhost", "quizhost"); err != nil {
		return "", "", err
	}
	if ceiling, err = Build(ctx, dir, "github.com/quizhost/quizhost/bench/ceiling", "ceiling"); err != nil {
		return "", "", err
	}
	return quizhost, ceiling, nil
}

// Bot is how to start a bot against srv: its binary and environment.
type Bot struct {
	Name string // for messages and file names
	Bin  string
	Env  []string
	// Ready reports whether the bot is ready; nil means it has registered
	// its commands (a process that does not run shard 0 never does: give
	// it its shards' sessions, Server.ShardConnected).
	Ready func() bool
}

// AdminDiscord is a fake Discord on 127.0.0.1 of the default guild whose
// one member is Admin, with Token: what most benchmarks start bots
// against.
func AdminDiscord() (*fakediscord.Server, error) {
	g := fakediscord.DefaultGuild()
	g.Members = []fakediscord.Member{Admin}
	return fakediscord.Listen("127.0.0.1:0", fakediscord.Options{Token: Token, Guilds: []fakediscord.Guild{g}})
}

// QuizhostEnv is quizhost's environment against srv, with its database at
// db and the bank file banks ("" for the built-in bank only). Automatic
// backups are off: a backup of a seeded database at start would run
// during the measurement.
func QuizhostEnv(srv *fakediscord.Server, db, banks string) []string {
	env := []string{"DISCORD_TOKEN=" + Token, "DISCORD_API_BASE=" + srv.URL(), "QUIZHOST_DB=" + db, "QUIZHOST_BACKUP_EVERY=0"}
	if banks != "" {
		env = append(env, "QUIZHOST_QUESTIONS="+banks)
	}
	return env
}

// CeilingReplyEnv, set to "reveal", makes the ceiling reply as quizhost
// does by default (the grade with the reveal embed) instead of one line.
const CeilingReplyEnv = "QUIZHOST_CEILING_REPLY"

// CeilingEnv is the ceiling bot's environment against srv, with the bank
// file banks ("" for the built-in bank only).
func CeilingEnv(srv *fakediscord.Server, banks string) []string {
	env := []string{"DISCORD_TOKEN=" + Token, "DISCORD_API_BASE=" + srv.URL()}
	if banks != "" {
		env = append(env, "QUIZHOST_QUESTIONS="+banks)
	}
	return env
}

// Launch starts b in dir (created if needed; its log is dir/<name>.log)
// and waits, up to ctx, until it is ready (b.Ready; by default, until it
// has registered its commands: connected and ready).
func Launch(ctx context.Context, srv *fakediscord.Server, b Bot, dir string) (*Child, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("launch %s: %w", b.Name, err)
	}
	ready := b.Ready
	if ready == nil {
		before := CommandSyncs(srv)
		ready = func() bool { return CommandSyncs(srv) > before }
	}
	c, err := Start(b.Bin, dir, filepath.Join(dir, b.Name+".log"), b.Env)
	if err != nil {
		return nil, err
	}
	exited := false
	err = Wait(ctx, srv, b.Name+" to be ready", func() bool {
		select {
		case <-c.Exited():
			exited = true
			return true
		default:
		}
		return ready()
	})
	if exited {
		return nil, fmt.Errorf("launch %s: exited at start\n%s", b.Name, c.LogTail(2000))
	}
	if err != nil {
		_ = c.Stop(0)
		return nil, fmt.Errorf("launch %s: %w\n%s", b.Name, err, c.LogTail(2000))
	}
	return c, nil
}

// Workdir makes a temporary directory for a benchmark's binaries,
// databases and logs, with the benchmark's bank file in it. remove deletes
// the directory unless keep is set (then its path is printed to out).
func Workdir(prefix string, keep bool, out io.Writer) (dir, bank string, remove func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	if keep {
		fmt.Fprintln(out, "files in", dir)
		remove = func() {}
	}
	bank = filepath.Join(dir, "bench-bank.txt")
	if err := os.WriteFile(bank, []byte(BenchBank), 0o600); err != nil {
		remove()
		return "", "", nil, err
	}
	return dir, bank, remove, nil
}

// CopyFile copies src to dst, a new file (mode 0600): a run's own copy of a
// cached database.
func CopyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}

// WorkingCopy copies the cached database file into dir (created if need
// be) as quizhost.db, a run's own to change, and returns its path and
// size.
func WorkingCopy(cached, dir string) (string, int64, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, err
	}
	db := filepath.Join(dir, "quizhost.db")
	if err := CopyFile(db, cached); err != nil {
		return "", 0, err
	}
	st, err := os.Stat(db)
	if err != nil {
		return "", 0, err
	}
	return db, st.Size(), nil
}
