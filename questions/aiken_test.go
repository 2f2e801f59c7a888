package questions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseAiken(t *testing.T) {
	data := lines(
		"What does len([1, 2, 3]) return in Python?", // 1
		"A. 2",
		"B. 3",
		"C. An error",
		"ANSWER: B", // 5
		"",
		"A list is created with",
		"",
		"items = [3, 1, 2]",
		"What does sorted(items) return?", // 10
		"A) [1, 2, 3]",
		"B) [3, 2, 1]",
		"ANSWER: A",
	)
	banks, ps := ParseFile("python/basics.aiken", data, ParseOptions{DefaultBank: "python"})
	checkProblems(t, ps, nil)
	stem2 := "A list is created with\n\nitems = [3, 1, 2]\nWhat does sorted(items) return?"
	want := []Bank{{Name: "python", Path: "python/basics.aiken", Questions: []Question{{
		ID: ContentID("python", "What does len([1, 2, 3]) return in Python?"), Bank: "python", Number: 1, Line: 1,
		Stem:    "What does len([1, 2, 3]) return in Python?",
		Options: []Option{{Letter: "A", Text: "2"}, {Letter: "B", Text: "3", Correct: true}, {Letter: "C", Text: "An error"}},
	}, {
		ID: ContentID("python", stem2), Bank: "python", Number: 2, Line: 7,
		Stem:    stem2,
		Options: []Option{{Letter: "A", Text: "[1, 2, 3]", Correct: true}, {Letter: "B", Text: "[3, 2, 1]"}},
	}}}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}

	// Reordered, the questions keep their IDs (their numbers follow the
	// order).
	swapped := lines("A list is created with", "", "items = [3, 1, 2]", "What does sorted(items) return?", "A) [1, 2, 3]", "B) [3, 2, 1]", "ANSWER: A",
		"What does len([1, 2, 3]) return in Python?", "A. 2", "B. 3", "C. An error", "ANSWER: B")
	again, ps := ParseFile("python/basics.aiken", swapped, ParseOptions{DefaultBank: "python"})
	checkProblems(t, ps, nil)
	if got, want := ids(again), []string{want[0].Questions[1].ID, want[0].Questions[0].ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("reordered: got %q, want %q", got, want)
	}
}

func TestParseAikenShapes(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		data  string
		bank  string
		check func(t *testing.T, banks []Bank)
	}{
		{
			name: "a .txt file in Aiken's shape, Bank: line, CRLF, BOM, no final newline",
			file: "net.txt",
			data: "\uFEFFBank: Networking\r\nWhich protocol resolves names?\r\nA. DNS\r\nB. ARP\r\nANSWER: A\r\n\r\nWhich port is HTTPS?\r\nA. 80\r\nB. 443\r\nANSWER: B",
			bank: "folder",
			check: func(t *testing.T, b []Bank) {
				if len(b) != 1 || b[0].Name != "Networking" || len(b[0].Questions) != 2 || b[0].Questions[1].Number != 2 || !b[0].Questions[1].Options[1].Correct {
					t.Errorf("got %s", dump(b))
				}
			},
		},
		{
			name: "several answer letters, any case, and no blank line between questions",
			file: "b.aiken",
			data: "Which two?\nA. a\nB. b\nC. c\nANSWER: A, C\nWhich one?\nA. a\nB. b\nanswer: b\nWhich pair?\nA. a\nB. b\nC. c\nAnswer: BC\n",
			bank: "B",
			check: func(t *testing.T, b []Bank) {
				var got []string
				for _, q := range b[0].Questions {
					got = append(got, strings.Join(q.Correct(), ""))
				}
				if strings.Join(got, " ") != "AC B BC" {
					t.Errorf("got keys %v, want AC B BC", got)
				}
			},
		},
		{
			name: "an explanation ends at a blank line; a community block",
			file: "b.aiken",
			data: "Which one?\nA. a\nB. b\nANSWER: A\nExplanation: a is first.\nIt always was.\n\nWhich other?\nA. a\nB. b\nANSWER: B\nCommunity vote distribution\nA (60%)\nB (40%)\nWhich third? (Choose two.)\nA. a\nB. b\nC. c\nANSWER: AB\n",
			bank: "B",
			check: func(t *testing.T, b []Bank) {
				qs := b[0].Questions
				if len(qs) != 3 || qs[0].Explanation != "a is first.\nIt always was." || qs[1].Stem != "Which other?" || qs[2].Stem != "Which third? (Choose two.)" {
					t.Fatalf("got %s", dump(qs))
				}
				if v, ok := qs[1].CommunityDisagrees(); !ok || v.Percent != 60 {
					t.Errorf("got CommunityDisagrees %v %v, want A (60%%)", v, ok)
				}
			},
		},
		{
			name: "concatenated files, each with its Bank: line",
			file: "all.aiken",
			data: "Bank: One\nQ1?\nA. a\nB. b\nANSWER: A\nBank: Two\nQ1?\nA. a\nB. b\nANSWER: B\n",
			check: func(t *testing.T, b []Bank) {
				if got := ids(b); !reflect.DeepEqual(got, []string{ContentID("One", "Q1?"), ContentID("Two", "Q1?")}) {
					t.Errorf("got %q", got)
				}
			},
		},
		{
			name: "the .aiken extension reads untitled even a line shaped like a title",
			file: "b.aiken",
			data: "Read Question 5\nA. a\nB. b\nANSWER: A\n",
			bank: "B",
			check: func(t *testing.T, b []Bank) {
				if q := b[0].Questions[0]; q.Stem != "Read Question 5" {
					t.Errorf("got stem %q", q.Stem)
				}
			},
		},
		{
			name: "practice-site questions copied without their titles",
			file: "b.txt",
			data: "Which service caches?\nA. Amazon S3 Glacier\nB. Amazon ElastiCache Most Voted\nReveal Solution Hide Solution   Discussion   3\nSuggested Answer: B 🗳️\nCommunity vote distribution\nB (100%)\n\nWhich is cheapest for batch jobs? (Choose two.)\nA. Spot\nB. On-Demand\nC. Savings Plans\nSuggested Answer: AC\n",
			bank: "B",
			check: func(t *testing.T, b []Bank) {
				qs := b[0].Questions
				if len(qs) != 2 || qs[0].Options[1].Text != "Amazon ElastiCache" || len(qs[0].Community) != 1 || qs[1].SelectCount() != 2 {
					t.Errorf("got %s", dump(qs))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile(tt.file, []byte(tt.data), ParseOptions{DefaultBank: tt.bank})
			checkProblems(t, ps, nil)
			checkInvariants(t, banks, ps)
			if len(banks) == 0 {
				t.Fatal("got no banks")
			}
			tt.check(t, banks)
		})
	}
}

func TestParseAikenProblems(t *testing.T) {
	tests := []struct {
		name string
		data []string
		bank string
		want []want
	}{
		{
			name: "no bank",
			data: []string{"Q?", "A. a", "B. b", "ANSWER: A", "R?", "A. a", "B. b", "ANSWER: B"},
			want: []want{{1, `the file names no bank for its questions, which have no titles: write a first line "Bank: <name>", or, for an import, give the bank option`}},
		},
		{
			name: "the same text twice",
			data: []string{"Q?", "A. a", "B. b", "ANSWER: A", "", "Q?", "A. c", "B. d", "ANSWER: B"},
			bank: "B",
			want: []want{{6, "this question's text is also the question's at line 1"}},
		},
		{
			name: "text after the last answer",
			data: []string{"Q?", "A. a", "B. b", "ANSWER: A", "", "Some closing words."},
			bank: "B",
			want: []want{{6, "has 0 option(s)"}, {6, "no answer line"}},
		},
		{
			name: "an answer that is not an option, an option with no text",
			data: []string{"Q?", "A. a", "B.", "ANSWER: C"},
			bank: "B",
			want: []want{{3, "option B has no text"}, {4, "answer letter C is not an option (options are A–B)"}},
		},
		{
			name: "a question with no answer line runs into the next",
			data: []string{"Q?", "A. a", "B. b", "", "R?", "A. c", "B. d", "ANSWER: B"},
			bank: "B",
			want: []want{{6, `option letters start again at A: this looks like the start of another question; the question before has no answer line ("ANSWER: B") before it`}},
		},
		{
			name: "every question without its answer line is reported, not only the first",
			data: []string{"Q?", "A. a", "B. b", "R?", "A. c", "B. d", "ANSWER: B", "S?", "A. e", "B. f", "T?", "A. g", "B. h", "ANSWER: A", "U?", "A. i", "B. j", "ANSWER: C"},
			bank: "B",
			want: []want{{5, "option letters start again at A"}, {12, "option letters start again at A"}, {18, "answer letter C is not an option"}},
		},
		{
			name: "no text before the options",
			data: []string{"Q?", "A. a", "B. b", "ANSWER: A", "A. c", "B. d", "ANSWER: B"},
			bank: "B",
			want: []want{{5, "the question has no text"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile("b.aiken", lines(tt.data...), ParseOptions{DefaultBank: tt.bank})
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
		})
	}
}

func TestTextShape(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  shape
	}{
		{"empty", nil, shapeNone},
		{"notes", []string{"Things to revise", "- IAM policies vs roles", "A. Revise S3 first"}, shapeNone},
		{"exam text", q2("Net Question 1"), shapeTitled},
		{"a practice site's title", []string{"Question #12 Topic 1", "Which?"}, shapeTitled},
		{"Aiken", []string{"Q?", "A. a", "B. b", "ANSWER: A"}, shapeAiken},
		{"practice questions without titles", []string{"Q?", "(A) a", "(B) b", "Suggested Answer: A"}, shapeAiken},
		{"an answer line only", []string{"Which?", "Suggested Answer: B"}, shapeUnrecognised},
		{"options without an answer", []string{"Which?", "A. a", "B. b"}, shapeUnrecognised},
		{"exam text without titles", []string{"Select 1Which?", "- A", "a", "- B", "b", "Correct answer: A"}, shapeUnrecognised},
		{"Answer: followed by words is prose", []string{"Answer: it depends on the region."}, shapeNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textShape(tt.lines); got != tt.want {
				t.Errorf("got shape %d, want %d", got, tt.want)
			}
		})
	}
}

// A file that looks like questions but holds none quizhost can read is an
// error at its first question-like line, naming the closest format with a
// two-line example: in a bank folder too, where a stray file is only a
// warning.
func TestParseTextUnrecognised(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"an answer line but no options", "Notes on the caching questions\nWhich service caches?\nSuggested Answer: B\n",
			`q.txt:3: "Suggested Answer: B" is part of a question, but no question can be read in this file. Closest format: practice-site, a title then one-line options: "Question #12 Topic 1" / "A. Amazon S3 Glacier"`},
		{"exam text without its titles", "Which service caches?\n- A\nCloudFront\n- B\nRDS\nCorrect answer: A\n",
			`q.txt:2: "- A" is part of a question, but no question can be read in this file. Closest format: exam text, a title then a Select line: "AWS Cloud Practitioner Question 12" / "Select 1Which service caches content?"`},
		{"options without an answer line", "Which service caches?\nA. CloudFront\nB. RDS\n",
			`q.txt:2: "A. CloudFront" is part of a question, but no question can be read in this file. Closest format: Aiken, options then an answer line: "B. Amazon ElastiCache" / "ANSWER: B"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, skip := range []bool{false, true} {
				banks, ps := ParseFile("q.txt", []byte(tt.data), ParseOptions{DefaultBank: "B", SkipNonBank: skip})
				if err := ps.Err(); len(banks) != 0 || err == nil || err.Error() != tt.want {
					t.Errorf("SkipNonBank %v: got %d banks and %v, want the error\n%s", skip, len(banks), err, tt.want)
				}
			}
		})
	}
	// In a bank folder, the loader fails on such a file; a notes.txt next
	// to it stays a warning.
	dir := writeFiles(t, map[string]string{
		"aws/q12.txt":   examQuestion("AWS Cloud Practitioner", 12, "\n"),
		"aws/notes.txt": "Revise IAM\nA. roles first\n",
		"aws/lost.txt":  tests[0].data,
	})
	_, ps := Loader{Paths: []string{dir}}.Load()
	folder := filepath.Join(dir, "aws") + string(filepath.Separator)
	var got []string
	for _, p := range ps {
		got = append(got, strings.ReplaceAll(p.Error(), folder, ""))
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], `lost.txt:3: "Suggested Answer: B" is part of a question`) ||
		!strings.HasPrefix(got[1], "notes.txt: warning: not a question bank") || ps.Err() == nil {
		t.Errorf("got %q, want lost.txt's error and notes.txt's warning", got)
	}
}

// The fixtures of testdata/aiken: Moodle's shape in a .aiken file (the
// folder names the bank), and a .txt in that shape with a Bank: line,
// CRLF, a BOM and no final newline.
func TestParseAikenFixtures(t *testing.T) {
	for _, tt := range []struct {
		file, bank string
		n          int
	}{{"python-basics.aiken", "aiken", 3}, {"networking.txt", "Networking Basics", 2}} {
		data, err := os.ReadFile("testdata/aiken/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		banks, ps := ParseFile(tt.file, data, ParseOptions{DefaultBank: "aiken", SkipNonBank: true})
		checkProblems(t, ps, nil)
		if len(banks) != 1 || banks[0].Name != tt.bank || len(banks[0].Questions) != tt.n {
			t.Errorf("%s: got %s, want %d questions of bank %q", tt.file, dump(banks), tt.n, tt.bank)
		}
	}
}
