package questions

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePassMark(t *testing.T) {
	t.Parallel()
	aws := PassMark{Score: 700, Min: 100, Max: 1000}
	for _, tc := range []struct {
		name  string
		in    string
		scale PassMark
		want  PassMark
		err   string
	}{
		{name: "percent", in: "70%", want: PassMark{Percent: 70}},
		{name: "percent with space", in: " 65 % ", want: PassMark{Percent: 65}},
		{name: "bare percent without scale", in: "80", want: PassMark{Percent: 80}},
		{name: "scaled of", in: "700 of 100-1000", want: aws},
		{name: "scaled of en dash", in: "700 of 100–1000", want: aws},
		{name: "scaled of to", in: "700 of 100 to 1000", want: aws},
		{name: "scaled over", in: "700/1000", want: PassMark{Score: 700, Max: 1000}},
		{name: "bare keeps the bank's scale", in: "720", scale: aws, want: PassMark{Score: 720, Min: 100, Max: 1000}},
		{name: "percent with a scaled bank", in: "75%", scale: aws, want: PassMark{Percent: 75}},
		{name: "bare too big without scale", in: "700", err: "no percentage and the bank has no scale"},
		{name: "zero percent", in: "0%", err: "must be 1% to 100%"},
		{name: "over 100 percent", in: "101%", err: "must be 1% to 100%"},
		{name: "score below the scale", in: "50 of 100-1000", err: "above the scale's lowest"},
		{name: "score at the scale's lowest", in: "100 of 100-1000", err: "above the scale's lowest"},
		{name: "score above the scale", in: "1200/1000", err: "at most its highest"},
		{name: "scale upside down", in: "700 of 1000-100", err: "lower to a higher"},
		{name: "scale too big", in: "700/200000", err: "0 to 100000"},
		{name: "words", in: "pass", err: "write a percentage (70%)"},
		{name: "empty", in: "", err: "write a percentage"},
		{name: "negative", in: "-5%", err: "write a percentage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePassMark(tc.in, tc.scale)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParsePassMark(%q): got %v, %v; want an error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParsePassMark(%q): got %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			if back, err := ParsePassMark(got.String(), PassMark{}); err != nil || back != got {
				t.Errorf("String %q reads back as %+v, %v", got.String(), back, err)
			}
		})
	}
}

func TestPassMarkScoring(t *testing.T) {
	t.Parallel()
	aws := PassMark{Score: 700, Min: 100, Max: 1000}
	for _, tc := range []struct {
		name         string
		mark         PassMark
		right, total int
		scaled       int
		passed       bool
	}{
		{name: "default 70%, exactly", mark: PassMark{}, right: 7, total: 10, passed: true},
		{name: "default 70%, just under", mark: PassMark{}, right: 41, total: 59, passed: false}, // 69.5%
		{name: "percent, exact rational", mark: PassMark{Percent: 72}, right: 18, total: 25, passed: true},
		{name: "scaled at the mark", mark: aws, right: 2, total: 3, scaled: 700, passed: true}, // 100 + 900·2/3 = 700
		{name: "scaled just under", mark: aws, right: 43, total: 65, scaled: 695, passed: false},
		{name: "scaled all right", mark: aws, right: 65, total: 65, scaled: 1000, passed: true},
		{name: "scaled none right", mark: aws, right: 0, total: 65, scaled: 100, passed: false},
		{name: "scaled rounds halves up", mark: PassMark{Score: 5, Max: 9}, right: 1, total: 2, scaled: 5, passed: true}, // 4.5 → 5
		{name: "no questions", mark: PassMark{Percent: 1}, right: 0, total: 0, passed: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.mark.ScaledScore(tc.right, tc.total); got != tc.scaled {
				t.Errorf("ScaledScore(%d, %d): got %d, want %d", tc.right, tc.total, got, tc.scaled)
			}
			if got := tc.mark.Passed(tc.right, tc.total); got != tc.passed {
				t.Errorf("Passed(%d, %d): got %v, want %v", tc.right, tc.total, got, tc.passed)
			}
		})
	}
	if got := aws.PercentNeeded(); got < 66.66 || got > 66.67 {
		t.Errorf("PercentNeeded of 700 of 100-1000: got %v, want 66.67", got)
	}
}

func TestExamPlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                          string
		exam                          Exam
		available, questions, minutes int
		n, mins                       int
	}{
		{name: "defaults, big bank", available: 200, n: 60, mins: 120},
		{name: "defaults, small bank: the whole bank", available: 12, n: 12, mins: 24},
		{name: "settings", exam: Exam{Questions: 65, Minutes: 90}, available: 300, n: 65, mins: 90},
		{name: "settings, smaller bank: time in proportion", exam: Exam{Questions: 65, Minutes: 90}, available: 40, n: 40, mins: 55},
		{name: "member's count: time in proportion", exam: Exam{Questions: 65, Minutes: 90}, available: 300, questions: 10, n: 10, mins: 14},
		{name: "member's count and minutes", exam: Exam{Questions: 65, Minutes: 90}, available: 300, questions: 10, minutes: 5, n: 10, mins: 5},
		{name: "member's count, default time", available: 300, questions: 5, n: 5, mins: 10},
		{name: "at least a minute", exam: Exam{Questions: 200, Minutes: 10}, available: 300, questions: 3, n: 3, mins: 1},
		{name: "count capped by the bank", available: 3, questions: 5, n: 3, mins: 6},
		{name: "minutes set, count by default: the whole small bank gets the minutes", exam: Exam{Minutes: 30}, available: 42, n: 42, mins: 30},
		{name: "minutes set, count by default: a big bank's 60 get the minutes", exam: Exam{Minutes: 30}, available: 200, n: 60, mins: 30},
		{name: "minutes set, count by default, member's count", exam: Exam{Minutes: 30}, available: 42, questions: 21, n: 21, mins: 15},
		{name: "nothing available", exam: Exam{Minutes: 30}, available: 0, n: 0, mins: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, mins := tc.exam.Plan(tc.available, tc.questions, tc.minutes)
			if n != tc.n || mins != tc.mins {
				t.Errorf("Plan(%d, %d, %d): got %d questions, %d minutes; want %d, %d", tc.available, tc.questions, tc.minutes, n, mins, tc.n, tc.mins)
			}
		})
	}
}

// examBank is a YAML bank whose questions are tagged Net and Sec, with
// the exam block given.
func examBank(block ...string) []byte {
	ls := []string{"bank: Cloud"}
	ls = append(ls, block...)
	ls = append(ls,
		"questions:",
		"  - question: One?",
		"    tags: [Net]",
		"    options: [{text: a, correct: true}, {text: b}]",
		"  - question: Two?",
		"    tags: [sec]",
		"    options: [{text: a, correct: true}, {text: b}]",
	)
	return lines(ls...)
}

func TestExamBlock(t *testing.T) {
	t.Parallel()
	banks, err := Parse("cloud.yaml", examBank(
		"exam:",
		"  questions: 65",
		"  minutes: 90",
		"  pass: 700 of 100-1000",
		"  domains:",
		"    Net: 40",
		"    Sec: 60",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := Exam{Questions: 65, Minutes: 90, Pass: PassMark{Score: 700, Min: 100, Max: 1000},
		Domains: []Domain{{Name: "Net", Weight: 40, Line: 7}, {Name: "Sec", Weight: 60, Line: 8}}, Path: "cloud.yaml", Line: 3}
	got := banks[0].Exam
	if got == nil || !got.Equal(want) || got.Path != want.Path || got.Line != want.Line || got.Domains[1].Line != 8 {
		t.Fatalf("exam block: got %+v, want %+v", got, want)
	}
	data, err := MarshalYAML(banks[0])
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("export.yaml", data)
	if err != nil || back[0].Exam == nil || !back[0].Exam.Equal(want) {
		t.Fatalf("MarshalYAML round trip: got %+v, %v from\n%s", back, err, data)
	}
	if !strings.Contains(string(data), "pass: 700 of 100-1000") {
		t.Errorf("MarshalYAML wrote\n%s\nwant the pass mark as written", data)
	}

	json := `{"bank": "Cloud", "exam": {"questions": 2, "pass": "75%", "domains": {"Net": 50, "Sec": 50}},
 "questions": [{"question": "One?", "tags": ["Net"], "options": [{"text": "a", "correct": true}, {"text": "b"}]},
  {"question": "Two?", "tags": ["Sec"], "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`
	banks, err = Parse("cloud.json", []byte(json))
	if err != nil || banks[0].Exam == nil || banks[0].Exam.Pass != (PassMark{Percent: 75}) || len(banks[0].Exam.Domains) != 2 {
		t.Fatalf("JSON exam block: got %+v, %v", banks, err)
	}
}

func TestExamBlockProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		block []string
		want  []want
	}{
		{name: "unknown field", block: []string{"exam:", "  question: 5"}, want: []want{{3, `unknown field "question" in the exam settings`}}},
		{name: "questions out of range", block: []string{"exam:", "  questions: 0"}, want: []want{{3, "questions must be a whole number from 1 to 250"}}},
		{name: "minutes not a number", block: []string{"exam:", "  minutes: soon"}, want: []want{{3, "minutes must be a whole number from 1 to 600"}}},
		{name: "bad pass", block: []string{"exam:", "  pass: most"}, want: []want{{3, `pass mark "most": write a percentage`}}},
		{name: "pass a list", block: []string{"exam:", "  pass: [70]"}, want: []want{{3, "pass must be a pass mark"}}},
		{name: "weights do not sum", block: []string{"exam:", "  domains:", "    Net: 40", "    Sec: 50"},
			want: []want{{4, "weights sum to 90%; they must sum to 100%"}}},
		{name: "weight not a number", block: []string{"exam:", "  domains:", "    Net: lots", "    Sec: 50"},
			want: []want{{4, `the weight of exam domain "Net" must be a whole percentage`}}},
		{name: "domain twice", block: []string{"exam:", "  domains:", "    Net: 50", "    net: 50"},
			want: []want{{5, `exam domain "net" listed twice (first at line 4)`}}},
		{name: "domains a list", block: []string{"exam:", "  domains: [Net, Sec]"}, want: []want{{3, "domains must be a mapping"}}},
		{name: "exam not a mapping", block: []string{"exam: 60"}, want: []want{{2, "the exam settings must be a mapping"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ps := ParseFile("cloud.yaml", examBank(tc.block...), ParseOptions{})
			checkProblems(t, ps, tc.want)
			for _, p := range ps {
				if p.Path != "cloud.yaml" {
					t.Errorf("problem %v: got path %q, want cloud.yaml", p, p.Path)
				}
			}
		})
	}
}

func TestExamFile(t *testing.T) {
	t.Parallel()
	// text is a table of one question of the bank, tagged tag (exam text
	// has no tags; a table's topic column gives them).
	text := func(bank string, n int, tag string) string {
		return fmt.Sprintf("Question,A,B,Answer,Topic,Bank\nWhich %d of %s?,a,b,A,%s,%s\n", n, bank, tag, bank)
	}
	exam := "questions: 2\nminutes: 3\npass: 60%\ndomains:\n  Net: 50\n  Sec: 50\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		bank  string // the bank that gets the settings
		want  []string
	}{
		{name: "the folder's bank", bank: "AWS",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/q2.csv": text("AWS", 2, "Sec"), "AWS/exam.yaml": exam}},
		{name: "named bank among several", bank: "B",
			files: map[string]string{"f/a.csv": text("A", 1, "Net"), "f/b.csv": text("B", 1, "Net"), "f/b2.csv": text("B", 2, "Sec"), "f/exam.yaml": "bank: b\n" + exam}},
		{name: "several banks, none named",
			files: map[string]string{"f/a.csv": text("A", 1, "Net"), "f/b.csv": text("B", 1, "Sec"), "f/exam.yaml": exam},
			want:  []string{"f/exam.yaml: the files beside this exam.yaml hold 2 banks (A, B): name the one it is for with bank:"}},
		{name: "a bank of another folder",
			files: map[string]string{"f/a.csv": text("A", 1, "Net"), "g/b.csv": text("B", 1, "Sec"), "f/exam.yaml": "bank: B\n" + exam},
			want:  []string{`f/exam.yaml:1: bank "B" is not a bank of the files beside this exam.yaml (they hold A)`}},
		{name: "a subfolder's bank is not beside",
			files: map[string]string{"f/sub/a.csv": text("A", 1, "Net"), "f/exam.yaml": exam},
			want:  []string{"f/exam.yaml: no bank beside this exam.yaml"}},
		{name: "a domain no question has",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/exam.yaml": exam},
			want:  []string{`AWS/exam.yaml:6: exam domain "Sec" is not a tag of any question of bank "AWS"`}},
		{name: "bad settings, with lines",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/exam.yaml": "questions: 1000\npass: 70\ndomains:\n  Net: 80\n"},
			want: []string{"AWS/exam.yaml:1: questions must be a whole number from 1 to 250",
				"AWS/exam.yaml:4: the exam domains' weights sum to 80%; they must sum to 100%"}},
		{name: "given twice",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/q.yaml": "bank: AWS\nexam:\n  minutes: 5\nquestions:\n- question: Y?\n  options: [{text: a, correct: true}, {text: b}]\n",
				"AWS/exam.yaml": "minutes: 4\n"},
			want: []string{`AWS/exam.yaml:1: bank "AWS" has exam settings already, at `}},
		{name: "a bank's exam: block copied whole",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/exam.yaml": "bank: AWS\nexam:\n  questions: 2\n  minutes: 3\n"},
			want:  []string{"AWS/exam.yaml:2: an exam.yaml has its fields at its top level, not under exam:"}},
		{name: "an empty exam.yaml",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/exam.yaml": "# nothing\n"},
			want:  []string{"AWS/exam.yaml: the file is empty"}},
		{name: "a bank in an exam.yaml is an error, not a bank",
			files: map[string]string{"AWS/q1.csv": text("AWS", 1, "Net"), "AWS/exam.yaml": "bank: AWS\nquestions:\n- question: Y?\n"},
			want:  []string{"AWS/exam.yaml:3: questions in the exam settings is how many questions an attempt has"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			c, ps := Loader{Paths: []string{dir}}.Load()
			var got []string
			for _, p := range ps.Errors() {
				rel, _ := filepath.Rel(dir, p.Path)
				p.Path = filepath.ToSlash(rel)
				got = append(got, p.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d: got %q, want it to start %q", i, got[i], tc.want[i])
				}
			}
			if tc.bank == "" {
				return
			}
			for _, b := range c.Banks() {
				has := b.Exam != nil
				if has != (b.Name == tc.bank) {
					t.Errorf("bank %q: exam settings %+v; want them on %q only", b.Name, b.Exam, tc.bank)
				}
				if has && (b.Exam.Questions != 2 || b.Exam.Minutes != 3 || b.Exam.Pass.Percent != 60 || filepath.Base(b.Exam.Path) != ExamFileName) {
					t.Errorf("bank %q: got %+v, want exam.yaml's settings", b.Name, b.Exam)
				}
			}
		})
	}
}

func TestCatalogueExamSettingsOnce(t *testing.T) {
	t.Parallel()
	part := func(path string, exam *Exam) []Bank {
		return []Bank{{Name: "B", Path: path, Exam: exam, Questions: []Question{{ID: path, Bank: "B", Stem: "Q", Tags: []string{"Net"},
			Options: []Option{{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b"}}}}}}
	}
	c, ps := NewCatalogue(part("a.yaml", &Exam{Minutes: 5, Path: "a.yaml", Line: 2}), part("b.yaml", nil),
		part("c.yaml", &Exam{Minutes: 6, Path: "c.yaml", Line: 3}))
	checkProblems(t, ps, []want{{3, `bank "B" has exam settings already, at a.yaml:2`}})
	if b, _ := c.Bank("b"); b.Exam == nil || b.Exam.Minutes != 5 {
		t.Errorf("merged bank's exam: got %+v, want the first part's", b.Exam)
	}
}

func TestExamDescribeAndDomainOf(t *testing.T) {
	t.Parallel()
	e := Exam{Questions: 65, Minutes: 90, Pass: PassMark{Score: 700, Min: 100, Max: 1000}, Domains: []Domain{{Name: "Net", Weight: 40}, {Name: "Sec", Weight: 60}}}
	if got, want := e.Describe(300), "65 questions · 90 minutes · pass 700 of 100-1000 · domains: Net 40%, Sec 60%"; got != want {
		t.Errorf("Describe: got %q, want %q", got, want)
	}
	if got, want := (Exam{}).Describe(10), "10 questions · 20 minutes · pass 70%"; got != want {
		t.Errorf("Describe of the defaults: got %q, want %q", got, want)
	}
	q := &Question{Tags: []string{"other", "SEC", "net"}}
	if got := e.DomainOf(q); got != "Net" {
		t.Errorf("DomainOf: got %q, want Net (the first domain, in the settings' order, among its tags)", got)
	}
	if got := e.DomainOf(&Question{Tags: []string{"other"}}); got != "" {
		t.Errorf("DomainOf a question of no domain: got %q, want \"\"", got)
	}
}
