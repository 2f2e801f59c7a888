package questions

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// issueExample is the practice-site file of issue 18, as a study group
// copied it: every question of it was lost with exit 0 before.
var issueExample = []string{
	"Question #12 Topic 1", // 1
	"A company wants to store session state for a web application in memory. Which AWS service is the MOST suitable?",
	"A. Amazon S3 Glacier",
	"B. Amazon ElastiCache",
	"C. Amazon EC2 instance store", // 5
	"D. AWS Snowball",
	"Suggested Answer: B",
	"",
	"Question #13 Topic 1",
	"Which TWO of the following are benefits of the AWS Cloud? (Choose two.)", // 10
	"A. Fixed hardware costs",
	"B. Global reach in minutes",
	"C. Pay only for what you use",
	"D. Unlimited free support",
	"Suggested Answer: BC", // 15
	"Community vote distribution",
	"B (71%)",
	"C (29%)",
}

func TestParsePracticeSiteIssueExample(t *testing.T) {
	banks, ps := ParseFile("aws/clf.txt", lines(issueExample...), ParseOptions{DefaultBank: "aws"})
	checkProblems(t, ps, nil)
	opts := func(correct string, texts ...string) []Option {
		var out []Option
		for i, text := range texts {
			out = append(out, Option{Letter: Letter(i), Text: text, Correct: strings.Contains(correct, Letter(i))})
		}
		return out
	}
	want := []Bank{{Name: "aws", Path: "aws/clf.txt", Questions: []Question{{
		ID: "aws#12", Bank: "aws", Number: 12, Line: 1,
		Stem:    "A company wants to store session state for a web application in memory. Which AWS service is the MOST suitable?",
		Options: opts("B", "Amazon S3 Glacier", "Amazon ElastiCache", "Amazon EC2 instance store", "AWS Snowball"),
	}, {
		ID: "aws#13", Bank: "aws", Number: 13, Line: 9,
		Stem:      "Which TWO of the following are benefits of the AWS Cloud? (Choose two.)",
		Options:   opts("BC", "Fixed hardware costs", "Global reach in minutes", "Pay only for what you use", "Unlimited free support"),
		Community: []CommunityVote{{Letters: []string{"B"}, Percent: 71}, {Letters: []string{"C"}, Percent: 29}},
	}}}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}
}

// practiceQ is a sound practice-site question, lines after its title.
func practiceQ(answer string, rest ...string) []string {
	return append([]string{"Which one?", "A. alpha", "B. beta", "C. gamma", answer}, rest...)
}

func TestParsePracticeSiteShapes(t *testing.T) {
	tests := []struct {
		name  string
		data  []string
		bank  string // ParseOptions.DefaultBank
		check func(t *testing.T, qs []Question)
	}{
		{
			name: "answer forms",
			data: concat(
				[]string{"Question #1 Topic 1"}, practiceQ("Correct Answer: B, C"),
				[]string{"Question #2 Topic 1"}, practiceQ("Answer: BC"),
				[]string{"Question #3 Topic 1"}, practiceQ("suggested answer: ac 🗳️"),
				[]string{"Question #4 Topic 1"}, practiceQ("ANSWER: C"),
				[]string{"Question #5 Topic 1"}, practiceQ("Correct Answers: A C")),
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				var got []string
				for _, q := range qs {
					got = append(got, strings.Join(q.Correct(), ""))
				}
				if want := "BC BC AC C AC"; strings.Join(got, " ") != want {
					t.Errorf("got keys %v, want %s", got, want)
				}
			},
		},
		{
			name: "(Choose N) in words and digits, Select in parentheses",
			data: concat(
				[]string{"Question 1", "Which two? (Choose two.)"}, practiceQ("Suggested Answer: AB")[1:],
				[]string{"Question 2", "Which three? (Choose 3)"}, practiceQ("Suggested Answer: ABC")[1:],
				[]string{"Question 3", "Which two? (Select TWO)"}, practiceQ("Suggested Answer: BC")[1:]),
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				if len(qs) != 3 || qs[0].SelectCount() != 2 || qs[1].SelectCount() != 3 || qs[2].SelectCount() != 2 {
					t.Errorf("got %s", dump(qs))
				}
			},
		},
		{
			name: "title variations as pasted",
			data: concat(
				[]string{"Question #12\u00a0Topic 1"}, practiceQ("Suggested Answer: A"),
				[]string{"Question #13Topic 1"}, practiceQ("Suggested Answer: A"),
				[]string{"QUESTION 14"}, practiceQ("Suggested Answer: A"),
				[]string{"Question 15 Topic 1"}, practiceQ("Suggested Answer: A"),
				[]string{"Question #16", "Topic 1"}, practiceQ("Suggested Answer: A"),
				[]string{"Actual exam question from Amazon's AWS Certified Cloud Practitioner", "Question #: 17", "Topic #: 1", "[All AWS Certified Cloud Practitioner Questions]"}, practiceQ("Suggested Answer: A")),
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				if got, want := ids([]Bank{{Questions: qs}}), []string{"B#12", "B#13", "B#14", "B#15", "B#16", "B#17"}; !reflect.DeepEqual(got, want) {
					t.Errorf("got %q, want %q", got, want)
				}
				for _, q := range qs {
					if q.Stem != "Which one?" {
						t.Errorf("%s: got stem %q, want %q", q.ID, q.Stem, "Which one?")
					}
				}
			},
		},
		{
			name: "topics after the first number their questions apart",
			data: concat([]string{"Question #1 Topic 1"}, practiceQ("Suggested Answer: A"), []string{"Question #1 Topic 2"}, practiceQ("Suggested Answer: B")),
			bank: "AZ-104",
			check: func(t *testing.T, qs []Question) {
				if got, want := ids([]Bank{{Questions: qs}}), []string{"AZ-104#1", "AZ-104#topic2-1"}; !reflect.DeepEqual(got, want) || qs[1].Number != 1 {
					t.Errorf("got %q (number %d), want %q (number 1)", got, qs[1].Number, want)
				}
			},
		},
		{
			name: "option forms, text continued on the next lines, an option's text on the next line",
			data: []string{"Question 1", "Which one?", "(A) alpha", "and more alpha", "(B) beta", "C)", "gamma", "D) delta Most Voted", "Suggested Answer: D"},
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				var got []string
				for _, o := range qs[0].Options {
					got = append(got, o.Text)
				}
				if want := []string{"alpha\nand more alpha", "beta", "gamma", "delta"}; !reflect.DeepEqual(got, want) {
					t.Errorf("got options %q, want %q", got, want)
				}
			},
		},
		{
			name: "the page's leftovers",
			data: []string{"Question #1 Topic 1", "Which one?", "A. alpha", "B. beta Most Voted", "Most Voted", "Reveal Solution Hide Solution   Discussion   17",
				"Reveal Solution", "Hide Solution", "Discussion", "🗳️", "Suggested Answer: B 🗳️", "Next Questions"},
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				q := qs[0]
				if q.Options[1].Text != "beta" || q.Explanation != "" || !q.Options[1].Correct {
					t.Errorf("got %s", dump(q))
				}
			},
		},
		{
			name: "text after the answer is the explanation; Explanation: and Reference: are kept as written",
			data: []string{"Question #1 Topic 1", "Which one?", "A. alpha", "B. beta", "Correct Answer: A", "Explanation:", "Alpha is first.", "Reference:", "https://example.com/a",
				"Community vote distribution", "A (90%)", "B (10%)", "Question #2 Topic 1", "Which one?", "A. alpha", "B. beta", "Correct Answer: B",
				"Reference:", "https://example.com/b", "Community vote distribution", "B (100%)", "Explanation: Beta is second."},
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				if want := "Alpha is first.\nReference:\nhttps://example.com/a"; qs[0].Explanation != want {
					t.Errorf("got explanation %q, want %q", qs[0].Explanation, want)
				}
				if want := "Reference:\nhttps://example.com/b\nExplanation: Beta is second."; qs[1].Explanation != want {
					t.Errorf("got explanation %q, want %q", qs[1].Explanation, want)
				}
				if want := []CommunityVote{{[]string{"A"}, 90}, {[]string{"B"}, 10}}; !reflect.DeepEqual(qs[0].Community, want) {
					t.Errorf("got community %v, want %v", qs[0].Community, want)
				}
			},
		},
		{
			name: "community vote lines as copied",
			data: concat(
				[]string{"Question 1"}, practiceQ("Suggested Answer: B", "Community vote distribution", "B (71%)C (29%)"),
				[]string{"Question 2"}, practiceQ("Suggested Answer: B", "Community vote distribution", "C (60%) B (40%)"),
				[]string{"Question 3"}, practiceQ("Suggested Answer: B", "Community vote distribution", "100%"),
				[]string{"Question 4"}, practiceQ("Suggested Answer: B", "Community vote distribution", "C", "100%"),
				[]string{"Question 5"}, practiceQ("Suggested Answer: B", "Community vote distribution", "", "A (55%)", "", "B 30%", "Other"),
				[]string{"Question 6"}, practiceQ("Suggested Answer: B", "Community vote distribution", "A (10%)", "CB (90%)"),
				[]string{"Question 7"}, practiceQ("Suggested Answer: B", "Community vote distribution", "Other (5%)", "B: 95%")),
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				want := [][]CommunityVote{
					{{[]string{"B"}, 71}, {[]string{"C"}, 29}},
					{{[]string{"C"}, 60}, {[]string{"B"}, 40}},
					{{[]string{"B"}, 100}},
					{{[]string{"C"}, 100}},
					{{[]string{"A"}, 55}, {[]string{"B"}, 30}},
					{{[]string{"B", "C"}, 90}, {[]string{"A"}, 10}},
					{{[]string{"B"}, 95}},
				}
				for i, q := range qs {
					if !reflect.DeepEqual(q.Community, want[i]) {
						t.Errorf("%s: got community %v, want %v", q.ID, q.Community, want[i])
					}
				}
				if v, ok := qs[1].CommunityDisagrees(); !ok || v.Letters[0] != "C" {
					t.Errorf("question 2: got CommunityDisagrees %v %v, want C", v, ok)
				}
			},
		},
		{
			name: "a Bank: line names the bank of bare titles, exam text's too",
			data: append([]string{"Bank: Net+ Prep", "", "Question 12", "Select 1Which?", "- A", "a", "- B", "b", "Correct answer: A",
				"Question #13 Topic 1"}, practiceQ("Suggested Answer: C")...),
			bank: "folder",
			check: func(t *testing.T, qs []Question) {
				if got, want := ids([]Bank{{Questions: qs}}), []string{"Net+ Prep#12", "Net+ Prep#13"}; !reflect.DeepEqual(got, want) {
					t.Errorf("got %q, want %q", got, want)
				}
			},
		},
		{
			name: "a Bank: line before a title in the middle of a file, as cat leaves it",
			data: concat([]string{"Bank: One", "Question #1 Topic 1"}, practiceQ("Suggested Answer: A", "Community vote distribution", "A (100%)"),
				[]string{"Bank: Two", "Question #1 Topic 1"}, practiceQ("Suggested Answer: A", "Explanation: x"),
				[]string{"Bank: Three", "Question #1 Topic 1"}, practiceQ("Suggested Answer: A")),
			bank: "folder",
			check: func(t *testing.T, qs []Question) {
				if got, want := ids([]Bank{{Questions: qs}}), []string{"One#1", "Two#1", "Three#1"}; !reflect.DeepEqual(got, want) || qs[1].Explanation != "x" {
					t.Errorf("got %q (explanation %q), want %q", got, qs[1].Explanation, want)
				}
			},
		},
		{
			name: "exam text with one-line options and a practice site's answer line",
			data: []string{"AWS Cloud Practitioner Question 12", "Select 1Which service caches content at the edge?", "A. Amazon S3 Glacier", "B. Amazon CloudFront",
				"C. AWS Lambda", "Correct Answer: B", "Explanation", "Edge locations.", "- B. Correct.", "It is the CDN.",
				"AWS Cloud Practitioner Question 13", "Select 2Which two?", "A) a", "B) b", "C) c", "Correct answers: AC"},
			check: func(t *testing.T, qs []Question) {
				q := qs[0]
				if len(qs) != 2 || len(q.Options) != 3 || !q.Options[1].Correct || q.Explanation != "Edge locations." || q.Options[1].Rationale != "It is the CDN." {
					t.Fatalf("got %s", dump(qs))
				}
				if got := strings.Join(qs[1].Correct(), ""); got != "AC" {
					t.Errorf("got key %s, want AC", got)
				}
			},
		},
		{
			name: "exam text and practice-site questions in one file",
			data: concat(q2("Net Question 1"), []string{"Question #2 Topic 1"}, practiceQ("Suggested Answer: A"), q2("Net Question 3")),
			check: func(t *testing.T, qs []Question) {
				if got, want := ids([]Bank{{Questions: qs}}), []string{"Net#1", "Net#2", "Net#3"}; !reflect.DeepEqual(got, want) {
					t.Errorf("got %q, want %q", got, want)
				}
			},
		},
		{
			name: "a question with - A headers reads as exam text always did",
			data: []string{"Net Question 1", "Select 1Which of these?", "A. is a line of the stem", "- A", "Discussion", "B. still option A", "- B",
				"Most Voted", "Correct answer: A", "Explanation", "A. is a line of the explanation"},
			check: func(t *testing.T, qs []Question) {
				q := qs[0]
				if q.Stem != "Which of these?\nA. is a line of the stem" || q.Options[0].Text != "Discussion\nB. still option A" ||
					q.Options[1].Text != "Most Voted" || q.Explanation != "A. is a line of the explanation" {
					t.Errorf("got %s", dump(q))
				}
			},
		},
		{
			name: "a stem line shaped like a later option stays in the stem",
			data: []string{"Question 1", "Which statements are true?", "I. The data is encrypted.", "B. is not an option yet", "A. one", "B. two", "Suggested Answer: A"},
			bank: "B",
			check: func(t *testing.T, qs []Question) {
				if want := "Which statements are true?\nI. The data is encrypted.\nB. is not an option yet"; qs[0].Stem != want {
					t.Errorf("got stem %q, want %q", qs[0].Stem, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile("b.txt", lines(tt.data...), ParseOptions{DefaultBank: tt.bank})
			checkProblems(t, ps, nil)
			checkInvariants(t, banks, ps)
			var qs []Question
			for _, b := range banks {
				qs = append(qs, b.Questions...)
			}
			if len(qs) == 0 {
				t.Fatal("got no questions")
			}
			tt.check(t, qs)
		})
	}
}

func TestParsePracticeSiteProblems(t *testing.T) {
	tests := []struct {
		name string
		data []string
		bank string
		want []want
	}{
		{
			name: "(Choose two.) disagrees with the answer",
			data: []string{"Question 1", "Which?", "(Choose two.)", "A. a", "B. b", "Suggested Answer: B"},
			bank: "B",
			want: []want{{3, `"(Choose two.)" asks for 2 answer(s), but the answer line (line 6) lists 1 letter(s)`}},
		},
		{
			name: "a vote for a letter that is not an option",
			data: append([]string{"Question 1"}, practiceQ("Suggested Answer: B", "Community vote distribution", "B (80%)", "E (20%)")...),
			bank: "B",
			want: []want{{9, "community vote for E, which is not an option (options are A–C)"}},
		},
		{
			name: "a community block with no vote, at the end of the file",
			data: append([]string{"Question 1"}, practiceQ("Suggested Answer: B", "Community vote distribution")...),
			bank: "B",
			want: []want{{7, `"Community vote distribution" is followed by no vote`}},
		},
		{
			name: "letters with no percentage",
			data: append([]string{"Question 1"}, practiceQ("Suggested Answer: B", "Community vote distribution", "B (80%)", "C", "Question 2")...),
			bank: "B",
			want: []want{{9, "community vote C has no percentage"}, {10, `want a line "Select N" after the title`}, {10, "has 0 option(s)"}, {10, "no answer line"}},
		},
		{
			name: "a share above 100%",
			data: append([]string{"Question 1"}, practiceQ("Suggested Answer: B", "Community vote distribution", "B (180%)")...),
			bank: "B",
			want: []want{{8, "community vote B has 180%; at most 100% is possible"}},
		},
		{
			name: "a community block before the answer line",
			data: []string{"Question 1", "Which one?", "A. alpha", "B. beta", "Community vote distribution", "B (100%)", "Suggested Answer: B"},
			bank: "B",
			want: []want{{5, "Community vote distribution before the answer line"}},
		},
		{
			name: "no bank for a practice site's title",
			data: append([]string{"Question #12 Topic 1"}, practiceQ("Suggested Answer: B")...),
			want: []want{{1, `the title "Question #12 Topic 1" names no exam: write the exam name before "Question" ("AWS Cloud Practitioner Question 12"), or, for an import, give the bank option, or write a first line "Bank: <name>"`}},
		},
		{
			name: "a Bank: line with no name",
			data: append([]string{"Bank:", "Question #12 Topic 1"}, practiceQ("Suggested Answer: B")...),
			want: []want{{1, `the line "Bank:" names no bank`}, {2, "names no exam"}},
		},
		{
			name: "one-line options out of order",
			data: []string{"Question 1", "Which one?", "A. alpha", "C. gamma", "Suggested Answer: A"},
			bank: "B",
			want: []want{{4, "option C out of order: want B"}},
		},
		{
			name: "a question whose title was not recognised, after the answer",
			data: concat([]string{"Question 1"}, practiceQ("Suggested Answer: B"), []string{"Practice Q2", "Which other?", "A. a", "B. b", "Suggested Answer: A"}),
			bank: "B",
			want: []want{{9, "option A after the answer line: this looks like the start of another question"}},
		},
		{
			name: "a question whose title was not recognised, with no answer before it",
			data: []string{"Question 1", "Which one?", "A. alpha", "B. beta", "Practice Q2", "Which other?", "A. a", "B. b", "Suggested Answer: A"},
			bank: "B",
			want: []want{{7, "option letters start again at A: this looks like the start of another question"}},
		},
		{
			name: "two answer lines",
			data: append([]string{"Question 1"}, practiceQ("Suggested Answer: B", "Correct Answer: C")...),
			bank: "B",
			want: []want{{7, "a second answer line (the first is at line 6)"}},
		},
		{
			name: "no options read: the question wants its Select line, as exam text does",
			data: []string{"Question 1", "Which one?", "alpha", "beta", "Suggested Answer: B"},
			bank: "B",
			want: []want{{2, `want a line "Select N" after the title`}, {1, "has 0 option(s)"}, {5, "answer letter B is not an option (options are none)"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile("b.txt", lines(tt.data...), ParseOptions{DefaultBank: tt.bank})
			ps.sortByLine()
			wants := tt.want
			sortWants(wants)
			checkProblems(t, ps, wants)
			checkInvariants(t, banks, ps)
		})
	}
}

// sortWants orders expected problems by line, as Problems come.
func sortWants(ws []want) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && ws[j].line < ws[j-1].line; j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// concat joins lists of lines.
func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// The fixtures of testdata/practice-site are written the way the sites
// and their copies write them (see TestGolden for every field); here the
// points each one is there for.
func TestParsePracticeSiteFixtures(t *testing.T) {
	load := func(name string) []Question {
		t.Helper()
		data, err := os.ReadFile("testdata/practice-site/" + name)
		if err != nil {
			t.Fatal(err)
		}
		banks, ps := ParseFile(name, data, ParseOptions{DefaultBank: "practice-site", SkipNonBank: true})
		checkProblems(t, ps, nil)
		var qs []Question
		for _, b := range banks {
			qs = append(qs, b.Questions...)
		}
		return qs
	}
	clf := load("clf-c02.txt")
	if got := ids([]Bank{{Questions: clf}}); !reflect.DeepEqual(got, []string{"practice-site#12", "practice-site#13", "practice-site#14"}) {
		t.Errorf("clf-c02.txt: got %q", got)
	}
	if v, ok := clf[2].CommunityDisagrees(); !ok || !reflect.DeepEqual(v, CommunityVote{Letters: []string{"C"}, Percent: 71}) {
		t.Errorf("clf-c02.txt #14: got CommunityDisagrees %v %v, want C (71%%)", v, ok)
	}
	if _, ok := clf[1].CommunityDisagrees(); ok || clf[1].Options[2].Text != "Pay only for the resources that are used" {
		t.Errorf("clf-c02.txt #13: got %s, want the community agreeing and no Most Voted", dump(clf[1]))
	}
	saa := load("saa-c03.txt") // BOM, CRLF, no final newline, a Bank: line
	if got := ids([]Bank{{Questions: saa}}); !reflect.DeepEqual(got, []string{"AWS Solutions Architect#1", "AWS Solutions Architect#2", "AWS Solutions Architect#3"}) {
		t.Errorf("saa-c03.txt: got %q", got)
	}
	az := load("az-104.txt")
	if got := ids([]Bank{{Questions: az}}); !reflect.DeepEqual(got, []string{"practice-site#1", "practice-site#topic2-1"}) {
		t.Errorf("az-104.txt: got %q", got)
	}
}
