package questions

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var yamlExample = lines(
	"bank: Cloud Networking Practice", // 1
	"source: https://example.com/practice",
	"questions:",
	"  - id: latency-cdn",
	"    number: 7", // 5
	"    question: Which of the following reduce latency for users far from the origin region?",
	"    options:",
	"      - text: Serving static assets from a content delivery network.",
	"        correct: true",
	"        why: Edge caches answer from a location near the user.", // 10
	"      - text: Doubling the CPU count of the origin servers.",
	"        why: More CPU shortens processing, not the network round trip.",
	"      - text: Placing read replicas in regions close to the users.",
	"        correct: true",
	"      - text: Raising the TCP receive buffer on the clients only.", // 15
	"    explanation: |",
	"      Latency to a distant user is dominated by round trips.",
	"    tags: [networking, latency]",
	"  - question: Which protocol resolves a host name?",
	"    select: 1", // 20
	"    source: https://example.com/dns",
	"    options:",
	"      - {text: DNS, correct: true}",
	"      - text: ARP",
)

var jsonExample = lines(
	`{`, // 1
	`  "bank": "Cloud Networking Practice",`,
	`  "source": "https://example.com/practice",`,
	`  "questions": [`,
	`    {`, // 5
	`      "id": "latency-cdn",`,
	`      "number": 7,`,
	`      "question": "Which of the following reduce latency for users far from the origin region?",`,
	`      "options": [`,
	`        {"text": "Serving static assets from a content delivery network.", "correct": true, "why": "Edge caches answer from a location near the user."},`, // 10
	`        {"text": "Doubling the CPU count of the origin servers.", "why": "More CPU shortens processing, not the network round trip."},`,
	`        {"text": "Placing read replicas in regions close to the users.", "correct": true},`,
	`        {"text": "Raising the TCP receive buffer on the clients only."}`,
	`      ],`,
	`      "explanation": "Latency to a distant user is dominated by round trips.\n",`, // 15
	`      "tags": ["networking", "latency"]`,
	`    },`,
	`    {`,
	`      "question": "Which protocol resolves a host name?",`,
	`      "select": 1,`, // 20
	`      "source": "https://example.com/dns",`,
	`      "options": [{"text": "DNS", "correct": true}, {"text": "ARP"}]`,
	`    }`,
	`  ]`,
	`}`, // 25
)

func TestParseStructuredExample(t *testing.T) {
	const bank = "Cloud Networking Practice"
	wantBank := func(path string, line1, line2 int) []Bank {
		return []Bank{{Name: bank, Path: path, Questions: []Question{{
			ID: "latency-cdn", Bank: bank, Number: 7,
			Stem: "Which of the following reduce latency for users far from the origin region?",
			Options: []Option{
				{Letter: "A", Text: "Serving static assets from a content delivery network.", Correct: true, Rationale: "Edge caches answer from a location near the user."},
				{Letter: "B", Text: "Doubling the CPU count of the origin servers.", Rationale: "More CPU shortens processing, not the network round trip."},
				{Letter: "C", Text: "Placing read replicas in regions close to the users.", Correct: true},
				{Letter: "D", Text: "Raising the TCP receive buffer on the clients only."},
			},
			Explanation: "Latency to a distant user is dominated by round trips.",
			Tags:        []string{"networking", "latency"},
			Source:      "https://example.com/practice",
			Line:        line1,
		}, {
			ID: bank + "#9badd6e8", Bank: bank, Number: 2,
			Stem:    "Which protocol resolves a host name?",
			Options: []Option{{Letter: "A", Text: "DNS", Correct: true}, {Letter: "B", Text: "ARP"}},
			Source:  "https://example.com/dns",
			Line:    line2,
		}}}}
	}
	tests := []struct {
		name string
		path string
		data []byte
		f    Format
		want []Bank
	}{
		{"yaml", "net.yaml", yamlExample, FormatYAML, wantBank("net.yaml", 4, 19)},
		{"json", "net.json", jsonExample, FormatJSON, wantBank("net.json", 5, 18)},
		{"json with a byte-order mark", "net.json", append([]byte("\uFEFF"), jsonExample...), FormatJSON, wantBank("net.json", 5, 18)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseStructured(tt.path, tt.data, tt.f)
			checkProblems(t, ps, nil)
			if !reflect.DeepEqual(banks, tt.want) {
				t.Errorf("got %s\nwant %s", dump(banks), dump(tt.want))
			}
		})
	}
}

func TestParseStructuredProblems(t *testing.T) {
	const head = "bank: B\nquestions:\n" // lines 1-2
	tests := []struct {
		name string
		f    Format
		data []byte
		want []want
	}{
		{
			name: "yaml unknown fields at every level",
			f:    FormatYAML,
			data: lines("bank: B", "colour: red", "questions:", "  - question: Q?", "    answer: A", "    options:", "      - text: a", "        correct: true", "        rationale: no", "      - text: b"),
			want: []want{{2, `unknown field "colour" in the bank`}, {5, `unknown field "answer" in a question`}, {9, `unknown field "rationale" in an option`}},
		},
		{
			name: "yaml wrong types",
			f:    FormatYAML,
			data: lines(head+"  - question: Q?", "    number: seven", "    tags: networking", "    options:", "      - text: a", "        correct: yes", "      - text: [b]"),
			want: []want{{4, "number must be a whole number"}, {5, "tags must be a list of strings"}, {8, "correct must be true or false"}, {9, "text must be a string"}, {9, "option B has no text"}},
		},
		{
			name: "yaml syntax error",
			f:    FormatYAML,
			data: lines("bank: B", "questions:", "  - question: [unclosed", "    options: x"),
			want: []want{{3, "YAML: did not find expected ',' or ']'"}},
		},
		{
			name: "yaml repeated key",
			f:    FormatYAML,
			data: lines(head+"  - question: Q?", "    question: Again?", "    options: [{text: a, correct: true}, {text: b}]"),
			want: []want{{4, `field "question" repeated (first at line 3)`}},
		},
		{
			name: "yaml alias",
			f:    FormatYAML,
			data: lines("bank: &b B", "questions:", "  - question: *b", "    options: [{text: a, correct: true}, {text: b}]"),
			want: []want{{3, "YAML aliases (*b) are not supported"}, {3, "the question has no text"}},
		},
		{
			name: "yaml two documents",
			f:    FormatYAML,
			data: lines(head+"  - question: Q?", "    options: [{text: a, correct: true}, {text: b}]", "---", "bank: C"),
			want: []want{{5, "a second YAML document"}},
		},
		{
			name: "rules: options, text, correct, select, duplicates",
			f:    FormatYAML,
			data: lines(head+
				"  - question: One option?", // 3
				"    options: [{text: a, correct: true}]",
				"  - question: No right answer?", // 5
				"    options: [{text: a}, {text: b}]",
				"  - question: Select disagrees?", // 7
				"    select: 2",
				"    options: [{text: a, correct: true}, {text: b}]",
				"  - question: Plain strings?", // 10
				"    options: [a, b]",
				"  - options: [{text: a, correct: true}, {text: b}]", // 12
				"  - id: x", // 13
				"    question: Q?",
				"    options: [{text: a, correct: true}, {text: b}]",
				"  - id: x", // 16
				"    question: Q?",
				"    options: [{text: a, correct: true}, {text: b}]",
				"  - number: 8", // 19
				"    question: Q?",
				"    options: [{text: a, correct: true}, {text: b}]",
				"  - number: 8", // 22
				"    question: Q?",
				"    options: [{text: a, correct: true}, {text: ''}]",
			),
			want: []want{
				{4, "has 1 option(s); at least 2 are needed"},
				{6, "no option is marked correct: true"},
				{8, "select: 2 disagrees with the 1 option(s) marked correct"},
				{11, "option A must be a mapping"},
				{11, "option B must be a mapping"},
				{12, "the question has no text"},
				{16, `question id "x" used twice (first at line 13)`},
				{22, "question number 8 used twice (first at line 19)"},
				{24, "option B has no text"},
			},
		},
		{
			name: "more than 25 options",
			f:    FormatYAML,
			data: lines(head+"  - question: Many?", "    options: [{text: a, correct: true}, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y,", "      z]"),
			want: []want{{5, "more than 25 options"}},
		},
		{
			name: "missing bank and questions",
			f:    FormatYAML,
			data: lines("bank:", "source: x"),
			want: []want{{1, "missing bank name"}, {1, "the bank has no questions"}},
		},
		{
			name: "questions without the bank around them",
			f:    FormatYAML,
			data: lines("- question: Q?", "  options: [a, b]"),
			want: []want{{1, "the bank must be a mapping"}},
		},
		{
			name: "a typo of questions",
			f:    FormatYAML,
			data: lines("bank: B", "question:", "- question: Q?", "  options: [{text: a, correct: true}, {text: b}]"),
			want: []want{{1, "the bank has no questions"}, {2, `unknown field "question" in the bank`}},
		},
		{
			name: "not a bank: no bank field",
			f:    FormatYAML,
			data: lines("source: x"),
			want: []want{{0, `not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it`}},
		},
		{
			name: "not a bank: a list",
			f:    FormatYAML,
			data: lines("- a", "- b"),
			want: []want{{0, `not a question bank: no "bank" or "questions" field`}},
		},
		{
			name: "empty yaml",
			f:    FormatYAML,
			data: []byte("# nothing\n"),
			want: []want{{0, "the file is empty"}},
		},
		{
			name: "json unknown fields and wrong types",
			f:    FormatJSON,
			data: lines(`{"bank": "B",`, ` "questions": [`, `  {"question": "Q?", "colour": 1,`, `   "number": "7",`, `   "options": [{"text": "a", "correct": "true"}, {"text": 2}]}]}`),
			want: []want{{3, `unknown field "colour" in a question`}, {4, "number must be a whole number"}, {5, "correct must be true or false"}, {5, "text must be a string"}, {5, "option B has no text"}},
		},
		{
			name: "too many problems",
			f:    FormatYAML,
			data: []byte("{bank: B, " + strings.Repeat("a,", 1500) + "}"),
			want: append(slices.Repeat([]want{{1, `unknown field "a" in the bank`}}, 1000), want{1, "more than 1000 problems; the rest are not reported"}),
		},
		{
			name: "json syntax error",
			f:    FormatJSON,
			data: lines(`{"bank": "B",`, ` "questions": [`, `  {"question": "Q?",,}`, `]}`),
			want: []want{{3, "JSON: invalid character ','"}},
		},
		{
			name: "json truncated",
			f:    FormatJSON,
			data: lines(`{"bank": "B",`, ` "questions": [`),
			want: []want{{3, "unexpected end of the file"}},
		},
		{
			name: "json trailing data",
			f:    FormatJSON,
			data: lines(`{"bank": "B", "questions": [{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}]}]}`, `{}`),
			want: []want{{2, "JSON:"}},
		},
		{
			name: "json repeated key, fractional number",
			f:    FormatJSON,
			data: lines(`{"bank": "B", "questions": [{"question": "Q?", "number": 1.5,`, `"options": [{"text": "a", "correct": true}, {"text": "b"}],`, `"question": "again"}]}`),
			want: []want{{1, "number must be a whole number"}, {3, `field "question" repeated (first at line 1)`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "b." + string(tt.f)
			banks, ps := ParseStructured(path, tt.data, tt.f)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
		})
	}
}

// The README's examples of every format must parse, with no problem.
func TestReadmeExamples(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(text|practice|aiken|yaml|json|gift)\n(.*?)```").FindAllSubmatch(doc, -1)
	want := map[string]struct {
		questions int
		firstID   string
	}{
		"text":     {2, "Cloud Networking Practice#7"},
		"practice": {3, "AWS Cloud Practitioner#12"},
		"aiken":    {2, ContentID("Python Basics", "What does len([1, 2, 3]) return in Python?")},
		"yaml":     {2, "latency-cdn"},
		"json":     {2, "latency-cdn"},
		"gift":     {3, "Cloud Networking GIFT#Latency 1"},
	}
	// The folder each example's text names it in, for the shapes whose
	// bank is the folder's.
	folder := map[string]string{"practice": "AWS Cloud Practitioner", "aiken": "Python Basics"}
	seen := map[string]bool{}
	for _, m := range blocks {
		kind := string(m[1])
		ext := map[string]string{"text": ".txt", "practice": ".txt", "aiken": ".aiken", "yaml": ".yaml", "json": ".json", "gift": ".gift"}[kind]
		banks, ps := ParseFile("README"+ext, m[2], ParseOptions{DefaultBank: folder[kind]})
		if err := ps.Err(); err != nil {
			t.Errorf("%s example: %v", kind, err)
			continue
		}
		seen[kind] = true
		w := want[kind]
		if len(banks) != 1 || len(banks[0].Questions) != w.questions || banks[0].Questions[0].ID != w.firstID {
			t.Errorf("%s example: got %s, want %d questions, the first %q", kind, dump(banks), w.questions, w.firstID)
			continue
		}
		if kind == "practice" || kind == "yaml" || kind == "json" {
			// The practice example's last question shows a vote that
			// disagrees with the key; the structured ones a community field.
			qs := banks[0].Questions
			q := qs[len(qs)-1]
			if kind != "practice" {
				q = qs[0]
			}
			if len(q.Community) == 0 {
				t.Errorf("%s example: got no community vote on %q", kind, q.ID)
			}
		}
	}
	for kind := range want {
		if !seen[kind] {
			t.Errorf("the README has no %s example that parses", kind)
		}
	}

	// The exam settings' examples: a YAML and a JSON bank with an exam
	// block, and an exam.yaml, all the same settings.
	exams := regexp.MustCompile("(?s)```(yaml|json) (exam|exam\\.yaml)\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(exams) != 3 {
		t.Fatalf("the README has %d exam settings examples, want 3 (YAML, JSON, exam.yaml)", len(exams))
	}
	for _, m := range exams {
		kind, data := string(m[1])+" "+string(m[2]), m[3]
		var e *Exam
		if string(m[2]) == ExamFileName {
			ef, ps := parseExamFile(ExamFileName, data)
			if err := ps.Err(); err != nil {
				t.Errorf("%s example: %v", kind, err)
				continue
			}
			e = ef.exam
		} else {
			banks, ps := ParseFile("README."+string(m[1]), data, ParseOptions{})
			if err := ps.Err(); err != nil || len(banks) != 1 {
				t.Errorf("%s example: %d banks, %v", kind, len(banks), err)
				continue
			}
			e = banks[0].Exam
		}
		want := Exam{Questions: 65, Minutes: 90, Pass: PassMark{Score: 700, Min: 100, Max: 1000}, Domains: []Domain{
			{Name: "Cloud Concepts", Weight: 24}, {Name: "Security and Compliance", Weight: 30},
			{Name: "Cloud Technology and Services", Weight: 34}, {Name: "Billing, Pricing, and Support", Weight: 12}}}
		if e == nil || !e.Equal(want) {
			t.Errorf("%s example: got %+v, want %+v", kind, e, want)
		}
	}
}

// problemStrings renders problems as "path:line: message", one per entry.
func problemStrings(ps Problems) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Error())
	}
	return out
}

// The line of a YAML error comes from the text of go.yaml.in/yaml/v3's
// message, and the library prints scanner and parser lines differently
// (see yamlErrorLine): a library upgrade that changes either must fail
// here, not shift every reported line by one.
func TestYAMLErrorLines(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{
			name: "scanner error",
			data: lines("bank: B", "questions:", "  - question: a: b", "    options: []"),
			want: []string{"b.yaml:3: YAML: mapping values are not allowed in this context"},
		},
		{
			name: "scanner error on the first line",
			data: lines("bank: B: C", "questions: []"),
			want: []string{"b.yaml:1: YAML: mapping values are not allowed in this context"},
		},
		{
			name: "parser error",
			data: lines("bank: B", "questions:", "  - question: Q", " options: x", "source: y"),
			want: []string{"b.yaml:4: YAML: did not find expected key"},
		},
		{
			name: "parser error on the first line",
			data: lines("[a, b}", "c"),
			want: []string{"b.yaml:1: YAML: did not find expected ',' or ']'"},
		},
		{
			name: "error after the first document",
			data: lines("[{question: a, options: b}, b c: d]", "x"),
			want: []string{"b.yaml:1: the bank must be a mapping of fields (bank, source, questions, exam)", "b.yaml:2: YAML after the first document: did not find expected <document start>"},
		},
		{
			name: "composer error has no line",
			data: lines("bank: B", "questions: *x"),
			want: []string{"b.yaml: YAML: unknown anchor 'x' referenced"},
		},
		{
			name: "NEL, LS and PS are not line breaks of the file",
			data: lines(`bank: "B\u0085C"`, `source: "\u2028\u2029"`, "questions: a: b"),
			want: []string{"b.yaml:3: YAML: mapping values are not allowed in this context"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := ParseStructured("b.yaml", tt.data, FormatYAML)
			if got := problemStrings(ps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseStructuredNesting(t *testing.T) {
	nested := func(depth int) string { // depth levels of lists, the innermost holding 1
		return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
	}
	var blockMaps strings.Builder // line k opens the mapping at depth k+1
	for i := range 40 {
		fmt.Fprintf(&blockMaps, "%sk%d:\n", strings.Repeat(" ", i), i)
	}
	tests := []struct {
		name string
		f    Format
		data []byte
		want []string
	}{
		{"json: 4 million [", FormatJSON, bytes.Repeat([]byte("["), 4_000_000), []string{"b.json:1: nesting too deep"}},
		{"json: 33 levels", FormatJSON, []byte(`{"bank": "B",` + "\n" + `"questions":` + "\n" + nested(32) + "}"), []string{"b.json:3: nesting too deep"}},
		{"json: 32 levels", FormatJSON, []byte(`{"bank": "B",` + "\n" + `"questions":` + "\n" + nested(31) + "}"), []string{"b.json:3: a question must be a mapping of fields (id, number, select, question, options, explanation, tags, source, community)"}},
		{"json: deep maps", FormatJSON, bytes.Repeat([]byte(`{"a":`+"\n"), 1000), []string{"b.json:33: nesting too deep"}},
		{"yaml: a million [", FormatYAML, bytes.Repeat([]byte("["), 1<<20), []string{"b.yaml:1: nesting too deep"}},
		{"yaml: a million -", FormatYAML, bytes.Repeat([]byte("- "), 1<<19), []string{"b.yaml:1: nesting too deep"}},
		{"yaml: 33 levels", FormatYAML, []byte("bank: B\nquestions:\n  " + nested(32)), []string{"b.yaml:3: nesting too deep"}},
		{"yaml: 32 levels", FormatYAML, []byte("bank: B\nquestions:\n  " + nested(31)), []string{"b.yaml:3: a question must be a mapping of fields (id, number, select, question, options, explanation, tags, source, community)"}},
		{"yaml: deep block mappings", FormatYAML, []byte(blockMaps.String()), []string{"b.yaml:33: nesting too deep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "b." + string(tt.f)
			banks, ps := ParseStructured(path, tt.data, tt.f)
			if got := problemStrings(ps); !reflect.DeepEqual(got, tt.want) || banks != nil {
				t.Errorf("got %q and %d banks, want %q and none", got, len(banks), tt.want)
			}
		})
	}
}

// A hostile file as large as an import may be (1 MiB) must not cost much
// more memory than the library's own parse of it. Deep nesting stops at
// maxDepth.
func TestParseStructuredNestingMemory(t *testing.T) {
	tests := []struct {
		name string
		f    Format
		data []byte
	}{
		{"json", FormatJSON, bytes.Repeat([]byte("["), 1<<20)},
		{"json maps", FormatJSON, bytes.Repeat([]byte(`{"a":`), 1<<18)},
		{"yaml", FormatYAML, bytes.Repeat([]byte("["), 1<<20)},
		{"yaml block", FormatYAML, bytes.Repeat([]byte("- "), 1<<19)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ParseStructured("b."+string(tt.f), tt.data, tt.f)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
				t.Errorf("got %d MiB allocated, want at most 16", got>>20)
			}
		})
	}
}
