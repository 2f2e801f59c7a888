package questions

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// withoutPlaces returns b without Path and Lines: what MarshalYAML keeps.
func withoutPlaces(b Bank) Bank {
	b.Path = ""
	b.Questions = append([]Question(nil), b.Questions...)
	for i := range b.Questions {
		b.Questions[i].Line = 0
	}
	return b
}

// checkRoundTrip asserts MarshalYAML's contract for a bank that passes
// Validate.
func checkRoundTrip(t *testing.T, b Bank) {
	t.Helper()
	data, err := MarshalYAML(b)
	if err != nil {
		t.Fatalf("MarshalYAML(%s): got error %v, want none", dump(b), err)
	}
	if again, err := EncodeYAML(b); err != nil || string(again) != string(data) {
		t.Fatalf("EncodeYAML: got %q, %v; want MarshalYAML's %q", again, err, data)
	}
	back, err := Parse("x.yaml", data)
	if err != nil {
		t.Fatalf("got error %v reading back\n%s", err, data)
	}
	if len(back) != 1 || !reflect.DeepEqual(withoutPlaces(back[0]), withoutPlaces(b)) {
		t.Fatalf("got %s reading back\n%s\nwant %s", dump(back), data, dump(b))
	}
}

func TestMarshalYAMLRoundTrip(t *testing.T) {
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		data  []byte
		banks []Bank
	}{
		{name: "built-in", banks: builtin},
		{name: "exam text", path: "net.txt", data: lines(append(docExample, q2("Other Question 3")...)...)},
		{name: "yaml", path: "net.yaml", data: yamlExample},
		{name: "json", path: "net.json", data: jsonExample},
		{name: "gift", path: "net.gift", data: lines(
			"$CATEGORY: Net",
			"::Latency 1::Which of these reduce latency? {",
			"  ~%50%A CDN #Edge caches.",
			"  ~%-100%More CPU",
			"  ~%50%Replicas near users",
			"  ####Closer is faster.",
			"}",
			"",
			"Which protocol resolves\\n host names? {=DNS ~ARP #link-local ~SMTP}",
			"",
			"TLS 1.3 dropped RSA key exchange. {T#No.#Yes.}",
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks := tt.banks
			if banks == nil {
				var err error
				if banks, err = Parse(tt.path, tt.data); err != nil {
					t.Fatal(err)
				}
			}
			for _, b := range banks {
				checkRoundTrip(t, b)
			}
		})
	}
}

// FuzzMarshalYAML: every bank of an exam text file that parses cleanly
// survives MarshalYAML and Parse unchanged.
func FuzzMarshalYAML(f *testing.F) {
	for _, s := range textSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		banks, err := Parse("f.txt", data)
		if err != nil {
			return
		}
		for _, b := range banks {
			checkRoundTrip(t, b)
		}
	})
}

func TestMarshalYAMLOutput(t *testing.T) {
	opts := func(why string) []Option {
		return []Option{{Letter: "A", Text: "yes", Correct: true, Rationale: why}, {Letter: "B", Text: "no: never"}}
	}
	tests := []struct {
		name string
		bank Bank
		want []string
	}{
		{
			name: "common source, numbers only where they are not the position",
			bank: Bank{Name: "Net", Path: "net.txt", Questions: []Question{
				{ID: "Net#1", Bank: "Net", Number: 1, Stem: "First?", Options: opts("because"), Source: "https://x", Line: 3},
				{ID: "Net#7", Bank: "Net", Number: 7, Stem: "Two\nlines?", Options: opts(""), Explanation: "null", Tags: []string{"a, b", "c"}, Source: "https://x"},
			}},
			want: []string{
				"bank: Net",
				"source: https://x",
				"questions:",
				"  - id: Net#1",
				"    question: First?",
				"    options:",
				"      - text: \"yes\"",
				"        correct: true",
				"        why: because",
				"      - text: 'no: never'",
				"  - id: Net#7",
				"    number: 7",
				"    question: |-",
				"      Two",
				"      lines?",
				"    options:",
				"      - text: \"yes\"",
				"        correct: true",
				"      - text: 'no: never'",
				"    explanation: \"null\"",
				"    tags: ['a, b', c]",
			},
		},
		{
			name: "sources differ",
			bank: Bank{Name: "Net", Questions: []Question{
				{ID: "x", Bank: "Net", Number: 1, Stem: "Q?", Options: opts(""), Source: "https://x"},
				{ID: "y", Bank: "Net", Number: 2, Stem: "R?", Options: opts("")},
			}},
			want: []string{
				"bank: Net",
				"questions:",
				"  - id: x",
				"    question: Q?",
				"    options:",
				"      - text: \"yes\"",
				"        correct: true",
				"      - text: 'no: never'",
				"    source: https://x",
				"  - id: \"y\"",
				"    question: R?",
				"    options:",
				"      - text: \"yes\"",
				"        correct: true",
				"      - text: 'no: never'",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := MarshalYAML(tt.bank)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			checkRoundTrip(t, tt.bank)
		})
	}
}

func TestMarshalYAMLRefuses(t *testing.T) {
	good := func() Bank {
		return Bank{Name: "Net", Path: "net.yaml", Questions: []Question{{
			ID: "q", Bank: "Net", Number: 1, Stem: "Q?", Line: 3,
			Options: []Option{{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b"}},
		}}}
	}
	tests := []struct {
		name   string
		change func(b *Bank)
		want   string
	}{
		{"no questions", func(b *Bank) { b.Questions = nil }, `marshal bank "Net": net.yaml: bank "Net" has no questions`},
		{"no id", func(b *Bank) { b.Questions[0].ID = "" }, `marshal bank "Net": net.yaml:3: the question has no id`},
		{"letters out of order", func(b *Bank) { b.Questions[0].Options[1].Letter = "C" }, `marshal bank "Net": net.yaml:3: option 2 has letter "C", want B`},
		{"white space around the stem", func(b *Bank) { b.Questions[0].Stem = " Q? " }, `marshal bank "Net": the YAML would not read back unchanged: question 1 (id "q"): its question text would change`},
		{"white space around the name", func(b *Bank) { b.Name = "Net " }, `marshal bank "Net ": the YAML would not read back unchanged: bank name "Net " would read back as "Net"`},
		{"a question of another bank", func(b *Bank) { b.Questions[0].Bank = "Sec" }, `marshal bank "Net": the YAML would not read back unchanged: question 1 (id "q"): its bank would change`},
		{"number 0", func(b *Bank) { b.Questions[0].Number = 0 }, `marshal bank "Net": the YAML would not read back unchanged: question 1 (id "q"): its number would change`},
		{"invalid UTF-8", func(b *Bank) { b.Questions[0].Options[0].Rationale = "\xff" }, `marshal bank "Net": the YAML would not read back unchanged: question 1 (id "q"): its options would change`},
		{"numbers used twice", func(b *Bank) {
			q := b.Questions[0]
			q.ID, q.Number = "r", 5
			b.Questions = append(b.Questions, q, q)
			b.Questions[2].ID = "s"
		}, `marshal bank "Net": the YAML does not read back: export.yaml:16: question number 5 used twice (first at line 9)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := good()
			tt.change(&b)
			data, err := MarshalYAML(b)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || data != nil {
				t.Errorf("got %q and error %v, want no data and an error starting %q", data, err, tt.want)
			}
		})
	}
}

// encodeYAMLCase is a bank for the comparisons of encodeYAML with the
// library: every text of every question is one of texts, in turn, and
// so are the tags and community answers.
func encodeYAMLCase(texts []string, questions int) yamlBank {
	at := 0
	next := func() string { at++; return texts[at%len(texts)] }
	out := yamlBank{Bank: "Net", Questions: make([]yamlQuestion, questions)}
	if questions%2 == 0 {
		out.Source = next()
	}
	for i := range out.Questions {
		q := yamlQuestion{ID: next(), Question: next(), Explanation: next(), Source: next()}
		if i%3 == 1 {
			q.Number = i + 7
		}
		for j := range 2 + i%3 {
			q.Options = append(q.Options, yamlOption{Text: next(), Correct: j == i%2, Why: next()})
		}
		for range i % 3 {
			q.Tags = append(q.Tags, next())
			q.Community = append(q.Community, yamlVote{Answer: next(), Percent: 10 * i % 101})
		}
		out.Questions[i] = q
	}
	return out
}

// checkEncodeYAML asserts that encodeYAML writes the library's bytes.
func checkEncodeYAML(t *testing.T, out yamlBank) {
	t.Helper()
	want, werr := wholeYAML(out)
	got, err := encodeYAML(out)
	if (err != nil) != (werr != nil) || string(got) != string(want) {
		t.Fatalf("encodeYAML wrote\n%s(error %v)\nthe library\n%s(error %v)", got, err, want, werr)
	}
}

// encodeYAMLTexts are texts the writer takes (plain) and texts it leaves
// to the library, each of its reasons, and the library's own cases.
var encodeYAMLTexts = []string{
	"Which storage would a team pick for workload 6, given that it needs durable storage?",
	"bench-1-6", "Net#7", "x", "A", "AB", "Object storage (S3) with 'lifecycle' rules; 50% off!",
	"", " lead", "trail ", "double  space", "y", "Y", "yes", "No", "ON", "off", "true", "FALSE", "null", "Null",
	"~", "1", "1.5", "0x1F", "1:20", "2001-12-14", ".inf", "-", "- item", "? q", ": v", "a: b", "a:b", "end:",
	"a #c", "a#c", "#c", "a, b", "[a]", "{a}", "a?", "a]b", "two\nlines", "trail\n", "\nlead", "tab\there",
	"café", "naïve ok", "\u00a0nbsp", "a\u2028b", "\xff", "'quoted'", "\"dq\"", "it's", "a\\b", "%pct", "@at", "`tick",
	"&anchor", "*alias", "!tag", "|pipe", ">gt", "a|b", "a > b", "<<", "---", "...", "a --- b", "a...",
	"https://example.com/a?b=c#d", "a\x7f", "a\x00b", "UPPER CASE", "Yes sir", "nullable",
}

func TestEncodeYAMLAsTheLibrary(t *testing.T) {
	t.Parallel()
	for i := range encodeYAMLTexts {
		// Each text in every place, among the others: eight questions
		// take 93 texts, so every one of the 77, and hold every shape of
		// question (i%3 options, tags and votes; i%2 the correct one)
		// after the shape before it, so that over the turns each text
		// comes in every field of every shape, after every neighbour.
		texts := append(slices.Clone(encodeYAMLTexts[i:]), encodeYAMLTexts[:i]...)
		checkEncodeYAML(t, encodeYAMLCase(texts, 8))
		checkEncodeYAML(t, encodeYAMLCase(texts[:1], 3))
	}
	plain := encodeYAMLTexts[:7]
	checkEncodeYAML(t, encodeYAMLCase(plain, 500))
}

// FuzzEncodeYAML: encodeYAML writes the library's bytes, whatever the
// texts.
func FuzzEncodeYAML(f *testing.F) {
	for i, s := range encodeYAMLTexts {
		f.Add(s, encodeYAMLTexts[(i+1)%len(encodeYAMLTexts)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, n uint8) {
		checkEncodeYAML(t, encodeYAMLCase([]string{a, b, "plain text"}, 1+int(n%16)))
		checkEncodeYAML(t, encodeYAMLCase([]string{a}, 2))
	})
}
