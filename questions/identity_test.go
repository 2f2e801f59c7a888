package questions

import (
	"reflect"
	"strings"
	"testing"
)

func TestContentID(t *testing.T) {
	tests := []struct {
		name, bank, stem, want string
	}{
		{"plain", "B", "Q?", "B#c1ce7ac6"},
		{"white space is normalised", "B", "  Q one?\n\n more \t", "B#d04f8f2a"},
		{"same words, one line", "B", "Q one? more", "B#d04f8f2a"},
		{"an edit is a new question", "B", "Q one?", "B#998ff9ca"},
		{"the bank is part of it", "Net", "Q?", "Net#c1ce7ac6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContentID(tt.bank, tt.stem); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Reordering the questions of a file keeps every question's ID, in every
// format; a question's Number is its position when nothing else numbers it.
func TestIdentitySurvivesReordering(t *testing.T) {
	type idNum struct {
		ID     string
		Number int
	}
	tests := []struct {
		name       string
		path       string
		one, two   string // the two questions, in file syntax
		sep        string
		head       string
		wantOne    idNum // the first question's ID and Number, in the order one, two
		wantTwo    idNum
		swappedOne idNum // and in the order two, one
		swappedTwo idNum
	}{
		{
			name: "yaml without id or number", path: "b.yaml", head: "bank: B\nquestions:\n",
			one:     "  - question: One?\n    options: [{text: a, correct: true}, {text: b}]\n",
			two:     "  - question: Two?\n    options: [{text: a, correct: true}, {text: b}]\n",
			wantOne: idNum{"B#588216e4", 1}, wantTwo: idNum{"B#e693dc5a", 2},
			swappedOne: idNum{"B#588216e4", 2}, swappedTwo: idNum{"B#e693dc5a", 1},
		},
		{
			name: "json with numbers", path: "b.json", head: `{"bank": "B", "questions": [`, sep: ",",
			one:     `{"number": 7, "question": "One?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}`,
			two:     `{"question": "Two?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}`,
			wantOne: idNum{"B#7", 7}, wantTwo: idNum{"B#e693dc5a", 2},
			swappedOne: idNum{"B#7", 7}, swappedTwo: idNum{"B#e693dc5a", 1},
		},
		{
			name: "gift untitled and titled", path: "b.gift", sep: "\n",
			one:     "One? {=a ~b}\n",
			two:     "::t::Two? {=a ~b}\n",
			wantOne: idNum{"b#588216e4", 1}, wantTwo: idNum{"b#t", 2},
			swappedOne: idNum{"b#588216e4", 2}, swappedTwo: idNum{"b#t", 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := ""
			if tt.path == "b.json" {
				tail = "]}"
			}
			for _, order := range []struct {
				data     string
				one, two idNum
			}{
				{tt.head + tt.one + tt.sep + tt.two + tail, tt.wantOne, tt.wantTwo},
				{tt.head + tt.two + tt.sep + tt.one + tail, tt.swappedOne, tt.swappedTwo},
			} {
				banks, err := Parse(tt.path, []byte(order.data))
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				got := map[string]idNum{}
				for _, q := range banks[0].Questions {
					got[q.Stem] = idNum{q.ID, q.Number}
				}
				want := map[string]idNum{"One?": order.one, "Two?": order.two}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("file %q: got %v, want %v", order.data, got, want)
				}
			}
		})
	}
}

func TestIdentityProblems(t *testing.T) {
	opts := "    options: [{text: a, correct: true}, {text: b}]"
	tests := []struct {
		name string
		path string
		data []byte
		want []string
	}{
		{
			name: "yaml: same text, no id",
			path: "b.yaml",
			data: lines("bank: B", "questions:", "  - question: Q?", opts, "  - question: Other?", opts, "  - question: \"  Q? \"", opts),
			want: []string{`b.yaml:7: question id "B#c1ce7ac6" used twice (first at line 3): both questions have this text and no id; give each an id`},
		},
		{
			name: "yaml: same text, ids given",
			path: "b.yaml",
			data: lines("bank: B", "questions:", "  - id: one", "    question: Q?", opts, "  - id: two", "    question: Q?", opts),
			want: []string{},
		},
		{
			name: "yaml: a position and an explicit number may be equal",
			path: "b.yaml",
			data: lines("bank: B", "questions:", "  - question: One?", opts, "  - number: 1", "    question: Two?", opts),
			want: []string{},
		},
		{
			name: "yaml: a null number is no number",
			path: "b.yaml",
			data: lines("bank: B", "questions:", "  - number:", "    question: Q?", opts, "  - number: null", "    question: Q?", opts),
			want: []string{`b.yaml:6: question id "B#c1ce7ac6" used twice (first at line 3): both questions have this text and no id; give each an id`},
		},
		{
			name: "yaml: explicit numbers must differ",
			path: "b.yaml",
			data: lines("bank: B", "questions:", "  - number: 2", "    question: One?", opts, "  - question: Two?", opts, "  - number: 2", "    question: Three?", opts),
			want: []string{"b.yaml:8: question number 2 used twice (first at line 3)"},
		},
		{
			name: "yaml: an id equal to another question's text id",
			path: "b.yaml",
			data: lines("bank: B", "questions:", "  - question: Q?", opts, "  - id: B#c1ce7ac6", "    question: Other?", opts),
			want: []string{`b.yaml:5: question id "B#c1ce7ac6" used twice (first at line 3)`},
		},
		{
			name: "gift: same text, no title",
			path: "b.gift",
			data: lines("Q? {=a ~b}", "", "::t::Q? {=a ~b}", "", "Q?", "{=a ~b}"),
			want: []string{`b.gift:5: question id "b#c1ce7ac6" used twice (first at line 1): both questions have this text and no title; give each a ::title::`},
		},
		{
			name: "gift: same text in two categories",
			path: "b.gift",
			data: lines("$CATEGORY: One", "Q? {=a ~b}", "", "$CATEGORY: Two", "Q? {=a ~b}"),
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := parse(tt.path, tt.data, ParseOptions{})
			if got := problemStrings(ps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// IDs are unique across files too: the loader refuses a file whose
// questions' IDs, derived from their text or not, another file uses.
func TestLoadRefusesIDsAcrossFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": "bank: Net\nquestions:\n  - question: Q?\n    options: [{text: a, correct: true}, {text: b}]\n",
		"b.json": `{"bank": "Other", "questions": [` + "\n" +
			`{"id": "Net#c1ce7ac6", "question": "R?", "options": [{"text": "a", "correct": true}, {"text": "b"}]},` + "\n" +
			`{"id": "Third#a451af17", "question": "T?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`,
		"c.gift": "$CATEGORY: Third\n\n::t::Q? {=a ~b}\n\nS?\n{=a ~b}\n",
	})
	_, ps := Loader{Paths: []string{dir}}.Load()
	err := ps.Err()
	if err == nil {
		t.Fatal("got no error, want the IDs used twice")
	}
	got := strings.Split(strings.ReplaceAll(err.Error(), dir+"/", ""), "\n")
	want := []string{
		`b.json:2: question "Net#c1ce7ac6" is also defined at a.yaml:3`,
		`c.gift:5: question "Third#a451af17" is also defined at b.json:3`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
