package questions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBuiltin(t *testing.T) {
	banks, err := Builtin()
	if err != nil {
		t.Fatalf("got %v, want the built-in banks to parse", err)
	}
	n := 0
	for _, b := range banks {
		if b.Path != "" {
			t.Errorf("got Path %q for built-in bank %q, want \"\"", b.Path, b.Name)
		}
		n += len(b.Questions)
	}
	if n < 30 {
		t.Errorf("got %d built-in questions, want at least 30", n)
	}
	checkInvariants(t, banks, nil)
}

// writeFiles writes name → content under a new temporary directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	goodText = "Net Question 1\nSelect 1Which?\n- A\na\n- B\nb\nCorrect answer: A\n"
	goodYAML = "bank: Sec\nquestions:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n"
	goodJSON = `{"bank": "Ops", "questions": [{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`
	goodGIFT = "::t::Q?{=a ~b}\n"
)

func TestLoader(t *testing.T) {
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	builtinCount := 0
	for _, b := range builtin {
		builtinCount += len(b.Questions)
	}
	dir := writeFiles(t, map[string]string{
		"net.txt":             goodText,
		"deep/er/sec.yaml":    goodYAML,
		"ops.json":            goodJSON,
		"gift/moodle.gift":    goodGIFT,
		"README.md":           "not a bank",
		".hidden/broken.txt":  "garbage",
		"deep/.swap.txt":      "garbage",
		"deep/er/notes.other": "garbage",
	})
	tests := []struct {
		name  string
		paths []string
		banks []string
	}{
		{"built-in only", nil, nil},
		{"directory", []string{dir}, []string{"moodle", "Net", "Ops", "Sec"}},
		{"one file", []string{filepath.Join(dir, "ops.json")}, []string{"Ops"}},
		{"two files", []string{filepath.Join(dir, "ops.json"), filepath.Join(dir, "net.txt")}, []string{"Net", "Ops"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := Loader{Paths: tt.paths}.Load()
			if len(ps) > 0 {
				t.Fatalf("got %v, want no problems", ps)
			}
			for _, name := range tt.banks {
				if _, ok := c.Bank(name); !ok {
					t.Errorf("got no bank %q", name)
				}
			}
			if want := builtinCount + len(tt.banks); c.Len() != want {
				t.Errorf("got %d questions, want %d", c.Len(), want)
			}
		})
	}
}

func TestLoaderReportsEveryFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.txt":      "Net Question 1\nSelect 2Which?\n- A\na\n- B\nb\nCorrect answer: C\n",
		"b/c.yaml":   "bank: Sec\nquestions:\n- question: Q?\n  colour: red\n  options: [{text: a, correct: true}, {text: b}]\n",
		"b/d.gift":   "::x::Q?{~a ~b}\n",
		"e.json":     `{"bank": "net", "questions": [{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`,
		"z/ok.txt":   goodText,
		"z/ok2.yaml": goodYAML,
	})
	c, ps := Loader{Paths: []string{dir}}.Load()
	got := filepath.ToSlash(strings.ReplaceAll(ps.Error(), dir+string(filepath.Separator), ""))
	want := strings.Join([]string{
		`a.txt:2: "Select 2" disagrees with the answer line, which lists 1 letter(s)`,
		`a.txt:7: answer letter C is not an option (options are A–B)`,
		`b/c.yaml:4: unknown field "colour" in a question (want id, number, select, question, options, explanation, tags, source, community)`,
		`b/d.gift:1: no right answer (mark it with = or a positive weight ~%50%)`,
		`z/ok.txt:1: warning: bank "Net" is spelled "net" in e.json; its questions join that bank under that name`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if b, ok := c.Bank("NET"); !ok || b.Name != "net" || len(b.Questions) != 2 {
		t.Errorf("got %+v, want bank net with the questions of e.json and z/ok.txt", b)
	}
}

// examQuestion is a one-question exam text file as study groups keep them:
// "<bank> Question <n>", no final newline.
func examQuestion(bank string, n int, eol string) string {
	return strings.Join([]string{
		fmt.Sprintf("%s Question %d", bank, n),
		fmt.Sprintf("Select 1Which service answers question %d?", n),
		"- A", fmt.Sprintf("Amazon S3 (%d)", n),
		"- B", "Amazon EC2",
		"Show answer and explanation",
		"Correct answer: A",
		"Explanation",
		"Because of reasons.",
	}, eol)
}

// A bank is its name: a folder of one-question files of mixed formats is
// one bank, in sorted path order, and a stray note is skipped.
func TestLoaderOneBankAcrossFiles(t *testing.T) {
	const aws = "AWS Cloud Practitioner"
	dir := writeFiles(t, map[string]string{
		aws + "/q12.txt":   examQuestion(aws, 12, "\n"),
		aws + "/q40.txt":   examQuestion(aws, 40, "\r\n"),
		aws + "/q7.txt":    examQuestion(aws, 7, "\n"),
		aws + "/notes.txt": "Study plan: two questions a day.\nAsk Dana about S3 storage classes.\n",
		aws + "/more.yaml": "bank: " + aws + "\nquestions:\n- id: s3-classes\n  question: Which S3 class is cheapest?\n" +
			"  options: [{text: Glacier Deep Archive, correct: true}, {text: Standard}]\n",
	})
	folder := filepath.Join(dir, aws)
	c, ps := Loader{Paths: []string{dir}}.Load()
	if err := ps.Err(); err != nil {
		t.Fatalf("got %v, want no errors", err)
	}
	got := strings.ReplaceAll(ps.Error(), folder+string(filepath.Separator), "")
	if want := `notes.txt: warning: not a question bank: no line is a question title such as "<Exam> Question 12"; if it holds notes, rename it (notes.md) or move it out of the bank folder`; got != want {
		t.Errorf("got problems\n%s\nwant\n%s", got, want)
	}
	b, ok := c.Bank(aws)
	if !ok {
		t.Fatalf("got no bank %q; banks %v", aws, c.Banks())
	}
	var ids []string
	for _, q := range b.Questions {
		ids = append(ids, q.ID)
	}
	if want := []string{"s3-classes", aws + "#12", aws + "#40", aws + "#7"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("got questions %q, want %q (files in sorted path order)", ids, want)
	}
	var files []string
	for _, f := range b.Files() {
		files = append(files, filepath.Base(f))
	}
	if want := []string{"more.yaml", "q12.txt", "q40.txt", "q7.txt"}; !reflect.DeepEqual(files, want) {
		t.Errorf("got files %q, want %q", files, want)
	}
	if q, ok := c.Question(aws + "#40"); !ok || q.Path != filepath.Join(folder, "q40.txt") || q.Line != 1 || q.Explanation != "Because of reasons." {
		t.Errorf("got %+v, want question 40 at q40.txt:1 with its explanation (CRLF file)", q)
	}
}

func TestFolderBank(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"in a folder", filepath.Join("banks", "AWS Cloud Practitioner", "q12.txt"), "AWS Cloud Practitioner"},
		{"absolute", filepath.Join(string(filepath.Separator), "srv", "Azure Fundamentals", "q1.txt"), "Azure Fundamentals"},
		{"given directly: the parent from the absolute path", "q12.txt", filepath.Base(wd)},
		{"at the root", filepath.Join(string(filepath.Separator), "q12.txt"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := folderBank(tt.path); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Every problem a load finds, across files: the catalogue rules (a
// question defined twice, the built-in bank's name) and the paths
// themselves.
func TestLoaderProblems(t *testing.T) {
	const aws = "AWS Cloud Practitioner"
	dir := writeFiles(t, map[string]string{
		"aws/q12.txt":      examQuestion(aws, 12, "\n"),
		"aws/q40.txt":      examQuestion(aws, 40, "\n"),
		"dup/q40b.txt":     examQuestion(aws, 40, "\r\n"),
		"twice/q40.txt":    examQuestion(aws, 40, "\n") + "\n\n" + examQuestion(aws, 40, "\n"),
		"sample/mine.txt":  examQuestion("quizhost sample", 1, "\n"),
		"empty/README.md":  "nothing here",
		"notes/notes.txt":  "just notes\n",
		"ids/a.yaml":       "bank: Net\nquestions:\n- id: shared\n  question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n",
		"ids/b.json":       `{"bank": "Ops", "questions": [{"id": "shared", "question": "R?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`,
		"spelling/a.txt":   examQuestion("Net", 1, "\n"),
		"spelling/b.txt":   examQuestion("NET", 2, "\n"),
		"builtinid/x.yaml": "bank: Mine\nquestions:\n- id: \"quizhost Sample#1\"\n  question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n",
	})
	if err := os.Symlink(filepath.Join(dir, "aws", "q12.txt"), filepath.Join(dir, "aws", "link.txt")); err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	tests := []struct {
		name      string
		paths     []string
		questions int // besides the built-in bank's
		want      []string
	}{
		{"a question defined in two files", []string{at("aws"), at("dup")}, 2,
			[]string{`dup/q40b.txt:1: question "AWS Cloud Practitioner#40" is also defined at aws/q40.txt:1`}},
		{"a question defined twice in one file", []string{at("twice")}, 1,
			[]string{`twice/q40.txt:12: AWS Cloud Practitioner Question 40 appears twice (first at line 1)`}},
		{"an id shared by two banks", []string{at("ids")}, 1,
			[]string{`ids/b.json:1: question "shared" is also defined at ids/a.yaml:3`}},
		{"an id of the built-in bank", []string{at("builtinid")}, 0,
			[]string{`builtinid/x.yaml:3: question "quizhost Sample#1" is also defined in the built-in bank "quizhost Sample"`}},
		{"the built-in bank's name", []string{at("sample")}, 0,
			[]string{`sample/mine.txt:1: bank "quizhost sample" is the built-in bank's name; give your bank another name`}},
		{"the same file reached four ways", []string{at("aws"), at("aws/q12.txt"), at("aws/q12.txt"), at("aws/link.txt")}, 2, nil},
		{"a bank spelled two ways", []string{at("spelling")}, 2,
			[]string{`spelling/b.txt:1: warning: bank "NET" is spelled "Net" in spelling/a.txt; its questions join that bank under that name`}},
		{"a folder with no bank file", []string{at("empty")}, 0,
			[]string{`empty: warning: no bank files (*.txt, *.aiken, *.yaml, *.yml, *.json, *.gift, *.csv, *.tsv) in this folder`}},
		{"a missing path", []string{at("missing")}, 0, []string{`missing: no such file or directory`}},
		{"a note named directly is skipped too, with the same warning", []string{at("notes/notes.txt")}, 0,
			[]string{`notes/notes.txt: warning: not a question bank: no line is a question title such as "<Exam> Question 12"; if it holds notes, rename it (notes.md) or move it out of the bank folder`}},
		{"a file of another type named directly", []string{at("empty/README.md")}, 0,
			[]string{`empty/README.md: not a bank file (want .txt, .aiken, .yaml, .yml, .json, .gift, .csv or .tsv)`}},
	}
	builtin, _ := Builtin()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := Loader{Paths: tt.paths}.Load()
			got := []string{}
			for _, p := range ps {
				got = append(got, filepath.ToSlash(strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), "")))
			}
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if n := c.Len() - len(builtin[0].Questions); n != tt.questions {
				t.Errorf("got %d questions besides the built-in ones, want %d", n, tt.questions)
			}
		})
	}
	// The spellings merge under the first one, IDs included.
	c, _ := Loader{Paths: []string{at("spelling")}}.Load()
	if q, ok := c.Question("Net#2"); !ok || q.Bank != "Net" {
		t.Errorf("got %+v, %v, want question NET#2 renamed Net#2 in bank Net", q, ok)
	}
}

func TestCheckBankName(t *testing.T) {
	tests := []struct {
		name, bank string
		want       error
	}{
		{"the built-in name", "quizhost Sample", ErrBuiltinName},
		{"in another case, with spaces", "  QUIZHOST SAMPLE ", ErrBuiltinName},
		{"another name", "quizhost Sample 2", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBankName(tt.bank)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	if got, want := CheckBankName("quizhost Sample").Error(), `bank "quizhost Sample" is the built-in bank's name; give your bank another name`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// BenchmarkLoad10000 loads a directory of 10,000 questions: 100 files of
// 100 questions, in all four formats.
func BenchmarkLoad10000(b *testing.B) {
	dir := b.TempDir()
	for f := range 100 {
		var s strings.Builder
		var name string
		switch f % 4 {
		case 0:
			name = fmt.Sprintf("f%03d.txt", f)
			for q := range 100 {
				fmt.Fprintf(&s, "Bank %d Question %d\nSelect 2Which of these options are right for question %d?\n", f, q+1, q)
				for i := range 4 {
					fmt.Fprintf(&s, "- %s\nOption %s of question %d, with some words.\n", Letter(i), Letter(i), q)
				}
				s.WriteString("Show answer and explanation\nCorrect answers: A, C\nExplanation\nBecause A and C.\n- A. Correct.\nYes.\n- B. Incorrect.\nNo.\n")
			}
		case 1:
			name = fmt.Sprintf("f%03d.yaml", f)
			fmt.Fprintf(&s, "bank: Bank %d\nquestions:\n", f)
			for q := range 100 {
				fmt.Fprintf(&s, "- question: Which of these options are right for question %d?\n  tags: [a, b]\n  explanation: Because A.\n  options:\n", q)
				for i := range 4 {
					fmt.Fprintf(&s, "  - text: Option %s of question %d, with some words.\n    correct: %v\n    why: Reasons.\n", Letter(i), q, i == 0)
				}
			}
		case 2:
			name = fmt.Sprintf("f%03d.json", f)
			fmt.Fprintf(&s, `{"bank": "Bank %d", "questions": [`, f)
			for q := range 100 {
				if q > 0 {
					s.WriteString(",\n")
				}
				fmt.Fprintf(&s, `{"question": "Which of these options are right for question %d?", "explanation": "Because A.", "options": [`, q)
				for i := range 4 {
					if i > 0 {
						s.WriteString(", ")
					}
					fmt.Fprintf(&s, `{"text": "Option %s of question %d, with some words.", "correct": %v, "why": "Reasons."}`, Letter(i), q, i == 0)
				}
				s.WriteString("]}")
			}
			s.WriteString("]}\n")
		case 3:
			name = fmt.Sprintf("f%03d.gift", f)
			for q := range 100 {
				fmt.Fprintf(&s, "::q%d::Which of these options are right for question %d? {\n=Option A #Yes.\n~Option B #No.\n~Option C\n~Option D\n####Because A.\n}\n\n", q, q)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		c, ps := Loader{Paths: []string{dir}}.Load()
		if err := ps.Err(); err != nil {
			b.Fatal(err)
		}
		if len(c.Banks()) != 101 {
			b.Fatalf("got %d banks, want 101", len(c.Banks()))
		}
	}
}
