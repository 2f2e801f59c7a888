package questions

import (
	"cmp"
	"slices"
	"time"
)

// ReviewExpiry is how long a review question shown to a member accepts
// their answer. A review that expired unanswered is deleted (storage drops
// it when the member starts another, and in its periodic upkeep).
const ReviewExpiry = time.Hour

// MaxOpenReviews is how many review questions a member may have shown and
// not answered at once in a guild: starting another deletes the oldest.
const MaxOpenReviews = 5

// Review is one question shown to one member in a private review session
// (/quiz review): the snapshot of the question's key it is graded against,
// like a Post without a channel. Its answer is an Answer whose PostID is
// the review's ID (ID.Post()); it counts for the member's memory of the question,
// their streak and their study figures, never for points or leaderboards.
type Review struct {
	// ID is allocated by storage from the same sequence as post IDs, so a
	// review ID is never a post ID: it takes a post's place where answers
	// are keyed (ID.Post()).
	ID          ReviewID
	GuildID     GuildID
	UserID      UserID // the only member who may answer it
	QuestionID  string
	Bank        string
	Tags        []string
	Correct     []string // the correct letters when the review started
	OptionCount int
	SelectCount int
	OpenedAt    time.Time
	// ExpiresAt: an answer at or after it is refused (ErrClosed).
	ExpiresAt time.Time
}

// ReviewQueue is what a member has to review at one instant.
type ReviewQueue struct {
	// Due are the memories due now, in review order, each with Due set to
	// when it came due under the exam plan (ExamPlan.Due).
	Due []Memory
	// Next is the earliest due time after now of the memories not due
	// yet (skipped ones aside); zero when there is none.
	Next time.Time
	// Final is the final pass before the exam (see ExamPlan), weakest
	// first: empty outside its days, and never holding a question of Due.
	Final []Memory
}

// FinalPassDays is how long before the exam the final pass runs.
const FinalPassDays = 3

// FinalPassRecall is the predicted recall at the exam below which a
// question is in the final pass.
const FinalPassRecall = 0.95

// ExamPlan is a member's exam as their review schedule sees it. While the
// exam is to come, the review intervals of the questions it covers end by
// it (Memory.ExamDue), and in its last FinalPassDays days the review goes
// on, once nothing is due, with a final pass: every question it covers
// that the member has answered, but not within those days, whose
// predicted recall at the exam (Memory.Retrievability) is below
// FinalPassRecall, the weakest first. A question answered in those days is
// done with (a miss comes back as due, in minutes). The zero value is no
// exam.
type ExamPlan struct {
	// At is the exam instant (ExamDate.At); zero for none.
	At time.Time
	// Covers reports whether the exam is about a question; nil: every
	// question.
	Covers func(questionID string) bool
}

func (e ExamPlan) covers(id string) bool {
	return !e.At.IsZero() && (e.Covers == nil || e.Covers(id))
}

// Due is when m comes due at now under the plan: m.ExamDue(e.At) for a
// question the exam covers while the exam is after now, else m.Due.
func (e ExamPlan) Due(m Memory, now time.Time) time.Time {
	if now.Before(e.At) && e.covers(m.QuestionID) {
		return m.ExamDue(e.At)
	}
	return m.Due
}

// FinalPass reports whether now is in the final pass's days: the last
// FinalPassDays days before the exam.
func (e ExamPlan) FinalPass(now time.Time) bool {
	return !e.At.IsZero() && now.Before(e.At) && !now.Before(e.finalFrom())
}

func (e ExamPlan) finalFrom() time.Time { return e.At.Add(-FinalPassDays * 24 * time.Hour) }

// ReviewOrder builds a member's review queue at now from their memories,
// under their exam plan (the zero ExamPlan when they set no exam date).
// A memory is left out when skip reports its question ID (skip may be nil):
// the caller skips every question still open in the guild (reviewing it
// would reveal its answer before the close) and questions no longer in any
// bank. The due memories come misses first (last answer wrong), then by
// due time (earliest first), then by question ID.
func ReviewOrder(mems []Memory, skip func(questionID string) bool, now time.Time, exam ExamPlan) ReviewQueue {
	var q ReviewQueue
	final := exam.FinalPass(now)
	recall := map[string]float64{} // of the final pass's questions, at the exam
	for _, m := range mems {
		if !m.Seen() || skip != nil && skip(m.QuestionID) {
			continue
		}
		m.Due = exam.Due(m, now)
		switch {
		case !m.Due.After(now):
			q.Due = append(q.Due, m)
			continue
		case final && exam.covers(m.QuestionID) && m.LastReview.Before(exam.finalFrom()):
			if r := m.Retrievability(exam.At); r < FinalPassRecall {
				recall[m.QuestionID] = r
				q.Final = append(q.Final, m)
			}
		}
		if q.Next.IsZero() || m.Due.Before(q.Next) {
			q.Next = m.Due
		}
	}
	slices.SortFunc(q.Due, func(a, b Memory) int {
		if a.Missed() != b.Missed() {
			if a.Missed() {
				return -1
			}
			return 1
		}
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return cmp.Compare(a.QuestionID, b.QuestionID)
	})
	slices.SortFunc(q.Final, func(a, b Memory) int {
		if c := cmp.Compare(recall[a.QuestionID], recall[b.QuestionID]); c != 0 {
			return c
		}
		return cmp.Compare(a.QuestionID, b.QuestionID)
	})
	return q
}
