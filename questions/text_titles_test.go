package questions

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// qn is a sound one-question file body with the given title, answer A, an
// explanation and a rationale, so that the last line is rationale text.
func qn(title, id string) []string {
	return []string{title, "Select 1Which is " + id + "?", "- A", "yes " + id, "- B", "no " + id, "Show answer and explanation", "Correct answer: A", "Explanation", "Because " + id + ".", "- B. Incorrect.", "It is not " + id + "."}
}

func TestParseTextTitleVariants(t *testing.T) {
	const exam = "AWS Cloud Practitioner"
	tests := []struct {
		title string
		want  string // the question's ID
	}{
		{"AWS Cloud Practitioner Question 12", exam + "#12"},
		{"AWS Cloud Practitioner - Question 12", exam + "#12"},
		{"AWS Cloud Practitioner: Question 12", exam + "#12"},
		{"AWS Cloud Practitioner – Question 12", exam + "#12"},
		{"AWS Cloud Practitioner — Question 12", exam + "#12"},
		{"AWS Cloud Practitioner | Question 12", exam + "#12"},
		{"AWS Cloud Practitioner Question #12", exam + "#12"},
		{"AWS Cloud Practitioner Question # 12", exam + "#12"},
		{"AWS Cloud Practitioner Question 12 of 65", exam + "#12"},
		{"AWS Cloud Practitioner - Question #12 of 65", exam + "#12"},
		{"AWS Cloud Practitioner question 12", exam + "#12"},
		{"AWS Cloud Practitioner QUESTION 12", exam + "#12"},
		{"AWS\u00a0Cloud Practitioner\u00a0Question\u00a012", exam + "#12"},
		{"AWS Cloud\u202fPractitioner \u2007Question\u3000#12\u00a0of\u00a065", exam + "#12"},
		{"AWS  Cloud Practitioner\tQuestion 12", exam + "#12"},
		{"Question Bank Question 12", "Question Bank#12"},
	}
	for _, tt := range tests {
		t.Run(tt.title, func(t *testing.T) {
			banks, ps := ParseText("b.txt", lines(qn(tt.title, "x")...))
			checkProblems(t, ps, nil)
			checkInvariants(t, banks, ps)
			if got := ids(banks); !reflect.DeepEqual(got, []string{tt.want}) {
				t.Errorf("got %q, want [%q]", got, tt.want)
			}
		})
	}
}

// Titles that differ only in spacing, separators or case name one bank,
// spelt as the file first spells it.
func TestParseTextTitleVariantsOneBank(t *testing.T) {
	data := lines(append(append(append(
		qn("AWS Cloud Practitioner Question 12", "a"),
		qn("aws cloud practitioner - Question #40 of 65", "b")...),
		qn("AWS\u00a0Cloud Practitioner: question 7", "c")...),
		qn("Question 8", "d")...)...)
	banks, ps := ParseText("b.txt", data)
	checkProblems(t, ps, nil)
	want := []string{"AWS Cloud Practitioner#12", "AWS Cloud Practitioner#40", "AWS Cloud Practitioner#7", "AWS Cloud Practitioner#8"}
	if got := ids(banks); len(banks) != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("got %d banks %q, want one bank %q", len(banks), got, want)
	}
}

func TestParseTextBareTitles(t *testing.T) {
	tests := []struct {
		name        string
		data        []byte
		defaultBank string
		wantIDs     []string
		want        []want
	}{
		{
			name:    "takes the bank of the previous title",
			data:    lines(append(append(qn("Net Question 1", "a"), qn("Question 40", "b")...), qn("Question #41", "c")...)...),
			wantIDs: []string{"Net#1", "Net#40", "Net#41"},
		},
		{
			name:        "the first title takes the default bank",
			data:        lines(append(qn("Question 40", "a"), qn("Question 41", "b")...)...),
			defaultBank: "aws-practice",
			wantIDs:     []string{"aws-practice#40", "aws-practice#41"},
		},
		{
			name:        "a titled question after it starts its own bank",
			data:        lines(append(append(qn("Question 40", "a"), qn("Net Question 2", "b")...), qn("Question 3", "c")...)...),
			defaultBank: "folder",
			wantIDs:     []string{"folder#40", "Net#2", "Net#3"},
		},
		{
			name: "no exam name and no default bank",
			data: lines(append(qn("Question 40", "a"), qn("- Question 41", "b")...)...),
			want: []want{
				{1, `the title "Question 40" names no exam: write the exam name before "Question" ("AWS Cloud Practitioner Question 40"), or, for an import, give the bank option`},
				{13, `the title "- Question 41" names no exam`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile("b.txt", tt.data, ParseOptions{DefaultBank: tt.defaultBank})
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
			if got := ids(banks); !reflect.DeepEqual(got, tt.wantIDs) {
				t.Errorf("got %q, want %q", got, tt.wantIDs)
			}
		})
	}
}

// glue concatenates files as `cat` does: a file without a final newline
// runs into the first line of the next.
func glue(files ...[]string) []byte {
	var b strings.Builder
	for i, f := range files {
		b.WriteString(strings.Join(f, "\n"))
		if i%2 == 1 { // every other file ends with a newline
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

func TestParseTextGluedTitles(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		wantIDs []string
		want    []want
		check   func(t *testing.T, banks []Bank)
	}{
		{
			name:    "a folder of one-question files concatenated",
			data:    glue(qn("AWS Cloud Practitioner Question 12", "a"), qn("AWS Cloud Practitioner Question 40", "b"), qn("AWS Cloud Practitioner - Question 7", "c"), qn("AWS Cloud Practitioner Question #8 of 65", "d")),
			wantIDs: []string{"AWS Cloud Practitioner#12", "AWS Cloud Practitioner#40", "AWS Cloud Practitioner#7", "AWS Cloud Practitioner#8"},
			check: func(t *testing.T, banks []Bank) {
				q := banks[0].Questions[0]
				if got := q.Options[1].Rationale; got != "It is not a." {
					t.Errorf("got rationale %q, want %q", got, "It is not a.")
				}
			},
		},
		{
			name:    "glued after an answer line and after Explanation",
			data:    []byte("N Question 1\nSelect 1Q?\n- A\na\n- B\nb\nCorrect answer: AN Question 2\nSelect 1R?\n- A\na\n- B\nb\nCorrect answer: B\nExplanationN Question 3\nSelect 1S?\n- A\na\n- B\nb\nCorrect answer: A\n"),
			wantIDs: []string{"N#1", "N#2", "N#3"},
		},
		{
			name:    "a bare title glued after punctuation",
			data:    glue(qn("Net Question 1", "a"), qn("Question 2", "b")),
			wantIDs: []string{"Net#1", "Net#2"},
		},
		{
			name:    "glued to the closing fence of a code block",
			data:    []byte("Net Question 1\nSelect 1Q?\n- A\na\n- B\nb\nCorrect answer: A\nExplanation\n```\n  x = 1\n```Net Question 2\nSelect 1R?\n- A\na\n- B\nb\nCorrect answer: B"),
			wantIDs: []string{"Net#1", "Net#2"},
			check: func(t *testing.T, banks []Bank) {
				if got, want := banks[0].Questions[0].Explanation, "```\n  x = 1\n```"; got != want {
					t.Errorf("got explanation %q, want %q", got, want)
				}
			},
		},
		{
			name: "glued to a bank not seen before is reported",
			data: glue(qn("Net Question 1", "a"), qn("Azure Fundamentals Question 2", "b")),
			want: []want{{12, "this line looks like a question title glued to the end of the line before it (a file that did not end with a newline?): put the title \"Azure Fundamentals Question 2\" on a line of its own"}},
			// Net#1 lost its last rationale line to the glued title; the
			// error says so.
			wantIDs: []string{"Net#1"},
		},
		{
			name:    "a bank ending with a known bank's name is another bank",
			data:    lines(append(qn("AWS Cloud Question 1", "a"), qn("Advanced AWS Cloud Question 1", "b")...)...),
			wantIDs: []string{"AWS Cloud#1", "Advanced AWS Cloud#1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseText("b.txt", tt.data)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
			if got := ids(banks); !reflect.DeepEqual(got, tt.wantIDs) {
				t.Errorf("got %q, want %q", got, tt.wantIDs)
			}
			if tt.check != nil {
				tt.check(t, banks)
			}
		})
	}
}

// An unrecognised title never lets its question be swallowed silently.
func TestParseTextNeverSwallows(t *testing.T) {
	const another = "this looks like the start of another question; its title was not recognised"
	tests := []struct {
		name string
		data []byte
		want []want
	}{
		{
			name: "a title of another form after a rationale",
			data: lines(append(qn("Net Question 12", "a"), qn("Net Practice Q40", "b")...)...),
			want: []want{{14, `a "Select N" line after the answer line: ` + another + `: the line before, "Net Practice Q40", is not a title`}},
		},
		{
			name: "a title of another form after the explanation",
			data: lines(append(qn("Net Question 12", "a")[:10], qn("Net #40", "b")...)...),
			want: []want{{12, `a "Select N" line after the answer line: ` + another}},
		},
		{
			name: "a title of another form in an option",
			data: lines(append([]string{"Net Question 12", "Select 1Q?", "- A", "a", "- B", "b", "Net 40"}, qn("Net Question 41", "c")[1:]...)...),
			want: []want{{8, `a second "Select N" line: ` + another}},
		},
		{
			name: "a second answer line",
			data: lines("Net Question 12", "Select 1Q?", "- A", "a", "- B", "b", "Correct answer: A", "Explanation", "x", "Correct answer: B"),
			want: []want{{10, "a second answer line (the first is at line 7): " + another}},
		},
		{
			name: "a second Show answer and explanation",
			data: lines("Net Question 12", "Select 1Q?", "- A", "a", "- B", "b", "Show answer and explanation", "- C", "c", "Show answer and explanation", "Correct answer: A"),
			want: []want{{10, `a second "Show answer and explanation" (the first is at line 7): ` + another}},
		},
		{
			name: "Show answer and explanation after the answer",
			data: lines("Net Question 12", "Select 1Q?", "- A", "a", "- B", "b", "Correct answer: A", "Explanation", "x", "Show answer and explanation"),
			want: []want{{10, `"Show answer and explanation" after the answer line: ` + another}},
		},
		{
			name: "option letters starting again at A",
			data: lines("Net Question 12", "Select 1Q?", "- A", "a", "- B", "b", "- A", "c", "- B", "d", "Correct answer: A"),
			want: []want{{7, "option letters start again at A: " + another}},
		},
		{
			name: "an option header after the answer",
			data: lines("Net Question 12", "Select 1Q?", "- A", "a", "- B", "b", "Correct answer: A", "Explanation", "x", "- A", "c"),
			want: []want{{10, "option A after the answer line: " + another}},
		},
		{
			name: "the next question is read after the lost one",
			data: lines(append(append(qn("Net Question 12", "a"), qn("Net Practice Q40", "b")...), "Net Question 13", "Select 1Q?", "- A", "a", "- B", "b", "Correct answer: C")...),
			want: []want{{14, another}, {31, "answer letter C is not an option"}},
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

// testdata/aws-practice is a study group's folder: one question per file,
// titles pasted with variations (NBSP, " - ", "#", "of 65", a bare lower
// case "question 8"), CRLF, a byte-order mark, files with and without a
// final newline, a fenced code block, and a notes.txt. Read file by file
// (the folder's name as the default bank) or concatenated in any order as
// `cat` does, it gives the same four questions.
func TestParseTextStudyGroupFolder(t *testing.T) {
	const dir = "testdata/aws-practice/"
	read := func(name string) []byte {
		data, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	const exam = "AWS Cloud Practitioner"
	want := []string{exam + "#12", exam + "#40", exam + "#7", exam + "#8"}
	var got []string
	var all []Question
	for _, name := range []string{"q12.txt", "q40.txt", "q7.txt", "q8.txt"} {
		banks, ps := ParseFile(dir+name, read(name), ParseOptions{DefaultBank: exam})
		checkProblems(t, ps, nil)
		got = append(got, ids(banks)...)
		for _, b := range banks {
			all = append(all, b.Questions...)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("file by file: got %q, want %q", got, want)
	}
	q7 := all[2]
	if wantStem := "What does this Lambda handler return for an empty event?\n```python\ndef handler(event, context):\n    if not event:\n        return {\"statusCode\": 400}\n\n    return {\"statusCode\": 200}\n```"; q7.Stem != wantStem {
		t.Errorf("got stem %q, want %q", q7.Stem, wantStem)
	}
	if wantExpl := "The empty dict is falsy, so the first branch returns:\n```\n    return {\"statusCode\": 400}\n```"; q7.Explanation != wantExpl {
		t.Errorf("got explanation %q, want %q", q7.Explanation, wantExpl)
	}
	if r := all[0].Options[1].Rationale; r != "RDS is a managed database; it does not shorten the round trip." {
		t.Errorf("got rationale %q", r)
	}
	for _, order := range [][]string{
		{"q12.txt", "q40.txt", "q7.txt", "q8.txt"},
		{"q8.txt", "q7.txt", "q12.txt", "q40.txt"},
		{"q40.txt", "q12.txt", "q8.txt", "q7.txt"},
	} {
		var data []byte
		for _, name := range order {
			data = append(data, read(name)...)
		}
		banks, ps := ParseFile("all.txt", data, ParseOptions{DefaultBank: exam})
		checkProblems(t, ps, nil)
		var cat []Question
		for _, b := range banks {
			cat = append(cat, b.Questions...)
		}
		if diff := diffQuestions(cat, all); diff != "" {
			t.Errorf("cat %v: %s", order, diff)
		}
	}
	banks, ps := ParseFile(dir+"notes.txt", read("notes.txt"), ParseOptions{DefaultBank: exam, SkipNonBank: true})
	if len(banks) != 0 || len(ps) != 1 || !ps[0].Warning {
		t.Errorf("notes.txt: got %d banks and %v, want one warning", len(banks), ps)
	}
}
