package questions

import (
	"reflect"
	"strings"
	"testing"
)

// Every format counts lines alike whatever the line endings: LF, CRLF or a
// lone CR (old Mac files) each end one line.
func TestLineEndings(t *testing.T) {
	sources := []struct {
		path string
		text string
		want []string
		asIs bool // run as written, not once per line ending
	}{
		{"b.txt", "B Question 1\nSelect 1Q?\n- A\na\n- B\nCorrect answer: C\n",
			[]string{"b.txt:5: option B has no text", "b.txt:6: answer letter C is not an option (options are A–B)"}, false},
		{"b.yaml", "bank: B\nquestions:\n  - question: Q?\n    colour: red\n    options: [{text: a, correct: true}, {text: b}]\n",
			[]string{`b.yaml:4: unknown field "colour" in a question (want id, number, select, question, options, explanation, tags, source, community)`}, false},
		{"b.json", "{\"bank\": \"B\",\n\"questions\": [{\"question\": \"Q?\",\n\"options\": [{\"text\": \"a\", \"correct\": true}, {\"text\": \"b\"}],\n\"colour\": \"red\"}]}\n",
			[]string{`b.json:4: unknown field "colour" in a question (want id, number, select, question, options, explanation, tags, source, community)`}, false},
		{"b.gift", "::a::Q? {=a ~b}\n\n::b::R? {\n=a\n~\n}\n",
			[]string{"b.gift:5: answer B has no text"}, false},
		{"b.txt", "B Question 1\r\nSelect 1Q?\n- A\ra\r\n\r- B\nCorrect answer: C", // mixed
			[]string{"b.txt:6: option B has no text", "b.txt:7: answer letter C is not an option (options are A–B)"}, true},
		// found by FuzzParseStructured (as "\r000": a value after a lone CR)
		{"b.yaml", "\r[{question: 0, options: 0}]", []string{"b.yaml:2: the bank must be a mapping of fields (bank, source, questions, exam)"}, true},
		{"b.json", "\r[{\"question\": 0, \"options\": 0}]", []string{"b.json:2: the bank must be a mapping of fields (bank, source, questions, exam)"}, true},
	}
	endings := []struct{ name, eol string }{{"LF", "\n"}, {"CRLF", "\r\n"}, {"CR", "\r"}}
	for _, src := range sources {
		for _, e := range endings {
			if src.asIs && e.name != "LF" {
				continue
			}
			t.Run(src.path+" "+e.name, func(t *testing.T) {
				data := []byte(src.text)
				if !src.asIs {
					data = []byte(strings.ReplaceAll(src.text, "\n", e.eol))
				}
				_, ps := parse(src.path, data, ParseOptions{})
				if got := problemStrings(ps); !reflect.DeepEqual(got, src.want) {
					t.Errorf("got %q, want %q", got, src.want)
				}
			})
		}
	}
}

// Indented code outside a fence keeps its indentation: joinText fences it.
// Text that is not code (one indentation throughout, a hanging indent, a
// list or a note after a colon) is joined as before.
func TestJoinTextFencesIndentedCode(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"python after a question line",
			[]string{"What does g(3) return?", "def g(n):", "    if n == 0:", "        return 1", "    return n * g(n - 1)"},
			"What does g(3) return?\n```\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n```"},
		{"indentation relative to the first line", []string{"    if x:", "        y()", "    else:", "        z()"},
			"```\nif x:\n    y()\nelse:\n    z()\n```"},
		{"a line at the first line's indentation before the opener stays text", []string{"x = 5", "if x > 3:", "    big()"},
			"x = 5\n```\nif x > 3:\n    big()\n```"},
		{"closing brace", []string{"int main() {", "    return 0;", "}", "Which value?"},
			"```\nint main() {\n    return 0;\n}\n```\nWhich value?"},
		{"yaml", []string{"Resources:", "  Bucket:", "    Type: AWS::S3::Bucket"},
			"```\nResources:\n  Bucket:\n    Type: AWS::S3::Bucket\n```"},
		{"html", []string{"<ul>", "  <li>one</li>", "</ul>"}, "```\n<ul>\n  <li>one</li>\n</ul>\n```"},
		{"blank lines inside, and the next block", []string{"def f():", "    a = 1", "", "    return a", "", "", "def g():", "    return 2", "", "What is f() + g()?"},
			"```\ndef f():\n    a = 1\n\n    return a\n\n\ndef g():\n    return 2\n```\n\nWhat is f() + g()?"},
		{"a tab", []string{"if x:", "\ty()"}, "```\nif x:\n\ty()\n```"},
		{"a tab reaching past the first line's indentation", []string{"  if x:", "\ty()"}, "```\nif x:\n  y()\n```"},
		{"shell", []string{"for f in *.txt; do", "  wc -l \"$f\"", "done"}, "```\nfor f in *.txt; do\n  wc -l \"$f\"\ndone\n```"},
		{"one indentation throughout is text", []string{"    A company wants to store", "    session state."}, "A company wants to store\nsession state."},
		{"a hanging indent is text", []string{"1. A long first item that", "   wraps onto a second line."}, "1. A long first item that\nwraps onto a second line."},
		{"a list after a colon is text", []string{"Consider the following:", "  - a CDN", "  - read replicas"}, "Consider the following:\n- a CDN\n- read replicas"},
		{"numbered and roman lists are text", []string{"Which statements are true:", "   I. one", "   II. two", "   3) three", "   (d) four"},
			"Which statements are true:\nI. one\nII. two\n3) three\n(d) four"},
		{"an indented note is text", []string{"Note:", "    Use the console.", "    It is simpler."}, "Note:\nUse the console.\nIt is simpler."},
		{"one column deeper is not a step", []string{"Given:", " x = 1"}, "Given:\nx = 1"},
		{"a nested list is kept as code", []string{"Steps:", "  - build", "    - test"}, "```\nSteps:\n  - build\n    - test\n```"},
		{"a fenced block is left as written", []string{"```python", "def f():", "    return 1", "```"}, "```python\ndef f():\n    return 1\n```"},
		{"code after a fenced block", []string{"```", "x", "```", "if y:", "  z"}, "```\nx\n```\n```\nif y:\n  z\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := joinText(tt.lines); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// In exam text and GIFT, a stem holding indented code is posted as a code
// block, with a warning at the code's first line (GIFT: the question's)
// suggesting fences; the file still loads.
func TestIndentedCodeWarns(t *testing.T) {
	text := lines("Py Question 1", "Select 1What does g(2) return?", "def g(n):", "    if n == 0:", "        return 1", "    return n * g(n - 1)",
		"- A", "2", "- B", "1", "Correct answer: A", "Explanation", "g(2) = 2 * g(1) = 2 * 1 * g(0):", "    2 * 1 * 1")
	gift := "::G::[plain]What does g(2) return?\\n    def g(n)\\:\\n        return n{=2 ~1}\n"
	tests := []struct {
		path, data string
		stem       string
		warnings   []string
	}{
		{"b.txt", string(text), "What does g(2) return?\n```\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n```",
			[]string{"b.txt:3: warning: 4 lines of code written without a ``` fence are posted as a code block, keeping their indentation; put a line ``` before and after them to say so",
				"b.txt:13: warning: 2 lines of code written without a ``` fence are posted as a code block, keeping their indentation; put a line ``` before and after them to say so"}},
		{"b.gift", gift, "What does g(2) return?\n```\ndef g(n):\n    return n\n```",
			[]string{"b.gift:1: warning: indented code written without a ``` fence is posted as a code block, keeping its indentation; put a line ``` before and after it to say so"}},
	}
	for _, tt := range tests {
		banks, ps := ParseFile(tt.path, []byte(tt.data), ParseOptions{})
		if err := ps.Err(); err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if got := problemStrings(ps.Warnings()); !reflect.DeepEqual(got, tt.warnings) {
			t.Errorf("%s: got warnings %q, want %q", tt.path, got, tt.warnings)
		}
		if got := banks[0].Questions[0].Stem; got != tt.stem {
			t.Errorf("%s: got stem\n%s\nwant\n%s", tt.path, got, tt.stem)
		}
	}
}
