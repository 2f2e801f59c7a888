package questions

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Tables (*.csv, *.tsv, and tab-separated text pasted or saved as *.txt):
// a spreadsheet, or a flashcard tool's text export, one question a row,
// under a header row naming the columns (README.md, "CSV and TSV"). Read
// with encoding/csv.
//
// The delimiter is a tab for *.tsv; for *.csv the one of comma, semicolon
// (European Excel) and tab under which a header row is found, unless an
// Excel "sep=;" first line or an Anki "#separator:" line names it. The
// header is the first row, among the first maxHeaderRows, that names a
// question column (rows above it, such as a template's title, are
// skipped); see tableColumn for the names read. An Anki "Notes in Plain
// Text" export starts with "#key:value" lines instead: #separator, #html
// (cells are HTML), #columns (the column names, when there is no header
// row), #deck, #tags and "#deck column", "#tags column", "#guid column",
// "#notetype column" (1-based). Its rows have no header; a row's note type
// names its columns when it is one of knownNotetypes.
//
// A row is a question: its cells are trimmed, their lines tidied as exam
// text's are (joinText: indented code is fenced, with a warning). The
// options are the option columns A, B, … (trailing empty ones dropped) or
// the one options cell, one option a line or separated by "|"; the answer
// is read as letters ("B", "B, C", "BC"), option numbers ("2", "1,3"), one
// 0 or 1 per option ("0 1 0 0", Anki's multiple-choice add-on) or the text
// of the options (one a line or separated by "|"), and is an error when it
// reads two ways that disagree. Bank: the bank column (an Anki deck "A::B"
// is bank A, topic B), else ParseOptions.DefaultBank, else, for a *.csv or
// *.tsv file, its name without the extension. ID: the id column, else
// "<bank>#<number>" for a number column, else ContentID(bank, stem).
// Number: the number column, else the row's position among its bank's
// rows. Problems are at the line where the row (or its cell) starts.

// maxHeaderRows is how many rows are searched for the header row.
const maxHeaderRows = 10

// tableMeta is what a table's first lines say about it: Excel's "sep="
// and Anki's "#key:value" lines.
type tableMeta struct {
	lines     int  // how many lines they take
	anki      bool // an Anki export: rows starting with # are comments
	delim     rune // 0 if not named
	html      bool
	columns   string // #columns:, still delimited
	deck      string
	tags      []string
	notetype  string
	deckCol   int // 1-based, 0 if none
	tagsCol   int
	guidCol   int
	ntCol     int
	delimLine int // the line that named the delimiter
}

// readTableMeta reads the "sep=" or "#key:value" lines at the start of
// text.
func readTableMeta(text string) tableMeta {
	var m tableMeta
	for i, rest := 0, text; rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if i == 0 {
			if v, ok := strings.CutPrefix(strings.Trim(line, `"`), "sep="); ok && len([]rune(v)) == 1 {
				m.delim, m.lines, m.delimLine = []rune(v)[0], 1, 1
				continue
			}
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		key, value, ok := strings.Cut(line[1:], ":")
		if !ok || strings.ContainsAny(key, "\t,;") {
			break
		}
		m.lines, m.anki = i+1, true
		n, _ := strconv.Atoi(strings.TrimSpace(value))
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "separator":
			if d, ok := ankiSeparator(value); ok {
				m.delim, m.delimLine = d, i+1
			}
		case "html":
			m.html = strings.EqualFold(strings.TrimSpace(value), "true")
		case "columns":
			m.columns = value
		case "deck":
			m.deck = strings.TrimSpace(value)
		case "tags":
			m.tags = strings.Fields(value)
		case "notetype":
			m.notetype = strings.TrimSpace(value)
		case "deck column":
			m.deckCol = n
		case "tags column":
			m.tagsCol = n
		case "guid column":
			m.guidCol = n
		case "notetype column":
			m.ntCol = n
		}
	}
	return m
}

// ankiSeparator reads Anki's #separator value: a name or the character.
func ankiSeparator(v string) (rune, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "tab":
		return '\t', true
	case "comma":
		return ',', true
	case "semicolon":
		return ';', true
	case "space":
		return ' ', true
	case "pipe":
		return '|', true
	case "colon":
		return ':', true
	}
	if r := []rune(v); len(r) == 1 {
		return r[0], true
	}
	return 0, false
}

// tableRow is one record of a table: its cells and the line each starts
// on.
type tableRow struct {
	cells []string
	lines []int
}

func (r tableRow) line() int { return r.lines[0] }

func (r tableRow) empty() bool {
	for _, c := range r.cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// readTable reads the records of body, a table with delimiter d whose
// first line is line first of the file, up to limit records (0: all). A
// bare quote in an unquoted cell (5" floppy) is read as written; any other
// malformed quoting is a problem at its line. With maxCells (see
// ParseOptions.MaxValues; 0: no bound), reading stops at the first cell
// past it, with a problem and the rows before it: a table's rows are all
// read before any is parsed, and a file of a million one-cell rows would
// cost a hundred bytes of memory for every two of its own.
func readTable(body string, d rune, anki bool, first, limit, maxCells int) ([]tableRow, *Problem) {
	rows, err := readRecords(body, d, anki, false, first, limit, maxCells)
	if errors.Is(err, csv.ErrBareQuote) {
		rows, err = readRecords(body, d, anki, true, first, limit, maxCells)
	}
	if err != nil {
		var many *tooManyError
		if errors.As(err, &many) {
			return rows, &Problem{Line: many.line, Msg: fmt.Sprintf(tooManyCells, maxCells)}
		}
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			return rows, &Problem{Line: first, Msg: err.Error()}
		}
		msg, line := pe.Err.Error(), pe.Line
		if errors.Is(pe.Err, csv.ErrQuote) {
			msg, line = `a quoted cell is not closed, or has a " that is not doubled (write "" for a quote inside quotes)`, pe.StartLine
		}
		return rows, &Problem{Line: first + line - 1, Msg: msg}
	}
	return rows, nil
}

// tooManyCells is the problem of a table of more than
// ParseOptions.MaxValues cells.
const tooManyCells = "more than %d cells: a bank file holds fewer; split the bank into several files"

func readRecords(body string, d rune, anki, lazy bool, first, limit, maxCells int) ([]tableRow, error) {
	r := csv.NewReader(strings.NewReader(body))
	r.Comma, r.FieldsPerRecord, r.LazyQuotes = d, -1, lazy
	if anki {
		r.Comment = '#'
	}
	var rows []tableRow
	cells := 0
	for limit == 0 || len(rows) < limit {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rows, err
		}
		if cells += len(rec); maxCells > 0 && cells > maxCells {
			line, _ := r.FieldPos(maxCells - (cells - len(rec))) // the first cell past the bound
			return rows, &tooManyError{line: first + line - 1}
		}
		row := tableRow{cells: rec, lines: make([]int, len(rec))}
		for i := range rec {
			line, _ := r.FieldPos(i)
			row.lines[i] = first + line - 1
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// findHeader returns the index of the first of rows that names a question
// column and an answer or option column, and how many columns quizhost
// reads it names; -1 if none does.
func findHeader(rows []tableRow) (int, int) {
	for i, r := range rows[:min(len(rows), maxHeaderRows)] {
		known, question, other := 0, false, false
		for _, c := range r.cells {
			switch classifyColumn(c).kind {
			case tcQuestion:
				question = true
				known++
			case tcAnswer, tcOption, tcOptions:
				other = true
				known++
			case tcUnknown, tcEmpty:
			default:
				known++
			}
		}
		if question && other {
			return i, known
		}
	}
	return -1, 0
}

// looksLikeTable reports whether text pasted or saved as *.txt is a table
// rather than exam text: an Anki export (its first line is "#separator:"
// or "#html:"), or text whose first line (after a byte-order mark, blank
// lines and "#key:value" lines) is a header naming, separated by tabs,
// commas or semicolons, a question column, an answer column and options
// (two option columns or an options column), or a row that reads as a
// question with no header above it (questionRow). Exam text starts with a
// title instead.
func looksLikeTable(data []byte) bool {
	data, ps := decodeText("", data)
	if ps != nil {
		return false
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(tableHead(data)), "\uFEFF", ""), "\r", "")
	if m := readTableMeta(text); m.anki && (m.delim != 0 || strings.HasPrefix(strings.ToLower(text), "#html:")) {
		return true
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") && strings.Contains(l, ":") {
			continue
		}
		for _, d := range []rune{'\t', ',', ';'} {
			if !strings.ContainsRune(l, d) {
				continue
			}
			rows, p := readTable(l, d, false, 1, 1, 0)
			if p != nil || len(rows) == 0 {
				continue
			}
			var question, answer bool
			options := 0
			for _, c := range rows[0].cells {
				switch col := classifyColumn(c); col.kind {
				case tcQuestion:
					question = true
				case tcAnswer:
					answer = true
				case tcOption:
					options++
				case tcOptions:
					options += 2
				}
			}
			if question && answer && options >= 2 {
				return true
			}
			// A question row with no header above it (question, two
			// options or more, answer letters) is a table too: refused
			// for its missing header, never skipped as notes.
			if _, ok := questionRow(rows); ok && len(rows[0].cells) >= 4 {
				return true
			}
		}
		return false
	}
	return false
}

// tableHead is the start of data that decides whether it is a table: its
// lines up to the first that is neither blank nor a "#…" line, at most
// 64 KiB.
func tableHead(data []byte) []byte {
	data = data[:min(len(data), 64<<10)]
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			return data
		}
		l := bytes.TrimSpace(bytes.TrimPrefix(data[off:off+end], []byte("\uFEFF")))
		off += end + 1
		if len(l) > 0 && l[0] != '#' {
			return data[:off]
		}
	}
	return data
}

// tableParser parses one table file.
type tableParser struct {
	path   string
	opt    ParseOptions
	format Format
	meta   tableMeta
	delim  rune
	cols   []tableColumn
	probs  Problems
	errs   int      // errors found, listed in probs or not
	omit   omission // problems found past opt.MaxProblems, not listed
	banks  bankSet
	counts map[string]int // rows per bank so far
	ids    map[string]int // ID → line
}

// add reports an error at a line, listed when probs has room (see
// ParseOptions.MaxProblems), counted either way.
func (p *tableParser) add(line int, format string, args ...any) {
	p.errs++
	p.probs.addMax(p.opt.MaxProblems, &p.omit, p.path, line, format, args...)
}

// warn reports a warning at a line, listed when probs has room.
func (p *tableParser) warn(line int, format string, args ...any) {
	p.probs.warnMax(p.opt.MaxProblems, &p.omit, p.path, line, format, args...)
}

// tableExample is a header and a row, for messages, in the file's
// delimiter.
func tableExample(d rune) string {
	head := []string{"question", "A", "B", "C", "D", "answer", "explanation"}
	row := []string{"Which port does HTTPS use?", "22", "80", "443", "8080", "C", "HTTPS listens on 443."}
	sep := string(d)
	how := ""
	if d == '\t' {
		how = " (cells separated by tabs)"
	}
	return fmt.Sprintf("for example%s:\n    %s\n    %s", how, strings.Join(head, sep), strings.Join(row, sep))
}

// parseTable parses a table (see the top of this file); f is FormatCSV,
// FormatTSV, or FormatText for tab-separated text that looksLikeTable.
func parseTable(path string, data []byte, f Format, opt ParseOptions) ([]Bank, Problems) {
	data, ps := prepare(path, data, opt.MaxProblems)
	if ps != nil {
		return nil, ps
	}
	text := strings.ReplaceAll(string(data), "\uFEFF", "")
	p := &tableParser{path: path, opt: opt, format: f, banks: bankSet{path: path}, counts: map[string]int{}, ids: map[string]int{}}
	p.meta = readTableMeta(text)
	body := text
	for range p.meta.lines {
		_, body, _ = strings.Cut(body, "\n")
	}
	first := p.meta.lines + 1

	// The delimiter: named, or a tab for TSV, or the one under which a
	// header row is found (most columns read), for CSV and text.
	p.delim = p.meta.delim
	if p.delim == 0 {
		candidates := []rune{',', ';', '\t'}
		switch f {
		case FormatTSV:
			candidates = []rune{'\t'}
		case FormatText:
			candidates = []rune{'\t', ',', ';'}
		}
		p.delim = candidates[0]
		best := -1
		var headless rune // the first delimiter under which a row reads as a question
		for _, d := range candidates {
			rows, _ := readTable(body, d, p.meta.anki, first, maxHeaderRows, opt.MaxValues)
			if i, n := findHeader(rows); i >= 0 && n > best {
				p.delim, best = d, n
			}
			if _, ok := questionRow(rows); ok && headless == 0 {
				headless = d
			}
		}
		if best < 0 && headless != 0 {
			// No header under any delimiter: the one that shows the
			// questions, so that noHeader refuses them at their row.
			p.delim = headless
		}
	}
	rows, perr := readTable(body, p.delim, p.meta.anki, first, 0, opt.MaxValues)
	if perr != nil {
		perr.Path = path
		return nil, Problems{*perr}
	}
	rows = slices.DeleteFunc(rows, tableRow.empty)
	if len(rows) == 0 {
		p.probs.notABank(path, opt, "the file is empty", "write a bank in it or delete it")
		return nil, p.probs
	}
	header := -1
	switch {
	case p.meta.columns != "":
		named, perr := readTable(p.meta.columns, p.delim, false, 1, 1, 0)
		if perr != nil || len(named) == 0 {
			p.add(0, "the #columns: line cannot be read")
			return nil, p.probs
		}
		p.setColumns(named[0].cells)
	default:
		h, _ := findHeader(rows)
		if h < 0 && p.meta.anki && p.knownNotetype(rows) {
			break
		}
		if h < 0 {
			p.noHeader(rows)
			return nil, p.probs
		}
		header = h
		p.setColumns(rows[h].cells)
	}
	if !p.checkColumns(header, rows) {
		p.probs.sortByLine()
		p.probs.omitted(path, p.omit)
		return nil, p.probs
	}
	for _, r := range rows[header+1:] {
		p.row(r)
	}
	if len(p.banks.banks) == 0 && p.errs == 0 {
		p.add(0, "no questions: the file has a header row but no question rows")
	}
	p.probs.sortByLine()
	p.probs.omitted(path, p.omit)
	return p.banks.banks, p.probs
}

// knownNotetype names the columns of an Anki export without #columns from
// the note type of its first row (#notetype, or its notetype column),
// when that is one of knownNotetypes; false otherwise.
func (p *tableParser) knownNotetype(rows []tableRow) bool {
	nt := p.meta.notetype
	if c := p.meta.ntCol; c > 0 && c <= len(rows[0].cells) {
		nt = strings.TrimSpace(rows[0].cells[c-1])
	}
	fields, ok := knownNotetypes[nt]
	if !ok {
		return false
	}
	n := len(rows[0].cells)
	names := make([]string, 0, n)
	for i := 1; len(names) < n; i++ {
		switch i {
		case p.meta.guidCol, p.meta.ntCol, p.meta.deckCol, p.meta.tagsCol:
			names = append(names, "") // named by setColumns
		default:
			if len(fields) == 0 {
				names = append(names, "")
				continue
			}
			names = append(names, fields[0])
			fields = fields[1:]
		}
	}
	p.setColumns(names)
	return true
}

// setColumns reads the column names, Anki's meta columns overriding them.
func (p *tableParser) setColumns(names []string) {
	p.cols = make([]tableColumn, len(names))
	for i, n := range names {
		p.cols[i] = classifyColumn(n)
		if k := headerKey(n); p.meta.anki && p.cols[i].kind == tcTopic && (k == "tags" || k == "tag") {
			p.cols[i].kind = tcTags // Anki separates tags with spaces
		}
	}
	meta := func(col int, kind tableKind, name string) {
		if col < 1 {
			return
		}
		for len(p.cols) < col {
			p.cols = append(p.cols, tableColumn{kind: tcEmpty, option: -1})
		}
		p.cols[col-1] = tableColumn{kind: kind, option: -1, name: name}
	}
	meta(p.meta.guidCol, tcID, "guid")
	meta(p.meta.ntCol, tcIgnored, "notetype")
	meta(p.meta.deckCol, tcBank, "deck")
	meta(p.meta.tagsCol, tcTags, "tags")
}

// questionRow returns the first of rows' first rows that reads as a
// question written without a header: at least three cells, one ending in
// a question mark and another that is only answer letters (B, b, AC, B,C).
func questionRow(rows []tableRow) (tableRow, bool) {
	for _, r := range rows[:min(len(rows), maxHeaderRows)] {
		if len(r.cells) < 3 {
			continue
		}
		q, a := -1, -1
		for i, c := range r.cells {
			c = strings.TrimSpace(c)
			switch {
			case q < 0 && len(c) > 1 && strings.HasSuffix(c, "?"):
				q = i
			case a < 0 && answerLetters(c):
				a = i
			}
		}
		if q >= 0 && a >= 0 && q != a {
			return r, true
		}
	}
	return tableRow{}, false
}

// answerLetters reports whether s is an answer written as option letters:
// one letter in either case (B, b), or two to five capitals, run together
// or separated by commas or spaces (AC, B,C).
func answerLetters(s string) bool {
	if len(s) == 1 {
		return s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z'
	}
	n := 0
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			n++
		case r == ',' || r == ' ':
		default:
			return false
		}
	}
	return n >= 2 && n <= 5
}

// noHeader reports a table with no header row: not a bank at all when no
// cell of its first rows names a question or an answer column (a warning
// in a bank folder), else an error showing a header.
func (p *tableParser) noHeader(rows []tableRow) {
	line := rows[0].line()
	for _, r := range rows[:min(len(rows), maxHeaderRows)] {
		for _, c := range r.cells {
			switch classifyColumn(c).kind {
			case tcAnswer, tcOptions:
				p.add(r.line(), "this header row names no question column; name the columns, %s", tableExample(p.delim))
				return
			case tcQuestion:
				p.add(r.line(), "this header row names no answer or option columns; name the columns, %s", tableExample(p.delim))
				return
			}
		}
	}
	if r, ok := questionRow(rows); ok {
		// Questions without a header row are questions: an error, never a
		// file skipped as not a bank.
		p.add(r.line(), "this row looks like a question (a cell ending in ? and an answer letter) but the table has no header row; the first row must name the columns, %s", tableExample(p.delim))
		return
	}
	if p.opt.SkipNonBank {
		p.probs.notABank(p.path, p.opt, "no header row names a question column (question, A, B, …, answer)",
			"if it holds other data, move it out of the bank folder")
		return
	}
	if p.meta.anki {
		p.add(line, "this Anki export does not name its columns: add a line #columns: naming them after the #separator line (question, A, B, …, answer), or export a note type quizhost knows (%s)", "AllInOne (kprim, mc, sc)")
		return
	}
	p.add(line, "not a question bank: no header row names the columns; the first row must, %s", tableExample(p.delim))
}

// checkColumns checks the columns named: a question column, options, an
// answer column, none twice, options without gaps; it warns about the
// names it does not read. header is the header row's index in rows (-1
// when the columns were named otherwise).
func (p *tableParser) checkColumns(header int, rows []tableRow) bool {
	line := 0
	if header >= 0 {
		line = rows[header].line()
	} else if p.meta.lines > 0 {
		line = p.meta.lines
	}
	errs := p.errs
	seen := map[tableKind]string{}
	opts := map[int]string{}
	rats := map[int]string{}
	maxOpt := -1
	for _, c := range p.cols {
		switch c.kind {
		case tcUnknown:
			p.warn(line, "column %q is not one quizhost reads (question, A, B, …, answer, explanation, topic, id, bank, number); it is ignored", clip(c.name))
		case tcOption:
			if prev, dup := opts[c.option]; dup {
				p.add(line, "columns %q and %q both name option %s", clip(prev), clip(c.name), Letter(c.option))
			}
			opts[c.option] = c.name
			maxOpt = max(maxOpt, c.option)
		case tcRationale:
			if prev, dup := rats[c.option]; dup {
				p.add(line, "columns %q and %q both name the rationale of option %s", clip(prev), clip(c.name), Letter(c.option))
			}
			rats[c.option] = c.name
		case tcTopic, tcTags, tcEmpty, tcIgnored:
		default:
			if prev, dup := seen[c.kind]; dup {
				p.add(line, "columns %q and %q name the same thing; keep one", clip(prev), clip(c.name))
			}
			seen[c.kind] = c.name
		}
	}
	if _, ok := seen[tcQuestion]; !ok {
		p.add(line, "no question column; name the columns, %s", tableExample(p.delim))
	}
	if _, ok := seen[tcAnswer]; !ok {
		p.add(line, "no answer column (answer: the letters of the correct options, B or B,C); %s", tableExample(p.delim))
	}
	_, cell := seen[tcOptions]
	switch {
	case cell && len(opts) > 0:
		p.add(line, "both an options column and option columns (A, B, …); keep one")
	case !cell && len(opts) == 0:
		p.add(line, "no option columns (A, B, C, … or Option A, Option B, …, or one options column)")
	}
	for i := 0; i <= maxOpt; i++ {
		if _, ok := opts[i]; !ok {
			p.add(line, "the option columns skip %s (they must run A, B, C, … without gaps)", Letter(i))
			break
		}
	}
	return p.errs == errs
}

// cell returns the text of column i of a row, tidied (see joinText), with
// a warning for indented code written without a fence.
func (p *tableParser) cell(r tableRow, i int) string {
	if i >= len(r.cells) {
		return ""
	}
	raw := r.cells[i]
	if p.meta.html {
		s, n := joinTextRuns(strings.Split(htmlToMarkdown(raw, false), "\n"))
		if n > 0 {
			p.warn(r.lines[i], "%s", codeWarning)
		}
		return s
	}
	if !strings.Contains(raw, "\n") {
		return strings.TrimSpace(raw) // what joinTextRuns makes of one line
	}
	ls := strings.Split(raw, "\n")
	s, n := joinTextRuns(ls)
	if n > 0 {
		codeWarnings(&p.probs, p.opt.MaxProblems, &p.omit, p.path, ls, r.lines[i])
	}
	return s
}

// row parses one row into a question, or reports why it is not one.
func (p *tableParser) row(r tableRow) {
	if r.empty() {
		return
	}
	line := r.line()
	// The row's problems, at most MaxProblems of them: any leaves it
	// non-empty, refusing the row.
	var probs Problems
	problem := func(format string, args ...any) {
		probs.addMax(p.opt.MaxProblems, &p.omit, p.path, line, format, args...)
	}
	q := Question{Line: line}
	var options []string
	var optLines []int
	rationales := map[int]string{}
	answer, answerName := "", ""
	var bankCell, idCell, numberCell string
	hasNumber := false
	for i := range r.cells {
		if i >= len(p.cols) {
			if strings.TrimSpace(r.cells[i]) != "" {
				problem("cell %d has text, but the header names no column %d", i+1, i+1)
			}
			continue
		}
		c := p.cols[i]
		switch c.kind {
		case tcQuestion:
			q.Stem = p.cell(r, i)
		case tcOption:
			for len(options) <= c.option {
				options = append(options, "")
				optLines = append(optLines, line)
			}
			options[c.option], optLines[c.option] = p.cell(r, i), r.lines[i]
		case tcOptions:
			options = splitOptions(r.cells[i], p.meta.html)
		case tcAnswer:
			answer, answerName = strings.TrimSpace(p.cell(r, i)), c.name
		case tcExplanation:
			q.Explanation = p.cell(r, i)
		case tcRationale:
			rationales[c.option] = p.cell(r, i)
		case tcTopic:
			q.Tags = appendTags(q.Tags, strings.FieldsFunc(p.cell(r, i), func(r rune) bool { return r == ',' || r == ';' || r == '\n' }))
		case tcTags:
			q.Tags = appendTags(q.Tags, strings.Fields(r.cells[i]))
		case tcID:
			idCell = strings.TrimSpace(r.cells[i])
		case tcBank:
			bankCell = strings.TrimSpace(r.cells[i])
		case tcNumber:
			numberCell, hasNumber = strings.TrimSpace(r.cells[i]), true
		case tcSource:
			q.Source = p.cell(r, i)
			if p.meta.html {
				q.Source = htmlHref(r.cells[i], q.Source)
			}
		}
	}
	q.Tags = appendTags(q.Tags, p.meta.tags)

	// Bank: the bank column (an Anki deck "A::B" is bank A, topic B),
	// #deck, the default bank, the file's name.
	bank := bankCell
	if bank == "" {
		bank = p.meta.deck
	}
	if levels := strings.Split(bank, "::"); len(levels) > 1 {
		bank = strings.TrimSpace(levels[0])
		q.Tags = appendTags(q.Tags, []string{strings.TrimSpace(levels[len(levels)-1])})
	}
	if bank == "" {
		bank = p.opt.DefaultBank
	}
	if bank == "" && p.format != FormatText {
		base := filepath.Base(p.path)
		bank = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if bank == "" {
		problem("the row names no bank: add a bank column, or give the bank option")
	}
	q.Bank = bank

	if q.Stem == "" {
		problem("the row has no question text")
	}
	// Trailing empty options are columns this question does not use.
	for len(options) > 0 && options[len(options)-1] == "" {
		options = options[:len(options)-1]
	}
	for i, o := range options {
		if o == "" && i < MaxOptions {
			at := line
			if i < len(optLines) {
				at = optLines[i]
			}
			probs.addMax(p.opt.MaxProblems, &p.omit, p.path, at, "option %s is empty, but an option after it is not", Letter(i))
			break
		}
	}
	switch {
	case len(options) < 2:
		problem("the row has %d option(s); at least 2 are needed", len(options))
	case len(options) > MaxOptions:
		problem("the row has %d options; Discord's select menu holds at most %d", len(options), MaxOptions)
		options = options[:MaxOptions]
	}
	for i := range rationales {
		if i >= len(options) {
			problem("the rationale of option %s has no option %s", Letter(i), Letter(i))
		}
	}
	var correct []bool
	if answer == "" {
		problem("the row has no answer (column %q)", clip(answerName))
	} else if len(options) > 0 {
		var msg string
		correct, msg = resolveAnswer(answer, options)
		if msg != "" {
			problem("%s", msg)
		}
	}
	if hasNumber {
		n, err := strconv.Atoi(numberCell)
		if err != nil || n < 1 || n > maxQuestionNumber {
			problem("number %q is not a whole number from 1 to %d", clip(numberCell), maxQuestionNumber)
		}
		q.Number = n
	}
	if len(probs) > 0 {
		p.keep(probs)
		return
	}
	for i, o := range options {
		q.Options = append(q.Options, Option{Letter: Letter(i), Text: o, Correct: correct[i], Rationale: rationales[i]})
	}
	p.counts[bank]++
	if !hasNumber {
		q.Number = p.counts[bank]
	}
	switch {
	case idCell != "":
		q.ID = idCell
	case hasNumber:
		q.ID = fmt.Sprintf("%s#%d", bank, q.Number)
	default:
		q.ID = ContentID(bank, q.Stem)
	}
	if first, dup := p.ids[q.ID]; dup {
		how := "give each row its own id"
		if idCell == "" && !hasNumber {
			how = "both rows have this question text and no id or number; add an id column"
		}
		problem("question id %q used twice (first at line %d): %s", clip(q.ID), first, how)
		p.keep(probs)
		return
	}
	p.ids[q.ID] = line
	p.banks.add(q)
}

// keep adds a row's problems (errors) to the file's, as many as fit.
func (p *tableParser) keep(probs Problems) {
	for _, pr := range probs {
		p.errs++
		p.probs.keepMax(p.opt.MaxProblems, &p.omit, pr)
	}
}

// htmlHref returns the target of the first link <a href="…"> in an HTML
// cell, or text when it has none.
func htmlHref(cell, text string) string {
	_, rest, ok := strings.Cut(cell, `href="`)
	if !ok {
		return text
	}
	url, _, ok := strings.Cut(rest, `"`)
	if !ok || url == "" {
		return text
	}
	return url
}
