package questions

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// mockBank makes a bank of counts[i] questions tagged tags[i] each. The
// questions of a tag share their Tags, and every other question its
// Options, with the others: read them only.
func mockBank(tags []string, counts []int) []Question {
	total := 0
	for _, c := range counts {
		total += c
	}
	qs := make([]Question, 0, total)
	options := [2][]Option{
		{{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b"}, {Letter: "C", Text: "c", Correct: true}},
		{{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b"}, {Letter: "C", Text: "c"}},
	}
	for i, tag := range tags {
		tagged := []string{tag}
		for j := range counts[i] {
			qs = append(qs, Question{ID: "B#" + tag + "-" + strconv.Itoa(j), Bank: "B", Stem: "Q", Tags: tagged, Options: options[j%2]})
		}
	}
	return qs
}

// TestDrawMockHonoursWeights is a property test over many random exams:
// every domain gets its largest-remainder share of the attempt when it has
// enough questions (so within one question of N × weight ÷ 100), or all of
// its questions when it has fewer, the shortfall going to the others; no
// question comes twice; a skipped question never comes; and a domain's
// unseen or missed questions come before those the member knows.
func TestDrawMockHonoursWeights(t *testing.T) {
	t.Parallel()
	src := rand.New(rand.NewPCG(21, 1))
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	// A memory is a pure function of its answers (Remember): one right
	// answer, or one wrong, gives every question the same schedule.
	known := Remember(Memory{}, Attempt{At: now, Right: true}, time.Time{})
	missed := Remember(Memory{}, Attempt{At: now}, time.Time{})
	remembered := func(m Memory, id string) Memory {
		m.QuestionID = id
		return m
	}
	for round := range 1000 {
		k := 1 + src.IntN(6)
		tags := make([]string, k)
		counts := make([]int, k)
		weights := make([]int, k)
		left := 100
		for i := range k {
			tags[i] = fmt.Sprintf("t%d", i)
			counts[i] = src.IntN(40)
			if i == k-1 {
				weights[i] = left
			} else {
				weights[i] = 1 + src.IntN(left-(k-1-i))
				left -= weights[i]
			}
		}
		qs := mockBank(append(tags, "none"), append(counts, src.IntN(5)))
		e := Exam{}
		for i := range k {
			e.Domains = append(e.Domains, Domain{Name: tags[i], Weight: weights[i]})
		}
		skipped := map[string]bool{}
		mems := map[string]Memory{}
		for _, q := range qs {
			switch src.IntN(6) {
			case 0:
				skipped[q.ID] = true
			case 1, 2: // known: answered right
				mems[q.ID] = remembered(known, q.ID)
			case 3: // missed
				mems[q.ID] = remembered(missed, q.ID)
			}
		}
		n := 1 + src.IntN(80)
		items := DrawMock(MockDraw{Questions: qs, Exam: e, N: n, Memories: mems, Skip: func(id string) bool { return skipped[id] },
			Rand: func(m int) int { return src.IntN(m) }})

		avail := map[string]int{}
		preferred := map[string]int{}
		for _, q := range qs {
			if skipped[q.ID] {
				continue
			}
			avail[q.Tags[0]]++
			if m, ok := mems[q.ID]; !ok || m.Missed() {
				preferred[q.Tags[0]]++
			}
		}
		total := 0
		for _, c := range avail {
			total += c
		}
		if want := min(n, total); len(items) != want {
			t.Fatalf("round %d: drew %d questions of %d available, want %d", round, len(items), total, want)
		}
		seen := map[string]bool{}
		got := map[string]int{}
		gotPreferred := map[string]int{}
		for _, it := range items {
			if seen[it.QuestionID] {
				t.Fatalf("round %d: question %s drawn twice", round, it.QuestionID)
			}
			seen[it.QuestionID] = true
			if skipped[it.QuestionID] {
				t.Fatalf("round %d: question %s drawn though skipped", round, it.QuestionID)
			}
			tag := it.QuestionID[2 : len(it.QuestionID)-len(fmt.Sprint(0))]
			tag = tag[:slices.Index([]byte(tag), '-')]
			if it.Domain != tag && !(tag == "none" && it.Domain == "") {
				t.Fatalf("round %d: question %s drawn for domain %q", round, it.QuestionID, it.Domain)
			}
			got[tag]++
			if m, ok := mems[it.QuestionID]; !ok || m.Missed() {
				gotPreferred[tag]++
			}
		}
		short := false // a domain gave all it has: the others share its shortfall
		for i, tag := range tags {
			if avail[tag] <= n*weights[i]/100 {
				short = true
			}
		}
		domains := 0
		for i, tag := range tags {
			exact := float64(n*weights[i]) / 100
			switch {
			case avail[tag] <= int(exact):
				if got[tag] != avail[tag] {
					t.Fatalf("round %d: domain %s (weight %d, %d available, n %d): got %d, want all %d", round, tag, weights[i], avail[tag], n, got[tag], avail[tag])
				}
			case !short && (float64(got[tag]) < exact-1+1e-9 || float64(got[tag]) > exact+1-1e-9):
				t.Fatalf("round %d: domain %s (weight %d of n %d = %.2f): got %d", round, tag, weights[i], n, exact, got[tag])
			case short && float64(got[tag]) < exact-1+1e-9 && got[tag] < avail[tag]:
				t.Fatalf("round %d: domain %s got %d, less than its share %.2f though others fell short", round, tag, got[tag], exact)
			}
			if got[tag] > 0 && gotPreferred[tag] < min(got[tag], preferred[tag]) {
				t.Fatalf("round %d: domain %s: %d of its %d drawn are unseen or missed, with %d such available", round, tag, gotPreferred[tag], got[tag], preferred[tag])
			}
			domains += got[tag]
		}
		if got["none"] > 0 && domains < total-avail["none"] {
			t.Fatalf("round %d: %d questions of no domain drawn while the domains had %d more", round, got["none"], total-avail["none"]-domains)
		}
	}
}

func TestApportion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n             int
		weights, caps []int
		want          []int
	}{
		{65, []int{24, 30, 34, 12}, []int{99, 99, 99, 99}, []int{16, 19, 22, 8}}, // 15.6 19.5 22.1 7.8
		{10, []int{50, 50}, []int{99, 99}, []int{5, 5}},
		{3, []int{34, 33, 33}, []int{9, 9, 9}, []int{1, 1, 1}},
		{5, []int{50, 50}, []int{99, 99}, []int{3, 2}},            // the tie goes to the first
		{10, []int{50, 50}, []int{2, 99}, []int{2, 8}},            // the shortfall moves over
		{10, []int{50, 30, 20}, []int{1, 99, 99}, []int{1, 5, 4}}, // 9 shared 30:20 after the cap → 5.4, 3.6
		{10, []int{50, 50}, []int{3, 4}, []int{3, 4}},             // not enough for n
	} {
		if got := apportion(tc.n, tc.weights, tc.caps); !slices.Equal(got, tc.want) {
			t.Errorf("apportion(%d, %v, caps %v): got %v, want %v", tc.n, tc.weights, tc.caps, got, tc.want)
		}
	}
}

func TestDrawMockWithoutDomains(t *testing.T) {
	t.Parallel()
	qs := mockBank([]string{"Net", "Sec"}, []int{3, 3})
	qs = append(qs, Question{ID: "B#untagged", Options: qs[0].Options})
	src := rand.New(rand.NewPCG(1, 2))
	items := DrawMock(MockDraw{Questions: qs, N: 100, Rand: func(n int) int { return src.IntN(n) }})
	if len(items) != 7 {
		t.Fatalf("drew %d, want the whole bank, 7", len(items))
	}
	for _, it := range items {
		q := &qs[slices.IndexFunc(qs, func(q Question) bool { return q.ID == it.QuestionID })]
		want := ""
		if len(q.Tags) > 0 {
			want = q.Tags[0]
		}
		if it.Domain != want || !slices.Equal(it.Correct, q.Correct()) || it.OptionCount != 3 || it.Choice != nil {
			t.Errorf("item %+v: want domain %q (the first tag), key %v, 3 options, no answer", it, want, q.Correct())
		}
	}
}

func TestMockAttempt(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	m := Mock{ID: 3, Pass: PassMark{Score: 700, Min: 100, Max: 1000}, Domains: []string{"Sec", "Net"}, StartedAt: start, Deadline: start.Add(10 * time.Minute),
		Items: []MockItem{
			{QuestionID: "q1", Domain: "Net", Correct: []string{"A"}, OptionCount: 4},
			{QuestionID: "q2", Domain: "Sec", Correct: []string{"B", "C"}, OptionCount: 4},
			{QuestionID: "q3", Domain: "Net", Correct: []string{"D"}, OptionCount: 4},
			{QuestionID: "q4", Domain: "", Correct: []string{"A"}, OptionCount: 2},
		}}
	at := start.Add(time.Minute)
	for _, step := range []struct {
		name string
		do   func() error
		err  error
	}{
		{"answer 1 wrong", func() error { return m.Answer(0, []string{"B"}, at) }, nil},
		{"change it to right", func() error { return m.Answer(0, []string{"A"}, at) }, nil},
		{"answer 2, letters in any order", func() error { return m.Answer(1, []string{"C", "B"}, at) }, nil},
		{"one pick for a two-pick question", func() error { return m.Answer(1, []string{"B"}, at) }, ErrBadChoice},
		{"a letter not offered", func() error { return m.Answer(3, []string{"C"}, at) }, ErrBadChoice},
		{"flag 3", func() error { return m.ToggleFlag(2, at) }, nil},
		{"flag 2, unflag it", func() error { _ = m.ToggleFlag(1, at); return m.ToggleFlag(1, at) }, nil},
		{"no question 5", func() error { return m.Show(4, at) }, ErrNotFound},
		{"answer 3 wrong", func() error { return m.Answer(2, []string{"A"}, at) }, nil},
		{"at the deadline", func() error { return m.Answer(3, []string{"A"}, m.Deadline) }, ErrClosed},
	} {
		if err := step.do(); !errors.Is(err, step.err) || (step.err == nil && err != nil) {
			t.Fatalf("%s: got %v, want %v", step.name, err, step.err)
		}
	}
	if a, f, u := m.Counts(); a != 3 || f != 1 || u != 1 || m.Current != 2 {
		t.Fatalf("counts: got %d answered, %d flagged, %d unanswered, showing %d; want 3, 1, 1, showing 2", a, f, u, m.Current)
	}
	if !slices.Equal(m.Items[1].Choice, []string{"B", "C"}) {
		t.Errorf("choice: got %v, want it sorted", m.Items[1].Choice)
	}
	if m.Expired(m.Deadline.Add(-time.Nanosecond)) || !m.Expired(m.Deadline) {
		t.Errorf("Expired: want false just before the deadline, true at it")
	}
	m.Finish(start.Add(7 * time.Minute))
	if m.Open() || m.TimedOut || !m.FinishedAt.Equal(start.Add(7*time.Minute)) {
		t.Fatalf("Finish before the deadline: got finished %v timed out %v", m.FinishedAt, m.TimedOut)
	}
	m.Finish(start.Add(time.Hour)) // ended already: no change
	if err := m.Answer(3, []string{"A"}, at); !errors.Is(err, ErrClosed) {
		t.Errorf("answer after Finish: got %v, want ErrClosed", err)
	}
	r := m.Result()
	want := MockResult{Questions: 4, Answered: 3, Right: 2, Percent: 50, Scaled: 550, Pass: m.Pass, Passed: false, Used: 7 * time.Minute,
		Domains: []DomainScore{{"Sec", 1, 1}, {"Net", 2, 1}, {"", 1, 0}}, Review: []int{2, 3}}
	if fmt.Sprint(r) != fmt.Sprint(want) {
		t.Errorf("result:\ngot  %+v\nwant %+v", r, want)
	}

	late := Mock{StartedAt: start, Deadline: start.Add(time.Minute), Items: []MockItem{{Correct: []string{"A"}, OptionCount: 2, Choice: []string{"A"}}}}
	late.Finish(start.Add(time.Hour))
	if !late.TimedOut || !late.FinishedAt.Equal(late.Deadline) || late.Result().Used != time.Minute || !late.Result().Passed {
		t.Errorf("Finish after the deadline: got %+v, want timed out at the deadline, a minute used, passed", late)
	}
}
