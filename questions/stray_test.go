package questions

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Files that collect in a study group's bank folder and are not banks, as
// the tools that write them write them.
const (
	strayPackageJSON = `{
  "name": "aws-study-group",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "format": "prettier --write ."
  },
  "devDependencies": {
    "prettier": "^3.3.3"
  }
}
`
	// tsc --init writes comments, which JSON does not allow.
	strayTSConfigInit = `{
  "compilerOptions": {
    /* Visit https://aka.ms/tsconfig to read more about this file */
    "target": "es2016",                                  /* Set the JavaScript language version for emitted JavaScript. */
    "module": "commonjs",                                /* Specify what module code is generated. */
    "strict": true,                                      /* Enable all strict type-checking options. */
    "skipLibCheck": true                                 /* Skip type checking all .d.ts files. */
  }
}
`
	strayTSConfig = `{
  "compilerOptions": {"target": "es2022", "module": "nodenext", "strict": true},
  "include": ["scripts/**/*.ts"]
}
`
	strayVSCodeSettings = `{
  // quizhost banks are plain text
  "files.associations": {"*.txt": "plaintext"},
  "editor.wordWrap": "on"
}
`
	// Mentions the banks and QUIZHOST_QUESTIONS, and uses YAML aliases.
	strayCompose = `x-common: &common
  restart: unless-stopped
  env_file: .env

services:
  quizhost:
    <<: *common
    image: ghcr.io/quizhost/quizhost:latest
    volumes:
      - ./banks:/banks:ro
      - ./data:/data
    environment:
      QUIZHOST_QUESTIONS: /banks
`
	strayNotesYAML = `# what to revise before the exam
todo:
  - IAM policies
  - S3 storage classes
done: []
`
	strayWordList = `["Kubernetes", "Fargate", "Glacier"]`
)

// A stray file in a bank folder that is not a bank at all is skipped with
// a warning; the banks next to it load. A file that is recognisably a
// bank, with mistakes, stays an error at its line.
func TestLoaderStrayFiles(t *testing.T) {
	const (
		shape  = `not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it; if it belongs to another tool, move it out of the bank folder`
		empty  = `not a question bank: the file is empty; write a bank in it or delete it`
		unread = `not a question bank: quizhost can't read it (line 3: JSON: invalid character '/') and it mentions neither bank nor question; if it belongs to another tool, move it out of the bank folder`
	)
	tests := []struct {
		name    string
		file    string // under the bank folder
		content string
		want    []string // problems, the folder's path left out
		errs    bool     // the load fails
	}{
		{"npm's package.json", "package.json", strayPackageJSON, []string{"package.json: warning: " + shape}, false},
		{"tsc --init's tsconfig.json, with comments", "tsconfig.json", strayTSConfigInit, []string{"tsconfig.json: warning: " + unread}, false},
		{"a tsconfig.json", "tsconfig.json", strayTSConfig, []string{"tsconfig.json: warning: " + shape}, false},
		{"an editor's settings, in a dot folder, not read", ".vscode/settings.json", strayVSCodeSettings, nil, false},
		{"a docker-compose.yml that names the banks", "docker-compose.yml", strayCompose, []string{"docker-compose.yml: warning: " + shape}, false},
		{"YAML notes", "notes.yaml", strayNotesYAML, []string{"notes.yaml: warning: " + shape}, false},
		{"an empty .yaml", "new.yaml", "", []string{"new.yaml: warning: " + empty}, false},
		{"a .yml of comments only", "draft.yml", "# bank: Networking\n# questions to come\n", []string{"draft.yml: warning: " + empty}, false},
		{"a JSON word list", "words.json", strayWordList, []string{"words.json: warning: " + shape}, false},
		// Almost a bank: its questions must not be skipped.
		{"a bank with question: for questions:", "typo.yaml",
			"bank: Sec\nquestion:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n",
			[]string{"typo.yaml:1: the bank has no questions (questions: [...])", `typo.yaml:2: unknown field "question" in the bank (want bank, source, questions, exam)`}, true},
		{"a bank with Bank: and Questions:", "caps.yaml",
			"Bank: Sec\nQuestions:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n",
			[]string{`caps.yaml:1: unknown field "Bank" in the bank (want bank, source, questions, exam)`, "caps.yaml:1: missing bank name (bank: <name>)",
				"caps.yaml:1: the bank has no questions (questions: [...])", `caps.yaml:2: unknown field "Questions" in the bank (want bank, source, questions, exam)`}, true},
		{"questions without the bank around them", "list.json",
			`[{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]`,
			[]string{"list.json:1: the bank must be a mapping of fields (bank, source, questions, exam)"}, true},
		{"a bank under another tool's key", "wrapped.yaml",
			"quiz:\n  questions:\n  - question: Q?\n    options: [{text: a, correct: true}, {text: b}]\n",
			[]string{`wrapped.yaml:1: unknown field "quiz" in the bank (want bank, source, questions, exam)`,
				"wrapped.yaml:1: missing bank name (bank: <name>)", "wrapped.yaml:1: the bank has no questions (questions: [...])"}, true},
		{"a bank with a syntax error", "broken.json",
			"{\"bank\": \"Ops\",\n \"questions\": [,]}\n",
			[]string{"broken.json:2: JSON: invalid character ',' looking for beginning of value"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				"aws/q12.txt":    examQuestion("AWS Cloud Practitioner", 12, "\n"),
				"aws/sec.yaml":   goodYAML,
				"aws/ops.json":   goodJSON,
				"aws/" + tt.file: tt.content,
			})
			folder := filepath.Join(dir, "aws") + string(filepath.Separator)
			c, ps := Loader{Paths: []string{dir}}.Load()
			got := []string{}
			for _, p := range ps {
				got = append(got, filepath.ToSlash(strings.ReplaceAll(p.Error(), folder, "")))
			}
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if failed := ps.Err() != nil; failed != tt.errs {
				t.Errorf("got load failed %v, want %v", failed, tt.errs)
			}
			for _, id := range []string{"AWS Cloud Practitioner#12", ContentID("Sec", "Q?"), ContentID("Ops", "Q?")} {
				if _, ok := c.Question(id); !ok {
					t.Errorf("got no question %q, want the banks next to %s loaded", id, tt.file)
				}
			}
		})
	}
}

// A file chosen as a bank (an upload to /quizadmin import) that is not one
// is an error, without the advice about bank folders.
func TestParseFileNotABank(t *testing.T) {
	tests := []struct {
		file, content, want string
	}{
		{"package.json", strayPackageJSON, `package.json: not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it`},
		{"docker-compose.yml", strayCompose, `docker-compose.yml: not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it`},
		{"new.yaml", "", "new.yaml: not a question bank: the file is empty"},
		{"empty.json", " \n", "empty.json: not a question bank: the file is empty"},
		// Unreadable: the reading's own problem, at its line, says more.
		{"tsconfig.json", strayTSConfigInit, "tsconfig.json:3: JSON: invalid character '/'"},
		{"notes.txt", "Revise IAM\n", `notes.txt: not a question bank: no line is a question title such as "<Exam> Question 12"`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			banks, ps := ParseFile(tt.file, []byte(tt.content), ParseOptions{})
			if got := ps.Err(); len(banks) != 0 || got == nil || got.Error() != tt.want {
				t.Errorf("got %d banks and error %v, want none and %s", len(banks), got, tt.want)
			}
		})
	}
}

// A stray notes.txt in the bank folder is not a bank: a warning, no banks.
// A file chosen as a bank (an upload, a paste) that is not one is an error.
func TestParseTextNotABank(t *testing.T) {
	const reason = `not a question bank: no line is a question title such as "<Exam> Question 12"`
	modes := []struct {
		name string
		opt  ParseOptions
		want Problem
	}{
		{"in a bank folder", ParseOptions{SkipNonBank: true},
			Problem{Path: "bank/notes.txt", Msg: reason + "; if it holds notes, rename it (notes.md) or move it out of the bank folder", Warning: true}},
		{"chosen as a bank", ParseOptions{}, Problem{Path: "bank/notes.txt", Msg: reason}},
	}
	for _, m := range modes {
		for _, data := range [][]byte{
			lines("Things to revise", "- IAM policies", "- the shared responsibility model"),
			[]byte(""),
			[]byte("\n\n"),
		} {
			t.Run(fmt.Sprintf("%s %q", m.name, data), func(t *testing.T) {
				banks, ps := ParseFile("bank/notes.txt", data, m.opt)
				if want := (Problems{m.want}); len(banks) != 0 || !reflect.DeepEqual(ps, want) {
					t.Errorf("got %d banks and %#v, want none and %#v", len(banks), ps, want)
				}
			})
		}
	}
}
