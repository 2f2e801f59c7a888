package questions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
		path  string
		banks []string
	}{
		{"built-in only", "", nil},
		{"directory", dir, []string{"moodle", "Net", "Ops", "Sec"}},
		{"one file", filepath.Join(dir, "ops.json"), []string{"Ops"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Loader{Path: tt.path}.Load()
			if err != nil {
				t.Fatalf("got %v, want no error", err)
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

func TestLoaderRefusesBrokenFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.txt":      "Net Question 1\nSelect 2Which?\n- A\na\n- B\nb\nCorrect answer: C\n",
		"b/c.yaml":   "bank: Sec\nquestions:\n- question: Q?\n  colour: red\n  options: [{text: a, correct: true}, {text: b}]\n",
		"b/d.gift":   "::x::Q?{~a ~b}\n",
		"e.json":     `{"bank": "net", "questions": [{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`,
		"z/ok.txt":   goodText,
		"z/ok2.yaml": goodYAML,
	})
	_, err := Loader{Path: dir}.Load()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("got %v, want Problems", err)
	}
	got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	got = filepath.ToSlash(got)
	want := strings.Join([]string{
		`a.txt:2: "Select 2" disagrees with the answer line, which lists 1 letter(s)`,
		`a.txt:7: answer letter C is not an option (options are A–B)`,
		`b/c.yaml:4: unknown field "colour" in a question (want id, number, select, question, options, explanation, tags, source)`,
		`b/d.gift:1: no right answer (mark it with = or a positive weight ~%50%)`,
		`z/ok.txt:1: bank "Net" is also defined in e.json`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLoaderErrors(t *testing.T) {
	_, err := Loader{Path: filepath.Join(t.TempDir(), "missing")}.Load()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want fs.ErrNotExist", err)
	}
	builtin, _ := Builtin()
	dir := writeFiles(t, map[string]string{"copy.txt": strings.ReplaceAll(goodText, "Net", builtin[0].Name)})
	_, err = Loader{Path: dir}.Load()
	if err == nil || !strings.Contains(err.Error(), "copy.txt:1: bank \""+builtin[0].Name+"\" is also defined by the built-in bank") {
		t.Errorf("got %v, want a conflict with the built-in bank", err)
	}
}

func TestLoadFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a/net.txt":  goodText,
		"a/sec.yaml": goodYAML,
		"ops.json":   goodJSON,
		"notes.md":   "x",
		"dup.gift":   "$CATEGORY: Ops\n::t::Q?{=a ~b}\n",
	})
	tests := []struct {
		name  string
		paths []string
		banks []string
		err   string
	}{
		{"files and directories, in order", []string{filepath.Join(dir, "ops.json"), filepath.Join(dir, "a")}, []string{"Ops", "Net", "Sec"}, ""},
		{"a named file of another type", []string{filepath.Join(dir, "notes.md")}, nil, "notes.md: not a bank file"},
		{"conflicts across files", []string{filepath.Join(dir, "ops.json"), filepath.Join(dir, "dup.gift")}, []string{"Ops", "Ops"}, `dup.gift:2: bank "Ops" is also defined in`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, err := LoadFiles(tt.paths...)
			var names []string
			for _, b := range banks {
				names = append(names, b.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.banks) {
				t.Errorf("got banks %v, want %v", names, tt.banks)
			}
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("got error %v, want %q", err, tt.err)
			}
		})
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
		c, err := Loader{Path: dir}.Load()
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Banks()) != 101 {
			b.Fatalf("got %d banks, want 101", len(c.Banks()))
		}
	}
}
