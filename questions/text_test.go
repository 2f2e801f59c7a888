package questions

import (
	"reflect"
	"strings"
	"testing"
)

// docExample is the exam text example of README.md (and of the formats reference it came from).
var docExample = []string{
	"Cloud Networking Practice Question 7", // 1
	"Select 2Which of the following reduce latency for users far from the origin region?",
	"- A",
	"Serving static assets from a content delivery network.",
	"- B", // 5
	"Doubling the CPU count of the origin servers.",
	"- C",
	"Placing read replicas in regions close to the users.",
	"- D",
	"Raising the TCP receive buffer on the clients only.", // 10
	"Show answer and explanation",
	"Correct answers: A, C",
	"Explanation",
	"Latency to a distant user is dominated by round trips over a long path. Moving content",
	"or data closer to the user shortens that path; adding compute at the origin does not.", // 15
	"- A. Correct.",
	"Edge caches answer from a location near the user.",
	"- B. Incorrect.",
	"More CPU shortens processing, not the network round trip.",
	"- C. Correct.", // 20
	"Correct. Nearby replicas turn cross-region reads into local ones.",
	"- D. Incorrect.",
	"Incorrect. A larger buffer does not shorten a round trip.",
	"Cloud Networking Practice Question 8",
	"Select 1Which protocol does a browser use to resolve a host name before connecting?", // 25
	"- A",
	"DNS",
	"- B",
	"ARP",
	"- C", // 30
	"SMTP",
	"Show answer and explanation",
	"Correct answer: A",
	"Explanation",
	"Name resolution happens through DNS before any connection is opened.", // 35
}

func TestParseTextDocExample(t *testing.T) {
	banks, ps := ParseText("net.txt", lines(docExample...))
	checkProblems(t, ps, nil)
	want := []Bank{{
		Name: "Cloud Networking Practice",
		Path: "net.txt",
		Questions: []Question{{
			ID:     "Cloud Networking Practice#7",
			Bank:   "Cloud Networking Practice",
			Number: 7,
			Stem:   "Which of the following reduce latency for users far from the origin region?",
			Options: []Option{
				{Letter: "A", Text: "Serving static assets from a content delivery network.", Correct: true, Rationale: "Edge caches answer from a location near the user."},
				{Letter: "B", Text: "Doubling the CPU count of the origin servers.", Rationale: "More CPU shortens processing, not the network round trip."},
				{Letter: "C", Text: "Placing read replicas in regions close to the users.", Correct: true, Rationale: "Nearby replicas turn cross-region reads into local ones."},
				{Letter: "D", Text: "Raising the TCP receive buffer on the clients only.", Rationale: "A larger buffer does not shorten a round trip."},
			},
			Explanation: "Latency to a distant user is dominated by round trips over a long path. Moving content\nor data closer to the user shortens that path; adding compute at the origin does not.",
			Line:        1,
		}, {
			ID:     "Cloud Networking Practice#8",
			Bank:   "Cloud Networking Practice",
			Number: 8,
			Stem:   "Which protocol does a browser use to resolve a host name before connecting?",
			Options: []Option{
				{Letter: "A", Text: "DNS", Correct: true},
				{Letter: "B", Text: "ARP"},
				{Letter: "C", Text: "SMTP"},
			},
			Explanation: "Name resolution happens through DNS before any connection is opened.",
			Line:        24,
		}},
	}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}
}

// q2 is a small sound question for building test files.
func q2(title string) []string {
	return []string{title, "Select 1Pick A.", "- A", "a", "- B", "b", "Correct answer: A"}
}

func TestParseTextQuirks(t *testing.T) {
	tests := []struct {
		name  string
		data  []byte
		check func(t *testing.T, banks []Bank)
	}{
		{
			name: "stem after a space",
			data: lines("B Question 1", "Select 2 Which two?", "- A", "x", "- B", "y", "- C", "z", "Correct answers: A, B"),
			check: func(t *testing.T, b []Bank) {
				if got := b[0].Questions[0].Stem; got != "Which two?" {
					t.Errorf("got stem %q, want %q", got, "Which two?")
				}
			},
		},
		{
			name: "stem on the next lines",
			data: lines("B Question 1", "Select 1", "Which one", "of these?", "- A", "x", "- B", "y", "Correct answer: B"),
			check: func(t *testing.T, b []Bank) {
				if got := b[0].Questions[0].Stem; got != "Which one\nof these?" {
					t.Errorf("got stem %q, want %q", got, "Which one\nof these?")
				}
			},
		},
		{
			name: "stem glued and continued",
			data: lines("B Question 1", "Select 3A data scientist trains a model.", "", "Which three steps help?", "- A", "x", "- B", "y", "- C", "z", "- D", "w", "Correct answers: A B D"),
			check: func(t *testing.T, b []Bank) {
				q := b[0].Questions[0]
				if want := "A data scientist trains a model.\n\nWhich three steps help?"; q.Stem != want {
					t.Errorf("got stem %q, want %q", q.Stem, want)
				}
				if got := strings.Join(q.Correct(), ","); got != "A,B,D" {
					t.Errorf("got correct %s, want A,B,D", got)
				}
			},
		},
		{
			name: "glued stem starting with a digit",
			data: lines("B Question 1", "Select 110 servers fail. Why?", "- A", "x", "- B", "y", "Correct answer: A"),
			check: func(t *testing.T, b []Bank) {
				if got := b[0].Questions[0].Stem; got != "10 servers fail. Why?" {
					t.Errorf("got stem %q, want %q", got, "10 servers fail. Why?")
				}
			},
		},
		{
			name: "CRLF, BOM, trailing spaces, no final newline",
			data: []byte("\uFEFFB Question 1  \r\nSelect 1Pick.\t\r\n- A \r\nx  \r\n- B\r\ny\r\nCorrect answer: A   "),
			check: func(t *testing.T, b []Bank) {
				q := b[0].Questions[0]
				if q.Bank != "B" || q.Stem != "Pick." || q.Options[0].Text != "x" || q.Options[1].Text != "y" {
					t.Errorf("got %s, want bank B, stem Pick., options x, y", dump(q))
				}
			},
		},
		{
			name: "blank lines anywhere",
			data: lines("", "", "B Question 1", "", "Select 1Pick.", "", "- A", "", "x", "", "x2", "- B", "", "y", "", "Show answer and explanation", "", "Correct answer: A", "", "Explanation", "", "Because.", "", "- A. Correct.", "", "Yes.", "", ""),
			check: func(t *testing.T, b []Bank) {
				q := b[0].Questions[0]
				if q.Options[0].Text != "x\n\nx2" || q.Explanation != "Because." || q.Options[0].Rationale != "Yes." {
					t.Errorf("got %s", dump(q))
				}
			},
		},
		{
			name: "multi-line options",
			data: lines("B Question 1", "Select 1Pick.", "- A", "line one", "line two", "- B", "y", "Correct answer: B"),
			check: func(t *testing.T, b []Bank) {
				if got := b[0].Questions[0].Options[0].Text; got != "line one\nline two" {
					t.Errorf("got option A %q, want %q", got, "line one\nline two")
				}
			},
		},
		{
			name: "answer letters with commas only, spaces only, lower case",
			data: lines(append(append(
				[]string{"B Question 1", "Select 2Pick.", "- A", "x", "- B", "y", "- C", "z", "Correct answers: A,C"},
				"B Question 2", "Select 2Pick.", "- A", "x", "- B", "y", "- C", "z", "Correct answers: B  C"),
				"B Question 3", "Select 2Pick.", "- A", "x", "- B", "y", "- C", "z", "Correct answers: a, , b")...),
			check: func(t *testing.T, b []Bank) {
				var got []string
				for _, q := range b[0].Questions {
					got = append(got, strings.Join(q.Correct(), ""))
				}
				if strings.Join(got, " ") != "AC BC AB" {
					t.Errorf("got %v, want [AC BC AB]", got)
				}
			},
		},
		{
			name: "rationale text on the header line and repeated verdicts",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer: A",
				"- A. Correct. Right there.", "- B. Incorrect.", "Incorrect.", "Not it.", "more"),
			check: func(t *testing.T, b []Bank) {
				o := b[0].Questions[0].Options
				if o[0].Rationale != "Right there." || o[1].Rationale != "Not it.\nmore" {
					t.Errorf("got rationales %q, %q, want %q, %q", o[0].Rationale, o[1].Rationale, "Right there.", "Not it.\nmore")
				}
			},
		},
		{
			name: "several banks, in order of first appearance",
			data: lines(append(append(q2("Beta Question 2"), q2("Alpha Question 1")...), q2("Beta Question 1")...)...),
			check: func(t *testing.T, b []Bank) {
				if len(b) != 2 || b[0].Name != "Beta" || b[1].Name != "Alpha" || len(b[0].Questions) != 2 {
					t.Fatalf("got %s, want banks Beta (2 questions) and Alpha", dump(b))
				}
				if q := b[0].Questions[1]; q.ID != "Beta#1" || q.Number != 1 || q.Line != 15 {
					t.Errorf("got %s#%d line %d, want Beta#1 line 15", q.Bank, q.Number, q.Line)
				}
			},
		},
		{
			name: "a bank name containing Question",
			data: lines(q2("Question Bank Question 12")...),
			check: func(t *testing.T, b []Bank) {
				if q := b[0].Questions[0]; q.Bank != "Question Bank" || q.Number != 12 {
					t.Errorf("got %q #%d, want %q #12", q.Bank, q.Number, "Question Bank")
				}
			},
		},
		{
			name: "title-shaped lines inside a stem and an option are text",
			data: lines("B Question 1", "Select 1Read this:", "Compare Practice Question 3", "- A", "Practice Question 4", "- B", "y", "Correct answer: A"),
			check: func(t *testing.T, b []Bank) {
				q := b[0].Questions[0]
				if q.Stem != "Read this:\nCompare Practice Question 3" || q.Options[0].Text != "Practice Question 4" {
					t.Errorf("got %s", dump(q))
				}
			},
		},
		{
			name: "the word Question inside text",
			data: lines("B Question 1", "Select 1Which Question 5 of the exam?", "- A", "Question 5 is about DNS", "- B", "y", "Correct answer: A", "Explanation", "The Question is hard."),
			check: func(t *testing.T, b []Bank) {
				q := b[0].Questions[0]
				if q.Explanation != "The Question is hard." || q.Options[0].Text != "Question 5 is about DNS" {
					t.Errorf("got %s", dump(q))
				}
			},
		},
		{
			name: "25 options",
			data: func() []byte {
				ls := []string{"B Question 1", "Select 1Many."}
				for i := range MaxOptions {
					ls = append(ls, "- "+Letter(i), "text "+Letter(i))
				}
				return lines(append(ls, "Correct answer: Y")...)
			}(),
			check: func(t *testing.T, b []Bank) {
				if q := b[0].Questions[0]; len(q.Options) != 25 || !q.Options[24].Correct {
					t.Errorf("got %d options, want 25 with Y correct", len(q.Options))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseText("b.txt", tt.data)
			checkProblems(t, ps, nil)
			checkInvariants(t, banks, ps)
			if len(banks) == 0 {
				t.Fatal("got no banks")
			}
			tt.check(t, banks)
		})
	}
}

func TestParseTextProblems(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []want
	}{
		{
			name: "answer letter not an option",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer: E"),
			want: []want{{7, "answer letter E is not an option (options are A–B)"}},
		},
		{
			name: "select disagrees",
			data: lines("B Question 1", "Select 2Pick.", "- A", "x", "- B", "y", "Correct answer: A"),
			want: []want{{2, `"Select 2" disagrees with the answer line, which lists 1 letter(s)`}},
		},
		{
			name: "no answer line",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Explanation"),
			want: []want{{1, "no answer line"}, {7, "Explanation before the answer line"}},
		},
		{
			name: "no answer line before the next question",
			data: lines(append([]string{"B Question 1", "Select 1Pick.", "- A", "x", "- B", "y"}, q2("B Question 2")...)...),
			want: []want{{1, "no answer line"}},
		},
		{
			name: "one option",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "Correct answer: A"),
			want: []want{{1, "has 1 option(s); at least 2 are needed"}},
		},
		{
			name: "option with no text",
			data: lines("B Question 1", "Select 1Pick.", "- A", "", "- B", "y", "Correct answer: B"),
			want: []want{{3, "option A has no text"}},
		},
		{
			name: "letter gap",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- C", "y", "- D", "z", "Correct answer: A"),
			want: []want{{5, "option C out of order: want B"}},
		},
		{
			name: "letters out of order",
			data: lines("B Question 1", "Select 1Pick.", "- B", "x", "- A", "y", "Correct answer: A"),
			want: []want{{3, "option B out of order: want A"}, {5, "option A out of order: want C"}},
		},
		{
			name: "more than 25 options",
			data: func() []byte {
				ls := []string{"B Question 1", "Select 1Many."}
				for i := range 26 {
					ls = append(ls, "- "+string(rune('A'+i)), "t")
				}
				return lines(append(ls, "Correct answer: A")...)
			}(),
			want: []want{{53, "more than 25 options"}},
		},
		{
			name: "same bank and number twice",
			data: lines(append(q2("B Question 1"), q2("B Question 1")...)...),
			want: []want{{8, "B Question 1 appears twice (first at line 1)"}},
		},
		{
			name: "text before the first title",
			data: lines(append([]string{"Some notes", "more notes"}, q2("B Question 1")...)...),
			want: []want{{1, "text before the first question title"}},
		},
		{
			name: "text after the answer line",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer: A", "stray words", "more stray", "Explanation", "ok"),
			want: []want{{8, "text that fits no element after the answer line"}},
		},
		{
			name: "missing Select line",
			data: lines("B Question 1", "Pick.", "- A", "x", "- B", "y", "Correct answer: A"),
			want: []want{{2, `want a line "Select N" after the title`}},
		},
		{
			name: "missing Select line after a complete question",
			data: lines(append(q2("B Question 1"), "B Question 2", "Pick.", "- A", "x", "- B", "y", "Correct answer: A")...),
			want: []want{{9, `want a line "Select N"`}},
		},
		{
			name: "title at the end of the file",
			data: lines(append(q2("B Question 1"), "B Question 2")...),
			want: []want{{8, `want a line "Select N"`}, {8, "has 0 option(s)"}, {8, "no answer line"}},
		},
		{
			name: "no stem",
			data: lines("B Question 1", "Select 1", "- A", "x", "- B", "y", "Correct answer: A"),
			want: []want{{2, "the question has no text"}},
		},
		{
			name: "rationale before the answer",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- A. Correct.", "- B", "y", "Correct answer: A"),
			want: []want{{5, "rationale before the answer line"}},
		},
		{
			name: "rationale of a letter that is not an option",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer: A", "- C. Incorrect.", "no"),
			want: []want{{8, "rationale for C, which is not an option"}},
		},
		{
			name: "rationale disagreeing with the answer",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer: A", "- A. Incorrect.", "no"),
			want: []want{{8, "rationale says A is Incorrect, but the answer line disagrees"}},
		},
		{
			name: "answer line without letters, second answer line",
			data: lines("B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer:", "Correct answer: A"),
			want: []want{{7, "lists no letters"}, {8, "a second answer line (the first is at line 7): this looks like the start of another question"}},
		},
		{
			name: "bad answer token and duplicate",
			data: lines("B Question 1", "Select 2Pick.", "- A", "x", "- B", "y", "Correct answers: A, A, B7"),
			want: []want{{2, "disagrees"}, {7, `answer letter A given twice`}, {7, `answer "B7" is not an option letter`}},
		},
		{
			name: "every problem of a file, each at its line",
			data: lines(append(append(
				[]string{"B Question 1", "Select 1Pick.", "- A", "x", "- B", "y", "Correct answer: C"},
				"B Question 2", "Select 3Pick.", "- A", "x", "- B", "y", "Correct answer: A"),
				q2("B Question 3")...)...),
			want: []want{{7, "answer letter C is not an option"}, {9, `"Select 3" disagrees`}},
		},
		{
			name: "empty file",
			data: []byte(""),
			want: []want{{0, "not a question bank: no line is a question title"}},
		},
		{
			name: "invalid UTF-8",
			data: []byte("B Question 1\nSelect 1\xffPick.\n"),
			want: []want{{2, "not valid UTF-8"}},
		},
		{
			name: "question number too large",
			data: lines(q2("B Question 99999999999")...),
			want: []want{{1, "is larger than"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseText("b.txt", tt.data)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
			for _, p := range ps {
				if p.Path != "b.txt" {
					t.Errorf("got path %q, want b.txt", p.Path)
				}
			}
		})
	}
}

// A sound question next to a broken one still parses; the caller decides.
func TestParseTextKeepsSoundQuestions(t *testing.T) {
	data := lines(append([]string{"B Question 1", "Select 2Pick.", "- A", "x", "- B", "y", "Correct answer: A"}, q2("B Question 2")...)...)
	banks, ps := ParseText("b.txt", data)
	if len(ps) != 1 || len(banks) != 1 || len(banks[0].Questions) != 1 || banks[0].Questions[0].ID != "B#2" {
		t.Errorf("got %s and %v, want only B#2 and one problem", dump(banks), ps)
	}
}

func TestParseTextCodeBlocks(t *testing.T) {
	data := lines(
		"Spark Question 3", // 1
		"Select 1Which line computes the mean score per team?",
		"```python",
		"df.groupBy(\"team\") \\",
		"    .agg(F.avg(\"score\"))", // 5
		"",
		"    # blank line above kept",
		"```",
		"- A",
		"```", // 10
		"    F.avg(\"score\")",
		"```",
		"- B",
		"F.mean",
		"Correct answer: A", // 15
		"Explanation",
		"Like this:",
		"  ```",
		"  def f():",
		"      return 1", // 20
		"  ```",
		"- A. Correct.",
		"```",
		"- B. Incorrect.",
		"Select 2 lines", // 25
		"Correct answer: B",
		"```",
	)
	banks, ps := ParseText("b.txt", data)
	checkProblems(t, ps, nil)
	q := banks[0].Questions[0]
	wantStem := "Which line computes the mean score per team?\n```python\ndf.groupBy(\"team\") \\\n    .agg(F.avg(\"score\"))\n\n    # blank line above kept\n```"
	if q.Stem != wantStem {
		t.Errorf("got stem %q, want %q", q.Stem, wantStem)
	}
	if want := "```\n    F.avg(\"score\")\n```"; q.Options[0].Text != want {
		t.Errorf("got option A %q, want %q", q.Options[0].Text, want)
	}
	if want := "Like this:\n```\ndef f():\n    return 1\n```"; q.Explanation != want {
		t.Errorf("got explanation %q, want %q", q.Explanation, want)
	}
	if want := "```\n- B. Incorrect.\nSelect 2 lines\nCorrect answer: B\n```"; q.Options[0].Rationale != want {
		t.Errorf("got rationale A %q, want %q", q.Options[0].Rationale, want)
	}
}

func TestParseTextUnclosedCodeBlock(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []want
	}{
		{
			name: "before the next question",
			data: lines(append([]string{"Net Question 1", "Select 1Q?", "- A", "a", "- B", "b", "Correct answer: A", "Explanation", "```", "x"}, q2("Net Question 2")...)...),
			want: []want{{9, "the code block opened here with ``` is not closed before the next question"}},
		},
		{
			name: "at the end of the file",
			data: lines("Net Question 1", "Select 1Q?", "```", "x", "- A", "a", "- B", "b", "Correct answer: A"),
			want: []want{{1, "has 0 option(s)"}, {1, "no answer line"}, {3, "the code block opened here with ``` is not closed"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseText("b.txt", tt.data)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
		})
	}
}
