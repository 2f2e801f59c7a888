package storage

// This generator writes testdata/v7: a database file of schema version 7
// written by the build before version 8 (its own API, not an imitation),
// and what that build's readers return on it, for TestMigrateV7File. It
// lives in testdata so that this build does not compile it: to run it,
// copy it and ../../mockscenario_test.go into storage/ of a checkout of a
// schema-7 build (main at cbbb6ff, the last before schema 8, with issue
// 21's mock exams, drills and exam settings) and run
//
//	QUIZHOST_V7_OUT=/tmp/v7 go test -count=1 -run TestGenerateV7 ./storage
//
// then copy /tmp/v7/* here. It plays the scenario of migrate8_test.go
// (playRich, results: copied verbatim) and writes
//
//	rich.db            the file after the scenario
//	results.txt.gz     results() on it
//	regraded.txt.gz    the regrades of TestMigrateV7File and results() after
//	rebuilt.txt.gz     results() after RebuildScores of each guild, then
//	shard-<i>.txt.gz   results() on each file of a reshard of rich.db in two
//
// and, for the mock exam scenario (mockscenario_test.go, in a file of its
// own),
//
//	mocks.db              the file after playMocks
//	mocks-results.txt.gz  mockResults() on it
//	mocks-regraded.txt.gz regradeMockScenario and mockResults() after
//	mocks-rebuilt.txt.gz  mockResults() after RebuildMemory and
//	                      RebuildScores of the guild
//
// (gzip rich.db and mocks.db before committing them).

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestGenerateV7(t *testing.T) {
	out := os.Getenv("QUIZHOST_V7_OUT")
	if out == "" {
		t.Skip("QUIZHOST_V7_OUT not set")
	}
	if SchemaVersion() != 7 {
		t.Fatalf("this build writes schema version %d, want 7", SchemaVersion())
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rich.db")
	db := openPath(t, path)
	sc := playRich(t, db, apiWriter(t, db))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	copyV7File(t, path, filepath.Join(out, "rich.db"))

	db = openPath(t, path)
	writeGz(t, filepath.Join(out, "results.txt.gz"), results(t, db, sc))
	writeGz(t, filepath.Join(out, "regraded.txt.gz"), regradeV7Scenario(t, db, sc)+results(t, db, sc))
	for _, g := range sc.guilds {
		if err := db.RebuildScores(t.Context(), g); err != nil {
			t.Fatal(err)
		}
	}
	writeGz(t, filepath.Join(out, "rebuilt.txt.gz"), results(t, db, sc))
	db.Close()

	orig := filepath.Join(dir, "orig.db")
	copyV7File(t, filepath.Join(out, "rich.db"), orig)
	shards := filepath.Join(dir, "shards")
	if _, err := Reshard(t.Context(), 2, shards, []string{orig}); err != nil {
		t.Fatal(err)
	}
	for i, p := range outputs(shards, 2) {
		s := openPath(t, p)
		writeGz(t, filepath.Join(out, fmt.Sprintf("shard-%d.txt.gz", i)), results(t, s, sc))
		s.Close()
	}

	mpath := filepath.Join(dir, "mocks.db")
	db = openPath(t, mpath)
	msc := playMocks(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	copyV7File(t, mpath, filepath.Join(out, "mocks.db"))
	db = openPath(t, mpath)
	writeGz(t, filepath.Join(out, "mocks-results.txt.gz"), mockResults(t, db, msc))
	writeGz(t, filepath.Join(out, "mocks-regraded.txt.gz"), regradeMockScenario(t, db)+mockResults(t, db, msc))
	if err := db.RebuildMemory(t.Context(), mockGuild, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildScores(t.Context(), mockGuild); err != nil {
		t.Fatal(err)
	}
	writeGz(t, filepath.Join(out, "mocks-rebuilt.txt.gz"), mockResults(t, db, msc))
	db.Close()
}

// regradeV7Scenario regrades the first eight questions of the scenario in
// the first guild, each to a key of one letter, and describes what each
// regrade returned.
func regradeV7Scenario(t *testing.T, db *DB, sc richScenario) string {
	var b strings.Builder
	for i, qid := range sc.questions[:8] {
		var first questions.Post
		for _, p := range sc.posts {
			if p.QuestionID == qid && p.GuildID == guild {
				first = p
				break
			}
		}
		if first.ID == 0 {
			continue
		}
		key := []string{questions.Letter(i % first.OptionCount)}
		r, err := db.Regrade(t.Context(), guild, qid, key, first.OptionCount)
		fmt.Fprintf(&b, "regrade of %q to %v: %+v, %v\n", qid, key, r, err)
	}
	return b.String()
}

func copyV7File(t *testing.T, from, to string) {
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeGz(t *testing.T, path, text string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if _, err := io.WriteString(zw, text); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// What follows is copied from migrate8_test.go, with main's ReviewID
// type.

// richScenario is a history of two guilds for the migration tests: posts
// over seven weeks (in Europe/Paris across the change to summer time, and
// in UTC), with banks, tags, two correct letters, close times, one without
// a question ID; members answering at random times, some answers delivered
// late, many members past the accuracy threshold; reviews answered, one
// waiting and one expired; a member reset half-way; old periods pruned
// half-way.
type richScenario struct {
	guilds    []questions.GuildID
	posts     []questions.Post
	reviews   []questions.ReviewID
	members   []questions.UserID
	questions []string // the question IDs asked
	times     []time.Time
}

// scenarioWriter records the scenario's answers: as version 7 did, or
// through this build's API.
type scenarioWriter struct {
	answer      func(p questions.Post, user questions.UserID, at time.Time, choice []string) bool // false: refused
	startReview func(r questions.Review) questions.Review
	review      func(r questions.Review, at time.Time, choice []string)
	resetMember func(g questions.GuildID, user questions.UserID)
}

func apiWriter(t *testing.T, db *DB) scenarioWriter {
	return scenarioWriter{
		answer: func(p questions.Post, user questions.UserID, at time.Time, choice []string) bool {
			_, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: p.GuildID, UserID: user,
				InteractionID: uint64(user)<<20 + uint64(p.ID), Choice: choice, At: at})
			if err != nil && !isRefusal(err) {
				t.Fatal(err)
			}
			return err == nil
		},
		startReview: func(r questions.Review) questions.Review {
			rv, err := db.StartReview(t.Context(), r)
			if err != nil {
				t.Fatal(err)
			}
			return rv
		},
		review: func(r questions.Review, at time.Time, choice []string) {
			if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: r.ID.Post(), GuildID: r.GuildID, UserID: r.UserID,
				InteractionID: uint64(r.ID) * 7, Choice: choice, At: at}); err != nil {
				t.Fatal(err)
			}
		},
		resetMember: func(g questions.GuildID, user questions.UserID) {
			if err := db.ResetMember(t.Context(), g, user); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// playRich plays the scenario into db with w; the same seed gives the same
// history, posts and IDs.
func playRich(t *testing.T, db *DB, w scenarioWriter) richScenario {
	t.Helper()
	const other questions.GuildID = 3000
	sc := richScenario{guilds: []questions.GuildID{guild, other}}
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 23))
	for u := questions.UserID(1); u <= 24; u++ {
		sc.members = append(sc.members, u)
	}
	start := time.Date(2025, 2, 1, 8, 0, 0, 0, time.UTC) // seven weeks to 2025-03-22, across the change to summer time
	for i := range 40 {
		g := questions.GuildID(guild)
		if i%5 == 4 {
			g = other
		}
		opened := start.Add(time.Duration(i) * 30 * time.Hour)
		p := questions.Post{GuildID: g, ChannelID: 7, QuestionID: fmt.Sprintf("Net Basics#%d", i%30), Bank: []string{"Net Basics", "Sec", ""}[i%3],
			Tags: [][]string{nil, {"ip"}, {"ip", "dns", "ip", ""}}[i%3], Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: opened}
		switch i % 4 {
		case 1:
			p.Correct, p.OptionCount, p.SelectCount = []string{"A", "C"}, 5, 2
		case 2:
			p.ClosesAt = opened.Add(20 * time.Hour)
		}
		if i == 13 {
			p.QuestionID = ""
		}
		var err error
		if p, err = db.CreatePost(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		sc.posts = append(sc.posts, p)
		if p.QuestionID != "" && !slices.Contains(sc.questions, p.QuestionID) {
			sc.questions = append(sc.questions, p.QuestionID)
		}
		for _, u := range r.Perm(len(sc.members)) {
			if r.IntN(5) == 0 {
				continue
			}
			user := sc.members[u]
			at := opened.Add(time.Duration(r.IntN(19*60)) * time.Minute)
			if r.IntN(12) == 0 {
				at = at.Add(-50 * time.Hour) // delivered late
			}
			choice := slices.Clone(p.Correct)
			if r.IntN(3) == 0 {
				choice = []string{questions.Letter(r.IntN(p.OptionCount))}
				if p.SelectCount == 2 {
					choice = []string{"A", "B"}
				}
			}
			w.answer(p, user, at, choice)
			if r.IntN(15) == 0 {
				w.answer(p, user, at, choice) // refused: answered
			}
		}
		if p.ClosesAt.IsZero() || i%3 == 0 {
			closeAt := opened.Add(21 * time.Hour)
			if _, _, err := db.ClosePost(t.Context(), p.ID, closeAt); err != nil {
				t.Fatal(err)
			}
		}
		// Reviews of the question once closed, by a few members.
		if p.QuestionID != "" && i%3 == 0 {
			for _, u := range []questions.UserID{sc.members[i%24], sc.members[(i+7)%24]} {
				rv := w.startReview(questions.Review{GuildID: g, UserID: u, QuestionID: p.QuestionID, Bank: p.Bank, Tags: p.Tags,
					Correct: p.Correct, OptionCount: p.OptionCount, SelectCount: p.SelectCount, OpenedAt: opened.Add(22 * time.Hour)})
				sc.reviews = append(sc.reviews, rv.ID)
				choice := slices.Clone(p.Correct)
				if u%2 == 0 {
					choice = []string{questions.Letter((questions.LetterIndex(p.Correct[0]) + 1) % p.OptionCount)}
					if p.SelectCount == 2 {
						choice = []string{"A", "B"}
					}
				}
				w.review(rv, opened.Add(22*time.Hour+time.Minute), choice)
			}
		}
		switch i {
		case 20:
			w.resetMember(guild, 3)
		case 25:
			// Day, week and month scores that ended more than a day before.
			if _, err := db.PruneScores(t.Context(), opened, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	last := sc.posts[len(sc.posts)-1]
	// Two reviews waiting for their answer, one expired.
	for _, at := range []time.Time{last.OpenedAt.Add(-3 * time.Hour), last.OpenedAt.Add(30 * time.Hour)} {
		rv := w.startReview(questions.Review{GuildID: guild, UserID: 5, QuestionID: sc.posts[0].QuestionID, Correct: []string{"B"},
			OptionCount: 4, SelectCount: 1, OpenedAt: at})
		sc.reviews = append(sc.reviews, rv.ID)
	}
	end := last.OpenedAt.Add(30*time.Hour + 30*time.Minute)
	for _, d := range []int{0, 1, 8, 45} {
		sc.times = append(sc.times, end.AddDate(0, 0, -d))
	}
	return sc
}

// results describes what every reader returns for the scenario: every
// leaderboard (whole, and pages), every standing and member's stats at
// several times, active streaks, players, memories and review queues,
// posts, answers and reviews.
func results(t *testing.T, db *DB, sc richScenario) string {
	t.Helper()
	var b strings.Builder
	put := func(what string, v any, err error) {
		if err != nil {
			fmt.Fprintf(&b, "%s: error %v\n", what, err)
			return
		}
		fmt.Fprintf(&b, "%s: %+v\n", what, v)
	}
	for _, g := range sc.guilds {
		for _, at := range sc.times {
			when := fmt.Sprintf("guild %d at %s", g, at.Format(time.RFC3339))
			for _, per := range []questions.Period{questions.PeriodAll, questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth} {
				for _, rk := range []questions.Ranking{questions.ByPoints, questions.ByAccuracy} {
					lb, err := db.Leaderboard(g, per, rk, at, 0, 1000)
					put(fmt.Sprintf("%s: %s by %s", when, per, rk), lb, err)
					for _, off := range []int{1, 5, 17} {
						lb, err := db.Leaderboard(g, per, rk, at, off, 4)
						put(fmt.Sprintf("%s: %s by %s from %d", when, per, rk, off), lb, err)
					}
					for _, u := range sc.members {
						st, err := db.Standing(g, u, per, rk, at)
						put(fmt.Sprintf("%s: standing of %d, %s by %s", when, u, per, rk), st, err)
					}
				}
			}
			for _, u := range sc.members {
				ms, err := db.MemberStats(g, u, at)
				put(fmt.Sprintf("%s: stats of %d", when, u), ms, err)
				q, err := db.ReviewQueue(g, u, at, nil, questions.ExamPlan{})
				put(fmt.Sprintf("%s: review queue of %d", when, u), q, err)
			}
			st, err := db.ActiveStreaks(g, at, 0)
			put(when+": streaks", st, err)
			pl, err := db.Players(g, at)
			put(when+": players", pl, err)
		}
		for _, u := range sc.members {
			mems, err := db.Memories(g, u)
			put(fmt.Sprintf("guild %d: memories of %d", g, u), mems, err)
		}
		for _, id := range sc.reviews {
			rv, err := db.Review(g, id)
			put(fmt.Sprintf("guild %d: review %d", g, id), rv, err)
		}
	}
	for _, p := range sc.posts {
		got, err := db.Post(p.ID)
		put(fmt.Sprintf("post %d", p.ID), got, err)
		as, err := db.Answers(p.ID)
		put(fmt.Sprintf("answers to %d", p.ID), as, err)
		for _, u := range sc.members {
			a, err := db.Answer(p.ID, u)
			put(fmt.Sprintf("answer of %d to %d", u, p.ID), a, err)
		}
	}
	return b.String()
}

// isRefusal reports whether err is a domain refusal (nothing written).
func isRefusal(err error) bool {
	for _, e := range []error{questions.ErrNotFound, questions.ErrWrongGuild, questions.ErrAlreadyAnswered, questions.ErrClosed,
		questions.ErrBadChoice, questions.ErrNotYours, questions.ErrQuestionOpen} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
