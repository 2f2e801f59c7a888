package questions

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseDispatch(t *testing.T) {
	tests := []struct {
		name string
		path string
		data []byte
		want string // ID of the first question
	}{
		{"text", "a/b.txt", lines(q2("B Question 3")...), "B#3"},
		{"yaml", "b.yaml", []byte("bank: B\nquestions:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n"), "B#c1ce7ac6"},
		{"yml", "b.YML", []byte("bank: B\nquestions:\n- id: x\n  question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n"), "x"},
		{"json", "b.json", []byte(`{"bank": "B", "questions": [{"number": 4, "question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`), "B#4"},
		{"gift", "b.gift", []byte("::t::Q?{=a ~b}"), "b#t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, err := Parse(tt.path, tt.data)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := banks[0].Questions[0].ID; got != tt.want {
				t.Errorf("got ID %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	_, err := Parse("notes.md", []byte("x"))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Error() != "notes.md: not a bank file (want .txt, .aiken, .yaml, .yml, .json, .gift, .csv or .tsv)" {
		t.Errorf("got %v, want one problem naming notes.md", err)
	}
	// Parse runs Validate: a body too long for Discord is refused.
	long := strings.Repeat("x", MaxStemLength+1)
	_, err = Parse("b.txt", lines("B Question 1", "Select 1"+long, "- A", "a", "- B", "b", "Correct answer: A"))
	if err == nil || err.Error() != "b.txt:1: the question text is 4097 characters; a Discord embed description holds at most 4096" {
		t.Errorf("got %v, want the stem length problem at line 1", err)
	}
}

func TestProblemsError(t *testing.T) {
	tests := []struct {
		name string
		ps   Problems
		want string
	}{
		{"with line", Problems{{Path: "a.txt", Line: 3, Msg: "bad"}}, "a.txt:3: bad"},
		{"whole file", Problems{{Path: "a.txt", Msg: "bad"}}, "a.txt: bad"},
		{"several", Problems{{Path: "a", Line: 1, Msg: "x"}, {Path: "b", Line: 2, Msg: "y"}}, "a:1: x\nb:2: y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ps.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if err := Problems(nil).Err(); err != nil {
		t.Errorf("got %v, want nil from an empty Problems", err)
	}
}

func TestValidate(t *testing.T) {
	good := func() Question {
		return Question{ID: "B#1", Bank: "B", Number: 1, Stem: "Q?", Line: 7, Options: []Option{
			{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b"},
		}}
	}
	tests := []struct {
		name   string
		bank   string
		change func(q *Question)
		want   []want
	}{
		{"sound", "B", func(q *Question) {}, nil},
		{"long option text is fine", "B", func(q *Question) { q.Options[0].Text = strings.Repeat("o", 3000) }, nil},
		{"longest stem", "B", func(q *Question) { q.Stem = strings.Repeat("é", MaxStemLength) }, nil},
		{"stem too long", "B", func(q *Question) { q.Stem = strings.Repeat("é", MaxStemLength+1) }, []want{{7, "the question text is 4097 characters; a Discord embed description holds at most 4096"}}},
		{"longest body", "B", func(q *Question) {
			q.Stem = strings.Repeat("s", MaxStemLength)
			q.Options[1].Text = strings.Repeat("o", MaxBodyLength-MaxStemLength-18)
		}, nil},
		{"body too long", "B", func(q *Question) {
			q.Stem = strings.Repeat("s", MaxStemLength)
			q.Options[1].Text = strings.Repeat("o", MaxBodyLength-MaxStemLength-17)
		}, []want{{7, "question text and options are 5801 characters; one post holds at most 5800"}}},
		{"explanation too long", "B", func(q *Question) { q.Explanation = strings.Repeat("e", MaxExplanationLength+1) }, []want{{7, "the explanation is 4097 characters"}}},
		{"rationale too long", "B", func(q *Question) { q.Options[1].Rationale = strings.Repeat("r", MaxRationaleLength+1) }, []want{{7, "the rationale of option B is 1025 characters; a Discord embed field holds at most 1024"}}},
		{"too many options", "B", func(q *Question) {
			q.Options = nil
			for i := range MaxOptions + 1 {
				q.Options = append(q.Options, Option{Letter: string(rune('A' + i)), Text: "t", Correct: i == 0})
			}
		}, []want{{7, "26 options; Discord's select menu holds at most 25"}}},
		{"one option", "B", func(q *Question) { q.Options = q.Options[:1] }, []want{{7, "1 option(s); at least 2"}}},
		{"letters out of order", "B", func(q *Question) { q.Options[1].Letter = "C" }, []want{{7, `option 2 has letter "C", want B`}}},
		{"no correct option", "B", func(q *Question) { q.Options[0].Correct = false }, []want{{7, "no option is correct"}}},
		{"empty option text", "B", func(q *Question) { q.Options[1].Text = " " }, []want{{7, "option B has no text"}}},
		{"no stem", "B", func(q *Question) { q.Stem = "" }, []want{{7, "the question has no text"}}},
		{"no id", "B", func(q *Question) { q.ID = "" }, []want{{7, "the question has no id"}}},
		{"id too long", "B", func(q *Question) { q.ID = strings.Repeat("i", MaxIDLength+1) }, []want{{7, "question id is 201 bytes; at most 200"}}},
		{"tag too long", "B", func(q *Question) { q.Tags = []string{"ok", strings.Repeat("t", MaxTagLength+1)} }, []want{{7, "is 101 characters; it must be 1 to 100"}}},
		{"bank name too long", strings.Repeat("n", MaxBankNameLength+1), func(q *Question) {}, []want{{7, "is 101 characters; it must be 1 to 100"}}},
		{"bank name empty", "", func(q *Question) {}, []want{{7, `bank name "" is 0 characters`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := good()
			tt.change(&q)
			ps := Validate([]Bank{{Name: tt.bank, Path: "b.txt", Questions: []Question{q}}})
			checkProblems(t, ps, tt.want)
		})
	}
	t.Run("duplicate ids and empty bank", func(t *testing.T) {
		q := good()
		ps := Validate([]Bank{{Name: "B", Path: "b.txt", Questions: []Question{q, q}}, {Name: "C", Path: "c.txt"}})
		checkProblems(t, ps, []want{{7, `question id "B#1" used twice (first at b.txt:7)`}, {0, `bank "C" has no questions`}})
	})
}

// A question that Validate refuses is not loaded: the banks hold only the
// questions that passed, so a count of them (quizhost validate's) counts
// what would be served, whatever the format.
func TestRefusedQuestionsAreNotLoaded(t *testing.T) {
	long := strings.Repeat("x", MaxExplanationLength+1)
	var text []string
	for i := 1; i <= 3; i++ {
		explanation := "fine"
		if i > 1 {
			explanation = long
		}
		text = append(text, fmt.Sprintf("B Question %d", i), "Select 1Q?", "- A", "a", "- B", "b", "Correct answer: A", "Explanation", explanation)
	}
	yaml := "bank: Y\nquestions:\n" +
		"- id: one\n  question: Q one?\n  options: [{text: a, correct: true}, {text: b}]\n" +
		"- id: one\n  question: Q two?\n  options: [{text: a, correct: true}, {text: b}]\n" +
		"- id: three\n  question: Q three?\n  options: [{text: a, correct: true}, {text: b}]\n  tags: [" + strings.Repeat("t", MaxTagLength+1) + "]\n"
	tests := []struct {
		name, path string
		data       []byte
		wantIDs    []string
		wantErrs   int
	}{
		{"2 of 3 explanations too long", "b.txt", lines(text...), []string{"B#1"}, 2},
		{"an id twice and a tag too long", "b.yaml", []byte(yaml), []string{"one"}, 2},
		{"a bank name too long", "b.gift", []byte("$CATEGORY: " + strings.Repeat("n", MaxBankNameLength+1) + "\n\n::t::Q?{=a ~b}\n"), nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, err := Parse(tt.path, tt.data)
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != tt.wantErrs {
				t.Fatalf("got %v, want %d errors", err, tt.wantErrs)
			}
			var ids []string
			for _, b := range banks {
				for _, q := range b.Questions {
					ids = append(ids, q.ID)
				}
			}
			if !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("got questions %q, want %q", ids, tt.wantIDs)
			}
			dir := writeFiles(t, map[string]string{tt.path: string(tt.data)})
			cat, _ := Loader{Paths: []string{dir}}.Load()
			n := 0
			for _, b := range cat.Banks() {
				if b.Path != "" {
					n += len(b.Questions)
				}
			}
			if n != len(tt.wantIDs) {
				t.Errorf("Loader loaded %d questions, want %d", n, len(tt.wantIDs))
			}
		})
	}
}
