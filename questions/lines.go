package questions

import (
	"bytes"
	"strings"
)

// prepare is the first step of every parser: it decodes UTF-16 with a
// byte-order mark and refuses other encodings than UTF-8 (see
// decodeText), normalises line endings (CRLF and a lone CR become LF), so
// that every format counts lines alike (go.yaml.in/yaml/v3 counts a lone
// CR as a line break, encoding/json and the line-driven parsers would
// not), and then reports the lines that are not valid UTF-8 (see
// checkUTF8), at most max problems of them (ParseOptions.MaxProblems; 0:
// no bound). data is not modified; the result may share it.
func prepare(path string, data []byte, max int) ([]byte, Problems) {
	data, ps := decodeText(path, data)
	if ps != nil {
		return nil, ps
	}
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

// joinText joins the lines of a paragraph-ish text element: surrounding
// blank lines go, runs of blank lines become one, lines keep their breaks
// and lose their surrounding white space, except inside a fenced code
// block (from a line starting with ``` to a line of backticks), whose
// lines keep their indentation (less the opening fence's) and blank lines,
// and in a run of indented code outside a fence (see codeRuns), which is
// fenced here so that it is posted as a code block, its indentation kept
// relative to its first line.
func joinText(lines []string) string {
	s, _ := joinTextRuns(lines)
	return s
}

// joinTextRuns is joinText, also returning how many runs of indented code
// it fenced.
func joinTextRuns(lines []string) (string, int) {
	if len(lines) == 1 {
		return strings.TrimSpace(lines[0]), 0 // one line: nothing to join, no run of code
	}
	runs := codeRuns(lines)
	n := len(runs)
	var b strings.Builder
	blank := false
	fence := -1 // the opening fence's indentation while in a code block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
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
		if len(runs) > 0 && runs[0].start == i {
			r := runs[0]
			runs = runs[1:]
			b.WriteString("```")
			for _, cl := range lines[r.start:r.end] {
				b.WriteByte('\n')
				b.WriteString(strings.TrimRight(trimColumns(cl, r.indent), " \t"))
			}
			b.WriteString("\n```")
			i = r.end - 1
			continue
		}
		b.WriteString(t)
		if fenceToggle(t) {
			fence = len(l) - len(strings.TrimLeft(l, " \t"))
		}
	}
	return strings.TrimRight(b.String(), "\n"), n
}

// codeRun is a run of indented code outside a fence: lines[start:end],
// whose first line is indented by indent columns, the least of the run.
type codeRun struct{ start, end, indent int }

// codeRuns finds the runs of code written without a fence in the lines of
// a text element, whose indentation must be kept because it carries
// meaning (Python's blocks, YAML's nesting). A run starts at a line that
// opens a block (it ends with one of : { [ ( , = \ > or the word do or
// then) followed, blank lines aside, by a line indented at least two
// columns deeper (a tab counts to the next multiple of 4), and goes on
// through every line indented deeper than its first, a line at the first
// line's indentation that closes a block (starting with } ) ] or </, or
// the word end, fi, done or esac) and another such opener, and blank lines
// between them. Ordinary text is not code: lines that all share one
// indentation have no deeper line, a hanging indent follows no opener, and
// an opener followed by deeper lines that are all at one indentation and
// all list items ("- a", "1. a", "b) a") or sentences (ending with . ? or
// !) is a note or a list. Lines inside fenced code blocks are not
// examined.
func codeRuns(lines []string) []codeRun {
	var runs []codeRun
	fence := false
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case fence:
			fence = !fenceClose(t)
			continue
		case fenceToggle(t):
			fence = true
			continue
		case t == "":
			continue
		}
		base := columns(lines[i])
		if !opensBlock(t) || !stepsIn(lines, i, base) {
			continue
		}
		last := i
		for k := i + 1; k < len(lines); k++ {
			u := strings.TrimSpace(lines[k])
			if u == "" {
				continue
			}
			if fenceToggle(u) {
				break
			}
			c := columns(lines[k])
			if c > base || c == base && (closesBlock(u) || opensBlock(u) && stepsIn(lines, k, base)) {
				last = k
				continue
			}
			break
		}
		if proseBlock(lines[i+1:last+1], base) {
			continue
		}
		runs = append(runs, codeRun{start: i, end: last + 1, indent: base})
		i = last
	}
	return runs
}

// stepsIn reports whether the next non-blank line after lines[i] is
// indented at least two columns deeper than base and is not a fence.
func stepsIn(lines []string, i, base int) bool {
	for _, l := range lines[i+1:] {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		return !fenceToggle(t) && columns(l) >= base+2
	}
	return false
}

// opensBlock reports whether a trimmed line ends as a line whose block
// follows indented does.
func opensBlock(t string) bool {
	if strings.ContainsRune(":{[(,=\\>", lastRune(t)) {
		return true
	}
	i := strings.LastIndexAny(t, " \t")
	return i >= 0 && (t[i+1:] == "do" || t[i+1:] == "then")
}

// closesBlock reports whether a trimmed line starts by closing a block.
func closesBlock(t string) bool {
	if strings.ContainsRune("})]", rune(t[0])) || strings.HasPrefix(t, "</") {
		return true
	}
	switch strings.Fields(t)[0] {
	case "end", "fi", "done", "esac":
		return true
	}
	return false
}

// proseBlock reports whether the lines after an opener at indentation base
// are a note or a list rather than code: those deeper than base are all at
// one indentation and each a list item or a sentence (ending with . ? or
// !, or their full-width forms).
func proseBlock(lines []string, base int) bool {
	indent := -1
	for _, l := range lines {
		t := strings.TrimSpace(l)
		c := columns(l)
		if t == "" || c <= base {
			continue
		}
		if indent >= 0 && c != indent {
			return false
		}
		indent = c
		if !listItem(t) && !strings.ContainsRune(".?!。？！", lastRune(t)) {
			return false
		}
	}
	return true
}

// listItem reports whether a trimmed line starts like an item of a list:
// a bullet (- * + • · –) or a number, letter or roman numeral followed by
// "." or ")", or one in parentheses, then a space.
func listItem(t string) bool {
	for _, b := range []string{"- ", "* ", "+ ", "• ", "· ", "– "} {
		if strings.HasPrefix(t, b) {
			return true
		}
	}
	head, _, ok := strings.Cut(t, " ")
	if !ok || len(head) < 2 {
		return false
	}
	if head[0] == '(' && head[len(head)-1] == ')' {
		head = head[1:len(head)-1] + "."
	}
	mark := head[len(head)-1]
	head = head[:len(head)-1]
	if mark != '.' && mark != ')' || head == "" {
		return false
	}
	if allDigits(head) || len(head) == 1 && (head[0] >= 'a' && head[0] <= 'z' || head[0] >= 'A' && head[0] <= 'Z') {
		return true
	}
	return strings.Trim(head, "ivxlcIVXLC") == ""
}

// columns is the width of a line's indentation, a tab reaching the next
// multiple of 4.
func columns(l string) int {
	c := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			c++
		case '\t':
			c += 4 - c%4
		default:
			return c
		}
	}
	return c
}

// trimColumns removes n columns of indentation from l (see columns); a tab
// that reaches past them leaves the rest as spaces.
func trimColumns(l string, n int) string {
	c := 0
	for i := 0; i < len(l); i++ {
		if c >= n {
			return l[i:]
		}
		switch l[i] {
		case ' ':
			c++
		case '\t':
			c += 4 - c%4
		default:
			return l[i:]
		}
		if c > n {
			return strings.Repeat(" ", c-n) + l[i+1:]
		}
	}
	return ""
}

// codeWarning is the warning about indented code where its lines are not
// known (in HTML, in GIFT).
const codeWarning = "indented code written without a ``` fence is posted as a code block, keeping its indentation; put a line ``` before and after it to say so"

// codeWarnings warns at the first line of each run of indented code that
// joinText fences in lines, first being the line number of lines[0]: the
// run is posted as a code block, which fences would say outright. It adds
// them to ps, which holds at most max problems (0: no bound; see
// ParseOptions.MaxProblems), counting those past max in *omitted.
func codeWarnings(ps *Problems, max int, omitted *omission, path string, lines []string, first int) {
	for _, r := range codeRuns(lines) {
		ps.warnMax(max, omitted, path, first+r.start, "%d lines of code written without a ``` fence are posted as a code block, keeping their indentation; put a line ``` before and after them to say so", r.end-r.start)
	}
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

// textCodeWarnings is codeWarnings for an exam text file, read as a whole:
// its header lines (titles, option letters, the answer line) are flush
// with the text and end in no block opener, so the runs of the whole file
// are those joinText finds in each element, at the same lines. data is
// the file as prepare returns it, lines its splitLines.
func textCodeWarnings(ps *Problems, max int, omitted *omission, path string, data []byte, lines []string) {
	// A run has a line indented by two spaces or a tab; most files have
	// none, and need not be looked at again.
	if !bytes.Contains(data, []byte("\n  ")) && !bytes.Contains(data, []byte("\n\t")) {
		return
	}
	codeWarnings(ps, max, omitted, path, lines, 1)
}
