package questions

import (
	"cmp"
	"slices"
)

// MockDraw is what a mock exam's questions are drawn from.
type MockDraw struct {
	// Questions are the bank's.
	Questions []Question
	// Exam holds the domains and their weights (none: the whole bank).
	Exam Exam
	// N is how many questions to draw.
	N int
	// Memories are the member's, by question ID: a question they have not
	// seen, or missed the last time, comes before one they know.
	Memories map[string]Memory
	// Skip reports the questions never to draw (those open in a channel of
	// the server: the attempt would show their key before their close); nil
	// skips none.
	Skip func(questionID string) bool
	// Rand returns a number in [0, n): the draw's randomness.
	Rand func(n int) int
}

// DrawMock draws an attempt's questions, each once:
//
//   - With domains, each domain gets its share of N by weight, by the
//     largest remainder (Hamilton's method: N × weight ÷ 100 rounded down,
//     then one more to the domains with the largest remainders, ties to the
//     domain listed first). A question belongs to the first domain, in the
//     settings' order, among its tags (Exam.DomainOf). A domain with fewer
//     questions than its share gives them all, and the shortfall is shared
//     the same way among the domains that have more; questions of no
//     domain are drawn only when the domains cannot fill N.
//   - Within a domain (or the bank, without domains), questions the member
//     has not seen or missed the last time they answered come first, in
//     random order; then the others, in random order.
//
// The items come in random order, each with its domain (without domains,
// the question's first tag) and its key. Fewer than N come back when the
// bank has fewer questions that may be drawn.
func DrawMock(d MockDraw) []MockItem {
	groups := make([][]*Question, len(d.Exam.Domains)+1) // the domains, then no domain
	index := map[string]int{}
	for i, dom := range d.Exam.Domains {
		index[dom.Name] = i
	}
	for i := range d.Questions {
		q := &d.Questions[i]
		if d.Skip != nil && d.Skip(q.ID) {
			continue
		}
		g := len(d.Exam.Domains)
		if dom := d.Exam.DomainOf(q); dom != "" {
			g = index[dom]
		}
		groups[g] = append(groups[g], q)
	}
	weights := make([]int, len(groups))
	caps := make([]int, len(groups))
	for i := range groups {
		caps[i] = len(groups[i])
		if i < len(d.Exam.Domains) {
			weights[i] = d.Exam.Domains[i].Weight
		}
	}
	n := d.N
	var quota []int
	if len(d.Exam.Domains) == 0 {
		quota = []int{min(n, caps[0])}
	} else {
		quota = apportion(n, weights, caps)
		drawn := 0
		for _, k := range quota {
			drawn += k
		}
		last := len(groups) - 1
		quota[last] = min(n-drawn, caps[last])
	}
	var items []MockItem
	for g, qs := range groups {
		for _, q := range d.preferred(qs)[:quota[g]] {
			it := MockItem{QuestionID: q.ID, Correct: q.Correct(), OptionCount: len(q.Options)}
			switch {
			case g < len(d.Exam.Domains):
				it.Domain = d.Exam.Domains[g].Name
			case len(d.Exam.Domains) == 0 && len(q.Tags) > 0:
				it.Domain = q.Tags[0]
			}
			items = append(items, it)
		}
	}
	d.shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	return items
}

// preferred orders qs for drawing: those the member has not seen or
// missed the last time, shuffled, then the others, shuffled. qs is not
// modified.
func (d MockDraw) preferred(qs []*Question) []*Question {
	var first, rest []*Question
	for _, q := range qs {
		m, ok := d.Memories[q.ID]
		if !ok || !m.Seen() || m.Missed() {
			first = append(first, q)
		} else {
			rest = append(rest, q)
		}
	}
	d.shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	d.shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return append(first, rest...)
}

// shuffle is a Fisher-Yates shuffle of n elements with d.Rand.
func (d MockDraw) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, d.Rand(i+1))
	}
}

// apportion shares n among parties by weight, each getting at most its
// cap: Hamilton's method (each party's exact share rounded down, then one
// more to the largest remainders, ties to the lower index) among the
// parties with room left, again and again, until n is shared or no party
// has room. A party of weight 0 gets nothing.
func apportion(n int, weights, caps []int) []int {
	alloc := make([]int, len(weights))
	for n > 0 {
		var active []int
		total := 0
		for i, w := range weights {
			if w > 0 && alloc[i] < caps[i] {
				active = append(active, i)
				total += w
			}
		}
		if len(active) == 0 {
			break
		}
		type rem struct{ i, r int }
		var rems []rem
		given := 0
		for _, i := range active {
			share := n * weights[i] / total
			room := caps[i] - alloc[i]
			if share >= room {
				alloc[i] += room
				given += room
				continue
			}
			alloc[i] += share
			given += share
			rems = append(rems, rem{i, n * weights[i] % total})
		}
		slices.SortStableFunc(rems, func(a, b rem) int { return cmp.Or(cmp.Compare(b.r, a.r), cmp.Compare(a.i, b.i)) })
		for _, r := range rems {
			if given == n {
				break
			}
			if alloc[r.i] < caps[r.i] {
				alloc[r.i]++
				given++
			}
		}
		n -= given
		if given == 0 {
			break
		}
	}
	return alloc
}
