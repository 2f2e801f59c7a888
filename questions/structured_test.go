package questions

import (
	"os"
	"reflect"
	"regexp"
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
			ID: bank + "#2", Bank: bank, Number: 2,
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
			data: lines("source: x"),
			want: []want{{1, "missing bank name"}, {1, "the bank has no questions"}},
		},
		{
			name: "not a mapping",
			f:    FormatYAML,
			data: lines("- a", "- b"),
			want: []want{{1, "the bank must be a mapping"}},
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
	blocks := regexp.MustCompile("(?s)```(text|yaml|json|gift)\n(.*?)```").FindAllSubmatch(doc, -1)
	want := map[string]struct {
		questions int
		firstID   string
	}{
		"text": {2, "Cloud Networking Practice#7"},
		"yaml": {2, "latency-cdn"},
		"json": {2, "latency-cdn"},
		"gift": {3, "Cloud Networking GIFT#Latency 1"},
	}
	seen := map[string]bool{}
	for _, m := range blocks {
		kind := string(m[1])
		ext := map[string]string{"text": ".txt", "yaml": ".yaml", "json": ".json", "gift": ".gift"}[kind]
		banks, err := Parse("README"+ext, m[2])
		if err != nil {
			t.Errorf("%s example: %v", kind, err)
			continue
		}
		seen[kind] = true
		w := want[kind]
		if len(banks) != 1 || len(banks[0].Questions) != w.questions || banks[0].Questions[0].ID != w.firstID {
			t.Errorf("%s example: got %s, want %d questions, the first %q", kind, dump(banks), w.questions, w.firstID)
		}
	}
	for kind := range want {
		if !seen[kind] {
			t.Errorf("the README has no %s example that parses", kind)
		}
	}
}
