package storage

import (
	"errors"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// newMock is an attempt of member user at three questions (q#1 key B of 4
// options, q#2 key AC of 4, q#3 key A of 2), 30 minutes from t0.
func newMock(user questions.UserID) questions.Mock {
	return questions.Mock{GuildID: guild, UserID: user, Bank: "bank", Pass: questions.PassMark{Score: 700, Min: 100, Max: 1000},
		Domains: []string{"Net"}, StartedAt: t0, Deadline: t0.Add(30 * time.Minute),
		Items: []questions.MockItem{
			{QuestionID: "q#1", Domain: "Net", Correct: []string{"B"}, OptionCount: 4},
			{QuestionID: "q#2", Domain: "Net", Correct: []string{"A", "C"}, OptionCount: 4},
			{QuestionID: "q#3", Correct: []string{"A"}, OptionCount: 2},
		}}
}

func TestMockFlow(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	ctx := t.Context()
	m, err := db.StartMock(ctx, newMock(1))
	if err != nil || m.ID != 1 {
		t.Fatalf("StartMock: got %+v, %v; want attempt 1", m, err)
	}
	if open, err := db.StartMock(ctx, newMock(1)); !errors.Is(err, questions.ErrMockOpen) || open.ID != m.ID {
		t.Fatalf("a second attempt while one is open: got %+v, %v; want ErrMockOpen with the open one", open, err)
	}
	other, err := db.StartMock(ctx, newMock(2))
	if err != nil || other.ID != 2 {
		t.Fatalf("another member's attempt: got %+v, %v", other, err)
	}
	at := t0.Add(5 * time.Minute)
	m, err = db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error {
		if err := m.Answer(0, []string{"B"}, at); err != nil {
			return err
		}
		if err := m.Answer(1, []string{"C", "B"}, at); err != nil { // wrong, changed below
			return err
		}
		return m.ToggleFlag(2, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err = db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error { return m.Answer(1, []string{"A", "C"}, at) })
	if err != nil || !slices.Equal(m.Items[1].Choice, []string{"A", "C"}) || !m.Items[2].Flagged || m.Current != 1 {
		t.Fatalf("after answers: got %+v, %v", m, err)
	}
	if _, err := db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error { return m.Answer(2, []string{"C"}, at) }); !errors.Is(err, questions.ErrBadChoice) {
		t.Errorf("a letter the question does not offer: got %v, want ErrBadChoice", err)
	}
	if _, err := db.UpdateMock(ctx, guild, 2, m.ID, func(*questions.Mock) error { return nil }); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("another member's attempt by its number: got %v, want ErrNotFound", err)
	}
	if due, err := db.MocksDue(); err != nil || len(due) != 2 || !due[0].Deadline.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("MocksDue: got %+v, %v; want both open attempts", due, err)
	}
	if mems, _ := db.Memories(guild, 1); len(mems) != 0 {
		t.Fatalf("memories while the attempt is open: got %d, want none (nothing is graded until the end)", len(mems))
	}

	end := t0.Add(12 * time.Minute)
	m, err = db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error { m.Finish(end); m.Seen = true; return nil })
	if err != nil || m.Open() || m.TimedOut {
		t.Fatalf("Finish: got %+v, %v", m, err)
	}
	mems, err := db.Memories(guild, 1)
	if err != nil || len(mems) != 2 {
		t.Fatalf("memories after the end: got %+v, %v; want the two answered questions", mems, err)
	}
	for _, mem := range mems {
		if len(mem.History) != 1 || !mem.History[0].Review || !mem.History[0].At.Equal(end) || !mem.History[0].Right {
			t.Errorf("memory of %s: got %+v, want one right review answer at the end", mem.QuestionID, mem.History)
		}
	}
	if due, _ := db.MocksDue(); len(due) != 1 || due[0].UserID != 2 {
		t.Errorf("MocksDue after member 1 finished: got %+v, want member 2's only", due)
	}
	if _, err := db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error { m.Items[0].Flagged = true; return nil }); !errors.Is(err, errMockChanged) {
		t.Errorf("a flag after the end: got %v, want errMockChanged", err)
	}
	if _, err := db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error { m.Items[0].Correct = []string{"A"}; return nil }); !errors.Is(err, errMockChanged) {
		t.Errorf("a key changed: got %v, want errMockChanged", err)
	}
	st, _ := db.MemberStats(guild, 1, end)
	if st.All.Points != 0 || st.All.Answered != 0 || st.All.CurrentStreak != 0 {
		t.Errorf("stats after a mock: got %+v, want no points, answers or streak", st.All)
	}

	// Member 2's attempt runs out of time: it stays due until its result
	// is sent.
	late := t0.Add(time.Hour)
	m2, err := db.UpdateMock(ctx, guild, 2, other.ID, func(m *questions.Mock) error {
		if !m.Expired(late) {
			t.Error("member 2's attempt is not expired an hour in")
		}
		m.Finish(late)
		return nil
	})
	if err != nil || !m2.TimedOut || !m2.FinishedAt.Equal(other.Deadline) {
		t.Fatalf("an attempt ended by its deadline: got %+v, %v", m2, err)
	}
	if due, _ := db.MocksDue(); len(due) != 1 || due[0].MockID != other.ID {
		t.Fatalf("MocksDue: got %+v, want the timed-out attempt until notified", due)
	}
	if err := db.MockNotified(ctx, guild, 2, other.ID); err != nil {
		t.Fatal(err)
	}
	if due, _ := db.MocksDue(); len(due) != 0 {
		t.Errorf("MocksDue after MockNotified: got %+v, want none", due)
	}

	// A new attempt once the last ended; history oldest first.
	m3, err := db.StartMock(ctx, newMock(1))
	if err != nil || m3.ID != 3 {
		t.Fatalf("a new attempt after the end: got %+v, %v", m3, err)
	}
	if latest, err := db.LatestMock(guild, 1); err != nil || latest.ID != 3 || !latest.Open() {
		t.Errorf("LatestMock: got %+v, %v; want attempt 3, open", latest, err)
	}
	if hist, err := db.Mocks(guild, 1, 10); err != nil || len(hist) != 1 || hist[0].ID != 1 || hist[0].Result().Right != 2 {
		t.Errorf("Mocks: got %+v, %v; want the ended attempt 1 with 2 right", hist, err)
	}
	if one, err := db.Mock(guild, 2, other.ID); err != nil || !one.TimedOut {
		t.Errorf("Mock: got %+v, %v; want member 2's timed-out attempt", one, err)
	}
	if _, err := db.Mock(guild, 1, other.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("Mock of another member's attempt: got %v, want ErrNotFound", err)
	}
	if _, err := db.LatestMock(guild, 9); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("LatestMock of a member without attempts: got %v, want ErrNotFound", err)
	}

	// The attempt survives a reopening of the file.
	db.Close()
	db = openPath(t, path)
	if again, err := db.LatestMock(guild, 1); err != nil || again.ID != 3 || again.Deadline.IsZero() || len(again.Items) != 3 {
		t.Errorf("after reopening: got %+v, %v", again, err)
	}
}

func TestStartMockRefusals(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	for _, tc := range []struct {
		name string
		edit func(*questions.Mock)
	}{
		{"no member", func(m *questions.Mock) { m.UserID = 0 }},
		{"no questions", func(m *questions.Mock) { m.Items = nil }},
		{"deadline at the start", func(m *questions.Mock) { m.Deadline = m.StartedAt }},
		{"key out of range", func(m *questions.Mock) { m.Items[2].Correct = []string{"C"} }},
		{"no key", func(m *questions.Mock) { m.Items[0].Correct = nil }},
	} {
		m := newMock(1)
		tc.edit(&m)
		if _, err := db.StartMock(t.Context(), m); err == nil {
			t.Errorf("%s: stored, want refused", tc.name)
		}
	}
	if due, _ := db.MocksDue(); len(due) != 0 {
		t.Errorf("MocksDue after refusals: got %+v, want none", due)
	}
}

// TestMockMemoryRebuild: a rebuild of the memories replays the answers of
// ended mock exams in their place among the answers, and gives what the
// live writes gave; a regrade of a question grades its mock answers again.
func TestMockMemoryRebuild(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := t.Context()
	p := mustPost(t, db, questions.Post{QuestionID: "q#1"})
	answer(t, db, p, 1, t0, "A") // missed in the channel
	if _, _, err := db.ClosePost(ctx, p.ID, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	m, err := db.StartMock(ctx, newMock(1))
	if err != nil {
		t.Fatal(err)
	}
	end := t0.Add(20 * time.Minute)
	if _, err := db.UpdateMock(ctx, guild, 1, m.ID, func(m *questions.Mock) error {
		_ = m.Answer(0, []string{"B"}, end)
		_ = m.Answer(1, []string{"A", "B"}, end)
		m.Finish(end)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	p2 := mustPost(t, db, questions.Post{QuestionID: "q#1"})
	answer(t, db, p2, 1, t0.AddDate(0, 0, 2), "B")
	live, err := db.Memories(guild, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(live[0].History) != 3 || !live[0].History[1].Review {
		t.Fatalf("q#1's history: got %+v, want the channel's miss, the mock's answer, the channel's answer", live[0].History)
	}
	if err := db.RebuildMemory(ctx, guild, nil); err != nil {
		t.Fatal(err)
	}
	rebuilt, _ := db.Memories(guild, 1)
	if !memoriesEqual(live, rebuilt) {
		t.Fatalf("rebuilt memories differ from live:\nlive    %+v\nrebuilt %+v", live, rebuilt)
	}

	// q#2's key was AC; the member chose AB. Regrading it to AB makes the
	// mock answer right.
	if _, _, err := db.ClosePost(ctx, p2.ID, t0.AddDate(0, 0, 2)); err != nil {
		t.Fatal(err)
	}
	got, err := db.Regrade(ctx, guild, "q#2", []string{"A", "B"}, 4)
	if err != nil || got.Answers != 1 || got.Changed != 1 {
		t.Fatalf("Regrade q#2: got %+v, %v; want its one mock answer changed", got, err)
	}
	ended, _ := db.Mocks(guild, 1, 1)
	if r := ended[0].Result(); r.Right != 2 || !slices.Equal(ended[0].Items[1].Correct, []string{"A", "B"}) {
		t.Errorf("the attempt after the regrade: %+v, right %d; want q#2's new key and 2 right", ended[0].Items[1], r.Right)
	}
	mems, _ := db.Memories(guild, 1)
	for _, mem := range mems {
		if mem.QuestionID == "q#2" && (len(mem.History) != 1 || !mem.History[0].Right) {
			t.Errorf("q#2's memory after the regrade: got %+v, want one right answer", mem.History)
		}
	}
	if _, err := db.Regrade(ctx, guild, "q#2", []string{"A"}, 3); !errors.Is(err, questions.ErrOptionsChanged) {
		t.Errorf("regrade with another number of options: got %v, want ErrOptionsChanged", err)
	}
}

func memoriesEqual(a, b []questions.Memory) bool {
	return slices.EqualFunc(a, b, func(x, y questions.Memory) bool {
		return x.QuestionID == y.QuestionID && x.Due.Equal(y.Due) && x.Stability == y.Stability && x.Reps == y.Reps &&
			x.Lapses == y.Lapses && x.State == y.State && slices.EqualFunc(x.History, y.History, func(p, q questions.Attempt) bool {
			return p.At.Equal(q.At) && p.Right == q.Right && p.Review == q.Review
		})
	})
}

func TestBankExams(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	ctx := t.Context()
	e := questions.Exam{Questions: 65, Minutes: 90, Pass: questions.PassMark{Score: 700, Min: 100, Max: 1000}}
	if err := db.SetBankExam(ctx, guild, "AWS Cloud", e); err != nil {
		t.Fatal(err)
	}
	if err := db.SetBankExam(ctx, guild, "Net", questions.Exam{Pass: questions.PassMark{Percent: 80}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.BankExams(guild)
	if err != nil || len(got) != 2 || !got["aws cloud"].Equal(e) || got["net"].Pass.Percent != 80 {
		t.Fatalf("BankExams: got %+v, %v", got, err)
	}
	if err := db.SetBankExam(ctx, guild, "aws CLOUD", questions.Exam{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.BankExams(guild); len(got) != 1 {
		t.Errorf("after clearing: got %+v, want Net's only", got)
	}
	if err := db.SetBankExam(ctx, guild, "Net", questions.Exam{Questions: 999}); err == nil {
		t.Error("settings out of range: stored, want refused")
	}
	if got, _ := db.BankExams(guild + 1); len(got) != 0 {
		t.Errorf("another guild: got %+v, want none", got)
	}
	// The buckets are created on first use: a guild without them reads
	// as empty, and the file's check is clean (cleanup).
	_ = db.bolt.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bMockDue) != nil {
			t.Error("mockdue/ exists before any mock exam")
		}
		return nil
	})
}
