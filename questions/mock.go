package questions

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Mock exams (/quiz mock): a member's private, timed attempt at a bank's
// exam. The questions are drawn once, at the start (DrawMock); the member
// answers them in any order, changes answers, flags questions for review,
// and finishes, or the deadline finishes the attempt. Nothing is graded
// until then. A finished attempt's answers count for the member's memory
// of each question (like a review's), never for points.

// MockID numbers the mock exams of a guild (storage allocates them: > 0,
// never reused).
type MockID uint64

// String returns the attempt number in decimal.
func (id MockID) String() string { return strconv.FormatUint(uint64(id), 10) }

// MockItem is one question of an attempt: the question, the key it is
// graded against (a snapshot taken at the start), and the member's answer.
type MockItem struct {
	QuestionID string
	// Domain is the exam domain the question was drawn for; without
	// domains, the question's first tag ("" when it has none, or when it
	// was drawn from outside every domain).
	Domain      string
	Correct     []string // the correct letters when the attempt started
	OptionCount int
	Choice      []string // the member's answer, sorted; nil while unanswered
	Flagged     bool     // flagged for review
}

// Answered reports whether the member has answered the question.
func (it MockItem) Answered() bool { return len(it.Choice) > 0 }

// Right reports whether the member's answer is right: exactly the correct
// set. An unanswered question is not.
func (it MockItem) Right() bool { return it.Answered() && GradeChoice(it.Correct, it.Choice).Right }

// Mock is one attempt of a member at a bank's exam.
type Mock struct {
	ID      MockID
	GuildID GuildID
	UserID  UserID
	Bank    string
	// Pass is the pass mark the attempt is scored against; Domains are
	// the exam's domains in their settings' order (for the result's order).
	Pass      PassMark
	Domains   []string
	StartedAt time.Time
	Deadline  time.Time
	// FinishedAt is when the attempt ended (zero while open): the
	// member's Finish, or its Deadline when time ran out (TimedOut).
	FinishedAt time.Time
	TimedOut   bool
	// Seen reports whether the member has been shown the result in the
	// server (the click or /quiz mock that ended it, or came after).
	Seen bool
	// Current is the question shown, an index into Items.
	Current int
	Items   []MockItem
}

// Open reports whether the attempt still takes answers (it has not ended;
// its deadline may have passed: see Expired).
func (m *Mock) Open() bool { return m.FinishedAt.IsZero() }

// Expired reports whether the attempt is open and its deadline has come:
// the next thing to do with it is to end it (Finish).
func (m *Mock) Expired(now time.Time) bool { return m.Open() && !now.Before(m.Deadline) }

// Finish ends an open attempt at `at`: FinishedAt is at, or the deadline
// when at is not before it (TimedOut). It does nothing to an attempt that
// has ended.
func (m *Mock) Finish(at time.Time) {
	if !m.Open() {
		return
	}
	m.FinishedAt = at.UTC()
	if !at.Before(m.Deadline) {
		m.FinishedAt, m.TimedOut = m.Deadline, true
	}
}

// item checks that the attempt takes a change to question i at `at`: it
// is open (ErrClosed once it ended or its deadline came) and i is one of
// its questions (ErrNotFound).
func (m *Mock) item(i int, at time.Time) (*MockItem, error) {
	if !m.Open() || !at.Before(m.Deadline) {
		return nil, fmt.Errorf("mock %d: %w", m.ID, ErrClosed)
	}
	if i < 0 || i >= len(m.Items) {
		return nil, fmt.Errorf("mock %d question %d: %w", m.ID, i+1, ErrNotFound)
	}
	return &m.Items[i], nil
}

// Answer records the member's answer to question i (replacing any
// earlier one) at `at`, and shows that question. It refuses a choice of
// the wrong shape (ErrBadChoice: letters not offered, twice, or not as
// many as the question's key), and see item.
func (m *Mock) Answer(i int, choice []string, at time.Time) error {
	it, err := m.item(i, at)
	if err != nil {
		return err
	}
	c, err := NormalizeChoice(choice, it.OptionCount, len(it.Correct))
	if err != nil {
		return fmt.Errorf("mock %d question %d: %w", m.ID, i+1, err)
	}
	it.Choice, m.Current = c, i
	return nil
}

// ToggleFlag flags question i for review, or unflags it, at `at`, and
// shows that question (see item).
func (m *Mock) ToggleFlag(i int, at time.Time) error {
	it, err := m.item(i, at)
	if err != nil {
		return err
	}
	it.Flagged, m.Current = !it.Flagged, i
	return nil
}

// Show makes question i the one shown, at `at` (see item).
func (m *Mock) Show(i int, at time.Time) error {
	if _, err := m.item(i, at); err != nil {
		return err
	}
	m.Current = i
	return nil
}

// Counts is how many questions are answered, flagged (answered or not)
// and unanswered.
func (m *Mock) Counts() (answered, flagged, unanswered int) {
	for _, it := range m.Items {
		if it.Answered() {
			answered++
		} else {
			unanswered++
		}
		if it.Flagged {
			flagged++
		}
	}
	return answered, flagged, unanswered
}

// MockResult is an ended attempt scored.
type MockResult struct {
	Questions int // in the attempt
	Answered  int
	Right     int
	// Percent is Right ÷ Questions in percent, rounded to the nearest
	// whole number (halves up).
	Percent int
	// Scaled is the score on the pass mark's scale (PassMark.ScaledScore);
	// 0 when the mark is a percentage.
	Scaled int
	Pass   PassMark
	Passed bool
	// Used is the time from the start to the end (at most the time given).
	Used    time.Duration
	Domains []DomainScore
	// Review lists the questions to go over, by index in Items, in the
	// attempt's order: those missed (wrong or unanswered) and those
	// flagged.
	Review []int
}

// DomainScore is an attempt's score on one domain.
type DomainScore struct {
	Domain    string // "" for the questions of no domain
	Questions int
	Right     int
}

// Result scores the attempt. Unanswered questions count as wrong, as on
// the real exam. The domains come in the exam's order (Domains), then any
// others by name, "" (no domain) last.
func (m *Mock) Result() MockResult {
	r := MockResult{Questions: len(m.Items), Pass: m.Pass.orDefault()}
	at := map[string]int{}
	for i, it := range m.Items {
		k, ok := at[it.Domain]
		if !ok {
			k = len(r.Domains)
			at[it.Domain] = k
			r.Domains = append(r.Domains, DomainScore{Domain: it.Domain})
		}
		r.Domains[k].Questions++
		if it.Answered() {
			r.Answered++
		}
		if it.Right() {
			r.Right++
			r.Domains[k].Right++
		}
		if !it.Right() || it.Flagged {
			r.Review = append(r.Review, i)
		}
	}
	rank := func(d string) int {
		if i := slices.Index(m.Domains, d); i >= 0 {
			return i
		}
		if d == "" {
			return len(m.Domains) + 1
		}
		return len(m.Domains)
	}
	slices.SortStableFunc(r.Domains, func(a, b DomainScore) int {
		return cmp.Or(cmp.Compare(rank(a.Domain), rank(b.Domain)), cmp.Compare(a.Domain, b.Domain))
	})
	if r.Questions > 0 {
		r.Percent = (200*r.Right + r.Questions) / (2 * r.Questions)
	}
	r.Scaled = r.Pass.ScaledScore(r.Right, r.Questions)
	r.Passed = r.Pass.Passed(r.Right, r.Questions)
	if !m.FinishedAt.IsZero() {
		r.Used = m.FinishedAt.Sub(m.StartedAt)
	}
	return r
}

// MockDue is an attempt the scheduler acts on at Deadline: one still open
// (to end it then), or one that ended when its time ran out whose result
// has not been sent to the member yet.
type MockDue struct {
	GuildID  GuildID
	UserID   UserID
	MockID   MockID
	Deadline time.Time
}
