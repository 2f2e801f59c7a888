package questions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Reading a JSON bank into the tree (see structured.go).

// jsonTree reads a JSON document into the tree. root is nil when the file
// cannot be read (ps says why) or holds nothing but white space (ps is
// empty). With opt.MaxValues, reading stops past that many values, and a
// document whose first token does not open an object is refused at once:
// a bank is one.
func jsonTree(path string, data []byte, opt ParseOptions) (root *snode, ps Problems) {
	lines := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t := &jsonTokens{dec: dec, data: data, lines: lines, max: opt.MaxValues, objectFirst: opt.MaxValues > 0}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))) == 0 {
		return nil, nil
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
		var many *tooManyError
		if errors.As(err, &many) {
			ps.add(path, many.line, tooManyValues, t.max)
			return nil, ps
		}
		var notObj *notObjectError
		if errors.As(err, &notObj) {
			ps.add(path, notObj.line, "the bank must be a mapping of fields (bank, source, questions, exam); this file is %s", notObj.what)
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

// tooManyValues is the problem of a YAML or JSON file of more than
// ParseOptions.MaxValues values.
const tooManyValues = "more than %d values (strings, numbers, lists, fields): a bank file holds fewer; split the bank into several files"

// tooManyError reports the value past ParseOptions.MaxValues.
type tooManyError struct{ line int }

func (e *tooManyError) Error() string { return "too many values" }

// notObjectError reports a JSON document that is not an object, found on
// its first token (at line): what it is instead ("a list", "a string"…).
type notObjectError struct {
	line int
	what string
}

func (e *notObjectError) Error() string { return "not an object" }

type jsonTokens struct {
	dec         *json.Decoder
	data        []byte
	base        int64
	lines       lineIndex
	max         int  // ParseOptions.MaxValues (0: no limit)
	n           int  // values read
	objectFirst bool // refuse a document that does not start with {
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
	if t.n++; t.max > 0 && t.n > t.max {
		return nil, &tooManyError{line: line}
	}
	if t.objectFirst && t.n == 1 && tok != json.Delim('{') {
		return nil, &notObjectError{line: line, what: jsonKind(tok)}
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

// jsonKind names the kind of value a JSON token starts, for a message.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "true or false"
	case json.Number:
		return "a number"
	}
	return "null"
}
