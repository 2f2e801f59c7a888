package storage

// The mock exam scenario: what issue 21 stores beside the answers (mock
// exams ended, timed out and open, a drill, an admin's exam settings, and
// a post closed before its ClosesAt), played through the API. The schema 7
// build (main before schema 8) played it to write testdata/v7/mocks.db.gz
// and what its readers returned (see testdata/v7/generate_test.go, which
// runs this file in that build); TestMigrateV7Mocks compares this build
// with them, on that file migrated and on a file it writes itself. It
// uses only API both builds have.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

const mockGuild questions.GuildID = 2000

// mockBase is when the mock scenario starts.
var mockBase = time.Date(2025, 4, 1, 9, 0, 0, 0, time.UTC)

// mockScenario is what playMocks made: its posts and attempts.
type mockScenario struct {
	posts []questions.Post
	mocks map[questions.UserID][]questions.MockID
}

// playMocks plays the mock scenario into db.
func playMocks(t *testing.T, db *DB) mockScenario {
	t.Helper()
	ctx := t.Context()
	sc := mockScenario{mocks: map[questions.UserID][]questions.MockID{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.SetBankExam(ctx, mockGuild, "Net", questions.Exam{Questions: 4, Minutes: 30,
		Pass: questions.PassMark{Score: 700, Min: 100, Max: 1000}, Domains: []questions.Domain{{Name: "ip", Weight: 60}, {Name: "dns", Weight: 40}}}))
	must(db.SetBankExam(ctx, mockGuild, "Sec", questions.Exam{Questions: 2, Pass: questions.PassMark{Percent: 80}}))

	// Net#1 closed an hour and a half before its ClosesAt (a miss moves
	// to the actual close), Net#2 at its ClosesAt, Net#6 with a miss and
	// no ClosesAt.
	post := func(qid string, opened, closesAt, closed time.Time, answers map[questions.UserID][]string) {
		t.Helper()
		p, err := db.CreatePost(ctx, questions.Post{GuildID: mockGuild, ChannelID: 9, QuestionID: qid, Bank: "Net", Tags: []string{"ip"},
			Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: opened, ClosesAt: closesAt})
		must(err)
		for _, u := range slices.Sorted(func(yield func(questions.UserID) bool) {
			for u := range answers {
				if !yield(u) {
					return
				}
			}
		}) {
			_, err := db.RecordAnswer(ctx, questions.Answer{PostID: p.ID, GuildID: mockGuild, UserID: u, InteractionID: uint64(u)<<32 | uint64(p.ID),
				Choice: answers[u], At: opened.Add(time.Duration(u) * 7 * time.Minute)})
			must(err)
		}
		p, _, err = db.ClosePost(ctx, p.ID, closed)
		must(err)
		sc.posts = append(sc.posts, p)
	}
	post("Net#1", mockBase, mockBase.Add(2*time.Hour), mockBase.Add(30*time.Minute), map[questions.UserID][]string{1: {"C"}, 2: {"B"}, 3: {"A"}})
	post("Net#2", mockBase.Add(time.Hour), mockBase.Add(2*time.Hour), mockBase.Add(2*time.Hour), map[questions.UserID][]string{1: {"B"}, 2: {"D"}})
	post("Net#6", mockBase.Add(90*time.Minute), time.Time{}, mockBase.Add(5*time.Hour), map[questions.UserID][]string{2: {"A"}})

	start := func(user questions.UserID, at time.Time, items ...questions.MockItem) questions.Mock {
		t.Helper()
		m, err := db.StartMock(ctx, questions.Mock{GuildID: mockGuild, UserID: user, Bank: "Net", Pass: questions.PassMark{Score: 700, Min: 100, Max: 1000},
			Domains: []string{"ip", "dns"}, StartedAt: at, Deadline: at.Add(30 * time.Minute), Items: items})
		must(err)
		sc.mocks[user] = append(sc.mocks[user], m.ID)
		return m
	}
	item := func(qid, domain string, options int, key ...string) questions.MockItem {
		return questions.MockItem{QuestionID: qid, Domain: domain, Correct: key, OptionCount: options}
	}
	update := func(m questions.Mock, fn func(*questions.Mock) error) {
		t.Helper()
		_, err := db.UpdateMock(ctx, mockGuild, m.UserID, m.ID, fn)
		must(err)
	}

	// Member 1 finishes an attempt: Net#1 wrong, Net#2 right, Net#3 (only
	// ever asked in mocks) right, Net#4 flagged and unanswered.
	m := start(1, mockBase.Add(3*time.Hour), item("Net#1", "ip", 4, "B"), item("Net#2", "ip", 4, "B"), item("Net#3", "dns", 2, "A"), item("Net#4", "dns", 4, "A", "C"))
	at := mockBase.Add(3*time.Hour + 5*time.Minute)
	update(m, func(m *questions.Mock) error {
		return cmpErr(m.Answer(0, []string{"C"}, at), m.Answer(1, []string{"D"}, at), m.Answer(2, []string{"A"}, at), m.ToggleFlag(3, at))
	})
	update(m, func(m *questions.Mock) error { return m.Answer(1, []string{"B"}, at.Add(time.Minute)) }) // changed to right
	update(m, func(m *questions.Mock) error { m.Finish(at.Add(10 * time.Minute)); return nil })

	// A review of Net#1 the next day, then member 2's attempt that runs
	// out of time (its result not sent yet: it stays due).
	rv, err := db.StartReview(ctx, questions.Review{GuildID: mockGuild, UserID: 1, QuestionID: "Net#1", Bank: "Net", Tags: []string{"ip"},
		Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: mockBase.Add(24 * time.Hour)})
	must(err)
	_, err = db.RecordReview(ctx, questions.Answer{PostID: questions.PostID(rv.ID), GuildID: mockGuild, UserID: 1, InteractionID: 77,
		Choice: []string{"B"}, At: mockBase.Add(24*time.Hour + time.Minute)})
	must(err)
	m2 := start(2, mockBase.Add(25*time.Hour), item("Net#3", "dns", 2, "A"), item("Net#1", "ip", 4, "B"), item("Net#6", "ip", 4, "B"))
	at = mockBase.Add(25*time.Hour + time.Minute)
	update(m2, func(m *questions.Mock) error {
		return cmpErr(m.Answer(0, []string{"B"}, at), m.Answer(1, []string{"B"}, at), m.Answer(2, []string{"B"}, at))
	})
	update(m2, func(m *questions.Mock) error { m.Finish(m.Deadline.Add(time.Minute)); return nil })

	// Member 1's second attempt, finished; member 3's, still open.
	m3 := start(1, mockBase.Add(48*time.Hour), item("Net#3", "dns", 2, "A"), item("Net#5", "ip", 4, "D"))
	at = mockBase.Add(48*time.Hour + 3*time.Minute)
	update(m3, func(m *questions.Mock) error {
		return cmpErr(m.Answer(0, []string{"B"}, at), m.Answer(1, []string{"D"}, at))
	})
	update(m3, func(m *questions.Mock) error { m.Finish(at.Add(time.Minute)); m.Seen = true; return nil })
	m4 := start(3, mockBase.Add(49*time.Hour), item("Net#2", "ip", 4, "B"))
	update(m4, func(m *questions.Mock) error {
		return m.Answer(0, []string{"B"}, mockBase.Add(49*time.Hour+time.Minute))
	})

	must(db.SaveDrill(ctx, questions.Drill{GuildID: mockGuild, UserID: 1, Topic: "ip", Questions: []string{"Net#1", "Net#3", "Net#5"},
		Shown: 1, StartedAt: mockBase.Add(50 * time.Hour)}))
	must(db.SaveDrill(ctx, questions.Drill{GuildID: mockGuild, UserID: 2, Questions: []string{"Net#6"}, StartedAt: mockBase.Add(51 * time.Hour)}))
	return sc
}

// cmpErr is the first error of errs.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// mockResults describes what the readers return for the mock scenario:
// memories, review queues, attempts, the due index, drills, exam
// settings, posts and answers.
func mockResults(t *testing.T, db *DB, sc mockScenario) string {
	t.Helper()
	var b strings.Builder
	put := func(what string, v any, err error) { fmt.Fprintf(&b, "%s: %+v, %v\n", what, v, err) }
	for _, u := range []questions.UserID{1, 2, 3} {
		mems, err := db.Memories(mockGuild, u)
		put(fmt.Sprintf("memories of %d", u), mems, err)
		for _, at := range []time.Time{mockBase.Add(40 * time.Minute), mockBase.Add(26 * time.Hour), mockBase.Add(10 * 24 * time.Hour)} {
			q, err := db.ReviewQueue(mockGuild, u, at, nil, questions.ExamPlan{})
			put(fmt.Sprintf("review queue of %d at %s", u, at.Format(time.RFC3339)), q, err)
		}
		latest, err := db.LatestMock(mockGuild, u)
		put(fmt.Sprintf("latest mock of %d", u), latest, err)
		ended, err := db.Mocks(mockGuild, u, 10)
		put(fmt.Sprintf("mocks of %d", u), ended, err)
		for _, id := range sc.mocks[u] {
			m, err := db.Mock(mockGuild, u, id)
			put(fmt.Sprintf("mock %d of %d", id, u), m, err)
			put(fmt.Sprintf("result of mock %d of %d", id, u), m.Result(), nil)
		}
		d, err := db.Drill(mockGuild, u)
		if d.Review != 0 {
			t.Errorf("drill of %d: Review %d, want none in a drill stored before it was kept", u, d.Review)
		}
		// As the schema 7 build printed it, before Drill had Review.
		type drill7 struct {
			GuildID   questions.GuildID
			UserID    questions.UserID
			Topic     string
			Questions []string
			Shown     int
			StartedAt time.Time
		}
		put(fmt.Sprintf("drill of %d", u), drill7{d.GuildID, d.UserID, d.Topic, d.Questions, d.Shown, d.StartedAt}, err)
		gm, err := db.GroupMemories(mockGuild, []questions.UserID{u}, []string{"Net#1", "Net#3"})
		put(fmt.Sprintf("group memories of %d", u), gm, err)
	}
	due, err := db.MocksDue()
	put("mocks due", due, err)
	exams, err := db.BankExams(mockGuild)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range exams {
			if !yield(k) {
				return
			}
		}
	}) {
		put("exam settings of "+name, exams[name], nil)
	}
	put("exam settings", len(exams), err)
	for _, p := range sc.posts {
		got, err := db.Post(p.ID)
		put(fmt.Sprintf("post %d", p.ID), got, err)
		as, err := db.Answers(p.ID)
		put(fmt.Sprintf("answers to post %d", p.ID), as, err)
	}
	board, err := db.Leaderboard(mockGuild, questions.PeriodAll, questions.ByPoints, mockBase.Add(60*time.Hour), 0, 10)
	put("all-time board", board, err)
	return b.String()
}

// regradeMockScenario regrades Net#3 (only in mock exams) to B and Net#1
// (posts, a review and mocks) to C, and describes what each returned.
func regradeMockScenario(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, r := range []struct {
		qid     string
		key     []string
		options int
	}{{"Net#3", []string{"B"}, 2}, {"Net#1", []string{"C"}, 4}, {"Net#2", []string{"B"}, 5}} {
		got, err := db.Regrade(t.Context(), mockGuild, r.qid, r.key, r.options)
		fmt.Fprintf(&b, "regrade of %q to %v of %d: %+v, %v\n", r.qid, r.key, r.options, got, err)
	}
	return b.String()
}

// TestMigrateV7Mocks migrates testdata/v7/mocks.db, written by the schema 7
// build with mock exams, a drill, exam settings and an early close, and
// compares every reader with what that build returned on it: after the
// migration, after regrades of questions asked in mock exams, and after a
// rebuild of the memories and scores. The same scenario played into a new
// file of this build must read the same too: mock answers count into the
// answer records' cards, the early close moves its misses, regrades and
// rebuilds replay the mock answers.
func TestMigrateV7Mocks(t *testing.T) {
	t.Parallel()
	want := func(file string) string { return readGz(t, filepath.Join("testdata/v7", file)) }
	check := func(t *testing.T, db *DB, sc mockScenario) {
		t.Helper()
		same := func(what, got, file string) {
			t.Helper()
			if d := firstDiff(got, want(file)); d != "" {
				t.Errorf("%s reads differently from the schema 7 build's %s: %s", what, file, d)
			}
		}
		same("the file", mockResults(t, db, sc), "mocks-results.txt.gz")
		same("after the regrades", regradeMockScenario(t, db)+mockResults(t, db, sc), "mocks-regraded.txt.gz")
		if err := db.RebuildMemory(t.Context(), mockGuild, nil); err != nil {
			t.Fatal(err)
		}
		if err := db.RebuildScores(t.Context(), mockGuild); err != nil {
			t.Fatal(err)
		}
		same("after a rebuild", mockResults(t, db, sc), "mocks-rebuilt.txt.gz")
	}
	t.Run("migrated", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "mocks.db")
		if err := os.WriteFile(path, []byte(want("mocks.db.gz")), 0o600); err != nil {
			t.Fatal(err)
		}
		if v := fileSchema(t, path); v != 7 {
			t.Fatalf("testdata/v7/mocks.db is at schema version %d, want 7", v)
		}
		scratch, _ := newDB(t)
		sc := playMocks(t, scratch) // the scenario's IDs
		scratch.Close()
		db := openPath(t, path)
		if v := dbSchema(db); v != SchemaVersion() {
			t.Fatalf("schema after migration: %d, want %d", v, SchemaVersion())
		}
		check(t, db, sc)
	})
	t.Run("new file", func(t *testing.T) {
		t.Parallel()
		db, _ := newDB(t)
		check(t, db, playMocks(t, db))
	})
}
