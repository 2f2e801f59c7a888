package storage

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// crashEnv names the database file the child process writes to; set only
// in the child.
const crashEnv = "QUIZHOST_STORAGE_CRASH_DB"

const (
	crashPosts   = 4
	crashWriters = 16
)

// TestCrashChild is the child of TestCrashKeepsAcknowledgedAnswers: it
// records answers as fast as it can from many goroutines and prints
// "ack <post> <user> <interaction> <letter>" after each one RecordAnswer
// acknowledged, until it is killed.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("only run as the child of TestCrashKeepsAcknowledgedAnswers")
	}
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	posts, err := db.OpenPosts()
	if err != nil || len(posts) == 0 {
		fmt.Println("open posts:", len(posts), err)
		os.Exit(2)
	}
	var out sync.Mutex
	base := uint64(time.Now().UnixNano()) // fresh users in every run
	// The parent kills us long before this; the deadline only keeps an
	// orphaned child from running for ever.
	deadline := time.Now().Add(2 * time.Minute)
	var wg sync.WaitGroup
	for w := range crashWriters {
		wg.Go(func() {
			for i := uint64(0); time.Now().Before(deadline); i++ {
				p := posts[i%uint64(len(posts))]
				user := base + uint64(w)<<32 + i
				letter := questions.Letter(int(user % 4))
				a, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: p.GuildID, UserID: questions.UserID(user),
					InteractionID: user ^ 0xfeed, Choice: []string{letter}})
				if err != nil {
					fmt.Println("error:", err)
					os.Exit(2)
				}
				out.Lock()
				// Unbuffered: once written, the line is in the pipe even if we die next.
				fmt.Fprintf(os.Stdout, "ack %d %d %d %s\n", a.PostID, a.UserID, a.InteractionID, a.Choice[0])
				out.Unlock()
				if i%7 == 0 { // a redelivery, which must change nothing
					if _, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: p.GuildID, UserID: questions.UserID(user),
						InteractionID: user ^ 0xfeed, Choice: []string{letter}}); !errors.Is(err, questions.ErrAlreadyAnswered) {
						fmt.Println("redelivery:", err)
						os.Exit(2)
					}
				}
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

type ack struct {
	post, user, interaction uint64
	letter                  string
}

// TestCrashKeepsAcknowledgedAnswers kills a writing child process with
// SIGKILL at random moments and checks, after each kill, that every
// acknowledged answer is stored, nothing is counted twice, scores equal a
// recount from the stored answers and the file passes tx.Check.
func TestCrashKeepsAcknowledgedAnswers(t *testing.T) {
	t.Parallel() // its children mostly wait on fsync: beside the CPU-bound tests
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "quiz.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range crashPosts {
		if _, err := db.CreatePost(t.Context(), questions.Post{GuildID: guild, ChannelID: 1, QuestionID: fmt.Sprint("c#", i),
			Bank: "crash", Tags: []string{"t"}, Correct: []string{"B"}, OptionCount: 4, SelectCount: 1}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	var acks []ack
	for round := range 3 {
		// A kill after a hundred or two acks meets commits in flight as one
		// after thousands would: with crashWriters writing, a group commit
		// is under way almost all the time.
		killAfter := 50 + r.IntN(250)
		start := time.Now()
		got := runCrashChild(t, path, killAfter, time.Duration(r.IntN(5))*time.Millisecond)
		mid := time.Now()
		acks = append(acks, got...)
		verifyAfterCrash(t, path, acks)
		t.Logf("round %d: killed after %d acks (%d read); child %v, verify %v", round, killAfter, len(got),
			mid.Sub(start).Round(time.Millisecond), time.Since(mid).Round(time.Millisecond))
	}
}

// runCrashChild runs the child until it has printed killAfter acks, waits
// `extra`, kills it with SIGKILL and returns every ack it printed.
func runCrashChild(t *testing.T, path string, killAfter int, extra time.Duration) []ack {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acks []ack
	var killMu sync.Mutex
	killed := false
	kill := func() {
		killMu.Lock()
		defer killMu.Unlock()
		if !killed {
			killed = true
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Error(err)
			}
		}
	}
	// On a loaded machine the child may be slow to reach killAfter acks:
	// then it dies after ten seconds instead, mid-stream all the same.
	timer := time.AfterFunc(10*time.Second, kill)
	defer timer.Stop()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var a ack
		if _, err := fmt.Sscanf(sc.Text(), "ack %d %d %d %s", &a.post, &a.user, &a.interaction, &a.letter); err != nil {
			t.Logf("child: %s", sc.Text())
			continue
		}
		acks = append(acks, a)
		if len(acks) == killAfter {
			time.AfterFunc(extra, kill)
		}
	}
	err = cmd.Wait()
	killMu.Lock()
	defer killMu.Unlock()
	if !killed {
		t.Fatalf("child ended before it was killed (%d acks): %v", len(acks), err)
	}
	return acks
}

func verifyAfterCrash(t *testing.T, path string, acks []ack) {
	t.Helper()
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("consistency check after kill: %v", err)
	}
	for _, a := range acks {
		got, err := db.Answer(questions.PostID(a.post), questions.UserID(a.user))
		if err != nil {
			t.Fatalf("acknowledged answer %+v lost: %v", a, err)
		}
		if got.InteractionID != a.interaction || !slices.Equal(got.Choice, []string{a.letter}) {
			t.Fatalf("acknowledged answer %+v: stored %+v", a, got)
		}
	}
	seen := map[[2]uint64]bool{}
	for _, a := range acks {
		if seen[[2]uint64{a.post, a.user}] {
			t.Fatalf("answer %+v acknowledged twice", a)
		}
		seen[[2]uint64{a.post, a.user}] = true
	}
	posts, err := db.OpenPostsIn(guild, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, p := range posts {
		answers, err := db.Answers(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored += len(answers)
		tallies, right := make([]int, p.OptionCount), 0
		for _, a := range answers {
			tallies[questions.LetterIndex(a.Choice[0])]++
			if a.Right {
				right++
			}
		}
		if p.Answers != len(answers) || p.Right != right || !slices.Equal(p.Tallies, tallies) {
			t.Errorf("post %d: counts %d answers, %d right, tallies %v; stored answers give %d, %d, %v",
				p.ID, p.Answers, p.Right, p.Tallies, len(answers), right, tallies)
		}
	}
	if stored < len(acks) {
		t.Errorf("got %d stored answers, want at least the %d acknowledged", stored, len(acks))
	}
	lb, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, time.Now(), 0, 1)
	if err != nil || lb.Total != stored {
		t.Errorf("members ranked all time: got %d, %v; want %d (one per stored answer)", lb.Total, err, stored)
	}
	assertRebuildEqual(t, db, guild)
}
