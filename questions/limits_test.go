package questions

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkCapped asserts what ParseOptions.MaxProblems promises for any
// input: the same banks as without it, at most max problems listed and
// then one summary, each listed problem one of the full list's, and
// Count the full list's count. It returns both parses' problems, for the
// caller's own checks.
func checkCapped(t *testing.T, path string, data []byte, max int) (full, capped Problems) {
	t.Helper()
	banks, full := ParseFile(path, data, ParseOptions{})
	cbanks, capped := ParseFile(path, data, ParseOptions{MaxProblems: max})
	if !reflect.DeepEqual(banks, cbanks) {
		t.Errorf("MaxProblems %d changed the banks: got %d, want %d", max, len(cbanks), len(banks))
	}
	listed := 0
	for i, p := range capped {
		if p.Omitted > 0 {
			if i != len(capped)-1 {
				t.Errorf("summary %v is not last of %d", p, len(capped))
			}
			continue
		}
		listed++
		if !slices.Contains(full, p) {
			t.Errorf("listed problem %v is not one the full parse found", p)
		}
	}
	if listed > max {
		t.Errorf("got %d problems listed, want at most %d", listed, max)
	}
	if f, _ := FormatOf(path); (f == FormatYAML || f == FormatJSON) && len(full) >= maxStructuredProblems {
		return full, capped // the full parse's own bound (maxStructuredProblems): its count is not the file's
	}
	if capped.Count() != full.Count() {
		t.Errorf("Count() = %d, want the full parse's %d", capped.Count(), full.Count())
	}
	return full, capped
}

// hostile builds a file of about size bytes: head, then item repeated,
// then tail.
func hostile(head, item, tail string, size int) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for b.Len()+len(item)+len(tail) < size {
		b.WriteString(item)
	}
	if strings.HasSuffix(item, ",") {
		b.Truncate(b.Len() - 1)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// Files of many mistakes list MaxProblems of them and count the rest, in
// every format; the cap changes nothing else. 16 KiB holds hundreds of
// mistakes in every format, many times the 100 listed, and more than
// maxStructuredProblems in the structured ones, so that the full parse
// stops at its own bound while the capped one counts on; a file of the
// questions Validate refuses takes four times that to hold 300.
func TestMaxProblems(t *testing.T) {
	const size = 16 << 10
	tests := []struct {
		name, path string
		data       []byte
		atLeast    int // problems in the file
	}{
		{"json questions of unknown fields", "h.json", hostile(`{"bank":"X","questions":[`, `{"zz":1},`, `]}`, size), 2500},
		{"yaml questions of unknown fields", "h.yaml", hostile("bank: X\nquestions:\n", "- zz: 1\n", "", size), 2500},
		{"yaml keys that are not names", "k.yaml", hostile("bank: X\nquestions:\n", "- {[a]: 1}\n", "", size), 1250},
		{"exam text of bare titles", "h.txt", hostile("", "X Question 1\n", "", size), 2500},
		{"exam text of junk inside a question", "j.txt", hostile("X Question 1\nSelect 1Q?\n- A\na\n- B\nb\nCorrect answer: A\nExplanation\n", "- Q. Incorrect.\n\n", "", size), 250},
		{"gift of unclosed titles", "h.gift", hostile("", "::t\n\n", "", size), 2500},
		{"gift of essay questions", "e.gift", hostile("", "Why? {}\n\n", "", size), 1250},
		{"csv rows of an answer that is no option", "r.csv", hostile("question,A,B,answer\n", "x,a,b,Z\n", "", size), 1250},
		{"csv rows of one cell", "s.csv", hostile("question,A,B,answer\n", "q\n", "", size), 2500},
		{"tsv rows of an answer that is no option", "r.tsv", hostile("question\tA\tB\tanswer\n", "x\ta\tb\tZ\n", "", size), 1250},
		{"tab-separated text rows", "r.txt", hostile("question\tA\tB\tanswer\n", "x\ta\tb\tZ\n", "", size), 1250},
		{"csv header of unknown columns", "h.csv", hostile("question,A,B,answer", ",zz", "\n", size), 2500},
		{"csv cells past the header", "c.csv", hostile("question,A,B,answer\n", "x,a,b,A,z\n", "", size), 1250},
		{"aiken answers that are no option", "a.aiken", hostile("", "Q?\nA. a\nB. b\nANSWER: C\n\n", "", size), 500},
		{"practice-site questions without an answer", "p.txt", hostile("", "Question #1 Topic 1\nQ?\nA. a\n", "", size), 250},
		{"valid questions Validate refuses", "v.json", hostile(`{"bank":"X","questions":[`, `{"question":"Q?","tags":["`+strings.Repeat("t", 101)+`"],"options":[{"text":"a","correct":true},{"text":"b"}]},`, `]}`, 4*size), 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			full, ps := checkCapped(t, tt.path, tt.data, 100)
			if n := ps.Count(); n < tt.atLeast {
				t.Errorf("Count() = %d, want at least %d", n, tt.atLeast)
			}
			if len(ps) != 101 || ps[100].Omitted != ps.Count()-100 {
				t.Fatalf("got %d problems, the last %v; want 100 and a summary of %d more", len(ps), ps[len(ps)-1], ps.Count()-100)
			}
			// The summary is a warning when the file has nothing else.
			want := fmt.Sprintf("%s: …and %d more problems, not listed", tt.path, ps.Count()-100)
			if len(full.Errors()) == 0 {
				want = fmt.Sprintf("%s: warning: …and %d more warnings, not listed", tt.path, ps.Count()-100)
			}
			if ps[100].Error() != want {
				t.Errorf("summary %q, want %q", ps[100].Error(), want)
			}
			// The format's parser itself lists no more than the bound
			// (parse then cuts what Validate adds): past it, it counts.
			if _, raw := formatParse(tt.path, tt.data, ParseOptions{MaxProblems: 100}); len(raw) > 103 {
				t.Errorf("the %s parser built %d problems, want at most 100 and its summaries", tt.path, len(raw))
			}
		})
	}
}

// formatParse is parse without Validate and its cut: the format's parser
// alone.
func formatParse(path string, data []byte, opt ParseOptions) ([]Bank, Problems) {
	f, _ := FormatOf(path)
	switch f {
	case FormatText:
		return parseText(path, data, opt)
	case FormatAiken:
		return parseTextShape(path, data, opt, true)
	case FormatCSV, FormatTSV:
		return parseTable(path, data, f, opt)
	case FormatYAML, FormatJSON:
		return parseStructured(path, data, f, opt)
	case FormatGIFT:
		return parseGIFT(path, data, opt)
	}
	return nil, nil
}

// A structured question whose problems came past the reported ones is
// still refused: the decoder used to count the problems it listed, so
// once its list was full every question after passed as sound, and
// Validate then found several problems in each.
func TestStructuredProblemsPastTheListStillRefuse(t *testing.T) {
	data := hostile(`{"bank":"X","questions":[`, `{"zz":1},`, `]}`, 32<<10)
	banks, ps := ParseFile("h.json", data, ParseOptions{})
	if len(banks) != 0 {
		t.Errorf("got %d banks with %d questions, want none: no question is sound", len(banks), len(banks[0].Questions))
	}
	if len(ps) != 1001 {
		t.Errorf("got %d problems, want 1,000 and the note that the rest are not reported", len(ps))
	}
}

// A file of more warnings than MaxProblems loads as it does without the
// bound: its summary is a warning. One error among them, listed or not,
// refuses it.
func TestMaxProblemsWarningsOnly(t *testing.T) {
	var gift, csv strings.Builder
	for i := range 150 {
		fmt.Fprintf(&gift, "::e%d:: Why %d? {}\n\n", i, i)
	}
	gift.WriteString("::q:: Pick one. {=a ~b}\n")
	csv.WriteString("question,A,B,answer\n")
	for i := range 150 {
		fmt.Fprintf(&csv, "\"Code %d:\nif x:\n    y()\",a,b,A\n", i)
	}
	for _, tt := range []struct {
		path, data string
		questions  int
	}{
		{"moodle.gift", gift.String(), 1},
		{"code.csv", csv.String(), 150},
		{"broken.gift", gift.String() + "::b:: Broken {=a\n", 1},
	} {
		banks, ps := ParseFile(tt.path, []byte(tt.data), ParseOptions{MaxProblems: 100})
		broken := strings.HasPrefix(tt.path, "broken")
		if n := len(ps); n != 101 || ps[100].Warning == broken {
			t.Errorf("%s: got %d problems, the last %v; want 100 and a summary, a warning unless the file has an error", tt.path, n, ps[n-1])
		}
		if (ps.Err() != nil) != broken || len(banks) != 1 || len(banks[0].Questions) != tt.questions {
			t.Errorf("%s: got %d banks, error %v; want %d questions, refused %v", tt.path, len(banks), ps.Err(), tt.questions, broken)
		}
		// Limit, as the bot cuts several files' lists, keeps the verdict.
		if cut := ps.Limit(10); len(cut) != 11 || cut[10].Warning == broken || cut.Count() != ps.Count() {
			t.Errorf("%s: Limit(10) = %d problems, the last %v; want 10 and a summary of the rest, a warning unless the file has an error", tt.path, len(cut), cut[len(cut)-1])
		}
	}
}

// A file that is not UTF-8 lists a few of its lines (maxEncodingLines),
// and with MaxProblems fewer, then a summary; its encoding is guessed from
// the first bytes that are not UTF-8 of any number.
func TestMaxProblemsEncoding(t *testing.T) {
	data := hostile("X Question 1\n", "caf\xe9 \x93quoted\x94\n", "", 64<<10)
	_, ps := ParseFile("u.txt", data, ParseOptions{})
	if len(ps) != maxEncodingLines || !strings.Contains(ps[0].Msg, "Windows-1252") || !strings.Contains(ps[0].Msg, "lines have such bytes") {
		t.Errorf("got %d problems, the first %q; want %d, the first naming Windows-1252 and counting the lines", len(ps), ps[0].Msg, maxEncodingLines)
	}
	_, capped := ParseFile("u.txt", data, ParseOptions{MaxProblems: 2})
	if len(capped) != 3 || capped[0] != ps[0] || capped[2].Omitted != maxEncodingLines-2 {
		t.Errorf("with MaxProblems 2: got %v; want the first 2 and a summary of %d more", capped, maxEncodingLines-2)
	}
	checkCapped(t, "u.txt", data, 2)
	checkCapped(t, "u.csv", data, 3)
}

// MaxValues stops reading a YAML or JSON tree, or a table's cells, past
// its bound, and refuses a JSON document that is not an object on its
// first token.
func TestMaxValues(t *testing.T) {
	yamlBank := lines("bank: B", "questions:", "- question: Q?", "  options: [{text: a, correct: true}, {text: b}]")
	jsonBank := []byte(`{"bank": "B", "questions": [{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`)
	tests := []struct {
		name, path string
		data       []byte
		max        int
		want       string // the one problem; "" for a clean parse
	}{
		{"yaml bank under the bound", "b.yaml", yamlBank, 30, ""},
		{"json bank under the bound", "b.json", jsonBank, 30, ""},
		{"json bank of more values", "b.json", jsonBank, 10, "b.json:1: more than 10 values (strings, numbers, lists, fields): a bank file holds fewer; split the bank into several files"},
		{"json list of values", "l.json", hostile("\n[", "1,", "]", 4096), 1000000, "l.json:2: the bank must be a mapping of fields (bank, source, questions, exam); this file is a list"},
		{"json string", "s.json", []byte(`"bank"`), 10, "s.json:1: the bank must be a mapping of fields (bank, source, questions, exam); this file is a string"},
		{"json list, no bound", "l.json", []byte(`[1]`), 0, `l.json: not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it`},
		{"yaml list of values", "l.yaml", hostile("# list\n", "- a\n", "", 4096), 100, "l.yaml:201: more than 200 marks that start a value (- : , ? [ {): a bank file holds fewer; split the bank into several files"},
		{"yaml flow list", "f.yaml", hostile("bank: B\nquestions: [", "1,", "]", 4096), 100, "f.yaml:2: more than 200 marks that start a value"},
		{"yaml of more values than the bound, fewer marks than twice it", "m.yaml", hostile("", "- a\n", "", 600), 100, "m.yaml:100: more than 100 values (strings, numbers, lists, fields)"},
		{"csv bank under the bound", "b.csv", []byte("question,A,B,answer\nQ?,a,b,A\n"), 8, ""},
		{"csv of more cells", "c.csv", []byte("question,A,B,answer\nQ?,a,b,A\nR?,a,b,B\n"), 10, "c.csv:3: more than 10 cells: a bank file holds fewer; split the bank into several files"},
		{"csv rows of one cell", "s.csv", hostile("question,A,B,answer\n", "q\n", "", 4096), 100, "s.csv:98: more than 100 cells"},
		{"tab-separated text", "t.txt", hostile("question\tA\tB\tanswer\n", "q\ta\tb\tA\n", "", 4096), 100, "t.txt:26: more than 100 cells"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile(tt.path, tt.data, ParseOptions{MaxValues: tt.max})
			if tt.want == "" {
				if len(ps) != 0 || len(banks) != 1 {
					t.Errorf("got %d banks and %v, want the bank", len(banks), ps)
				}
				return
			}
			if len(ps) != 1 || !strings.HasPrefix(ps[0].Error(), tt.want) || len(banks) != 0 {
				t.Errorf("got %d banks and %q, want none and %q", len(banks), ps.Error(), tt.want)
			}
		})
	}
}
