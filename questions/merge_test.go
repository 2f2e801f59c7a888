package questions

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

func mergeQ(id, stem string, line int) Question {
	return Question{ID: id, Bank: "B", Number: 1, Stem: stem, Line: line,
		Options: []Option{{Letter: "A", Text: "yes", Correct: true}, {Letter: "B", Text: "no"}}}
}

func TestMerge(t *testing.T) {
	q1, q2, q3 := mergeQ("B#1", "one", 1), mergeQ("B#2", "two", 9), mergeQ("B#3", "three", 17)
	q2moved := q2
	q2moved.Line = 40 // the same question elsewhere in another file
	q2edited := mergeQ("B#2", "two, reworded", 9)
	tests := []struct {
		name     string
		base     Bank
		incoming Bank
		wantIDs  []string
		wantStem []string
		want     MergeCount
	}{
		{"into a new bank", Bank{}, Bank{Name: "B", Questions: []Question{q1}},
			[]string{"B#1"}, []string{"one"}, MergeCount{Added: 1}},
		{"one at a time adds", Bank{Name: "B", Questions: []Question{q1, q2}}, Bank{Name: "B", Questions: []Question{q3}},
			[]string{"B#1", "B#2", "B#3"}, []string{"one", "two", "three"}, MergeCount{Added: 1}},
		{"same question again is unchanged (line ignored)", Bank{Name: "B", Questions: []Question{q1, q2}}, Bank{Name: "B", Questions: []Question{q2moved}},
			[]string{"B#1", "B#2"}, []string{"one", "two"}, MergeCount{Unchanged: 1}},
		{"changed question is updated in place", Bank{Name: "B", Questions: []Question{q1, q2, q3}}, Bank{Name: "B", Questions: []Question{q2edited}},
			[]string{"B#1", "B#2", "B#3"}, []string{"one", "two, reworded", "three"}, MergeCount{Updated: 1}},
		{"all three at once", Bank{Name: "B", Questions: []Question{q1, q2}}, Bank{Name: "B", Questions: []Question{q1, q2edited, q3}},
			[]string{"B#1", "B#2", "B#3"}, []string{"one", "two, reworded", "three"}, MergeCount{Added: 1, Updated: 1, Unchanged: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.base.Questions)
			got, n := Merge(tt.base, tt.incoming)
			if n != tt.want {
				t.Errorf("count = %+v, want %+v", n, tt.want)
			}
			var ids, stems []string
			for _, q := range got.Questions {
				ids, stems = append(ids, q.ID), append(stems, q.Stem)
			}
			if !slices.Equal(ids, tt.wantIDs) || !slices.Equal(stems, tt.wantStem) {
				t.Errorf("questions %v %q, want %v %q", ids, stems, tt.wantIDs, tt.wantStem)
			}
			if got.Name != "B" {
				t.Errorf("name %q, want B", got.Name)
			}
			if len(before) > 0 && !slices.EqualFunc(before, tt.base.Questions, func(a, b Question) bool { return questionDiff(&a, &b) == "" }) {
				t.Error("Merge modified its base")
			}
		})
	}
}

func TestWithout(t *testing.T) {
	b := Bank{Name: "B", Questions: []Question{mergeQ("B#1", "one", 1), mergeQ("B#2", "two", 2)}}
	got, ok := Without(b, "B#1")
	if !ok || len(got.Questions) != 1 || got.Questions[0].ID != "B#2" {
		t.Errorf("Without(B#1) = %+v, %v; want only B#2", got.Questions, ok)
	}
	if len(b.Questions) != 2 || b.Questions[0].ID != "B#1" {
		t.Errorf("Without modified its argument: %+v", b.Questions)
	}
	if _, ok := Without(b, "B#9"); ok {
		t.Error("Without(B#9) reported a removal")
	}
}

func TestRename(t *testing.T) {
	b := Bank{Name: "Old", Questions: []Question{{ID: "Old#3", Bank: "Old"}, {ID: "custom-7", Bank: "Old"}}}
	Rename(&b, "New")
	if b.Name != "New" || b.Questions[0].ID != "New#3" || b.Questions[1].ID != "custom-7" || b.Questions[1].Bank != "New" {
		t.Errorf("after Rename: %+v", b)
	}
}

func TestShareUnchanged(t *testing.T) {
	t.Parallel()
	// fresh returns a copy of s in memory of its own, as a parser makes it.
	fresh := func(s string) string { return string([]byte(s)) }
	old := Bank{Name: "Net", Questions: []Question{
		{ID: "q1", Bank: "Net", Stem: "Stem one?", Explanation: "Because.", Tags: []string{"dns"},
			Options:   []Option{{Letter: "A", Text: "Yes", Correct: true}, {Letter: "B", Text: "No", Rationale: "Never."}},
			Community: []CommunityVote{{Letters: []string{"A"}, Percent: 90}}},
		{ID: "q2", Bank: "Net", Stem: "Stem two?", Options: []Option{{Letter: "A", Text: "One"}, {Letter: "B", Text: "Two", Correct: true}}},
	}}
	again := func() Bank {
		b := Bank{Name: "Net"}
		for _, q := range old.Questions {
			q.ID, q.Bank, q.Stem, q.Explanation = fresh(q.ID), fresh(q.Bank), fresh(q.Stem), fresh(q.Explanation)
			q.Options = slices.Clone(q.Options)
			for i := range q.Options {
				q.Options[i].Text, q.Options[i].Rationale = fresh(q.Options[i].Text), fresh(q.Options[i].Rationale)
			}
			q.Tags = slices.Clone(q.Tags)
			q.Community = slices.Clone(q.Community)
			b.Questions = append(b.Questions, q)
		}
		return b
	}
	shared := func(a, b string) bool { return a == b && unsafe.StringData(a) == unsafe.StringData(b) }

	b := again()
	b.Questions[0].Explanation = "Edited."
	b.Questions[1].Options[1].Text = "Three"
	b.Questions = append(b.Questions, Question{ID: "q3", Bank: "Net", Stem: "New?"})
	want := again()
	want.Questions[0].Explanation = "Edited."
	want.Questions[1].Options[1].Text = "Three"
	want.Questions = append(want.Questions, Question{ID: "q3", Bank: "Net", Stem: "New?"})
	ShareUnchanged(&b, &old)
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("got %+v, want %+v: the values changed", b, want)
	}
	q0, q1 := b.Questions[0], b.Questions[1]
	if !shared(q0.Stem, old.Questions[0].Stem) || !shared(q0.ID, old.Questions[0].ID) || !shared(q0.Bank, old.Questions[0].Bank) {
		t.Error("the unchanged texts of an edited question are not shared")
	}
	if &q0.Options[0] != &old.Questions[0].Options[0] || &q0.Tags[0] != &old.Questions[0].Tags[0] || &q0.Community[0] != &old.Questions[0].Community[0] {
		t.Error("equal options, tags or votes are not shared")
	}
	if &q1.Options[0] == &old.Questions[1].Options[0] || !shared(q1.Options[0].Text, old.Questions[1].Options[0].Text) {
		t.Error("options that differ share their slice, or an unchanged option's text is not shared")
	}
	if old.Questions[0].Explanation != "Because." || old.Questions[1].Options[1].Text != "Two" {
		t.Error("base changed")
	}
}

// Merge keeps no unused room in the result, which a snapshot may keep
// for long: neither for incoming questions that replace others, nor for
// the ones it adds.
func TestMergeRoom(t *testing.T) {
	t.Parallel()
	base := Bank{Name: "B", Questions: []Question{mergeQ("B#1", "One?", 1), mergeQ("B#2", "Two?", 2)}}
	in := Bank{Name: "B", Questions: []Question{mergeQ("B#1", "One, edited?", 1), mergeQ("B#2", "Two?", 2), mergeQ("B#3", "Three?", 3)}}
	got, n := Merge(base, in)
	if len(got.Questions) != 3 || cap(got.Questions) != 3 || n != (MergeCount{Added: 1, Updated: 1, Unchanged: 1}) {
		t.Errorf("got %d questions, room for %d, %+v; want 3, 3, 1 added, 1 updated, 1 unchanged", len(got.Questions), cap(got.Questions), n)
	}
}
