package questions

import (
	"math"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v3"
)

// The memory model: for each member and question, the scheduling state of
// FSRS (Free Spaced Repetition Scheduler, the scheduler in Anki since
// 23.10), computed by github.com/open-spaced-repetition/go-fsrs with its
// default parameters, short-term (learning) steps on and no fuzz, so a
// schedule is a pure function of the answers. Every graded answer (live,
// daily or review) is one FSRS review: a wrong answer (not exactly the
// correct set) rates Again, a right one Good.
//
// What that gives:
//
//   - A miss comes due after a learning step of minutes (1 minute on a
//     question never seen, 5 minutes after a lapse), counted from the
//     question's close (see Remember; a question closed early counts from
//     its actual close: Reclosed), so a member who missed can retry it the
//     same day.
//   - A right answer after a miss, or a right answer in review, schedules
//     the next review days ahead, and each further right answer pushes it
//     out further (FSRS's stability grows).
//   - A right first answer skips the 10-minute learning step FSRS gives a
//     new card rated Good (Anki shows a card being learned again within
//     minutes; here the member has just shown in a real quiz that they
//     know it): it is scheduled as FSRS's long-term scheduler schedules a
//     new card rated Good, a few days out.

// MemoryState is FSRS's state of a card.
type MemoryState int8

// The FSRS card states.
const (
	StateNew        MemoryState = iota // never answered
	StateLearning                      // first answered wrong: in short steps
	StateReview                        // known: reviewed days apart
	StateRelearning                    // known, then missed: in short steps again
)

// Attempt is one graded answer counted into a Memory.
type Attempt struct {
	At     time.Time
	Right  bool
	Review bool // answered in a private review, not to a question posted in a channel
}

// Memory is one member's memory of one question in one guild: FSRS's card
// state plus the graded answers it was computed from, oldest first. The
// zero value (with IDs set) is a question the member never answered.
type Memory struct {
	UserID     UserID
	QuestionID string
	// Due is when the question should be reviewed next; zero when new.
	Due time.Time
	// Stability is FSRS's stability in days: the interval after which the
	// chance of recalling falls to 90%.
	Stability float64
	// Difficulty is FSRS's difficulty, from 1 (easy) to 10 (hard).
	Difficulty    float64
	ElapsedDays   uint64 // whole days between the last two answers
	ScheduledDays uint64 // whole days from the last answer to Due (0 in a learning step)
	Reps          uint64 // answers counted
	Lapses        uint64 // times a known question (StateReview) was missed
	State         MemoryState
	LastReview    time.Time // the last answer's time; zero when new
	History       []Attempt
}

// memoryParams are the FSRS parameters quizhost schedules with: the
// library's defaults (90% requested retention, short-term steps on, fuzz
// off so schedules are reproducible).
func memoryParams() fsrs.Parameters {
	p := fsrs.DefaultParam()
	p.EnableShortTerm = true
	p.EnableFuzz = false
	return p
}

func (m Memory) card() fsrs.Card {
	return fsrs.Card{Due: m.Due, Stability: m.Stability, Difficulty: m.Difficulty, ElapsedDays: m.ElapsedDays,
		ScheduledDays: m.ScheduledDays, Reps: m.Reps, Lapses: m.Lapses, State: fsrs.State(m.State), LastReview: m.LastReview}
}

func (m *Memory) setCard(c fsrs.Card) {
	m.Due, m.Stability, m.Difficulty = c.Due.UTC(), c.Stability, c.Difficulty
	m.ElapsedDays, m.ScheduledDays, m.Reps, m.Lapses = c.ElapsedDays, c.ScheduledDays, c.Reps, c.Lapses
	m.State, m.LastReview = MemoryState(c.State), c.LastReview.UTC()
}

// Remember returns m after one more graded answer a (m is not changed; the
// returned History is a new slice). The answer is an FSRS review at a.At,
// rated Again when wrong and Good when right. closesAt is when the
// question the answer was given to closes (zero if not known, or for a
// review): when it is after a.At, the whole schedule is moved on by the
// time the question stayed open, so a miss comes due minutes after the
// close rather than while the question is still open. An answer older
// than m's last one (delivered late, or replayed out of order) counts as
// given at m's last answer, so time never runs backwards in the schedule.
func Remember(m Memory, a Attempt, closesAt time.Time) Memory {
	return remember(m, a, closesAt, memoryParams())
}

// remember is Remember with the given FSRS parameters.
func remember(m Memory, a Attempt, closesAt time.Time, params fsrs.Parameters) Memory {
	at := a.At.UTC()
	if at.Before(m.LastReview) {
		at = m.LastReview
	}
	var next fsrs.Card
	switch {
	case m.State == StateNew && a.Right:
		// A right first answer graduates at once (see the package notes).
		next = params.NewLongTermScheduler(m.card(), at).Review(fsrs.Good).Card
	case a.Right:
		next = fsrs.NewFSRS(params).Next(m.card(), at, fsrs.Good).Card
	default:
		next = fsrs.NewFSRS(params).Next(m.card(), at, fsrs.Again).Card
	}
	if closesAt.After(at) {
		next.Due = next.Due.Add(closesAt.Sub(at))
	}
	out := m
	out.setCard(next)
	out.History = append(append(make([]Attempt, 0, len(m.History)+1), m.History...), Attempt{At: a.At.UTC(), Right: a.Right, Review: a.Review})
	return out
}

// Reclosed returns m with its schedule moved from one close of the
// question to another: m's last answer, given at answeredAt to a post that
// was to close at was (zero: not known), was counted by Remember as closing
// then; the post closed at closed instead (an admin closed it early). The
// due time moves as Remember would have moved it
// with closed, so a miss comes due minutes after the actual close. It
// reports false, and returns m unchanged, when m's last answer is not that
// answer (a later one counted after it: its schedule does not depend on
// this close) or the due time does not move.
func (m Memory) Reclosed(answeredAt, was, closed time.Time) (Memory, bool) {
	n := len(m.History)
	if n == 0 || m.History[n-1].Review || !m.History[n-1].At.Equal(answeredAt.UTC()) {
		return m, false
	}
	at := m.LastReview // the answer's time as Remember counted it
	shift := func(c time.Time) time.Duration {
		if c.After(at) {
			return c.Sub(at)
		}
		return 0
	}
	d := shift(closed) - shift(was)
	if d == 0 {
		return m, false
	}
	m.Due = m.Due.Add(d)
	return m, true
}

// Seen reports whether the member has answered the question at least once.
func (m Memory) Seen() bool { return m.State != StateNew }

// Retrievability is FSRS's predicted probability, in [0, 1], that the
// member recalls the question at `at`: 0 for a question never answered,
// and at most 1 (at the last answer).
func (m Memory) Retrievability(at time.Time) float64 {
	if m.State == StateNew || m.Stability <= 0 {
		return 0
	}
	card := m.card()
	if at.Before(m.LastReview) {
		at = m.LastReview
	}
	params := memoryParams()
	r := fsrs.NewFSRS(params).GetRetrievability(card, at)
	if math.IsNaN(r) {
		return 0
	}
	return min(max(r, 0), 1)
}

// ExamDue is when the question comes due for a member whose exam is at
// exam (the instant, ExamDate.At): Due, with its interval cut so that it
// does not run past the exam. The interval counted from the last answer
// is at most the whole days from that answer to the exam, as FSRS's
// maximum interval (go-fsrs's Parameters.MaximumInterval) set to the days
// left would make it, and strictly so: go-fsrs lets a Good interval go a
// day past its maximum to stay longer than Hard's, and a question closes
// after the answer; neither carries the due time past the exam here. An
// answer less than a day before the exam keeps its interval (FSRS's
// shortest is a day; the final pass covers those days), and so does every
// question when exam is zero or not after the last answer. Due itself, a
// pure function of the answers, is not changed: setting or moving an exam
// date reschedules at once, and after the exam the intervals are FSRS's
// again.
func (m Memory) ExamDue(exam time.Time) time.Time {
	if exam.IsZero() || !m.Seen() || !m.LastReview.Before(exam) {
		return m.Due
	}
	days := exam.Sub(m.LastReview) / (24 * time.Hour)
	if days < 1 {
		return m.Due
	}
	if limit := m.LastReview.Add(days * 24 * time.Hour); m.Due.After(limit) {
		return limit
	}
	return m.Due
}

// DueBy reports whether the question is due for review at now: answered
// at least once and its due time is not after now.
func (m Memory) DueBy(now time.Time) bool { return m.Seen() && !m.Due.After(now) }

// Missed reports whether the member's last answer was wrong.
func (m Memory) Missed() bool {
	return len(m.History) > 0 && !m.History[len(m.History)-1].Right
}

// Answers is how many graded answers the memory counts, and Right how
// many of them were right.
func (m Memory) Answers() (answers, right int) {
	for _, a := range m.History {
		if a.Right {
			right++
		}
	}
	return len(m.History), right
}

// Replay computes a member's memory of a question from scratch: Remember
// over attempts in the given order, each with its closing time (closes[i]
// for attempts[i]; closes may be nil or shorter: zero). It is what a
// regrade or a rebuild computes.
func Replay(userID UserID, questionID string, attempts []Attempt, closes []time.Time) Memory {
	m := Memory{UserID: userID, QuestionID: questionID}
	for i, a := range attempts {
		var c time.Time
		if i < len(closes) {
			c = closes[i]
		}
		m = Remember(m, a, c)
	}
	return m
}
