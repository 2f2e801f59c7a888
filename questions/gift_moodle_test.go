package questions

import (
	"os"
	"reflect"
	"testing"
)

// testdata/moodle-export.gift is shaped like a Moodle 4 export of a
// course's question bank: Moodle's "Switch category to" comments and
// $CATEGORY paths with "$course$/top/Default for <course>" and
// sub-categories, [html] on most questions, <pre> code written with \n
// escapes, entities, several = answers, and the types quizhost skips
// between those it reads. The course is the bank, each sub-category a
// topic, and the questions read are numbered without gaps.
func TestParseGIFTMoodleExport(t *testing.T) {
	const path = "testdata/moodle-export.gift"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	banks, ps := ParseFile(path, data, ParseOptions{})
	if err := ps.Err(); err != nil {
		t.Fatalf("got errors %v, want none", err)
	}
	wantWarnings := []string{
		path + ":27: warning: skipped: unsupported GIFT question type (essay)",
		path + ":40: warning: skipped: unsupported GIFT question type (numerical)",
		path + ":54: warning: skipped: unsupported GIFT question type (matching)",
		path + ":62: warning: skipped: unsupported GIFT question type (description: no answer block {…})",
		path + ":73: warning: skipped: unsupported GIFT question type (short answer)",
	}
	if got := problemStrings(ps.Warnings()); !reflect.DeepEqual(got, wantWarnings) {
		t.Errorf("got warnings %q, want %q", got, wantWarnings)
	}
	const bank = "Python Basics"
	q := func(id string, number, line int, topic, stem string, opts ...Option) Question {
		q := Question{ID: bank + "#" + id, Bank: bank, Number: number, Stem: stem, Options: opts, Line: line}
		if topic != "" {
			q.Tags = []string{topic}
		}
		return q
	}
	division := q("Data types/Integer division", 3, 31, "Data types", "What is the value of `7 // 2`?",
		Option{Letter: "A", Text: "3", Correct: true, Rationale: "Floor division drops the fraction."},
		Option{Letter: "B", Text: "3.5", Rationale: "That is `7 / 2`."},
		Option{Letter: "C", Text: "4"})
	division.Explanation = "In Python 3, `//` is floor division and `/` true division."
	want := []Bank{{Name: bank, Path: path, Questions: []Question{
		q("Python indentation", 1, 6, "", "What does this print?\n\n```\ndef f(xs):\n    total = 0\n    for x in xs:\n        if x < 3 and x > 0:\n            total += x\n    return total\n\nprint(f([1, 2, 5]))\n```",
			Option{Letter: "A", Text: "3", Correct: true},
			Option{Letter: "B", Text: "8", Rationale: "5 is not < 3."},
			Option{Letter: "C", Text: "0"}),
		q("Data types/Mutable types", 2, 18, "Data types", "Which of these built-in types are **mutable**? Choose two.",
			Option{Letter: "A", Text: "`list`", Correct: true, Rationale: "A list can be changed in place."},
			Option{Letter: "B", Text: "`tuple`", Rationale: "A tuple cannot change once made."},
			Option{Letter: "C", Text: "`dict`", Correct: true},
			Option{Letter: "D", Text: "`str`"}),
		division,
		q("Control flow/Loop else", 4, 50, "Control flow", "A `for` loop's `else` block runs when the loop ends without `break`.",
			Option{Letter: "A", Text: "True", Correct: true, Rationale: "Right: `break` skips it."},
			Option{Letter: "B", Text: "False", Rationale: "It runs only when no `break` happened."}),
		q("Control flow/Exception order", 5, 65, "Control flow", "Which clause runs whether or not an exception was raised?\nPick one.",
			Option{Letter: "A", Text: "finally", Correct: true},
			Option{Letter: "B", Text: "except"},
			Option{Letter: "C", Text: "else"}),
	}}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}
}

// Moodle writes a category as a path from its context; its boilerplate
// (the context, "top", "Default for ") is not part of the bank's name, and
// the levels below the bank are the sub-category.
func TestGIFTCategory(t *testing.T) {
	tests := []struct{ in, bank, sub string }{
		{"$course$/top/Default for Python Basics/Data types", "Python Basics", "Data types"},
		{"$course$/top/Default for Python Basics", "Python Basics", ""},
		{"$course$/Default for Python Basics/Data types/Strings", "Python Basics", "Data types/Strings"},
		{"$system$/top/Default for System", "System", ""},
		{"$module$/top/Default for Course bank/Week 1", "Course bank", "Week 1"},
		{"$coursecategory$/top/Networking/Routing", "Networking", "Routing"},
		{"$course$/Cloud 101 Networking", "Cloud 101 Networking", ""},
		{"top/Cloud/Net", "Cloud", "Net"},
		{"Cloud 101 Networking", "Cloud 101 Networking", ""},
		{"TCP//IP basics/Ports", "TCP/IP basics", "Ports"},
		{"$course$/top/ Default for  Padded /  Topic ", "Padded", "Topic"},
		{"$course$/top", "", ""},
		{"$course$", "", ""},
		{"Default for ", "Default for", ""},
		{"topology/Rings", "topology", "Rings"},
	}
	for _, tt := range tests {
		bank, sub := giftCategory(tt.in)
		if bank != tt.bank || sub != tt.sub {
			t.Errorf("giftCategory(%q) = %q, %q; want %q, %q", tt.in, bank, sub, tt.bank, tt.sub)
		}
	}
}

// Sub-categories of one course are one bank, so their questions are
// numbered together, and the same title in two of them names two
// questions; a question before any $CATEGORY stays in the file's bank.
func TestGIFTSubCategoriesShareTheBank(t *testing.T) {
	data := "::Q1::Before? {=a ~b}\n\n" +
		"$CATEGORY: $course$/top/Default for Net/Routing\n\n::Q1::Which? {=a ~b}\n\n::Essay::Why? {}\n\n" +
		"$CATEGORY: $course$/top/Default for Net/Switching\n\n::Q1::What? {=a ~b}\n\nUntitled? {=a ~b}\n"
	banks, ps := ParseFile("course.gift", []byte(data), ParseOptions{})
	if err := ps.Err(); err != nil {
		t.Fatal(err)
	}
	type got struct {
		Bank, ID string
		Number   int
		Tags     []string
	}
	var all []got
	for _, b := range banks {
		for _, q := range b.Questions {
			all = append(all, got{b.Name, q.ID, q.Number, q.Tags})
		}
	}
	want := []got{
		{"course", "course#Q1", 1, nil},
		{"Net", "Net#Routing/Q1", 1, []string{"Routing"}},
		{"Net", "Net#Switching/Q1", 2, []string{"Switching"}},
		{"Net", ContentID("Net", "Untitled?"), 3, []string{"Switching"}},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("got %+v, want %+v", all, want)
	}
}
