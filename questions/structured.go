package questions

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Structured banks (*.yaml, *.yml, *.json): one file is one bank. The
// schema is documented in README.md ("Structured banks"). Both encodings are first read into
// the same small tree that keeps the line of every key and value, and then
// decoded by one strict decoder, so that every unknown field, wrong type,
// repeated key and broken rule is reported, each with its line, in both
// encodings alike. YAML is read with go.yaml.in/yaml/v3 into a yaml.Node;
// JSON with encoding/json's tokenizer, whose byte offsets are turned into
// lines.

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
// without a problem, and every problem found, each with its line.
func ParseStructured(path string, data []byte, f Format) ([]Bank, Problems) {
	data, ps := prepare(path, data)
	if ps != nil {
		return nil, ps
	}
	var root *snode
	switch f {
	case FormatYAML:
		root, ps = yamlTree(path, data)
	case FormatJSON:
		root, ps = jsonTree(path, data)
	default:
		ps.add(path, 0, "format %q is not a structured format", f)
	}
	if root == nil {
		return nil, ps
	}
	d := &sdecoder{path: path, probs: ps, lenient: f == FormatYAML}
	b := d.bank(root)
	d.probs.sortByLine()
	if b == nil || len(b.Questions) == 0 {
		return nil, d.probs
	}
	return []Bank{*b}, d.probs
}

// yamlLine finds the line in a go.yaml.in/yaml/v3 error message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

func yamlTree(path string, data []byte) (*snode, Problems) {
	var ps Problems
	lines := newYAMLLines(data)
	last := lineCount(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			ps.add(path, 0, "the file is empty")
			return nil, ps
		}
		line, msg := yamlErrorLine(err)
		line = min(lines.line(line), last)
		if strings.HasPrefix(msg, "exceeded max depth") {
			ps.add(path, line, "nesting too deep")
		} else {
			ps.add(path, line, "YAML: %s", msg)
		}
		return nil, ps
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		ps.add(path, min(lines.line(next.Line), last), "a second YAML document; a file holds one bank")
	} else if !errors.Is(err, io.EOF) {
		line, msg := yamlErrorLine(err)
		ps.add(path, min(lines.line(line), last), "YAML after the first document: %s", msg)
	}
	n := &doc
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			ps.add(path, 0, "the file is empty")
			return nil, ps
		}
		n = n.Content[0]
	}
	c := &yamlConverter{path: path, probs: &ps, lines: lines, last: last}
	root := c.convert(n, 1)
	if c.deep {
		return nil, ps
	}
	return root, ps
}

// yamlLines maps the line numbers of go.yaml.in/yaml/v3 to lines of the
// file. The library also counts NEL (U+0085), LS (U+2028) and PS (U+2029)
// as line breaks, as YAML 1.1 did; every other parser of the package, and
// every editor, counts only "\n" (once line endings are normalised).
// yamlLines[k-1] is the file line of the library's line k; nil when the
// two agree.
type yamlLines []int

func newYAMLLines(data []byte) yamlLines {
	if !bytes.Contains(data, []byte("\u0085")) && !bytes.Contains(data, []byte("\u2028")) && !bytes.Contains(data, []byte("\u2029")) {
		return nil
	}
	m := yamlLines{1}
	line := 1
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '\n':
			line++
			m = append(m, line)
		case bytes.HasPrefix(data[i:], []byte("\u0085")), bytes.HasPrefix(data[i:], []byte("\u2028")), bytes.HasPrefix(data[i:], []byte("\u2029")):
			m = append(m, line)
		}
	}
	return m
}

// line returns the file line of the library's line k (0 stays 0).
func (m yamlLines) line(k int) int {
	switch {
	case m == nil || k <= 0:
		return k
	case k > len(m):
		return m[len(m)-1] + k - len(m)
	}
	return m[k-1]
}

// yamlParserErrors are the messages of the YAML parser, as opposed to its
// scanner (go.yaml.in/yaml/v3, parserc.go).
var yamlParserErrors = [...]string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlComposerErrors are the messages of go.yaml.in/yaml/v3 that carry no
// position (decode.go), as opposed to those of its scanner and parser.
var yamlComposerErrors = [...]string{
	"unknown anchor",
	"anchor '",
	"document contains excessive aliasing",
	"attempted to go past the end of stream",
}

// yamlErrorLine finds the line in a go.yaml.in/yaml/v3 error message.
// The library prints the 1-based line of scanner errors but the 0-based
// line of parser errors, and omits the line when its 0-based number is 0
// (the first line), so the line of a parser error is corrected by one and
// a scanner or parser error without a line is on line 1. The composer's
// errors have no line: 0.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	for _, parserError := range yamlParserErrors {
		if strings.HasPrefix(msg, parserError) {
			return line + 1, msg
		}
	}
	if line == 0 {
		for _, composerError := range yamlComposerErrors {
			if strings.HasPrefix(msg, composerError) {
				return 0, msg
			}
		}
		return 1, msg
	}
	return line, msg
}

// yamlConverter turns a yaml.Node tree into an snode tree.
type yamlConverter struct {
	path  string
	probs *Problems
	lines yamlLines
	last  int  // the file's last line
	deep  bool // a node nested deeper than maxDepth was found and reported
}

// line returns the file line of the library's line k. The library puts
// the empty value of a file that ends without a newline ("---") on the
// line after the last: that is the last line.
func (c *yamlConverter) line(k int) int { return min(c.lines.line(k), c.last) }

// convert converts n, at nesting level depth (1 for the top level). It
// drops the converted children from n so that the garbage collector can
// reclaim the library's tree while the new one grows.
func (c *yamlConverter) convert(n *yaml.Node, depth int) *snode {
	out := &snode{line: c.line(n.Line)}
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && depth > maxDepth {
		if !c.deep {
			c.probs.add(c.path, out.line, "nesting too deep")
		}
		c.deep = true
		return out
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.probs.add(c.path, out.line, "YAML aliases (*%s) are not supported", n.Value)
	case yaml.MappingNode:
		out.kind = snMap
		out.keys = make([]skey, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content) && !c.deep; i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			n.Content[i], n.Content[i+1] = nil, nil
			if k.Kind != yaml.ScalarNode {
				c.probs.add(c.path, c.line(k.Line), "a key must be a plain name")
				continue
			}
			out.keys = append(out.keys, skey{name: k.Value, line: c.line(k.Line), val: c.convert(v, depth+1)})
		}
	case yaml.SequenceNode:
		out.kind = snList
		out.items = make([]*snode, 0, len(n.Content))
		for i, it := range n.Content {
			if c.deep {
				break
			}
			n.Content[i] = nil
			out.items = append(out.items, c.convert(it, depth+1))
		}
	case yaml.ScalarNode:
		out.value = n.Value
		switch n.ShortTag() {
		case "!!null":
			out.kind = snNull
		case "!!str":
			out.kind = snString
		case "!!bool":
			out.kind = snBool
		case "!!int":
			out.kind = snInt
		case "!!float":
			out.kind = snFloat
		default:
			out.kind = snOther
		}
	}
	return out
}

func jsonTree(path string, data []byte) (*snode, Problems) {
	var ps Problems
	lines := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t := &jsonTokens{dec: dec, data: data, lines: lines}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))) == 0 {
		ps.add(path, 0, "the file is empty")
		return nil, ps
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		// encoding/json refuses a byte-order mark; skip it, keeping offsets.
		dec = json.NewDecoder(bytes.NewReader(data[3:]))
		dec.UseNumber()
		t.dec, t.base = dec, 3
	}
	root, err := t.value(1)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = fmt.Errorf("unexpected data after the top-level value")
			if err2 != nil {
				err = err2
			}
		}
	}
	if err != nil {
		var deep *tooDeepError
		if errors.As(err, &deep) {
			ps.add(path, deep.line, "nesting too deep")
			return nil, ps
		}
		var syn *json.SyntaxError
		line := t.lines.line(t.base + dec.InputOffset())
		if errors.As(err, &syn) {
			line = t.lines.line(t.base + syn.Offset)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = errors.New("unexpected end of the file")
			line = len(lines)
		}
		ps.add(path, line, "JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
		return nil, ps
	}
	return root, ps
}

// maxDepth is the deepest nesting of lists and mappings a structured bank
// may have. The schema needs 5 (bank, questions, question, options,
// option); the limit keeps a hostile file from exhausting the stack (the
// readers recurse once per level) or building a deep tree for nothing.
const maxDepth = 32

// tooDeepError reports a list or mapping nested deeper than maxDepth.
type tooDeepError struct{ line int }

func (e *tooDeepError) Error() string { return "nesting too deep" }

type jsonTokens struct {
	dec   *json.Decoder
	data  []byte
	base  int64
	lines lineIndex
}

// start returns the line of the next token: the decoder's offset is the
// end of the previous token, before separators and white space.
func (t *jsonTokens) start() int {
	off := t.base + t.dec.InputOffset()
	for off < int64(len(t.data)) {
		switch t.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return t.lines.line(off)
}

// value reads the value at nesting level depth (1 for the top level).
func (t *jsonTokens) value(depth int) (*snode, error) {
	line := t.start()
	tok, err := t.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &snode{line: line}
	switch v := tok.(type) {
	case json.Delim:
		if depth > maxDepth {
			return nil, &tooDeepError{line: line}
		}
		switch v {
		case '{':
			n.kind = snMap
			for t.dec.More() {
				kline := t.start()
				k, err := t.dec.Token()
				if err != nil {
					return nil, err
				}
				name, _ := k.(string)
				val, err := t.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, skey{name: name, line: kline, val: val})
			}
		case '[':
			n.kind = snList
			for t.dec.More() {
				val, err := t.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, val)
			}
		}
		if _, err := t.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.value = snString, v
	case bool:
		n.kind, n.value = snBool, strconv.FormatBool(v)
	case json.Number:
		n.kind, n.value = snFloat, v.String()
		if _, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
			n.kind = snInt
		}
	case nil:
		n.kind = snNull
	}
	return n, nil
}

// sdecoder decodes the tree into a bank, collecting problems.
type sdecoder struct {
	path    string
	probs   Problems
	lenient bool // YAML: any scalar may be read as a string
}

// maxStructuredProblems bounds the problems reported for one structured
// file: a hostile file of a million unknown keys would otherwise cost a
// problem, and memory, for each.
const maxStructuredProblems = 1000

func (d *sdecoder) problem(line int, format string, args ...any) {
	switch {
	case len(d.probs) < maxStructuredProblems:
		d.probs.add(d.path, line, format, args...)
	case len(d.probs) == maxStructuredProblems:
		d.probs.add(d.path, line, "more than %d problems; the rest are not reported", maxStructuredProblems)
	}
}

// fields checks that n is a map with only the allowed keys, each at most
// once, and returns its keys by name.
func (d *sdecoder) fields(n *snode, what string, allowed ...string) map[string]*skey {
	if n.kind != snMap {
		d.problem(n.line, "%s must be a mapping of fields (%s)", what, strings.Join(allowed, ", "))
		return nil
	}
	out := make(map[string]*skey, len(n.keys))
	for i := range n.keys {
		k := &n.keys[i]
		switch {
		case !contains(allowed, k.name):
			d.problem(k.line, "unknown field %q in %s (want %s)", clip(k.name), what, strings.Join(allowed, ", "))
		case out[k.name] != nil:
			d.problem(k.line, "field %q repeated (first at line %d)", k.name, out[k.name].line)
		default:
			out[k.name] = k
		}
	}
	return out
}

func (d *sdecoder) str(k *skey) string {
	if k == nil {
		return ""
	}
	switch v := k.val; {
	case v.kind == snNull:
		return ""
	case v.kind == snString, d.lenient && v.kind < snMap:
		return strings.TrimSpace(v.value)
	}
	d.problem(k.val.line, "%s must be a string", k.name)
	return ""
}

func (d *sdecoder) boolean(k *skey) bool {
	if k == nil || k.val.kind == snNull {
		return false
	}
	if k.val.kind != snBool {
		d.problem(k.val.line, "%s must be true or false", k.name)
		return false
	}
	b, _ := strconv.ParseBool(k.val.value)
	if d.lenient { // YAML spells booleans in several ways
		b = strings.EqualFold(k.val.value, "true")
	}
	return b
}

// integer returns the whole number at k, or 0 when k is absent; -1 after a
// reported problem.
func (d *sdecoder) integer(k *skey, min, max int) int {
	if k == nil || k.val.kind == snNull {
		return 0
	}
	n, err := strconv.Atoi(k.val.value)
	if k.val.kind != snInt || err != nil || n < min || n > max {
		d.problem(k.val.line, "%s must be a whole number from %d to %d", k.name, min, max)
		return -1
	}
	return n
}

func (d *sdecoder) strings(k *skey) []string {
	if k == nil || k.val.kind == snNull {
		return nil
	}
	if k.val.kind != snList {
		d.problem(k.val.line, "%s must be a list of strings", k.name)
		return nil
	}
	var out []string
	for _, it := range k.val.items {
		s := d.str(&skey{name: k.name + " entry", line: it.line, val: it})
		if s == "" {
			d.problem(it.line, "empty entry in %s", k.name)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *sdecoder) bank(root *snode) *Bank {
	f := d.fields(root, "the bank", "bank", "source", "questions")
	if f == nil {
		return nil
	}
	name := d.str(f["bank"])
	if f["bank"] == nil || name == "" {
		d.problem(root.line, "missing bank name (bank: <name>)")
	}
	source := d.str(f["source"])
	qs := f["questions"]
	if qs == nil || qs.val.kind == snNull || (qs.val.kind == snList && len(qs.val.items) == 0) {
		line := root.line
		if qs != nil {
			line = qs.line
		}
		d.problem(line, "the bank has no questions (questions: [...])")
		return nil
	}
	if qs.val.kind != snList {
		d.problem(qs.val.line, "questions must be a list")
		return nil
	}
	b := &Bank{Name: name, Path: d.path}
	ids := map[string]int{}
	numbers := map[int]int{} // explicit numbers only
	for i, item := range qs.val.items {
		q, how, ok := d.question(item, i+1, name, source)
		dupNumber := false
		if q.Number > 0 && numbered(item) {
			if first, dup := numbers[q.Number]; dup {
				d.problem(q.Line, "question number %d used twice (first at line %d)", q.Number, first)
				ok, dupNumber = false, true
			} else {
				numbers[q.Number] = q.Line
			}
		}
		if q.ID != "" && !dupNumber {
			if first, dup := ids[q.ID]; dup {
				if how == idFromText {
					d.problem(q.Line, "question id %q used twice (first at line %d): both questions have this text and no id; give each an id", clip(q.ID), first)
				} else {
					d.problem(q.Line, "question id %q used twice (first at line %d)", clip(q.ID), first)
				}
				ok = false
			} else {
				ids[q.ID] = q.Line
			}
		}
		if ok && name != "" {
			b.Questions = append(b.Questions, q)
		}
	}
	return b
}

// numbered reports whether the question n gives a number (a null one, as
// in "number:", is none).
func numbered(n *snode) bool {
	for _, k := range n.keys {
		if k.name == "number" && k.val.kind != snNull {
			return true
		}
	}
	return false
}

// idSource says where a structured question's ID came from.
type idSource int

const (
	idDefault    idSource = iota // no ID (a problem was reported)
	idExplicit                   // id: ...
	idFromNumber                 // number: N, without an id
	idFromText                   // neither: ContentID
)

// question decodes one question at position pos (1-based); ok is false
// when it had a problem. how tells where its ID came from.
func (d *sdecoder) question(n *snode, pos int, bank, source string) (q Question, how idSource, ok bool) {
	before := len(d.probs)
	q = Question{Bank: bank, Line: n.line, Number: pos}
	f := d.fields(n, "a question", "id", "number", "select", "question", "options", "explanation", "tags", "source")
	if f == nil {
		return q, idDefault, false
	}
	q.Stem = d.str(f["question"])
	if q.Stem == "" {
		d.problem(n.line, "the question has no text (question: ...)")
	}
	number := f["number"]
	if number != nil && number.val.kind == snNull {
		number = nil // "number:" is no number
	}
	if number != nil {
		q.Number = d.integer(number, 1, maxQuestionNumber)
	}
	switch k := f["id"]; {
	case k != nil:
		if q.ID = d.str(k); q.ID == "" {
			d.problem(k.line, "id must not be empty (leave it out to identify the question by its number or its text)")
		} else {
			how = idExplicit
		}
	case number != nil && q.Number > 0:
		q.ID, how = fmt.Sprintf("%s#%d", bank, q.Number), idFromNumber
	case number == nil && q.Stem != "":
		q.ID, how = ContentID(bank, q.Stem), idFromText
	}
	q.Explanation = d.str(f["explanation"])
	q.Tags = d.strings(f["tags"])
	q.Source = cmp.Or(d.str(f["source"]), source)
	sel := d.integer(f["select"], 1, MaxOptions)
	opts := f["options"]
	switch {
	case opts == nil || opts.val.kind == snNull:
		d.problem(n.line, "the question has no options; at least 2 are needed")
	case opts.val.kind != snList:
		d.problem(opts.val.line, "options must be a list")
	case len(opts.val.items) < 2:
		d.problem(opts.line, "the question has %d option(s); at least 2 are needed", len(opts.val.items))
	case len(opts.val.items) > MaxOptions:
		d.problem(opts.val.items[MaxOptions].line, "more than %d options (Discord's select menu holds at most %d)", MaxOptions, MaxOptions)
	default:
		optProbs := len(d.probs)
		for i, it := range opts.val.items {
			q.Options = append(q.Options, d.option(it, i))
		}
		if c := q.SelectCount(); c == 0 && len(d.probs) == optProbs {
			d.problem(opts.line, "no option is marked correct: true")
		} else if sel > 0 && sel != c {
			d.problem(f["select"].val.line, "select: %d disagrees with the %d option(s) marked correct", sel, c)
		}
	}
	return q, how, len(d.probs) == before
}

func (d *sdecoder) option(n *snode, i int) Option {
	o := Option{Letter: Letter(i)}
	if n.kind == snString || (d.lenient && n.kind > snNull && n.kind < snMap) {
		d.problem(n.line, "option %s must be a mapping with text: (and correct:, why:)", o.Letter)
		return o
	}
	f := d.fields(n, "an option", "text", "correct", "why")
	if f == nil {
		return o
	}
	o.Text = d.str(f["text"])
	if o.Text == "" {
		d.problem(n.line, "option %s has no text", o.Letter)
	}
	o.Correct = d.boolean(f["correct"])
	o.Rationale = d.str(f["why"])
	return o
}
