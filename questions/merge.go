package questions

import (
	"slices"
	"strings"
)

// MergeCount says what merging questions into a bank did.
type MergeCount struct {
	Added     int // questions with an ID the bank did not have
	Updated   int // questions that replaced a different one of the same ID
	Unchanged int // questions equal to the one of the same ID already there
}

// Merge returns base with the questions of incoming merged in, by ID: one
// whose ID base has replaces that question in place (Updated, or Unchanged
// when the two are equal but for Line), the others are appended in
// incoming's order (Added); base's other questions stay as they are. The
// result has base's name, or incoming's when base has none (a new bank);
// incoming's questions should already carry that name (see Rename). The
// exam settings are incoming's when it has some, else base's. Neither
// argument is modified. Two questions of incoming with the same ID
// count once each; the later one wins (Validate reports such a file).
func Merge(base, incoming Bank) (Bank, MergeCount) {
	at := make(map[string]int, len(base.Questions))
	for i, q := range base.Questions {
		at[q.ID] = i
	}
	// Room for exactly the questions of the result: a bank of thousands
	// grown one append at a time, or given room for every incoming
	// question when most replace one of base, would keep up to as much
	// again unused for as long as it is kept.
	added := 0
	for _, q := range incoming.Questions {
		if _, ok := at[q.ID]; !ok {
			added++
		}
	}
	qs := make([]Question, len(base.Questions), len(base.Questions)+added)
	copy(qs, base.Questions)
	out := Bank{Name: base.Name, Path: base.Path, Questions: qs, Exam: base.Exam}
	if incoming.Exam != nil {
		out.Exam = incoming.Exam
	}
	if out.Name == "" {
		out.Name, out.Path = incoming.Name, incoming.Path
	}
	var n MergeCount
	for _, q := range incoming.Questions {
		i, ok := at[q.ID]
		switch {
		case !ok:
			at[q.ID] = len(out.Questions)
			out.Questions = append(out.Questions, q)
			n.Added++
		case questionDiff(&out.Questions[i], &q) == "":
			n.Unchanged++
		default:
			out.Questions[i] = q
			n.Updated++
		}
	}
	return out, n
}

// ShareUnchanged makes each question of b that base also has (by ID)
// share base's memory for the fields in which the two are equal: the
// texts, and the options, tags and community votes when they are equal
// whole. What b's questions hold does not change, only where it is held:
// a bank imported again with a few fields edited then costs one copy of
// the rest, base's. It modifies b's questions in place; base is not
// modified, and both must stay so afterwards (they share memory).
func ShareUnchanged(b *Bank, base *Bank) {
	at := make(map[string]*Question, len(base.Questions))
	for i := range base.Questions {
		at[base.Questions[i].ID] = &base.Questions[i]
	}
	for i := range b.Questions {
		q := &b.Questions[i]
		old := at[q.ID]
		if old == nil {
			continue
		}
		q.ID = old.ID
		q.Bank = same(q.Bank, old.Bank)
		q.Stem = same(q.Stem, old.Stem)
		q.Explanation = same(q.Explanation, old.Explanation)
		q.Source = same(q.Source, old.Source)
		q.Path = same(q.Path, old.Path)
		if len(q.Options) > 0 && slices.Equal(q.Options, old.Options) {
			q.Options = old.Options
		} else if len(q.Options) == len(old.Options) {
			for j := range q.Options {
				q.Options[j].Text = same(q.Options[j].Text, old.Options[j].Text)
				q.Options[j].Rationale = same(q.Options[j].Rationale, old.Options[j].Rationale)
			}
		}
		if len(q.Tags) > 0 && slices.Equal(q.Tags, old.Tags) {
			q.Tags = old.Tags
		}
		if len(q.Community) > 0 && questionDiff(&Question{Community: q.Community}, &Question{Community: old.Community}) == "" {
			q.Community = old.Community
		}
	}
}

// same is old when it equals s, else s.
func same(s, old string) string {
	if s == old {
		return old
	}
	return s
}

// Without returns b without the question of that ID, and whether b had it.
// b is not modified.
func Without(b Bank, id string) (Bank, bool) {
	i := slices.IndexFunc(b.Questions, func(q Question) bool { return q.ID == id })
	if i < 0 {
		return b, false
	}
	b.Questions = slices.Delete(slices.Clone(b.Questions), i, i+1)
	return b, true
}

// Rename gives b a new name, carrying along the IDs of its questions that
// were derived from the old name ("<old>#…" becomes "<name>#…"). It
// modifies b's questions in place.
func Rename(b *Bank, name string) {
	old := b.Name
	if old == name {
		return
	}
	b.Name = name
	for i := range b.Questions {
		q := &b.Questions[i]
		q.Bank = name
		if rest, ok := strings.CutPrefix(q.ID, old+"#"); ok {
			q.ID = name + "#" + rest
		}
	}
}

// questionDiff names the first field in which p and q differ, ignoring
// Line and the difference between nil and empty Tags; "" when there is
// none.
func questionDiff(p, q *Question) string {
	switch {
	case p.ID != q.ID:
		return "id"
	case p.Bank != q.Bank:
		return "bank"
	case p.Number != q.Number:
		return "number"
	case p.Stem != q.Stem:
		return "question text"
	case !slices.Equal(p.Options, q.Options):
		return "options"
	case p.Explanation != q.Explanation:
		return "explanation"
	case !slices.Equal(p.Tags, q.Tags):
		return "tags"
	case p.Source != q.Source:
		return "source"
	case !slices.EqualFunc(p.Community, q.Community, func(a, b CommunityVote) bool {
		return a.Percent == b.Percent && slices.Equal(a.Letters, b.Letters)
	}):
		return "community vote"
	}
	return ""
}
