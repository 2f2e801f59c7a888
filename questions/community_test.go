package questions

import (
	"reflect"
	"strings"
	"testing"
)

// A structured question may carry a practice site's community vote, most
// voted first once read, whatever the order written.
func TestParseStructuredCommunity(t *testing.T) {
	tests := []struct {
		name string
		path string
		data string
	}{
		{"yaml", "b.yaml", `bank: B
questions:
  - question: Q?
    options: [{text: a}, {text: b, correct: true}, {text: c, correct: true}]
    community: [{answer: A, percent: 10}, {answer: "C, B", percent: 60}, {answer: b, percent: 30}]
`},
		{"json", "b.json", `{"bank": "B", "questions": [{"question": "Q?",
  "options": [{"text": "a"}, {"text": "b", "correct": true}, {"text": "c", "correct": true}],
  "community": [{"answer": "A", "percent": 10}, {"answer": "CB", "percent": 60}, {"answer": "B", "percent": 30}]}]}`},
	}
	want := []CommunityVote{{[]string{"B", "C"}, 60}, {[]string{"B"}, 30}, {[]string{"A"}, 10}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, err := Parse(tt.path, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			q := banks[0].Questions[0]
			if !reflect.DeepEqual(q.Community, want) {
				t.Errorf("got %v, want %v", q.Community, want)
			}
			if _, ok := q.CommunityDisagrees(); ok {
				t.Errorf("got the community disagreeing with the key BC")
			}
		})
	}
}

func TestParseStructuredCommunityProblems(t *testing.T) {
	head := "bank: B\nquestions:\n  - question: Q?\n    options: [{text: a, correct: true}, {text: b}]\n"
	tests := []struct {
		name, community string
		want            []want
	}{
		{"not a list", "    community: B 71%\n", []want{{5, "community must be a list of votes ({answer: B, percent: 71})"}}},
		{"unknown field", "    community: [{answer: A, percent: 50, votes: 3}]\n", []want{{5, `unknown field "votes" in a community vote (want answer, percent)`}}},
		{"no percent", "    community: [{answer: A}]\n", []want{{5, "the community vote has no percent (percent: 71)"}}},
		{"no answer", "    community: [{percent: 5}]\n", []want{{5, "the community vote has no answer (answer: B, or BC for two options)"}}},
		{"words for an answer", "    community:\n      - answer: the first one\n        percent: 5\n", []want{{6, "the answer of a community vote must be option letters"}}},
		{"a letter that is not an option", "    community: [{answer: AC, percent: 5}]\n", []want{{5, "community vote for C, which is not an option (options are A–B)"}}},
		{"a share above 100", "    community: [{answer: A, percent: 101}]\n", []want{{5, "percent must be a whole number from 0 to 100"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseStructured("b.yaml", []byte(head+tt.community), FormatYAML)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
		})
	}
}

// MarshalYAML keeps a question's community vote, so that an imported
// practice-site bank (stored as YAML) and an export keep it.
func TestMarshalYAMLCommunity(t *testing.T) {
	banks, ps := ParseFile("aws/clf.txt", lines(issueExample...), ParseOptions{DefaultBank: "aws"})
	checkProblems(t, ps, nil)
	checkRoundTrip(t, banks[0])
	data, err := MarshalYAML(banks[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := "    community: [{answer: B, percent: 71}, {answer: C, percent: 29}]\n"; !strings.Contains(string(data), want) {
		t.Errorf("got\n%s\nwant a line %q", data, want)
	}
	// Letters that YAML 1.1 would read as booleans come back as letters.
	b := Bank{Name: "B", Questions: []Question{{ID: "q", Bank: "B", Number: 1, Stem: "Q?",
		Community: []CommunityVote{{[]string{"N", "O"}, 50}, {[]string{"Y"}, 40}, {[]string{"N"}, 10}}}}}
	for i := range MaxOptions {
		b.Questions[0].Options = append(b.Questions[0].Options, Option{Letter: Letter(i), Text: "t" + Letter(i), Correct: i == 0})
	}
	checkRoundTrip(t, b)
}

func TestValidateCommunity(t *testing.T) {
	q := func(c ...CommunityVote) Bank {
		return Bank{Name: "B", Path: "b.yaml", Questions: []Question{{ID: "q", Bank: "B", Number: 1, Stem: "Q?", Line: 3, Community: c,
			Options: []Option{{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b"}}}}}
	}
	tests := []struct {
		name string
		bank Bank
		want string
	}{
		{"no letter", q(CommunityVote{Percent: 5}), "b.yaml:3: community vote 1 names no option"},
		{"not an option", q(CommunityVote{[]string{"C"}, 5}), "b.yaml:3: community vote for C, which is not an option (options are A–B)"},
		{"out of order", q(CommunityVote{[]string{"B", "A"}, 5}), "b.yaml:3: community vote BA: its letters must be in letter order, each once"},
		{"above 100", q(CommunityVote{[]string{"A"}, 101}), "b.yaml:3: community vote A has 101%; it must be 0 to 100"},
		{"least voted first", q(CommunityVote{[]string{"A"}, 10}, CommunityVote{[]string{"B"}, 90}), "b.yaml:3: community votes must come most voted first (90% after 10%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Validate([]Bank{tt.bank}); got.Error() != tt.want {
				t.Errorf("got %v, want %s", got, tt.want)
			}
			if _, err := MarshalYAML(tt.bank); err == nil {
				t.Error("MarshalYAML accepted it")
			}
		})
	}
	if ps := Validate([]Bank{q(CommunityVote{[]string{"A", "B"}, 60}, CommunityVote{[]string{"B"}, 40})}); ps != nil {
		t.Errorf("got %v for a sound vote", ps)
	}
}

// A merge sees a changed community vote as an update.
func TestQuestionDiffCommunity(t *testing.T) {
	a := Question{ID: "q", Community: []CommunityVote{{[]string{"A"}, 60}}}
	b := a
	b.Community = []CommunityVote{{[]string{"A"}, 70}}
	if got := questionDiff(&a, &b); got != "community vote" {
		t.Errorf("got %q, want community vote", got)
	}
	c := a
	c.Community = []CommunityVote{{[]string{"A"}, 60}}
	if got := questionDiff(&a, &c); got != "" {
		t.Errorf("got %q for equal votes, want none", got)
	}
}
