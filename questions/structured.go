package questions

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
