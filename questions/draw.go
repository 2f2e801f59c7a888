package questions

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The group-aware draw. While some questions of the banks have not been
// asked in the current round, /quiz ask and the daily quiz draw uniformly
// among those. Once every question has been asked, they draw the question
// the group is closest to forgetting:
//
//   - The group is the members who play: those who answered a question
//     posted in the guild (ask or daily) within PlayerWindow before now.
//   - For each candidate question, the group's recall is the mean, over
//     the members who play, of FSRS's retrievability of the question now
//     (the predicted chance each would get it right), a member who never
//     answered it counting 0, as on the readiness figures.
//   - The question with the lowest group recall is drawn; questions whose
//     recall ties (equal to 1e-9) are drawn among uniformly, with the
//     injected random source. With nobody playing, every recall is 0 and
//     the draw is uniform.

// PlayerWindow is how recently a member must have answered a posted
// question to count as playing, for the group-aware draw.
const PlayerWindow = 30 * 24 * time.Hour

// GroupRecall is a candidate question's recall across the members who play.
type GroupRecall struct {
	QuestionID string
	Recall     float64 // mean retrievability now over the players, unseen = 0
	Seen       int     // players who have answered it at least once
}

// RankByRecall returns the candidates (question IDs; duplicates count
// once) with their group recall, lowest first: the order of the draw.
// players are the members who play; mems are memories of any members
// (those of members not in players are ignored). Ties keep a random order
// drawn from r (candidate order when r is nil), so the first entry is the
// draw.
func RankByRecall(candidates []string, players []UserID, mems []Memory, now time.Time, r *rand.Rand) []GroupRecall {
	playing := make(map[UserID]bool, len(players))
	for _, p := range players {
		playing[p] = true
	}
	idx := make(map[string]int, len(candidates))
	out := make([]GroupRecall, 0, len(candidates))
	for _, id := range candidates {
		if _, dup := idx[id]; dup {
			continue
		}
		idx[id] = len(out)
		out = append(out, GroupRecall{QuestionID: id})
	}
	sums := make([]float64, len(out))
	for _, m := range mems {
		i, ok := idx[m.QuestionID]
		if !ok || !playing[m.UserID] || !m.Seen() {
			continue
		}
		sums[i] += m.Retrievability(now)
		out[i].Seen++
	}
	if n := len(playing); n > 0 {
		for i := range out {
			out[i].Recall = sums[i] / float64(n)
		}
	}
	if r != nil {
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	slices.SortStableFunc(out, func(a, b GroupRecall) int {
		return cmp.Compare(tieKey(a.Recall), tieKey(b.Recall))
	})
	return out
}

// tieKey rounds a recall to 1e-9, so recalls equal up to float noise tie.
func tieKey(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// DrawForgotten draws up to n distinct questions among the candidates by
// the group-aware rule (see RankByRecall): the n the group is closest to
// forgetting, ties broken with r.
func DrawForgotten(candidates []string, players []UserID, mems []Memory, now time.Time, n int, r *rand.Rand) []string {
	ranked := RankByRecall(candidates, players, mems, now, r)
	out := make([]string, 0, min(n, len(ranked)))
	for _, g := range ranked[:min(max(n, 0), len(ranked))] {
		out = append(out, g.QuestionID)
	}
	return out
}
