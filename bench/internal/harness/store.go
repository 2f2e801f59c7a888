package harness

// This file is the over-the-wire benchmarks' only use of storage's API
// (checking what a burst stored, building the large guild): keep it small,
// it follows storage's signatures. bench/growth, a benchmark of storage
// itself, drives storage directly.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// CheckGuilds opens the database at path (the bot must have exited) and
// checks that it holds one open post for each guild of users (guild ID →
// the members who answered there) with exactly one answer from each of
// them, and no post of any other guild.
func CheckGuilds(path string, users map[string][]string) error {
	db, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		return fmt.Errorf("check stored answers: %w", err)
	}
	defer db.Close()
	posts, err := db.OpenPosts()
	if err != nil {
		return fmt.Errorf("check stored answers: %w", err)
	}
	seenGuild := map[string]bool{}
	for _, p := range posts {
		g := fmt.Sprint(p.GuildID)
		want, ok := users[g]
		if !ok {
			return fmt.Errorf("check stored answers: %s holds a post of guild %s, which none of its bots served", path, g)
		}
		if seenGuild[g] {
			return fmt.Errorf("check stored answers: guild %s has two open posts", g)
		}
		seenGuild[g] = true
		answers, err := db.Answers(p.ID)
		if err != nil {
			return fmt.Errorf("check stored answers: %w", err)
		}
		wantSet := make(map[string]bool, len(want))
		for _, u := range want {
			wantSet[u] = true
		}
		seen := map[questions.UserID]bool{}
		for _, a := range answers {
			if seen[a.UserID] || !wantSet[fmt.Sprint(a.UserID)] {
				return fmt.Errorf("check stored answers: guild %s: member %d stored twice or never answered there", g, a.UserID)
			}
			seen[a.UserID] = true
		}
		if len(answers) != len(want) || p.Answers != len(want) {
			return fmt.Errorf("check stored answers: guild %s: got %d answers stored (post counts %d), want %d", g, len(answers), p.Answers, len(want))
		}
	}
	if len(seenGuild) != len(users) {
		return fmt.Errorf("check stored answers: %s: posts of %d guilds, want %d", path, len(seenGuild), len(users))
	}
	return nil
}

// SchemaVersion is the schema version of databases this build writes: a
// cached database is keyed by it.
func SchemaVersion() uint64 { return storage.SchemaVersion() }

// Guild is a large guild for BuildGuild: Members members (ids FirstUser,
// FirstUser+1, …) answer Answers questions in all, round-robin over Posts
// posts, spread over Span before End; about two thirds are right.
type Guild struct {
	ID               questions.GuildID
	Channel          questions.ChannelID
	Members, Answers int
	Posts            int
	FirstUser        questions.UserID
	End              time.Time
	Span             time.Duration
	Writers          int                 // concurrent RecordAnswer calls
	Progress         func(done, all int) // called every 100,000 answers
	// Bank names the posts' bank ("Bench" when empty) and QuestionID
	// their questions (post i asks "bench#<i>" when nil): one question
	// per post.
	Bank       string
	QuestionID func(i int) string
}

// BuildGuild creates the database at path (which must not exist) and
// fills it through storage's own API, as the bot would have: posts, then
// every answer with RecordAnswer (durable commits, shared by Writers
// concurrent members), then each post closed and marked revealed so that
// the bot starts with nothing left to do.
func BuildGuild(path string, g Guild) error {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("build guild: %s exists", path)
	}
	db, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		return fmt.Errorf("build guild: %w", err)
	}
	defer db.Close()
	start := g.End.Add(-g.Span)
	bank, qid := g.Bank, g.QuestionID
	if bank == "" {
		bank = "Bench"
	}
	if qid == nil {
		qid = func(i int) string { return fmt.Sprintf("bench#%d", i) }
	}
	posts := make([]questions.Post, g.Posts)
	for i := range posts {
		p := questions.Post{GuildID: g.ID, ChannelID: g.Channel, MessageID: questions.MessageID(1 + i), QuestionID: qid(i),
			Bank: bank, Tags: []string{fmt.Sprintf("topic%d", i%5)}, Correct: []string{"B"}, OptionCount: 4, SelectCount: 1,
			OpenedAt: start}
		if posts[i], err = db.CreatePost(context.Background(), p); err != nil {
			return fmt.Errorf("build guild: %w", err)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	step := g.Span / time.Duration(max(g.Answers, 1))
	for range max(g.Writers, 1) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= g.Answers {
					return
				}
				user := i % g.Members
				round := i / g.Members
				p := posts[(round*97+user*13)%g.Posts]
				choice := "B" // the right answer, else one of the four at random
				if h := (uint64(i) * 0x9e3779b97f4a7c15) >> 60; h >= 10 {
					choice = questions.Letter(int(h % 4))
				}
				_, err := db.RecordAnswer(context.Background(), questions.Answer{PostID: p.ID, GuildID: g.ID, UserID: g.FirstUser + questions.UserID(user),
					InteractionID: uint64(i + 1), Choice: []string{choice}, At: start.Add(time.Duration(i) * step)})
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					next.Store(int64(g.Answers))
					return
				}
				if (i+1)%100_000 == 0 && g.Progress != nil {
					g.Progress(i+1, g.Answers)
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("build guild: %w", firstErr)
	}
	for _, p := range posts {
		if _, _, err := db.ClosePost(context.Background(), p.ID, g.End); err != nil {
			return fmt.Errorf("build guild: %w", err)
		}
		if err := db.MarkRevealed(context.Background(), p.ID); err != nil {
			return fmt.Errorf("build guild: %w", err)
		}
	}
	return nil
}

// The large guild that bench/scale and bench/growth measure: LargeMembers
// members answering LargeAnswers questions in all over 30 days, round-robin
// over LargePosts posts.
const (
	LargeMembers = 100_000
	LargeAnswers = 1_000_000
	LargePosts   = 1_000
)

// largeFixtureVersion names the cached guilds: change it when
// BuildGuild's parameters or what it writes change.
const largeFixtureVersion = 1

// CachedGuild returns the path of the large guild's database (see
// LargeMembers), building it first through BuildGuild when it is not
// cached yet in the OS temp directory (keyed by its fixture version and the
// schema version). Callers work on a copy.
func CachedGuild(out io.Writer) (string, error) {
	return CachedGuildOf(out, "guild-100k", LargeMembers, LargeAnswers, LargePosts)
}

// CachedGuildOf is CachedGuild for a guild of members members answering
// answers questions over posts posts, cached under name.
func CachedGuildOf(out io.Writer, name string, members, answers, posts int) (string, error) {
	return cachedGuild(out, name, Guild{Members: members, Answers: answers, Posts: posts})
}

// InsightsQuestions is the number of questions of the insights guild (see
// CachedInsightsGuild) and of the bank InsightsBank writes.
const InsightsQuestions = 10_000

// CachedInsightsGuild is CachedGuild with one post per question of a bank
// of InsightsQuestions questions ("Bench#1" … of bank "Bench", as
// InsightsBank writes them): LargeMembers members give LargeAnswers
// answers, 100 to each question, and storage keeps the questions'
// statistics as they arrive (what /quizadmin insights reads).
func CachedInsightsGuild(out io.Writer) (string, error) {
	return cachedGuild(out, "guild-100k-q10k", Guild{Members: LargeMembers, Answers: LargeAnswers, Posts: InsightsQuestions,
		Bank: "Bench", QuestionID: func(i int) string { return fmt.Sprintf("Bench#%d", i+1) }})
}

// InsightsBank is the bank of CachedInsightsGuild's questions in exam
// text: InsightsQuestions questions of four options, the key B.
func InsightsBank() string {
	var b strings.Builder
	for i := 1; i <= InsightsQuestions; i++ {
		fmt.Fprintf(&b, "Bench Question %d\nSelect 1Which of these is number %d?\n- A\nOne\n- B\nTwo\n- C\nThree\n- D\nFour\n"+
			"Show answer and explanation\nCorrect answer: B\nExplanation\nQuestion %d of the insights benchmark.\n\n", i, i, i)
	}
	return b.String()
}

// cachedGuild is CachedGuildOf for g (its members, answers, posts, bank
// and questions; the rest is set here).
func cachedGuild(out io.Writer, name string, g Guild) (string, error) {
	members, answers := g.Members, g.Answers
	dir := filepath.Join(os.TempDir(), "quizhost-bench-cache")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-v%d-schema%d.db", name, largeFixtureVersion, SchemaVersion()))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	fmt.Fprintf(out, "building %s (once: %d members, %d answers through RecordAnswer)…\n", path, members, answers)
	tmp := path + ".building"
	os.Remove(tmp)
	start := time.Now()
	g.ID, g.Channel, g.FirstUser, g.End, g.Span, g.Writers = 8001, 6001, FirstMember, time.Now(), 30*24*time.Hour, 1000
	g.Progress = func(done, all int) {
		fmt.Fprintf(os.Stderr, "  %d of %d answers, %v\n", done, all, time.Since(start).Round(time.Second))
	}
	err := BuildGuild(tmp, g)
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "built in %v\n", time.Since(start).Round(time.Second))
	return path, nil
}
