package questions

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Drills (/quiz drill): a member's private practice set of one topic,
// graded question by question like a review and counted like one (their
// memory and streak, never points).

// DrillSize is how many questions a drill has unless the member asks for
// another number; MaxDrillSize is the most it may have.
const (
	DrillSize    = 10
	MaxDrillSize = 25
)

// Drill is one member's drill in a guild: its questions in the order they
// are shown and how far the member got. A member has one drill at a time:
// starting another replaces it.
type Drill struct {
	GuildID GuildID
	UserID  UserID
	// Topic is the tag drilled, as the banks spell it; "" drills every
	// question (banks without tags).
	Topic string
	// Questions are the question IDs in drill order (PlanDrill).
	Questions []string
	// Shown is how many of Questions have been shown (or skipped: removed
	// from the banks, or open in the guild, when their turn came); the next
	// is Questions[Shown].
	Shown     int
	StartedAt time.Time
	// Review is the private question the last shown of Questions was
	// shown as; 0 in drills stored before it was kept.
	Review ReviewID
}

// Current reports whether r, a question shown to the member, is the
// drill's latest: the one the drill last showed (Review), or, in a drill
// stored before that was kept, one of the question last shown, shown
// since the drill started.
func (d Drill) Current(r Review) bool {
	if d.Review != 0 {
		return r.ID == d.Review
	}
	return d.Shown > 0 && d.Shown <= len(d.Questions) && r.QuestionID == d.Questions[d.Shown-1] &&
		r.UserID == d.UserID && !r.OpenedAt.Before(d.StartedAt)
}

// Score counts the drill's questions shown so far that the member has
// answered since the drill started, and how many of them they got right
// the first time (a question answered twice counts its first answer).
// mems holds the member's memories by question ID.
func (d Drill) Score(mems map[string]Memory) (answered, right int) {
	for _, id := range d.Questions[:min(d.Shown, len(d.Questions))] {
		for _, a := range mems[id].History {
			if !a.At.Before(d.StartedAt) {
				answered++
				if a.Right {
					right++
				}
				break
			}
		}
	}
	return answered, right
}

// HasTopic reports whether q has the tag topic, compared without regard
// to case; every question has the topic "".
func HasTopic(q *Question, topic string) bool {
	if topic == "" {
		return true
	}
	return slices.ContainsFunc(q.Tags, func(t string) bool { return strings.EqualFold(t, topic) })
}

// Topics returns the tags of qs, each once (in its first spelling; tags
// that differ only in case are one topic), sorted without regard to case.
func Topics(qs []Question) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range qs {
		for _, t := range q.Tags {
			if k := strings.ToLower(t); t != "" && !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
}

// WeakestTopic is the member's weakest topic among the tags of qs at now:
// of the tags with a question they have answered, the one with the lowest
// predicted recall now (TopicReadiness.Recall at now: the mean chance of
// getting each of its questions right, a question never answered counting
// as not known), ties going to the tag with fewer questions seen, then by
// name; when they have answered none, the tag with the most questions
// (ties by name), the topic with the most to learn. It returns the tag,
// its recall now, and false when qs have no tags.
func WeakestTopic(qs []Question, mems map[string]Memory, now time.Time) (string, float64, bool) {
	topics := ComputeReadiness(qs, mems, nil, now, now).Topics
	if len(topics) == 0 {
		return "", 0, false
	}
	seen := slices.ContainsFunc(topics, func(t TopicReadiness) bool { return t.Seen > 0 })
	best := -1
	for i, t := range topics {
		if seen && t.Seen == 0 {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := topics[best]
		var c int
		if seen {
			c = cmp.Or(cmp.Compare(t.Recall, b.Recall), cmp.Compare(t.Seen, b.Seen))
		} else {
			c = cmp.Compare(b.Questions, t.Questions)
		}
		if c < 0 { // topics are sorted by name: the first of equals stays
			best = i
		}
	}
	return topics[best].Topic, topics[best].Recall, true
}

// PlanDrill picks the questions of a drill: at most count of the questions
// of qs that have the topic (HasTopic), each once, in the order they are
// shown:
//
//  1. those the member missed last time (their last answer wrong), least
//     recalled now first;
//  2. those they never answered, in bank order;
//  3. a few they know (last answer right), least recalled now first: a
//     fifth of the drill, rounded up (none in a drill of one question),
//     or more when the first two run short.
//
// A question for which skip reports true (skip may be nil; the caller
// skips questions open in the guild) is left out. mems holds the member's
// memories by question ID.
func PlanDrill(qs []Question, mems map[string]Memory, topic string, count int, skip func(questionID string) bool, now time.Time) []string {
	type cand struct {
		id     string
		recall float64
	}
	var missed, unseen, known []cand
	taken := map[string]bool{}
	for i := range qs {
		q := &qs[i]
		if taken[q.ID] || !HasTopic(q, topic) || skip != nil && skip(q.ID) {
			continue
		}
		taken[q.ID] = true
		m, ok := mems[q.ID]
		switch {
		case !ok || !m.Seen():
			unseen = append(unseen, cand{id: q.ID})
		case m.Missed():
			missed = append(missed, cand{q.ID, m.Retrievability(now)})
		default:
			known = append(known, cand{q.ID, m.Retrievability(now)})
		}
	}
	byRecall := func(a, b cand) int { return cmp.Compare(a.recall, b.recall) }
	slices.SortStableFunc(missed, byRecall)
	slices.SortStableFunc(known, byRecall)
	few := 0
	if count > 1 {
		few = min(len(known), (count+4)/5)
	}
	var out []string
	add := func(cs []cand, upTo int) {
		for _, c := range cs {
			if len(out) >= upTo {
				return
			}
			out = append(out, c.id)
		}
	}
	add(missed, count-few)
	add(unseen, count-few)
	add(known, count)
	return out
}
