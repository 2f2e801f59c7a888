package questions

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var m0 = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

func TestRememberSchedules(t *testing.T) {
	close10 := m0.Add(10 * time.Minute)
	tests := []struct {
		name      string
		attempts  []Attempt
		closes    []time.Time
		wantState MemoryState
		// the due time lies within [dueMin, dueMax] after the last answer
		dueMin, dueMax time.Duration
		wantLapses     uint64
	}{
		{"a miss comes due a minute after the answer", []Attempt{{At: m0}}, nil, StateLearning, time.Minute, time.Minute, 0},
		{"a miss is counted from the close", []Attempt{{At: m0}}, []time.Time{close10}, StateLearning, 11 * time.Minute, 11 * time.Minute, 0},
		{"a close before the answer changes nothing", []Attempt{{At: m0}}, []time.Time{m0.Add(-time.Hour)}, StateLearning, time.Minute, time.Minute, 0},
		{"a right first answer graduates, days out", []Attempt{{At: m0, Right: true}}, nil, StateReview, 2 * 24 * time.Hour, 5 * 24 * time.Hour, 0},
		{"a miss then a right review: days out", []Attempt{{At: m0}, {At: m0.Add(2 * time.Minute), Right: true, Review: true}}, nil, StateReview, 24 * time.Hour, 5 * 24 * time.Hour, 0},
		{"a known question missed: relearning in minutes", []Attempt{{At: m0, Right: true}, {At: m0.AddDate(0, 0, 4)}}, nil, StateRelearning, 5 * time.Minute, 5 * time.Minute, 1},
		{"two misses in learning: 5 minutes", []Attempt{{At: m0}, {At: m0.Add(2 * time.Minute)}}, nil, StateLearning, 5 * time.Minute, 5 * time.Minute, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Replay(7, "b#1", tt.attempts, tt.closes)
			last := tt.attempts[len(tt.attempts)-1].At
			if m.State != tt.wantState {
				t.Errorf("state: got %d, want %d", m.State, tt.wantState)
			}
			if d := m.Due.Sub(last); d < tt.dueMin || d > tt.dueMax {
				t.Errorf("due after the last answer: got %v, want between %v and %v", d, tt.dueMin, tt.dueMax)
			}
			if m.Lapses != tt.wantLapses {
				t.Errorf("lapses: got %d, want %d", m.Lapses, tt.wantLapses)
			}
			if m.Reps != uint64(len(tt.attempts)) || len(m.History) != len(tt.attempts) {
				t.Errorf("reps, history: got %d, %d, want %d", m.Reps, len(m.History), len(tt.attempts))
			}
			if m.UserID != 7 || m.QuestionID != "b#1" {
				t.Errorf("identity: got %d %q, want 7 b#1", m.UserID, m.QuestionID)
			}
		})
	}
}

// TestReclosed: moving an answer's schedule to another close gives what
// Remember gives with that close, for misses and right answers, first
// answers and later ones; an answer that is not the memory's last is left
// alone.
func TestReclosed(t *testing.T) {
	planned := m0.Add(10 * time.Minute)
	tests := []struct {
		name     string
		attempts []Attempt
		closed   time.Time
	}{
		{"a first miss, closed early", []Attempt{{At: m0.Add(time.Minute)}}, m0.Add(2 * time.Minute)},
		{"a first right answer, closed early", []Attempt{{At: m0.Add(time.Minute), Right: true}}, m0.Add(3 * time.Minute)},
		{"a lapse, closed early", []Attempt{{At: m0.AddDate(0, 0, -5), Right: true}, {At: m0.Add(time.Minute)}}, m0.Add(2 * time.Minute)},
		{"closed later than planned", []Attempt{{At: m0.Add(time.Minute)}}, m0.Add(time.Hour)},
		{"closed before the answer's time", []Attempt{{At: m0.Add(time.Minute)}}, m0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := len(tt.attempts)
			closes := make([]time.Time, n)
			closes[n-1] = planned
			recorded := Replay(1, "q", tt.attempts, closes)
			closes[n-1] = tt.closed
			want := Replay(1, "q", tt.attempts, closes)
			got, moved := recorded.Reclosed(tt.attempts[n-1].At, planned, tt.closed)
			if !got.Due.Equal(want.Due) || moved != !want.Due.Equal(recorded.Due) {
				t.Errorf("Reclosed: due %v (moved %v), want %v (recorded %v)", got.Due, moved, want.Due, recorded.Due)
			}
		})
	}
	m := Replay(1, "q", []Attempt{{At: m0}, {At: m0.Add(time.Hour), Right: true, Review: true}}, []time.Time{planned})
	if got, moved := m.Reclosed(m0, planned, m0.Add(time.Minute)); moved || !got.Due.Equal(m.Due) {
		t.Errorf("Reclosed of an answer followed by a review: moved %v, due %v; want unchanged %v", moved, got.Due, m.Due)
	}
}

// TestRightReviewsPushDueOut: each right review on time schedules the next
// one further out than the last.
func TestRightReviewsPushDueOut(t *testing.T) {
	m := Remember(Memory{}, Attempt{At: m0}, time.Time{})
	at := m.Due
	var gaps []time.Duration
	for range 5 {
		m = Remember(m, Attempt{At: at, Right: true, Review: true}, time.Time{})
		gaps = append(gaps, m.Due.Sub(at))
		at = m.Due
	}
	for i := 1; i < len(gaps); i++ {
		if gaps[i] <= gaps[i-1] {
			t.Errorf("gap %d: got %v, want more than the previous %v (all: %v)", i, gaps[i], gaps[i-1], gaps)
		}
	}
	if m.Missed() {
		t.Error("Missed after right reviews: got true, want false")
	}
	if n, right := m.Answers(); n != 6 || right != 5 {
		t.Errorf("Answers: got %d, %d, want 6, 5", n, right)
	}
}

func TestRememberDoesNotChangeInput(t *testing.T) {
	m := Replay(1, "q", []Attempt{{At: m0}, {At: m0.Add(time.Minute), Right: true}}, nil)
	m.History = slices.Grow(m.History, 10) // spare capacity a careless append would reuse
	before := slices.Clone(m.History)
	a := Remember(m, Attempt{At: m0.Add(time.Hour)}, time.Time{})
	b := Remember(m, Attempt{At: m0.Add(time.Hour), Right: true}, time.Time{})
	if !slices.Equal(m.History, before) || a.History[2].Right || !b.History[2].Right {
		t.Errorf("histories: input %v, a %v, b %v; want the input unchanged and a, b distinct", m.History, a.History, b.History)
	}
}

func TestRememberLateAnswer(t *testing.T) {
	m := Remember(Memory{}, Attempt{At: m0, Right: true}, time.Time{})
	late := Remember(m, Attempt{At: m0.Add(-time.Hour)}, time.Time{})
	if late.LastReview.Before(m.LastReview) {
		t.Errorf("last review went back: got %v, want not before %v", late.LastReview, m.LastReview)
	}
	if late.ElapsedDays > 1 {
		t.Errorf("elapsed days of a late answer: got %d, want 0", late.ElapsedDays)
	}
	if !late.History[1].At.Equal(m0.Add(-time.Hour)) {
		t.Errorf("history keeps the answer's own time: got %v", late.History[1].At)
	}
}

func TestRetrievability(t *testing.T) {
	if r := (Memory{}).Retrievability(m0); r != 0 {
		t.Errorf("new: got %v, want 0", r)
	}
	m := Remember(Memory{}, Attempt{At: m0, Right: true}, time.Time{})
	r0, rDue, rLater := m.Retrievability(m0), m.Retrievability(m.Due), m.Retrievability(m0.AddDate(1, 0, 0))
	if r0 < 0.999 || r0 > 1 {
		t.Errorf("at the answer: got %v, want 1", r0)
	}
	if rDue < 0.85 || rDue > 0.95 {
		t.Errorf("at the due time: got %v, want about 0.9 (the requested retention)", rDue)
	}
	if rLater >= rDue || rLater <= 0 {
		t.Errorf("a year later: got %v, want in (0, %v)", rLater, rDue)
	}
	if r := m.Retrievability(m0.Add(-time.Hour)); r != r0 {
		t.Errorf("before the answer: got %v, want %v", r, r0)
	}
}

func TestReviewOrder(t *testing.T) {
	now := m0.Add(24 * time.Hour)
	mk := func(id string, due time.Duration, missed bool) Memory {
		h := []Attempt{{At: m0, Right: !missed}}
		return Memory{QuestionID: id, State: StateReview, Due: now.Add(due), LastReview: m0, Stability: 3, History: h}
	}
	mems := []Memory{
		mk("right-old", -3*time.Hour, false),
		mk("miss-late", -time.Minute, true),
		mk("open", -5*time.Hour, true),
		mk("future-far", 48*time.Hour, false),
		mk("miss-early", -2*time.Hour, true),
		mk("future-near", time.Hour, true),
		mk("open-future", 30*time.Minute, false),
		{QuestionID: "new"},
	}
	skip := func(id string) bool { return id == "open" || id == "open-future" }
	q := ReviewOrder(mems, skip, now, ExamPlan{})
	var got []string
	for _, m := range q.Due {
		got = append(got, m.QuestionID)
	}
	want := []string{"miss-early", "miss-late", "right-old"}
	if !slices.Equal(got, want) {
		t.Errorf("due: got %v, want %v", got, want)
	}
	if !q.Next.Equal(now.Add(time.Hour)) {
		t.Errorf("next: got %v, want %v", q.Next, now.Add(time.Hour))
	}
	empty := ReviewOrder(mems[3:4], nil, now, ExamPlan{})
	if len(empty.Due) != 0 || !empty.Next.Equal(now.Add(48*time.Hour)) {
		t.Errorf("nothing due: got %d due, next %v; want 0, %v", len(empty.Due), empty.Next, now.Add(48*time.Hour))
	}
	if none := ReviewOrder(nil, nil, now, ExamPlan{}); len(none.Due) != 0 || !none.Next.IsZero() {
		t.Errorf("no memories: got %+v, want nothing", none)
	}
}

func TestParseExamDate(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"2025-06-30", "2025-06-30", true},
		{" 2025-06-30 ", "2025-06-30", true},
		{"2025-02-30", "", false},
		{"30/06/2025", "", false},
		{"", "", false},
		{"1999-01-01", "", false},
	}
	for _, tt := range tests {
		got, err := ParseExamDate(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseExamDate(%q): got %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	if got, want := (ExamDate{Date: "2025-06-30"}).At(paris), time.Date(2025, 6, 30, 9, 0, 0, 0, paris); !got.Equal(want) {
		t.Errorf("At: got %v, want %v", got, want)
	}
}

// TestComputeReadiness builds a history by hand: a bank of four questions
// tagged net/sec, three answered, and checks every figure.
func TestComputeReadiness(t *testing.T) {
	qs := []Question{
		{ID: "b#1", Tags: []string{"net"}},
		{ID: "b#2", Tags: []string{"net", "sec", "net"}},
		{ID: "b#3", Tags: []string{"sec"}},
		{ID: "b#4"},
		{ID: "b#1", Tags: []string{"net"}}, // listed twice: counts once
	}
	now := m0.AddDate(0, 0, 10)
	exam := m0.AddDate(0, 0, 30)
	known := Replay(1, "b#1", []Attempt{{At: m0, Right: true}, {At: m0.AddDate(0, 0, 3), Right: true}}, nil)
	missed := Replay(1, "b#2", []Attempt{{At: m0.AddDate(0, 0, 9)}}, nil)
	mixed := Replay(1, "b#3", []Attempt{{At: m0, Right: true}, {At: m0.AddDate(0, 0, 2)}, {At: m0.AddDate(0, 0, 2).Add(time.Hour), Right: true}}, nil)
	mems := map[string]Memory{"b#1": known, "b#2": missed, "b#3": mixed, "other#9": known}
	rk, rm, rx := known.Retrievability(exam), missed.Retrievability(exam), mixed.Retrievability(exam)
	if !(rk > rx && rx > rm && rm > 0) {
		t.Fatalf("retrievabilities at the exam: known %v, mixed %v, missed %v; want known > mixed > missed > 0", rk, rx, rm)
	}
	got := ComputeReadiness(qs, mems, nil, now, exam)
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	type row struct {
		topic                                string
		questions, seen, answers, right, due int
		recall                               float64
	}
	check := func(tr TopicReadiness, w row) {
		t.Helper()
		g := row{tr.Topic, tr.Questions, tr.Seen, tr.Answers, tr.Right, tr.Due, tr.Recall}
		if g.topic != w.topic || g.questions != w.questions || g.seen != w.seen || g.answers != w.answers ||
			g.right != w.right || g.due != w.due || !near(g.recall, w.recall) {
			t.Errorf("got %+v, want %+v", g, w)
		}
	}
	// Which memories are due now comes from the model; count them.
	dueN := func(ms ...Memory) int {
		n := 0
		for _, m := range ms {
			if m.DueBy(now) {
				n++
			}
		}
		return n
	}
	if !missed.DueBy(now) {
		t.Fatal("the miss a day ago is not due")
	}
	check(got.Overall, row{"", 4, 3, 6, 4, dueN(known, missed, mixed), (rk + rm + rx) / 4})
	if len(got.Topics) != 2 {
		t.Fatalf("topics: got %+v, want net and sec", got.Topics)
	}
	check(got.Topics[0], row{"net", 2, 2, 3, 2, dueN(known, missed), (rk + rm) / 2})
	check(got.Topics[1], row{"sec", 2, 2, 4, 2, dueN(missed, mixed), (rm + rx) / 2})
	if a := got.Overall.Accuracy(); !near(a, 4.0/6) {
		t.Errorf("overall accuracy: got %v, want %v", a, 4.0/6)
	}
	// Skipping the open miss takes it off "due" but not off "seen".
	skipped := ComputeReadiness(qs, mems, func(id string) bool { return id == "b#2" }, now, exam)
	if skipped.Overall.Due != got.Overall.Due-1 || skipped.Overall.Seen != 3 {
		t.Errorf("skipping b#2: got due %d seen %d, want %d, 3", skipped.Overall.Due, skipped.Overall.Seen, got.Overall.Due-1)
	}
	if empty := ComputeReadiness(qs, nil, nil, now, exam); empty.Overall.Recall != 0 || empty.Overall.Seen != 0 || empty.Overall.Questions != 4 {
		t.Errorf("no memories: got %+v, want 4 questions, none seen, recall 0", empty.Overall)
	}
}

// TestDrawForgotten: the constructed case where one question is the most
// forgotten, and the tie rules.
func TestDrawForgotten(t *testing.T) {
	now := m0.AddDate(0, 0, 20)
	fresh := func(user UserID, id string) Memory {
		return Replay(user, id, []Attempt{{At: now.Add(-time.Hour), Right: true}}, nil)
	}
	stale := func(user UserID, id string) Memory {
		return Replay(user, id, []Attempt{{At: m0, Right: true}}, nil) // 20 days ago, stability ~3 days
	}
	players := []UserID{1, 2, 3}
	tests := []struct {
		name    string
		cands   []string
		players []UserID
		mems    []Memory
		want    string
	}{
		{"the question all players learnt long ago", []string{"a", "b", "c"}, players,
			[]Memory{fresh(1, "a"), fresh(2, "a"), fresh(3, "a"), stale(1, "b"), stale(2, "b"), stale(3, "b"), fresh(1, "c"), stale(2, "c"), fresh(3, "c")}, "b"},
		{"a question only one player has seen counts the others as not knowing it", []string{"a", "b"}, players,
			[]Memory{fresh(1, "a"), fresh(2, "a"), fresh(3, "a"), fresh(1, "b")}, "b"},
		{"memories of members who do not play are ignored", []string{"a", "b"}, []UserID{1},
			[]Memory{stale(1, "a"), fresh(1, "b"), stale(9, "b"), stale(8, "b")}, "a"},
		{"a candidate nobody has seen comes first", []string{"a", "new"}, players,
			[]Memory{stale(1, "a"), stale(2, "a"), stale(3, "a")}, "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(20) {
				got := DrawForgotten(tt.cands, tt.players, tt.mems, now, 1, rand.New(rand.NewPCG(seed, 1)))
				if len(got) != 1 || got[0] != tt.want {
					t.Fatalf("seed %d: got %v, want [%s]", seed, got, tt.want)
				}
			}
		})
	}

	// Ties: with nobody playing every question ties at 0 and each is drawn.
	drawn := map[string]bool{}
	for seed := range uint64(200) {
		got := DrawForgotten([]string{"a", "b", "c"}, nil, nil, now, 1, rand.New(rand.NewPCG(seed, 2)))
		drawn[got[0]] = true
	}
	if len(drawn) != 3 {
		t.Errorf("ties over 200 seeds: drew %v, want each of a, b, c", drawn)
	}
	// Deterministic for one seed.
	r1 := DrawForgotten([]string{"a", "b", "c", "d"}, nil, nil, now, 4, rand.New(rand.NewPCG(5, 5)))
	r2 := DrawForgotten([]string{"a", "b", "c", "d"}, nil, nil, now, 4, rand.New(rand.NewPCG(5, 5)))
	if !slices.Equal(r1, r2) || len(r1) != 4 {
		t.Errorf("same seed: got %v and %v, want equal, 4 long", r1, r2)
	}

	ranked := RankByRecall([]string{"a", "b", "b"}, players, []Memory{fresh(1, "a"), stale(2, "a")}, now, nil)
	if len(ranked) != 2 || ranked[0].QuestionID != "b" || ranked[0].Recall != 0 || ranked[1].Seen != 2 {
		t.Errorf("RankByRecall: got %+v, want b (0, unseen) then a (seen by 2)", ranked)
	}
	wantA := (fresh(1, "a").Retrievability(now) + stale(2, "a").Retrievability(now)) / 3
	if d := ranked[1].Recall - wantA; d > 1e-12 || d < -1e-12 {
		t.Errorf("recall of a: got %v, want %v (mean over 3 players)", ranked[1].Recall, wantA)
	}
	if got := DrawForgotten([]string{"a", "b"}, players, nil, now, 5, nil); len(got) != 2 {
		t.Errorf("n beyond the candidates: got %v, want both", got)
	}
}

func TestAnswersPerDay(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	now := time.Date(2025, 3, 14, 10, 0, 0, 0, paris)
	mems := []Memory{
		{History: []Attempt{{At: time.Date(2025, 3, 13, 23, 30, 0, 0, time.UTC), Right: true}, // 14th in Paris
			{At: time.Date(2025, 3, 12, 9, 0, 0, 0, paris)}}},
		{History: []Attempt{{At: time.Date(2025, 3, 14, 8, 0, 0, 0, paris), Right: true, Review: true},
			{At: time.Date(2025, 3, 11, 23, 0, 0, 0, paris), Right: true}, // outside 3 days
			{At: time.Date(2025, 3, 15, 1, 0, 0, 0, paris)}}},             // after today
	}
	got := AnswersPerDay(mems, paris, now, 3)
	want := []DayCount{{"2025-03-12", 1, 0}, {"2025-03-13", 0, 0}, {"2025-03-14", 2, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := AnswersPerDay(mems, paris, now, 0); got != nil {
		t.Errorf("0 days: got %v, want nil", got)
	}
}
