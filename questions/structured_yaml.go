package questions

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Reading a YAML bank into the tree (see structured.go).

// yamlLine finds the line in a go.yaml.in/yaml/v3 error message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlTree reads a YAML document into the tree. root is nil when the file
// cannot be read (ps says why) or holds no document at all: nothing but
// white space and comments (ps is empty).
func yamlTree(path string, data []byte, opt ParseOptions) (root *snode, ps Problems) {
	if line := yamlTooDense(data, 2*opt.MaxValues); line > 0 {
		ps.add(path, line, tooDenseYAML, 2*opt.MaxValues)
		return nil, ps
	}
	lines := newYAMLLines(data)
	last := lineCount(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
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
			return nil, ps
		}
		n = n.Content[0]
	}
	c := &yamlConverter{path: path, probs: &ps, lines: lines, last: last, opt: opt}
	root = c.convert(n, 1)
	ps.omitted(path, c.omit)
	if c.stop {
		return nil, ps
	}
	return root, ps
}

// tooDenseYAML is the problem of a YAML file with more than twice
// ParseOptions.MaxValues marks that start a value (see yamlTooDense).
const tooDenseYAML = "more than %d marks that start a value (- : , ? [ {): a bank file holds fewer; split the bank into several files"

// yamlTooDense returns the line at which data may hold more than max
// values (0 if it cannot, or max is 0), judged before the library builds
// its tree, which costs about 160 bytes a value. Every value but the first
// follows a mark: "-" (an item), ":" or "?" (a key and its value), "," "["
// "{" (flow items, a flow mapping's key and value); counting a value for
// "-" and two for the others is an upper bound. Prose counts too, so a
// bank counts up to twice its values (yamlTree allows twice MaxValues
// here, and counts the values themselves as it converts); a tree built to
// exhaust memory, at 2 to 8 bytes a value, is refused here.
func yamlTooDense(data []byte, max int) int {
	if max <= 0 {
		return 0
	}
	n, line := 1, 1
	for _, c := range data {
		switch c {
		case '\n':
			line++
		case '-':
			n++
		case ':', '?', ',', '[', '{':
			n += 2
		}
		if n > max {
			return line
		}
	}
	return 0
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
	last  int // the file's last line
	opt   ParseOptions
	stop  bool     // reported: a node nested deeper than maxDepth, or more than opt.MaxValues values
	n     int      // values converted
	omit  omission // problems past opt.MaxProblems
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
		if !c.stop {
			c.probs.add(c.path, out.line, "nesting too deep")
		}
		c.stop = true
		return out
	}
	if c.n++; c.opt.MaxValues > 0 && c.n > c.opt.MaxValues {
		if !c.stop {
			c.probs.add(c.path, out.line, tooManyValues, c.opt.MaxValues)
		}
		c.stop = true
		return out
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.probs.addMax(c.opt.MaxProblems, &c.omit, c.path, out.line, "YAML aliases (*%s) are not supported", n.Value)
	case yaml.MappingNode:
		out.kind = snMap
		out.keys = make([]skey, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content) && !c.stop; i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			n.Content[i], n.Content[i+1] = nil, nil
			if k.Kind != yaml.ScalarNode {
				c.probs.addMax(c.opt.MaxProblems, &c.omit, c.path, c.line(k.Line), "a key must be a plain name")
				continue
			}
			out.keys = append(out.keys, skey{name: k.Value, line: c.line(k.Line), val: c.convert(v, depth+1)})
		}
	case yaml.SequenceNode:
		out.kind = snList
		out.items = make([]*snode, 0, len(n.Content))
		for i, it := range n.Content {
			if c.stop {
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
