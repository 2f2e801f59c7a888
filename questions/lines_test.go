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
		{"b.yaml", "\r[{question: 0, options: 0}]", []string{"b.yaml:2: the bank must be a mapping of fields (bank, source, questions)"}, true},
		{"b.json", "\r[{\"question\": 0, \"options\": 0}]", []string{"b.json:2: the bank must be a mapping of fields (bank, source, questions)"}, true},
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
