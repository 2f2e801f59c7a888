package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

// awsFolder writes a study group's collection under dir/banks: one exam
// text file per question, titled "AWS Cloud Practitioner Question N", no
// final newline, one with CRLF endings, a stray note, and a YAML file
// adding to the same bank. It returns the folder.
func awsFolder(t *testing.T, dir string) string {
	t.Helper()
	folder := filepath.Join(dir, "banks", "AWS Cloud Practitioner")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	exam := func(n int, eol string) string {
		return strings.Join([]string{
			fmt.Sprintf("AWS Cloud Practitioner Question %d", n),
			fmt.Sprintf("Select 1Which AWS service stores objects (question %d)?", n),
			"- A", "Amazon S3", "- B", "Amazon EC2",
			"Show answer and explanation", "Correct answer: A",
			"Explanation", "S3 is the object store.",
			"- A. Correct.", "S3 stores objects in buckets.",
			"- B. Incorrect.", "EC2 runs virtual machines.",
		}, eol)
	}
	files := map[string]string{
		"q12.txt":   exam(12, "\n"),
		"q40.txt":   exam(40, "\r\n"),
		"q7.txt":    exam(7, "\n"),
		"notes.txt": "Plan: two questions a day before the exam.\n",
		"more.yaml": "bank: AWS Cloud Practitioner\nquestions:\n- id: s3-classes\n  question: Which S3 storage class is cheapest?\n" +
			"  options:\n  - {text: Glacier Deep Archive, correct: true, why: Made for rarely read archives.}\n  - {text: Standard, why: The most expensive to store.}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return folder
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // no .env here
	folder := awsFolder(t, dir)
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad", "bad.txt")
	dup := filepath.Join(dir, "dup", "q40b.txt")
	sample := filepath.Join(dir, "sample.yaml")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.MkdirAll(filepath.Dir(dup), 0o755)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	os.WriteFile(good, []byte("G Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(bad, []byte("B Question 1\nSelect 2Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(dup, []byte("AWS Cloud Practitioner Question 40\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A"), 0o600)
	os.WriteFile(sample, []byte("bank: quizhost sample\nquestions:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n"), 0o600)
	note := filepath.Join(folder, "notes.txt") + `: warning: not a question bank: no line is a question title`
	// Other tools' files among the banks: warnings, the bank loads.
	os.MkdirAll(filepath.Join(dir, "group", ".vscode"), 0o755)
	os.WriteFile(filepath.Join(dir, "group", "net.txt"), []byte("Net Question 1\nSelect 1Pick.\n- A\nyes\n- B\nno\nCorrect answer: A\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "group", "package.json"), []byte(`{"name": "study", "version": "1.0.0", "scripts": {"fmt": "prettier -w ."}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "group", "docker-compose.yml"), []byte("services:\n  quizhost:\n    image: quizhost\n    environment:\n      QUIZHOST_QUESTIONS: /banks\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "group", ".vscode", "settings.json"), []byte(`{"editor.wordWrap": "on"}`), 0o600)
	stray := `: warning: not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it; if it belongs to another tool, move it out of the bank folder`
	// A bank of three questions, two of which fail the checks every
	// format shares: only the third loads.
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("bank: Long\nquestions:\n"+
		"- id: "+strings.Repeat("i", questions.MaxIDLength+1)+"\n  question: A long id?\n  options: [{text: a, correct: true}, {text: b}]\n"+
		"- question: A long tag?\n  tags: ["+strings.Repeat("t", questions.MaxTagLength+1)+"]\n  options: [{text: a, correct: true}, {text: b}]\n"+
		"- question: Fine?\n  options: [{text: a, correct: true}, {text: b}]\n"), 0o600)
	// An Aiken file of two good questions, then more broken ones (an
	// answer that is no option) than validate lists, then one more good.
	many := filepath.Join(dir, "many", "dump.aiken")
	os.MkdirAll(filepath.Dir(many), 0o755)
	var dump strings.Builder
	dump.WriteString("Good 1?\nA. a\nB. b\nANSWER: A\n\nGood 2?\nA. a\nB. b\nANSWER: B\n\n")
	broken := questions.MaxLoadProblems + 250
	for i := range broken {
		fmt.Fprintf(&dump, "Broken %d?\nA. a\nB. b\nANSWER: C\n\n", i)
	}
	dump.WriteString("Good 3?\nA. a\nB. b\nANSWER: A")
	os.WriteFile(many, []byte(dump.String()), 0o600)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  []string
		total    string // stdout's last line, always there
	}{
		{"one file", []string{"validate", good}, 0,
			[]string{"G: 1 question from " + good + "\n"}, nil, "ok: 1 bank, 1 question; 0 errors, 0 warnings"},
		{"a folder of one-question files", []string{"validate", "banks"}, 0,
			[]string{"AWS Cloud Practitioner: 4 questions from 4 files: 4 in banks/AWS Cloud Practitioner/\n"},
			[]string{"banks/AWS Cloud Practitioner/notes.txt: warning: not a question bank"}, "ok: 1 bank, 4 questions; 0 errors, 1 warning"},
		{"other tools' files in a bank folder", []string{"validate", "group"}, 0,
			[]string{"Net: 1 question from group/net.txt\n"},
			[]string{"group/docker-compose.yml" + stray + "\n", "group/package.json" + stray + "\n"}, "ok: 1 bank, 1 question; 0 errors, 2 warnings"},
		{"--strict fails on a warning", []string{"validate", "--strict", folder}, 1,
			[]string{"AWS Cloud Practitioner: 4 questions"}, []string{note}, "failed: 1 bank, 4 questions; 0 errors, 1 warning (--strict: warnings fail too)"},
		{"--strict after the paths", []string{"validate", folder, "-strict"}, 1, nil, []string{note},
			"failed: 1 bank, 4 questions; 0 errors, 1 warning (--strict: warnings fail too)"},
		{"a file's errors", []string{"validate", filepath.Join(dir, "bad")}, 1, nil, []string{bad + ":2: "}, "failed: 0 banks, 0 questions; 1 error, 0 warnings"},
		{"failing questions are not counted", []string{"validate", long}, 1, []string{"Long: 1 question from " + long + "\n"},
			[]string{long + ":3: question id is", long + ":6: tag "}, "failed: 1 bank, 1 question; 2 errors, 0 warnings"},
		{"more errors than are listed", []string{"validate", filepath.Join(dir, "many")}, 1,
			[]string{"many: 0 questions from " + many + " (and 3 questions not counted: more errors than listed in their files)\n"},
			[]string{many + ":14: answer letter C is not an option (options are A–B)\n",
				fmt.Sprintf("%s: …and %d more problems, not listed\n", many, broken-questions.MaxLoadProblems)},
			fmt.Sprintf("failed: 1 bank, 0 questions; %d errors, 0 warnings", broken)},
		{"a question defined twice", []string{"validate", folder, filepath.Join(dir, "dup")}, 1, nil,
			[]string{dup + `:1: question "AWS Cloud Practitioner#40" is also defined at ` + filepath.Join(folder, "q40.txt") + ":1"},
			"failed: 1 bank, 4 questions; 1 error, 1 warning"},
		{"the built-in bank's name", []string{"validate", sample}, 1, nil,
			[]string{sample + `:3: bank "quizhost sample" is the built-in bank's name; give your bank another name`}, "failed: 0 banks, 0 questions; 1 error, 0 warnings"},
		{"a folder with no bank file", []string{"validate", "empty/"}, 0, nil,
			[]string{"empty/: warning: no bank files (*.txt, *.aiken, *.yaml, *.yml, *.json, *.gift, *.csv, *.tsv) in this folder"}, "ok: 0 banks, 0 questions; 0 errors, 1 warning"},
		{"a missing path", []string{"validate", "missing"}, 1, nil, []string{"missing: no such file or directory"}, "failed: 0 banks, 0 questions; 1 error, 0 warnings"},
		{"no arguments, no .env: the built-in bank", []string{"validate"}, 0,
			[]string{"quizhost Sample: 42 questions (built in)\n"}, nil, "ok: 1 bank, 42 questions; 0 errors, 0 warnings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tt.args...)
			if code != tt.wantCode {
				t.Errorf("got exit %d, want %d (stdout %q, stderr %q)", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("got stdout %q, want it to contain %q", out, w)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("got stderr %q, want it to contain %q", errOut, w)
				}
			}
			if !strings.HasSuffix("\n"+out, "\n"+tt.total+"\n") {
				t.Errorf("got stdout %q, want its last line %q", out, tt.total)
			}
			if strings.Contains(out+errOut, " 1 questions") {
				t.Errorf("got %q, want \"1 question\"", out+errOut)
			}
		})
	}
}

// With no arguments, validate and preview check what the bot would load:
// QUIZHOST_QUESTIONS from the environment or .env, and the built-in bank.
func TestNoArgumentsLoadWhatTheBotWould(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	awsFolder(t, dir)
	if err := os.WriteFile(".env", []byte("QUIZHOST_QUESTIONS=banks\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "validate")
	if code != 0 {
		t.Fatalf("got exit %d, want 0; stderr %q", code, errOut)
	}
	want := "AWS Cloud Practitioner: 4 questions from 4 files: 4 in banks/AWS Cloud Practitioner/\n" +
		"quizhost Sample: 42 questions (built in)\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("got stdout\n%s\nwant it to start\n%s", out, want)
	}
	if !strings.Contains(errOut, "notes.txt: warning:") {
		t.Errorf("got stderr %q, want the stray note's warning", errOut)
	}
	// The real environment wins over .env.
	code, out, _ = runCLI(t, map[string]string{"QUIZHOST_QUESTIONS": filepath.Join("banks", "AWS Cloud Practitioner", "q7.txt")}, "validate")
	if code != 0 || !strings.HasPrefix(out, "AWS Cloud Practitioner: 1 question from banks/AWS Cloud Practitioner/q7.txt\n") {
		t.Errorf("got exit %d, stdout %q, want q7.txt's bank", code, out)
	}
	code, out, errOut = runCLI(t, nil, "preview")
	if code != 0 || !strings.Contains(out, "######## AWS Cloud Practitioner#40 (banks/AWS Cloud Practitioner/q40.txt:1)") ||
		!strings.Contains(out, "######## quizhost Sample#1 (built in)") {
		t.Errorf("got exit %d, stdout %.300q…, stderr %q, want the folder's and the built-in questions", code, out, errOut)
	}
}

// TestValidateWarnsOfLongReveals: a question whose reveal takes more than
// one message loads, with a warning that says how many and points to
// preview; --strict fails on it.
func TestValidateWarnsOfLongReveals(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n/(len(word)+1))) }
	var b strings.Builder
	b.WriteString("Long Question 1\nSelect 1" + long("stem", 3800) + "\n")
	for _, l := range []string{"A", "B", "C", "D", "E"} {
		b.WriteString("- " + l + "\nOption " + l + "\n")
	}
	b.WriteString("Show answer and explanation\nCorrect answer: B\nExplanation\n" + long("explanation", 4000) + "\n")
	for _, l := range []string{"A", "B", "C", "D", "E"} {
		verdict := "Incorrect"
		if l == "B" {
			verdict = "Correct"
		}
		b.WriteString("- " + l + ". " + verdict + ".\n" + long("rationale", 1000) + "\n")
	}
	b.WriteString("Long Question 2\nSelect 1Short?\n- A\nyes\n- B\nno\nCorrect answer: A\n")
	os.WriteFile("long.txt", []byte(b.String()), 0o600)
	code, out, errOut := runCLI(t, nil, "validate", "long.txt")
	if want := "long.txt:1: warning: question 1's reveal takes 3 messages: the closed post, then 2 messages replying to it (quizhost preview shows them)\n"; code != 0 || !strings.Contains(errOut, want) || !strings.Contains(out, "0 errors, 1 warning") ||
		!strings.Contains(out, "Long: 2 questions") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 0, both questions and the one warning %q", code, out, errOut, want)
	}
	if code, _, _ := runCLI(t, nil, "validate", "--strict", "long.txt"); code != 1 {
		t.Errorf("--strict: got exit %d, want 1", code)
	}
}

// copyFixtures copies files of questions/testdata into folder.
func copyFixtures(t *testing.T, folder string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("questions", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, filepath.Base(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A bank folder holding the seed files, practice-site files, an Aiken
// file, a spreadsheet's CSV export and a Moodle GIFT export, as a study
// group collects them: validate loads every question and counts each. A file that looks like questions but holds none fails
// validate, at its line, instead of being skipped.
func TestValidateEveryShapeInOneFolder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "banks", "AWS Cloud Practitioner")
	copyFixtures(t, folder,
		"aws-practice/q12.txt", "aws-practice/q40.txt", "aws-practice/q7.txt", "aws-practice/q8.txt", "aws-practice/notes.txt",
		"practice-site/az-104.txt",  // bare titles: the folder's bank
		"practice-site/saa-c03.txt", // Bank: AWS Solutions Architect
		"aiken/python-basics.aiken", // no titles: the folder's bank
		"sheets-export.csv",         // no bank column: the folder's bank
		"moodle-export.gift")        // $CATEGORY: $course$/top/Default for Python Basics/…
	t.Chdir(dir)
	code, out, errOut := runCLI(t, nil, "validate", "banks")
	if code != 0 {
		t.Fatalf("got exit %d, want 0\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{
		"AWS Cloud Practitioner: 12 questions from 7 files: 7 in banks/AWS Cloud Practitioner/\n",
		"AWS Solutions Architect: 3 questions from banks/AWS Cloud Practitioner/saa-c03.txt\n",
		"Python Basics: 5 questions from banks/AWS Cloud Practitioner/moodle-export.gift\n",
		"ok: 3 banks, 20 questions; 0 errors, 7 warnings\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("got stdout\n%s\nwant it to contain %q", out, want)
		}
	}
	// The warnings: notes.txt is not a bank, the GIFT export's five
	// question types quizhost does not ask, and the CSV's unfenced code.
	if want := "banks/AWS Cloud Practitioner/notes.txt: warning: not a question bank"; !strings.Contains(errOut, want) {
		t.Errorf("got stderr\n%s\nwant notes.txt's warning", errOut)
	}

	// Copied without its titles and options, a question is not skipped.
	lost := filepath.Join(folder, "lost.txt")
	if err := os.WriteFile(lost, []byte("Which service caches session state?\r\nSuggested Answer: B\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, nil, "validate", "banks")
	want := `banks/AWS Cloud Practitioner/lost.txt:2: "Suggested Answer: B" is part of a question, but no question can be read in this file. Closest format: practice-site`
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(out, "1 error, 7 warnings") {
		t.Errorf("got exit %d, stderr\n%s\nwant 1 and %q", code, errOut, want)
	}
}

// TestValidateExamSettings: validate checks a bank's exam settings, in a
// structured bank's exam block and in an exam.yaml beside a table, as
// start-up does: the weights sum to 100, each domain is a tag of the
// bank's questions, the pass mark reads; each problem at its path:line.
func TestValidateExamSettings(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"cloud.yaml": "bank: Cloud\nexam:\n  questions: 2\n  minutes: 3\n  pass: 700 of 100-1000\n  domains:\n    Net: 50\n    Sec: 50\nquestions:\n" +
			"- question: One?\n  tags: [Net]\n  options: [{text: a, correct: true}, {text: b}]\n" +
			"- question: Two?\n  tags: [sec]\n  options: [{text: a, correct: true}, {text: b}]\n",
		"bad/weights.yaml": "bank: Weights\nexam:\n  domains:\n    Net: 60\n    Storage: 30\nquestions:\n" +
			"- question: One?\n  tags: [Net]\n  options: [{text: a, correct: true}, {text: b}]\n",
		"sheet/q.csv":     "Question,A,B,Answer,Topic,Bank\nWhich one?,a,b,A,Net,Sheet\n",
		"sheet/exam.yaml": "questions: 1\npass: 170%\ndomains:\n  Net: 100\n",
		"good/q.csv":      "Question,A,B,Answer,Topic,Bank\nWhich one?,a,b,A,Net,Good\n",
		"good/exam.yaml":  "minutes: 5\npass: 80%\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		path    string
		code    int
		wantErr []string
		total   string
		wantOut string // the bank's lines, the settings applied
	}{
		{"an exam block", "cloud.yaml", 0, nil, "ok: 1 bank, 2 questions; 0 errors, 0 warnings",
			"Cloud: 2 questions from cloud.yaml\n  mock exam: 2 questions · 3 minutes · pass 700 of 100-1000 · domains: Net 50%, Sec 50%\n"},
		{"an exam.yaml", "good", 0, nil, "ok: 1 bank, 1 question; 0 errors, 0 warnings",
			"Good: 1 question from " + filepath.Join("good", "q.csv") + "\n  mock exam: 1 question · 5 minutes · pass 80%\n"},
		{"weights and a domain no question has", "bad", 1, []string{
			filepath.Join("bad", "weights.yaml") + ":4: the exam domains' weights sum to 90%; they must sum to 100%",
			filepath.Join("bad", "weights.yaml") + `:5: exam domain "Storage" is not a tag of any question of bank "Weights"`,
		}, "failed: 1 bank, 1 question; 2 errors, 0 warnings", ""},
		{"a bad pass mark in an exam.yaml", "sheet", 1, []string{
			filepath.Join("sheet", "exam.yaml") + `:2: pass mark "170%": the pass mark 170% must be 1% to 100%`,
		}, "1 error, 0 warnings", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, "validate", tc.path)
			if code != tc.code {
				t.Errorf("got exit %d, want %d (stdout %q, stderr %q)", code, tc.code, out, errOut)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(errOut, w+"\n") {
					t.Errorf("got stderr\n%s\nwant the line %q", errOut, w)
				}
			}
			if len(tc.wantErr) == 0 && errOut != "" {
				t.Errorf("got stderr %q, want nothing", errOut)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("got stdout\n%s\nwant it to hold\n%s", out, tc.wantOut)
			}
			if !strings.Contains(out, tc.total+"\n") {
				t.Errorf("got stdout %q, want %q", out, tc.total)
			}
		})
	}
}
