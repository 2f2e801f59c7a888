package questions

import (
	"bytes"
	"fmt"
	"strings"
)

// Structured banks (*.yaml, *.yml, *.json): one file is one bank. The
// schema is documented in README.md ("Structured banks"). Both encodings are first read into
// the same small tree that keeps the line of every key and value, and then
// decoded by one strict decoder, so that every unknown field, wrong type,
// repeated key and broken rule is reported, each with its line, in both
// encodings alike. YAML is read with go.yaml.in/yaml/v3 into a yaml.Node;
// JSON with encoding/json's tokenizer, whose byte offsets are turned into
// lines. The tree is here; the readers are in structured_yaml.go and
// structured_json.go, the schema in structured_schema.go.

// snode is a YAML or JSON value with its line.
type snode struct {
	kind  snodeKind
	line  int
	value string   // scalars
	keys  []skey   // maps, in file order
	items []*snode // lists
}

type snodeKind int

const (
	snNull snodeKind = iota
	snString
	snBool
	snInt
	snFloat
	snOther // a YAML scalar of another type (timestamp, binary...)
	snMap
	snList
)

type skey struct {
	name string
	line int
	val  *snode
}

// ParseStructured parses a YAML (f == FormatYAML) or JSON (f == FormatJSON)
// bank file. It returns the bank, holding the questions that decoded
// without a problem, and every problem found, each with its line. A file
// that is not a question bank at all (see ParseOptions.SkipNonBank) is one
// error saying so.
func ParseStructured(path string, data []byte, f Format) ([]Bank, Problems) {
	return parseStructured(path, data, f, ParseOptions{})
}

// strayAdvice ends the warning about a structured file that is not a bank.
const strayAdvice = "if it belongs to another tool, move it out of the bank folder"

func parseStructured(path string, data []byte, f Format, opt ParseOptions) ([]Bank, Problems) {
	data, ps := prepare(path, data, opt.MaxProblems)
	if ps != nil {
		return nil, ps
	}
	var root *snode
	switch f {
	case FormatYAML:
		root, ps = yamlTree(path, data, opt)
	case FormatJSON:
		root, ps = jsonTree(path, data, opt)
	default:
		ps.add(path, 0, "format %q is not a structured format", f)
		return nil, ps
	}
	// Not a bank at all: empty; or, once read (a YAML alias or a second
	// document does not stop the reading), not bank-shaped; or, with
	// opt.SkipNonBank, unreadable (a syntax error, the comments of a
	// tsconfig.json) and never naming a bank or a question, as any attempt
	// at a bank does. Without SkipNonBank an unreadable file is an error
	// anyway, and the reading's problems, with their lines, say more.
	var notBank Problems
	switch {
	case root == nil && len(ps) == 0:
		notBank.notABank(path, opt, "the file is empty", "write a bank in it or delete it")
	case root == nil && opt.SkipNonBank && !mentionsBank(data):
		first := ps[0].Msg
		if ps[0].Line > 0 {
			first = fmt.Sprintf("line %d: %s", ps[0].Line, first)
		}
		notBank.notABank(path, opt, fmt.Sprintf("quizhost can't read it (%s) and it mentions neither bank nor question", first), strayAdvice)
	case root != nil && !isBankShaped(root):
		notBank.notABank(path, opt, `no "bank" or "questions" field at its top level and no question (question: with options:) in it`, strayAdvice)
	}
	if notBank != nil {
		return nil, notBank
	}
	if root == nil {
		return nil, ps
	}
	d := &sdecoder{path: path, probs: ps, lenient: f == FormatYAML, max: opt.MaxProblems}
	b := d.bank(root)
	d.probs.sortByLine()
	d.probs.omitted(path, d.omit)
	if b == nil || len(b.Questions) == 0 {
		return nil, d.probs
	}
	return []Bank{*b}, d.probs
}

// isBankShaped reports whether a structured document is recognisably meant
// as a question bank, mistakes and all: its top level is a mapping with a
// field named bank or questions, in any case, singular or plural
// ("Questions:" and "question:" are a bank's typos, not another tool's
// file); or it holds a question (a mapping with question and options
// fields, named alike) at any depth, as a list of questions without the
// bank around it does. The optional "source" field does not count: other
// tools' files use it too.
func isBankShaped(root *snode) bool {
	if root.kind == snMap {
		for _, k := range root.keys {
			if w := fieldWord(k.name); w == "bank" || w == "question" {
				return true
			}
		}
	}
	return holdsQuestion(root)
}

// holdsQuestion reports whether n is, or holds at any depth, a mapping
// with question and options fields (see fieldWord). The tree's depth is
// bounded by maxDepth.
func holdsQuestion(n *snode) bool {
	switch n.kind {
	case snMap:
		question, options := false, false
		for _, k := range n.keys {
			switch fieldWord(k.name) {
			case "question":
				question = true
			case "option":
				options = true
			}
		}
		if question && options {
			return true
		}
		for _, k := range n.keys {
			if holdsQuestion(k.val) {
				return true
			}
		}
	case snList:
		for _, it := range n.items {
			if holdsQuestion(it) {
				return true
			}
		}
	}
	return false
}

// fieldWord is a field name as isBankShaped compares it: trimmed, lower
// case, without a plural "s".
func fieldWord(name string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), "s")
}

// mentionsBank reports whether a file's text names a bank or a question
// anywhere, in any case: every attempt at a structured bank does.
func mentionsBank(data []byte) bool {
	lower := bytes.ToLower(data)
	return bytes.Contains(lower, []byte("bank")) || bytes.Contains(lower, []byte("question"))
}
