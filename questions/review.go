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
	// Due are the memories due now, in review order.
	Due []Memory
	// Next is the earliest due time after now of the memories not due
	// yet (skipped ones aside); zero when there is none.
	Next time.Time
}

// ReviewOrder builds a member's review queue at now from their memories.
// A memory is left out when skip reports its question ID (skip may be nil):
// the caller skips every question still open in the guild (reviewing it
// would reveal its answer before the close) and questions no longer in any
// bank. The due memories come misses first (last answer wrong), then by
// due time (earliest first), then by question ID.
func ReviewOrder(mems []Memory, skip func(questionID string) bool, now time.Time) ReviewQueue {
	var q ReviewQueue
	for _, m := range mems {
		if !m.Seen() || skip != nil && skip(m.QuestionID) {
			continue
		}
		if m.DueBy(now) {
			q.Due = append(q.Due, m)
		} else if q.Next.IsZero() || m.Due.Before(q.Next) {
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
	return q
}
