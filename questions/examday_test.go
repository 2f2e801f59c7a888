package questions

import (
	"slices"
	"testing"
	"time"
)

// TestExamDueCapsAtTheExam: under an exam, a question's interval is FSRS's
// with its maximum interval set to the whole days from the last answer to
// the exam, and never runs past the exam (go-fsrs's own cap lets a Good
// interval run a day past it); an answer less than a day before the exam,
// or an exam already past, keeps FSRS's interval.
func TestExamDueCapsAtTheExam(t *testing.T) {
	histories := map[string][]Attempt{
		"a right first answer":           {{At: m0, Right: true}},
		"a miss then a right review":     {{At: m0.AddDate(0, 0, -3)}, {At: m0, Right: true, Review: true}},
		"well known, reviewed on time":   {{At: m0.AddDate(0, 0, -40), Right: true}, {At: m0.AddDate(0, 0, -37), Right: true}, {At: m0.AddDate(0, 0, -26), Right: true}, {At: m0, Right: true}},
		"a lapse: minutes, not days":     {{At: m0.AddDate(0, 0, -9), Right: true}, {At: m0}},
		"a miss, first answer":           {{At: m0}},
		"right twice the same day":       {{At: m0.Add(-time.Hour), Right: true}, {At: m0, Right: true}},
		"known, then missed and relearn": {{At: m0.AddDate(0, 0, -20), Right: true}, {At: m0.AddDate(0, 0, -2)}, {At: m0, Right: true}},
	}
	capped := 0
	for name, h := range histories {
		m := Replay(1, "q", h, nil)
		before := Replay(1, "q", h[:len(h)-1], nil)
		for _, exam := range []time.Time{m0.Add(2 * time.Hour), m0.Add(30 * time.Hour), m0.Add(50 * time.Hour), m0.AddDate(0, 0, 5).Add(3 * time.Hour),
			m0.AddDate(0, 0, 12), m0.AddDate(0, 0, 90), m0.Add(-time.Hour)} {
			got := m.ExamDue(exam)
			days := exam.Sub(m.LastReview) / (24 * time.Hour)
			switch {
			case !exam.After(m.LastReview) || days < 1:
				if !got.Equal(m.Due) {
					t.Errorf("%s, exam %v: ExamDue %v, want FSRS's %v (no cap)", name, exam, got, m.Due)
				}
				continue
			case got.After(exam):
				t.Errorf("%s, exam %v: due %v, past the exam", name, exam, got)
			}
			// The oracle: go-fsrs scheduling the last answer with its
			// maximum interval set to the days left.
			p := memoryParams()
			p.MaximumInterval = float64(days)
			fsrsDue := remember(before, h[len(h)-1], time.Time{}, p).Due
			if !fsrsDue.After(exam) && !got.Equal(fsrsDue) {
				t.Errorf("%s, exam %v: due %v, want go-fsrs's with MaximumInterval %d, %v", name, exam, got, days, fsrsDue)
			}
			if fsrsDue.After(exam) && !got.Equal(m.LastReview.Add(days*24*time.Hour)) {
				t.Errorf("%s, exam %v: due %v, want %d whole days after the last answer (go-fsrs: %v, past the exam)", name, exam, got, days, fsrsDue)
			}
			if got.Before(m.Due) {
				capped++
			}
		}
	}
	if capped < 5 {
		t.Errorf("only %d cases were capped: the table tests too little", capped)
	}
}

// TestReviewOrderUnderAnExam: with an exam to come, a covered question's
// due time is capped (and comes due sooner), an uncovered one's is not;
// in the last three days the questions answered before them whose recall
// at the exam is below 95% follow as the final pass, weakest first; after
// the exam, the schedule is FSRS's again.
func TestReviewOrderUnderAnExam(t *testing.T) {
	now := m0
	exam := now.Add(2 * 24 * time.Hour)
	right := func(id string, ago time.Duration, s float64) Memory {
		at := now.Add(-ago)
		m := Replay(1, id, []Attempt{{At: at.AddDate(0, 0, -60), Right: true}}, nil)
		// a stability of s days, reviewed at `at`, due when FSRS says
		m.Stability, m.LastReview, m.State = s, at, StateReview
		m.History = append(m.History, Attempt{At: at, Right: true})
		m.ScheduledDays = uint64(s)
		m.Due = at.Add(time.Duration(s) * 24 * time.Hour)
		return m
	}
	mems := []Memory{
		right("weak", 4*24*time.Hour, 6),           // FSRS: due at the exam
		right("strong", 4*24*time.Hour, 400),       // recall at the exam near 1
		right("fresh", time.Hour, 2),               // answered within the final days: done
		right("other", 10*24*time.Hour, 30),        // not covered by the exam
		right("mid", 5*24*time.Hour+time.Hour, 12), // FSRS: due 5 days after the exam; capped to an hour before it
	}
	plan := ExamPlan{At: exam, Covers: func(id string) bool { return id != "other" }}
	q := ReviewOrder(mems, nil, now, plan)
	var due, final []string
	for _, m := range q.Due {
		due = append(due, m.QuestionID)
	}
	for _, m := range q.Final {
		final = append(final, m.QuestionID)
	}
	wantFinal := []string{}
	for _, m := range mems {
		if m.QuestionID != "other" && m.QuestionID != "fresh" && m.Retrievability(exam) < FinalPassRecall {
			wantFinal = append(wantFinal, m.QuestionID)
		}
	}
	slices.SortFunc(wantFinal, func(a, b string) int {
		ra, rb := mems[slices.IndexFunc(mems, func(m Memory) bool { return m.QuestionID == a })].Retrievability(exam),
			mems[slices.IndexFunc(mems, func(m Memory) bool { return m.QuestionID == b })].Retrievability(exam)
		if ra < rb {
			return -1
		}
		return 1
	})
	if len(due) != 0 || !slices.Equal(final, wantFinal) || len(final) < 2 {
		t.Errorf("due %v, final %v; want none due and the final pass %v (at least two)", due, final, wantFinal)
	}
	for _, m := range q.Final {
		if m.Due.After(exam) {
			t.Errorf("%s: due %v, past the exam %v", m.QuestionID, m.Due, exam)
		}
	}
	// A day before the final days: no final pass, the same caps.
	if q := ReviewOrder(mems, nil, exam.Add(-4*24*time.Hour), plan); len(q.Final) != 0 {
		t.Errorf("4 days before the exam: final pass %d questions, want none", len(q.Final))
	}
	// The day after the exam: FSRS's own due times.
	after := ReviewOrder(mems, nil, exam.Add(24*time.Hour), plan)
	for _, m := range after.Due {
		if orig := mems[slices.IndexFunc(mems, func(x Memory) bool { return x.QuestionID == m.QuestionID })]; !m.Due.Equal(orig.Due) {
			t.Errorf("after the exam %s is due %v, want FSRS's %v", m.QuestionID, m.Due, orig.Due)
		}
	}
	// Capped to come due: "mid", an hour before the exam.
	q = ReviewOrder(mems, nil, exam.Add(-time.Minute), plan)
	if !slices.ContainsFunc(q.Due, func(m Memory) bool { return m.QuestionID == "mid" }) {
		t.Errorf("a minute before the exam, due %v: want mid (capped to the exam's eve)", q.Due)
	}
	if slices.ContainsFunc(q.Due, func(m Memory) bool { return m.QuestionID == "other" }) {
		t.Errorf("a question the exam does not cover came due early")
	}
}

// TestPace: the answers a day that keep a member on track count a first
// answer for each unseen question and each review until the exam.
func TestPace(t *testing.T) {
	now := m0
	exam := now.Add(10*24*time.Hour + 12*time.Hour)
	strong := Memory{QuestionID: "s", State: StateReview, Stability: 100, Difficulty: 5, LastReview: now, Due: now.AddDate(0, 0, 100), Reps: 3,
		History: []Attempt{{At: now, Right: true}}}
	dueNow := Replay(1, "d", []Attempt{{At: now.Add(-time.Hour)}}, nil)
	tests := []struct {
		name        string
		mems        []Memory
		exam        time.Time
		wantAnswers int
		wantUnseen  int
	}{
		{"known well: one review, 10 days on, capped", []Memory{strong}, exam, 1, 0},
		{"known well, exam in 10 days exactly: the capped due is the exam, no review", []Memory{strong}, now.AddDate(0, 0, 10), 0, 0},
		{"exam passed", []Memory{strong, {}}, now, 0, 0},
	}
	for _, tt := range tests {
		p := ComputePace(tt.mems, now, tt.exam)
		if p.Answers != tt.wantAnswers || p.Unseen != tt.wantUnseen {
			t.Errorf("%s: %+v, want %d answers, %d unseen", tt.name, p, tt.wantAnswers, tt.wantUnseen)
		}
	}
	// An unseen question and a miss due now: a first answer and the
	// reviews a right first answer schedules; the miss now, then its own.
	p := ComputePace([]Memory{{QuestionID: "u"}, dueNow}, now, exam)
	first := Remember(Memory{}, Attempt{At: now, Right: true}, time.Time{})
	if p.Unseen != 1 || p.Answers < 4 || p.Days != 11 || p.PerDay != (p.Answers+10)/11 {
		t.Errorf("pace %+v: want 1 unseen, at least 4 answers (first answer due again %v), 11 days, answers/11 rounded up", p, first.Due)
	}
	var days []time.Time
	m := dueNow
	for at := now; at.Before(exam); at = m.ExamDue(exam) {
		m = Remember(m, Attempt{At: at, Right: true, Review: true}, time.Time{})
		days = append(days, at)
	}
	u := first
	for at := first.ExamDue(exam); at.Before(exam); at = u.ExamDue(exam) {
		u = Remember(u, Attempt{At: at, Right: true, Review: true}, time.Time{})
		days = append(days, at)
	}
	if p.Answers != 1+len(days) {
		t.Errorf("pace counts %d answers, want %d: the first answer and the reviews at %v", p.Answers, 1+len(days), days)
	}
	// Three unseen questions count three times what one does (ComputePace
	// works one out for all).
	one := ComputePace([]Memory{{QuestionID: "u"}}, now, exam)
	if three := ComputePace([]Memory{{QuestionID: "u1"}, {QuestionID: "u2"}, dueNow, {QuestionID: "u3"}}, now, exam); three.Unseen != 3 || three.Answers != 3*one.Answers+p.Answers-one.Answers {
		t.Errorf("pace of three unseen and a miss: %+v, want 3 unseen, %d answers (3 × %d, and the miss's %d)", three, 3*one.Answers+p.Answers-one.Answers, one.Answers, p.Answers-one.Answers)
	}
}

// BenchmarkComputePace: the pace of a member over a bank of 5,000
// questions, half of them answered, 90 days before the exam (what /quiz
// stats computes with the readiness).
func BenchmarkComputePace(b *testing.B) {
	mems := make([]Memory, 5000)
	for i := range mems {
		if i%2 == 0 {
			mems[i] = Replay(1, "q", []Attempt{{At: m0.AddDate(0, 0, -10)}, {At: m0.AddDate(0, 0, -9), Right: true}}, nil)
		}
	}
	for b.Loop() {
		ComputePace(mems, m0, m0.AddDate(0, 0, 90))
	}
}
