package questions

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Moodle GIFT (*.gift), its multiple-choice part.
//
// Questions are separated by blank lines outside an answer block {…} (a
// line starting with ::title:: right after a closed answer block also
// starts a question; any other text after it is reported); lines
// starting with // are comments; "$CATEGORY: path" names the bank and
// topic of the questions that follow (see giftCategory: Moodle's
// "$course$/top/Default for Python Basics/Data types" is bank "Python
// Basics", topic "Data types"), and until the first one the bank is named
// after the file ("cloud-basics" for cloud-basics.gift).
//
// Identity: a question titled "::Latency 1::" has ID "<bank>#Latency 1",
// or "<bank>#<sub-category>/Latency 1" in a sub-category of the bank
// ("Python Basics#Data types/Latency 1"), so that two sub-categories may
// use the same titles; an untitled one ContentID(bank, stem), which
// survives reordering but not an edit of the stem's words (then the
// question is a new one), and which two untitled questions with the same
// text in one bank would share (reported). Number is the question's
// 1-based position among the questions of its bank that the file holds
// and quizhost reads (a skipped essay leaves no gap), for display.
//
// Supported: single answer {=right ~wrong}, multiple answer
// {~%50%right ~%-100%wrong} (a positive weight marks a right answer),
// true/false {T} {F} {TRUE} {FALSE} (two options "True" and "False"), a
// per-answer #feedback (that option's rationale; for true/false the first
// feedback explains the wrong option and the second the right one), and
// ####general feedback (the explanation). Several = answers with at least
// one ~ make a multiple-answer question. Other question types (essay,
// matching, numerical, short answer, missing word, description) are
// skipped with a warning naming their line.
//
// Text: a [html] or [moodle] marker at the start of the question text
// (Moodle's export writes [html] on nearly every question) makes its text,
// answers and feedback HTML, turned into Discord markdown (htmlToMarkdown);
// an answer or feedback may carry its own marker. [plain], [markdown] and
// unmarked text are taken as written. Lines keep their indentation inside
// fenced code blocks (and <pre> in HTML).

type giftLine struct {
	line int
	text string
}

type giftParser struct {
	path   string
	file   string // the bank before the first $CATEGORY: the file's name
	bank   string
	sub    string // the sub-category path below the bank, "" if none
	topic  string // the last level of sub, the questions' tag
	banks  bankSet
	counts map[string]int // questions seen per bank
	ids    map[string]int // ID → line
	probs  Problems
	max    int      // list at most max problems (0: all)
	found  int      // problems found, listed or not
	omit   omission // problems found past max
}

// ParseGIFT parses a Moodle GIFT file. It returns the banks in order of
// first appearance, holding the multiple-choice and true/false questions
// that parsed without a problem, and every problem found, each with its
// line, including a warning per question of an unsupported type.
func ParseGIFT(path string, data []byte) ([]Bank, Problems) {
	return parseGIFT(path, data, ParseOptions{})
}

// parseGIFT is ParseGIFT with the options' MaxProblems.
func parseGIFT(path string, data []byte, opt ParseOptions) ([]Bank, Problems) {
	data, ps := prepare(path, data, opt.MaxProblems)
	if ps != nil {
		return nil, ps
	}
	base := filepath.Base(path)
	file := strings.TrimSuffix(base, filepath.Ext(base))
	p := &giftParser{
		path:   path,
		file:   file,
		bank:   file,
		banks:  bankSet{path: path},
		counts: map[string]int{},
		ids:    map[string]int{},
		max:    opt.MaxProblems,
	}
	var block []giftLine
	depth := 0      // unescaped { minus } in the block so far
	closed := false // the block holds a closed answer block
	flush := func() {
		if len(block) > 0 {
			p.question(block)
		}
		block, depth, closed = nil, 0, false
	}
	lines := splitLines(data)
	// next[i] is the index of the first line after i that is neither blank
	// nor a comment (len(lines) if none), computed once so that a long run
	// of blank lines costs linear time.
	next := make([]int, len(lines)+1)
	next[len(lines)] = len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		next[i] = next[i+1]
		if s := strings.TrimSpace(lines[i]); s != "" && !strings.HasPrefix(s, "//") {
			next[i] = i
		}
	}
	nextLine := func(i int) int { return next[i+1] }
	for i, l := range lines {
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "//"):
			continue
		case s == "" && (depth == 0 || startsQuestion(lines, nextLine(i))):
			flush()
			continue
		case depth == 0 && strings.HasPrefix(s, "$CATEGORY:"):
			flush()
			p.category(i+1, strings.TrimPrefix(s, "$CATEGORY:"))
			continue
		case depth == 0 && closed && strings.HasPrefix(s, "::"):
			// A titled question right after a closed answer block, with
			// no blank line between: unambiguously the next question.
			flush()
		}
		block = append(block, giftLine{line: i + 1, text: l})
		d := braceDelta(s)
		depth = max(0, depth+d)
		if depth == 0 && strings.ContainsRune(s, '}') {
			closed = true
		}
	}
	flush()
	if len(p.banks.banks) == 0 && p.found == 0 {
		p.probs.add(path, 0, "no questions found")
	}
	p.probs.sortByLine()
	p.probs.omitted(path, p.omit)
	return p.banks.banks, p.probs
}

func (p *giftParser) category(line int, name string) {
	name = strings.TrimSpace(name)
	if name == "" {
		p.found++
		p.probs.addMax(p.max, &p.omit, p.path, line, "$CATEGORY has no name")
		return
	}
	p.bank, p.sub = giftCategory(name)
	if p.bank == "" {
		p.bank = p.file
	}
	p.topic = ""
	if p.sub != "" {
		p.topic = p.sub[strings.LastIndexByte(p.sub, '/')+1:]
	}
}

// giftCategory splits a $CATEGORY path into the bank and the sub-category
// path below it ("" if none). Moodle writes a category as a path from its
// context: "$course$/top/Default for Python Basics/Data types". The
// context ("$course$/", "$system$/", "$coursecategory$/", "$module$/"),
// the hidden "top" category and the "Default for " of the course's default
// category are Moodle's boilerplate, dropped; the first level left is the
// bank ("Python Basics"), the levels below it the sub-category path ("Data
// types"). A "/" inside a category's name is written "//" and read back as
// one. bank is "" when only boilerplate is left ("$course$/top").
func giftCategory(path string) (bank, sub string) {
	if strings.HasPrefix(path, "$") {
		if i := strings.Index(path[1:], "$/"); i >= 0 {
			path = path[i+3:]
		} else if strings.HasSuffix(path, "$") && strings.Count(path, "$") == 2 {
			path = ""
		}
	}
	var levels []string
	for _, l := range splitCategory(path) {
		if l = strings.TrimSpace(l); l != "" {
			levels = append(levels, l)
		}
	}
	if len(levels) > 0 && levels[0] == "top" {
		levels = levels[1:]
	}
	if len(levels) == 0 {
		return "", ""
	}
	if rest, ok := strings.CutPrefix(levels[0], "Default for "); ok && strings.TrimSpace(rest) != "" {
		levels[0] = strings.TrimSpace(rest)
	}
	return levels[0], strings.Join(levels[1:], "/")
}

// splitCategory splits a category path at each "/" that is not part of a
// "//", which stands for a "/" in a name.
func splitCategory(path string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] != '/' {
			cur.WriteByte(path[i])
			continue
		}
		if i+1 < len(path) && path[i+1] == '/' {
			cur.WriteByte('/')
			i++
			continue
		}
		out = append(out, cur.String())
		cur.Reset()
	}
	return append(out, cur.String())
}

// startsQuestion reports whether lines[i] starts a titled question or a
// category: then a blank line before it ends the block even inside an
// unclosed answer block, so that the unclosed block is reported where it
// is instead of swallowing the questions after it.
func startsQuestion(lines []string, i int) bool {
	if i >= len(lines) {
		return false
	}
	s := strings.TrimSpace(lines[i])
	return strings.HasPrefix(s, "::") || strings.HasPrefix(s, "$CATEGORY:")
}

// braceDelta counts unescaped { minus unescaped } in s.
func braceDelta(s string) int {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			d++
		case '}':
			d--
		}
	}
	return d
}

// giftBlock is one question's text with the line of each byte offset.
type giftBlock struct {
	s      string
	starts []int // offset at which each line starts
	lines  []int // file line of each line
}

func (b *giftBlock) lineAt(off int) int {
	i := 0
	for i+1 < len(b.starts) && b.starts[i+1] <= off {
		i++
	}
	return b.lines[i]
}

// find returns the offset of the first unescaped sub in s at or after
// from, or -1.
func (b *giftBlock) find(from int, sub string) int {
	for i := from; i < len(b.s); i++ {
		if b.s[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(b.s[i:], sub) {
			return i
		}
	}
	return -1
}

func (p *giftParser) question(lines []giftLine) {
	b := &giftBlock{}
	var sb strings.Builder
	for i, l := range lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		b.starts = append(b.starts, sb.Len())
		b.lines = append(b.lines, l.line)
		sb.WriteString(l.text)
	}
	b.s = sb.String()
	first := lines[0].line
	bank := p.bank
	q := Question{Bank: bank, Line: first}
	if p.topic != "" {
		q.Tags = []string{p.topic}
	}
	titled := false
	before := p.found
	problem := func(off int, format string, args ...any) {
		p.found++
		p.probs.addMax(p.max, &p.omit, p.path, b.lineAt(off), format, args...)
	}
	unsupported := func(off int, kind string) {
		p.found++
		p.probs.warnMax(p.max, &p.omit, p.path, b.lineAt(off), "skipped: unsupported GIFT question type (%s)", kind)
	}

	pos := len(b.s) - len(strings.TrimLeft(b.s, " \t\n"))
	if strings.HasPrefix(b.s[pos:], "::") {
		end := b.find(pos+2, "::")
		if end < 0 {
			problem(0, "unclosed ::title::")
			return
		}
		title := giftText(b.s[pos+2 : end])
		if title == "" {
			problem(0, "empty ::title::")
		} else {
			q.ID = bank + "#" + title
			if p.sub != "" {
				q.ID = bank + "#" + p.sub + "/" + title
			}
		}
		titled = true
		pos = end + 2
	}
	open := b.find(pos, "{")
	if open < 0 {
		unsupported(pos, "description: no answer block {…}")
		return
	}
	closing := b.find(open+1, "}")
	if closing < 0 {
		problem(open, "unclosed answer block {")
		return
	}
	if after := strings.TrimSpace(b.s[closing+1:]); after != "" {
		if next := b.find(closing+1, "{"); next >= 0 {
			at := closing + 1 + strings.Index(b.s[closing+1:], after[:1])
			problem(at, "a second answer block {…} in one question: GIFT questions are separated by a blank line; add one before the question starting here")
			return
		}
		unsupported(closing+1, "missing word: text after the answer block")
		return
	}
	if next := b.find(open+1, "{"); next >= 0 && next < closing {
		problem(next, "unescaped { inside an answer block (write \\{)")
		return
	}
	code := 0 // runs of indented code fenced in the question's texts
	format, stem := giftFormat(b.s[pos:open], "")
	q.Stem = giftPiece(stem, format, &code)
	if q.Stem == "" {
		problem(pos, "the question has no text")
	} else if !titled {
		q.ID = ContentID(bank, q.Stem)
	}

	body, bodyAt := b.s[open+1:closing], open+1
	if g := b.find(bodyAt, "####"); g >= 0 && g < closing {
		q.Explanation = giftPiece(b.s[g+4:closing], format, &code)
		body = b.s[bodyAt:g]
	}
	trimmed := strings.TrimSpace(body)
	switch {
	case trimmed == "":
		unsupported(open, "essay")
		return
	case trimmed[0] == '#':
		unsupported(open, "numerical")
		return
	}
	if tf, ok := giftTrueFalse(b, bodyAt, bodyAt+len(body), format, &code); ok {
		q.Options = tf
	} else if !p.choices(b, bodyAt, bodyAt+len(body), format, &code, &q, problem, unsupported) {
		return
	}
	if p.found == before {
		if first, dup := p.ids[q.ID]; dup {
			if titled {
				problem(0, "question id %q used twice (first at line %d)", clip(q.ID), first)
			} else {
				problem(0, "question id %q used twice (first at line %d): both questions have this text and no title; give each a ::title::", clip(q.ID), first)
			}
			return
		}
		p.ids[q.ID] = first
		if code > 0 {
			p.probs.warnMax(p.max, &p.omit, p.path, first, "%s", codeWarning)
		}
		p.add(q)
	}
}

// choices parses a multiple-choice body b.s[from:to] into q.Options; false
// when the block is of another type (already reported).
func (p *giftParser) choices(b *giftBlock, from, to int, format string, code *int, q *Question, problem func(int, string, ...any), unsupported func(int, string)) bool {
	type answer struct {
		at     int
		marker byte
		text   string
		weight string
		why    string
		arrow  bool
	}
	var answers []answer
	for i := from; i < to; i++ {
		c := b.s[i]
		if c == '\\' {
			i++
			continue
		}
		if c != '=' && c != '~' {
			if len(answers) == 0 && c != ' ' && c != '\n' && c != '\t' {
				problem(i, "text before the first answer (answers start with = or ~)")
				return true
			}
			continue
		}
		answers = append(answers, answer{at: i, marker: c})
	}
	if len(answers) == 0 {
		problem(from, "the answer block has no answers (=right ~wrong)")
		return true
	}
	tildes := 0
	for k := range answers {
		a := &answers[k]
		end := to
		if k+1 < len(answers) {
			end = answers[k+1].at
		}
		raw := b.s[a.at+1 : end]
		if a.marker == '~' {
			tildes++
		}
		if strings.HasPrefix(raw, "%") {
			if j := strings.IndexByte(raw[1:], '%'); j >= 0 {
				a.weight, raw = raw[1:j+1], raw[j+2:]
			}
		}
		sub := &giftBlock{s: raw}
		if h := sub.find(0, "#"); h >= 0 {
			a.why, raw = giftPiece(raw[h+1:], format, code), raw[:h]
		}
		a.arrow = (&giftBlock{s: raw}).find(0, "->") >= 0
		a.text = giftPiece(raw, format, code)
	}
	if tildes == 0 {
		for _, a := range answers {
			if a.arrow {
				unsupported(from, "matching")
				return false
			}
		}
		unsupported(from, "short answer")
		return false
	}
	if len(answers) > MaxOptions {
		problem(answers[MaxOptions].at, "more than %d answers (Discord's select menu holds at most %d)", MaxOptions, MaxOptions)
		return true
	}
	if len(answers) < 2 {
		problem(from, "the question has 1 answer; at least 2 are needed")
	}
	for k, a := range answers {
		correct := a.marker == '='
		if a.weight != "" {
			w, err := strconv.ParseFloat(a.weight, 64)
			if err != nil || w < -100 || w > 100 {
				problem(a.at, "weight %%%s%% is not a percentage from -100 to 100", clip(a.weight))
			}
			correct = w > 0
		}
		if a.text == "" {
			problem(a.at, "answer %s has no text", Letter(k))
		}
		q.Options = append(q.Options, Option{Letter: Letter(k), Text: a.text, Correct: correct, Rationale: a.why})
	}
	if q.SelectCount() == 0 {
		problem(from, "no right answer (mark it with = or a positive weight ~%%50%%)")
	}
	return true
}

// giftTrueFalse recognises a true/false body: T, F, TRUE or FALSE, then
// optionally #feedback-if-wrong and #feedback-if-right.
func giftTrueFalse(b *giftBlock, from, to int, format string, code *int) ([]Option, bool) {
	body := b.s[from:to]
	parts := []string{}
	sub := &giftBlock{s: body}
	for start := 0; ; {
		h := sub.find(start, "#")
		if h < 0 {
			parts = append(parts, body[start:])
			break
		}
		parts = append(parts, body[start:h])
		start = h + 1
	}
	var right bool
	switch strings.ToUpper(strings.TrimSpace(parts[0])) {
	case "T", "TRUE":
		right = true
	case "F", "FALSE":
		right = false
	default:
		return nil, false
	}
	if len(parts) > 3 {
		return nil, false
	}
	var ifWrong, ifRight string
	if len(parts) > 1 {
		ifWrong = giftPiece(parts[1], format, code)
	}
	if len(parts) > 2 {
		ifRight = giftPiece(parts[2], format, code)
	}
	opts := []Option{{Letter: "A", Text: "True"}, {Letter: "B", Text: "False"}}
	r, w := 1, 0
	if right {
		r, w = 0, 1
	}
	opts[r].Correct, opts[r].Rationale = true, ifRight
	opts[w].Rationale = ifWrong
	return opts, true
}

// giftFormat reads a text format marker at the start of s ([html],
// [moodle], [plain] or [markdown]) and returns the format ("html",
// "moodle", "plain", "markdown"; def when there is none) and the rest.
func giftFormat(s, def string) (format, rest string) {
	t := strings.TrimLeft(s, " \t\n")
	for _, f := range []string{"html", "moodle", "plain", "markdown"} {
		if r, ok := strings.CutPrefix(t, "["+f+"]"); ok {
			return f, r
		}
	}
	return def, s
}

// giftPiece turns a piece of GIFT text (a stem, an answer, a feedback) in
// the question's format into what is shown: unescaped, HTML turned into
// markdown, lines tidied. A marker at its start overrides the format.
// Runs of indented code (see codeRuns) are fenced; code counts them.
func giftPiece(s, format string, code *int) string {
	format, s = giftFormat(s, format)
	s = giftUnescape(s)
	if format == "html" || format == "moodle" {
		s = htmlToMarkdown(s, format == "moodle")
	}
	out, n := joinTextRuns(strings.Split(s, "\n"))
	*code += n
	return out
}

// giftText unescapes GIFT text (\~ \= \# \{ \} \: \\ and \n for a line
// break) and tidies its lines.
func giftText(s string) string {
	return joinText(strings.Split(giftUnescape(s), "\n"))
}

// giftUnescape unescapes GIFT text: \~ \= \# \{ \} \: \\, and \n for a
// line break.
func giftUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch n := s[i+1]; n {
			case '~', '=', '#', '{', '}', ':', '\\':
				b.WriteByte(n)
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// add adds a question that parsed cleanly to its bank, numbering it after
// the bank's questions added before.
func (p *giftParser) add(q Question) {
	p.counts[q.Bank]++
	q.Number = p.counts[q.Bank]
	p.banks.add(q)
}
