package questions

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// prepare is the first step of every parser: it normalises line endings
// (CRLF and a lone CR become LF), so that every format counts lines alike
// (go.yaml.in/yaml/v3 counts a lone CR as a line break, encoding/json and
// the line-driven parsers would not), and then reports each line that is
// not valid UTF-8. data is not modified; the result may share it.
func prepare(path string, data []byte, max int) ([]byte, Problems) {
	if bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	}
	return data, checkUTF8(path, data, max)
}

// splitLines turns a file into lines: without UTF-8 byte-order marks (at
// its start, or where files were concatenated),
// with LF endings (see prepare), trailing white space removed. lines[i] is
// line i+1 of the file. A final newline does not add a line.
func splitLines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\uFEFF", "")
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}

// lineCount is len(splitLines(data)), without splitting.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) == 0 || data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// checkUTF8 reports each line of data that is not valid UTF-8 (Discord
// accepts nothing else), the first max of them (0: all) and a summary of
// the rest.
func checkUTF8(path string, data []byte, max int) Problems {
	if utf8.Valid(data) {
		return nil
	}
	var ps Problems
	omitted := 0
	for i, l := range strings.Split(string(data), "\n") {
		if !utf8.ValidString(l) {
			ps.addMax(max, &omitted, path, i+1, "line is not valid UTF-8")
		}
	}
	ps.omitted(path, omitted)
	return ps
}

// joinText joins the lines of a paragraph-ish text element: surrounding
// blank lines go, runs of blank lines become one, lines keep their breaks
// and lose their surrounding white space, except inside a fenced code
// block (from a line starting with ``` to a line of backticks), whose
// lines keep their indentation (less the opening fence's) and blank lines.
func joinText(lines []string) string {
	var b strings.Builder
	blank := false
	fence := -1 // the opening fence's indentation while in a code block
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if fence >= 0 {
			b.WriteByte('\n')
			if fenceClose(t) {
				b.WriteString(t)
				fence = -1
				continue
			}
			b.WriteString(strings.TrimRight(trimIndent(l, fence), " \t"))
			continue
		}
		if t == "" {
			blank = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(t)
		if fenceToggle(t) {
			fence = len(l) - len(strings.TrimLeft(l, " \t"))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// fenceToggle reports whether a trimmed line opens a fenced code block: it
// starts with ``` and holds no other ``` (the rest is a language name).
func fenceToggle(s string) bool {
	return strings.HasPrefix(s, "```") && !strings.Contains(s[3:], "```")
}

// fenceClose reports whether a trimmed line closes a fenced code block:
// three or more backticks and nothing else.
func fenceClose(s string) bool {
	return len(s) >= 3 && strings.Trim(s, "`") == ""
}

// trimIndent removes up to n leading spaces or tabs from l.
func trimIndent(l string, n int) string {
	i := 0
	for i < n && i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return l[i:]
}

// lineIndex maps byte offsets of a file to 1-based line numbers.
type lineIndex []int // offsets at which lines start

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the line holding byte offset off.
func (x lineIndex) line(off int64) int {
	lo, hi := 0, len(x)
	for lo < hi { // first start > off
		m := (lo + hi) / 2
		if int64(x[m]) <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// bankSet groups parsed questions into banks, in order of first appearance.
type bankSet struct {
	path  string
	banks []Bank
	idx   map[string]int
}

func (s *bankSet) add(q Question) {
	if s.idx == nil {
		s.idx = map[string]int{}
	}
	bi, ok := s.idx[q.Bank]
	if !ok {
		bi = len(s.banks)
		s.idx[q.Bank] = bi
		s.banks = append(s.banks, Bank{Name: q.Bank, Path: s.path})
	}
	s.banks[bi].Questions = append(s.banks[bi].Questions, q)
}
