package questions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v3"
)

// ExamDate is the date a member sits their exam (/quiz exam), per guild.
type ExamDate struct {
	GuildID GuildID
	UserID  UserID
	Date    string // "2006-01-02"
	Bank    string // the bank the exam is about; "" for every bank the guild uses
}

// ExamHour is the local hour of the exam day at which readiness is
// predicted (a morning exam).
const ExamHour = 9

// ParseExamDate reads a date written YYYY-MM-DD and returns it in that
// form; it refuses anything else, and impossible dates, with a message a
// member can act on.
func ParseExamDate(s string) (string, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 2000 || t.Year() > 9999 {
		return "", fmt.Errorf("%q is not a date written YYYY-MM-DD, for example 2025-06-30", s)
	}
	return t.Format(time.DateOnly), nil
}

// At is the instant readiness is predicted for: ExamHour:00 on the exam
// date in loc. It returns the zero time for a date that does not parse.
func (e ExamDate) At(loc *time.Location) time.Time {
	t, err := time.ParseInLocation(time.DateOnly, e.Date, loc)
	if err != nil {
		return time.Time{}
	}
	return time.Date(t.Year(), t.Month(), t.Day(), ExamHour, 0, 0, 0, loc)
}

// TopicReadiness is a member's readiness on one topic (a tag) or overall.
type TopicReadiness struct {
	Topic     string // the tag; "" for the overall figures
	Questions int    // questions of the bank(s) in the topic
	Seen      int    // of them, answered by the member at least once
	Answers   int    // the member's graded answers to them (live and review)
	Right     int    // of those, right
	Due       int    // seen questions due for review now
	// Recall is the predicted share of the topic's questions the member
	// recalls at the exam, in [0, 1]: the mean over its questions of FSRS's
	// retrievability at the exam instant, a question never answered
	// counting as not known (0).
	Recall float64
}

// Accuracy is Right/Answers in [0, 1]; 0 without answers.
func (t TopicReadiness) Accuracy() float64 {
	if t.Answers == 0 {
		return 0
	}
	return float64(t.Right) / float64(t.Answers)
}

// Readiness is a member's readiness for an exam: overall and per tag.
type Readiness struct {
	Exam    time.Time // the instant predicted for
	Overall TopicReadiness
	Topics  []TopicReadiness // one per tag of the questions, sorted by tag (case-insensitively)
	// Pace is the answers a day that keep the member on track; zero once
	// the exam is not after now.
	Pace Pace
}

// Pace is how many answers a day keep a member on track for their exam:
// every question of the exam answered at least once before it, and every
// question reviewed each time it comes due until then (its schedule ending
// by the exam: Memory.ExamDue), each answer assumed right. Answers counts
// them all from now to the exam instant (a question due now counts now; a
// review due at the exam instant or after does not), Unseen the first
// answers among them; PerDay spreads them evenly over the days left.
type Pace struct {
	Answers int
	Unseen  int // first answers to questions never answered
	Days    int // days left, today counted: the hours to the exam over 24, rounded up
	PerDay  int // Answers / Days, rounded up
}

// ComputePace computes the pace at now for the exam at exam over the
// questions with the given memories (mems[i] for the i-th question; the
// zero Memory for one never answered). It is zero when exam is not after
// now. Its cost is a few FSRS steps per question answered (the intervals
// grow with each right answer, and the last one before the exam ends at
// it), and those of one question for all the questions never answered.
func ComputePace(mems []Memory, now, exam time.Time) Pace {
	if !now.Before(exam) {
		return Pace{}
	}
	var p Pace
	// A question never answered is scheduled from its first answer now,
	// which depends on nothing but its card (the same for every such
	// question): its reviews are counted once per card.
	firstReviews := map[fsrs.Card]int{}
	for _, m := range mems {
		m.History = nil // not needed to schedule; spares the copies
		if m.Seen() {
			p.Answers += reviewsBefore(m, now, exam)
			continue
		}
		p.Unseen++
		p.Answers++
		n, ok := firstReviews[m.card()]
		if !ok {
			n = reviewsBefore(Remember(m, Attempt{At: now, Right: true}, time.Time{}), now, exam)
			firstReviews[m.card()] = n
		}
		p.Answers += n
	}
	p.Days = int((exam.Sub(now) + 24*time.Hour - 1) / (24 * time.Hour))
	p.PerDay = (p.Answers + p.Days - 1) / p.Days
	return p
}

// reviewsBefore counts the right reviews m's schedule holds from now until
// exam: each at its due time under the exam (ExamDue; one due already is
// answered now), the next scheduled from it, until one falls at or after
// the exam.
func reviewsBefore(m Memory, now, exam time.Time) int {
	n := 0
	for range 1000 { // a guard: each review is at least a day after the last, within a day of the exam at worst
		due := m.ExamDue(exam)
		if due.Before(now) {
			due = now
		}
		if !due.Before(exam) {
			break
		}
		m = Remember(m, Attempt{At: due, Right: true, Review: true}, time.Time{})
		m.History = nil
		n++
	}
	return n
}

// ReadinessExplained is the one-line plain explanation of Recall to show
// next to it.
const ReadinessExplained = "Predicted recalled: the share of the bank's questions you would likely get right on the exam date if you stopped studying now; questions you have never answered count as not known."

// ComputeReadiness computes a member's readiness over the questions qs (a
// bank, or every bank the guild uses) from their memories (keyed by
// question ID; questions without one are unseen) at now, for the exam at
// exam, and the pace that keeps them on track (ComputePace). A question is
// due when it is under the exam's schedule (ExamPlan.Due); one whose ID
// skip reports (skip may be nil; the caller skips questions still open in
// the guild) is not counted as due. A question ID that appears twice in qs
// counts once.
func ComputeReadiness(qs []Question, mems map[string]Memory, skip func(questionID string) bool, now, exam time.Time) Readiness {
	out := Readiness{Exam: exam}
	plan := ExamPlan{At: exam}
	var paced []Memory
	byTag := map[string]*TopicReadiness{}
	recall := map[string]float64{} // topic → sum of retrievability
	seenIDs := map[string]bool{}
	add := func(t *TopicReadiness, m Memory, ok, due bool, r float64) {
		t.Questions++
		recall[t.Topic] += r
		if !ok {
			return
		}
		t.Seen++
		n, right := m.Answers()
		t.Answers += n
		t.Right += right
		if due {
			t.Due++
		}
	}
	for _, q := range qs {
		if seenIDs[q.ID] {
			continue
		}
		seenIDs[q.ID] = true
		m, ok := mems[q.ID]
		ok = ok && m.Seen()
		if !ok {
			m = Memory{QuestionID: q.ID}
		}
		paced = append(paced, m)
		due := ok && !plan.Due(m, now).After(now) && (skip == nil || !skip(q.ID))
		var r float64
		if ok {
			r = m.Retrievability(exam)
		}
		add(&out.Overall, m, ok, due, r)
		var tags []string
		for _, tag := range q.Tags {
			if tag != "" && !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
		}
		for _, tag := range tags {
			t := byTag[tag]
			if t == nil {
				t = &TopicReadiness{Topic: tag}
				byTag[tag] = t
			}
			add(t, m, ok, due, r)
		}
	}
	finish := func(t *TopicReadiness) {
		if t.Questions > 0 {
			t.Recall = min(max(recall[t.Topic]/float64(t.Questions), 0), 1)
		}
	}
	out.Pace = ComputePace(paced, now, exam)
	// The overall row's topic is "" and no tag is "", so the sums do not mix.
	finish(&out.Overall)
	for _, t := range byTag {
		finish(t)
		out.Topics = append(out.Topics, *t)
	}
	slices.SortFunc(out.Topics, func(a, b TopicReadiness) int {
		if c := strings.Compare(strings.ToLower(a.Topic), strings.ToLower(b.Topic)); c != 0 {
			return c
		}
		return strings.Compare(a.Topic, b.Topic)
	})
	return out
}

// DayCount is a member's graded answers (live and review) on one local day.
type DayCount struct {
	Date    string // "2006-01-02"
	Answers int
	Right   int
}

// AnswersPerDay counts the answers in the memories' histories per local
// day in loc, for the `days` days that end with today's (the day of now):
// oldest first, one entry per day, days without answers included.
func AnswersPerDay(mems []Memory, loc *time.Location, now time.Time, days int) []DayCount {
	if days <= 0 {
		return nil
	}
	out := make([]DayCount, days)
	index := make(map[string]int, days)
	y, m, d := now.In(loc).Date()
	for i := range days {
		date := time.Date(y, m, d-(days-1-i), 12, 0, 0, 0, loc).Format(time.DateOnly)
		out[i].Date = date
		index[date] = i
	}
	for _, mem := range mems {
		for _, a := range mem.History {
			i, ok := index[a.At.In(loc).Format(time.DateOnly)]
			if !ok {
				continue
			}
			out[i].Answers++
			if a.Right {
				out[i].Right++
			}
		}
	}
	return out
}
