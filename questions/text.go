package questions

import (
	"fmt"
	"strconv"
	"strings"
)

// Exam text: the format study groups paste from practice-exam pages
// (question-formats.md, section 1). The parser is a line-driven state
// machine; each line is trimmed, blank lines are skipped wherever they are
// (inside a text element they separate paragraphs), and the noise line
// "Show answer and explanation" is dropped anywhere.
//
// Recognising a title. A title is a whole line "<bank> Question <digits>".
// Such a line could also be part of a stem, an option or an explanation, so
// it only starts a new question when
//   - it is the first element of the file, or follows a title that had no
//     "Select" line, or
//   - it comes where a question may end: after the answer line, in the
//     explanation or in a rationale, or
//   - anywhere else (in a stem or an option), the next non-blank line is a
//     "Select N" line.
// Otherwise it is text of the current element. The second rule means a
// question whose "Select" line is missing is reported at the right place
// instead of being swallowed by the explanation before it; the price is
// that an explanation cannot contain a whole line shaped like a title.
//
// "Select N" glued to a stem that itself starts with a digit ("Select
// 110 servers...") is ambiguous; the parser splits the digits where N
// agrees with the number of correct letters on the answer line, and takes
// all the digits when no split does (which is then reported as a
// disagreement).

const noiseLine = "Show answer and explanation"

// textState is where the parser is inside a question.
type textState int

const (
	stNone      textState = iota // before the first title
	stTitle                      // after a title, expecting "Select N"
	stStem                       // in the stem
	stOption                     // in an option's text
	stAnswered                   // after the answer line
	stExplain                    // in the explanation
	stRationale                  // in a rationale
)

type textOption struct {
	letter    string
	line      int
	text      []string
	rationale *textRationale
}

type textRationale struct {
	line    int
	correct bool
	text    []string
}

type textQuestion struct {
	bank       string
	number     int
	line       int
	selectLine int // 0: no Select line
	digits     string
	rest       string // the stem text on the Select line, after the digits
	stem       []string
	options    []textOption
	tooMany    bool
	answerLine int
	answer     []string
	explain    []string
	probs      Problems
}

type textParser struct {
	path  string
	lines []string
	state textState
	q     *textQuestion
	rat   *textRationale
	banks bankSet
	seen  map[string]int // "<bank>#<number>" → title line
	probs Problems
	junk  bool // the previous non-blank line was reported as not fitting
}

// ParseText parses an exam text file (see README.md, "Question bank formats", and
// question-formats.md). It returns the banks in order of first appearance,
// holding the questions that parsed without a problem, and every problem
// found, each with its line. Question IDs are "<bank>#<number>".
func ParseText(path string, data []byte) ([]Bank, Problems) {
	data, ps := prepare(path, data)
	if ps != nil {
		return nil, ps
	}
	p := &textParser{
		path:  path,
		lines: splitLines(data),
		banks: bankSet{path: path},
		seen:  map[string]int{},
	}
	for i, raw := range p.lines {
		p.line(i, strings.TrimSpace(raw))
	}
	p.finish()
	if len(p.banks.banks) == 0 && len(p.probs) == 0 {
		p.probs.add(path, 0, "no questions found (a question starts with a line \"<bank> Question <number>\")")
	}
	p.probs.sortByLine()
	return p.banks.banks, p.probs
}

func (p *textParser) problem(line int, format string, args ...any) {
	if p.q != nil {
		p.q.probs.add(p.path, line, format, args...)
		return
	}
	p.probs.add(p.path, line, format, args...)
}

// misfit reports a line that fits no element, once per run of such lines.
func (p *textParser) misfit(line int, format string, args ...any) {
	if !p.junk {
		p.problem(line, format, args...)
	}
	p.junk = true
}

func (p *textParser) line(i int, s string) {
	ln := i + 1
	if s == "" {
		switch p.state {
		case stStem:
			p.q.stem = append(p.q.stem, "")
		case stOption:
			o := &p.q.options[len(p.q.options)-1]
			o.text = append(o.text, "")
		case stExplain:
			p.q.explain = append(p.q.explain, "")
		case stRationale:
			p.rat.text = append(p.rat.text, "")
		}
		return
	}
	if s == noiseLine {
		return
	}
	wasJunk := p.junk
	p.junk = false
	if bank, num, ok := parseTitle(s); ok && p.titleHere(i) {
		p.finish()
		p.start(ln, bank, num)
		return
	}
	switch p.state {
	case stNone:
		p.junk = wasJunk
		p.misfit(ln, "text before the first question title: %q", clip(s))
	case stTitle:
		p.state = stStem
		if digits, rest, ok := parseSelect(s); ok {
			p.q.selectLine, p.q.digits, p.q.rest = ln, digits, rest
			return
		}
		p.problem(ln, "want a line \"Select N\" after the title, got %q", clip(s))
		p.q.selectLine = -1 // reported: no further Select complaint
		p.q.stem = append(p.q.stem, s)
	case stStem, stOption:
		if l, ok := parseOptionHeader(s); ok {
			p.addOption(ln, l)
			return
		}
		if letters, ok := parseAnswer(s); ok {
			p.answer(ln, letters)
			return
		}
		if _, _, _, ok := parseRationaleHeader(s); ok {
			p.junk = wasJunk
			p.misfit(ln, "rationale before the answer line: %q", clip(s))
			return
		}
		if s == "Explanation" {
			p.problem(ln, "Explanation before the answer line")
			p.state = stExplain
			return
		}
		if p.state == stStem {
			p.q.stem = append(p.q.stem, s)
		} else {
			o := &p.q.options[len(p.q.options)-1]
			o.text = append(o.text, s)
		}
	case stAnswered, stExplain, stRationale:
		if l, ok, text, good := parseRationaleHeader(s); good {
			p.rationale(ln, l, ok, text)
			return
		}
		switch {
		case p.state == stAnswered && s == "Explanation":
			p.state = stExplain
		case p.state == stExplain:
			p.q.explain = append(p.q.explain, s)
		case p.state == stRationale:
			p.rat.text = append(p.rat.text, s)
		default:
			p.junk = wasJunk
			if _, ok := parseAnswer(s); ok {
				p.misfit(ln, "second answer line")
				return
			}
			p.misfit(ln, "text that fits no element after the answer line: %q (want \"Explanation\", a rationale \"- A. Correct.\" or the next question title)", clip(s))
		}
	}
}

// titleHere reports whether a title-shaped line at index i starts a
// question (see the comment at the top of this file).
func (p *textParser) titleHere(i int) bool {
	switch p.state {
	case stNone, stTitle, stAnswered, stExplain, stRationale:
		return true
	}
	for _, l := range p.lines[i+1:] {
		if l = strings.TrimSpace(l); l == "" || l == noiseLine {
			continue
		}
		_, _, ok := parseSelect(l)
		return ok
	}
	return false
}

func (p *textParser) start(ln int, bank, num string) {
	p.q = &textQuestion{bank: bank, line: ln}
	p.rat = nil
	p.state = stTitle
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		p.problem(ln, "question number %s is not a number from 1 to %d", clip(num), maxQuestionNumber)
		n = -1
	} else if n > maxQuestionNumber {
		p.problem(ln, "question number %d is larger than %d", n, maxQuestionNumber)
		n = -1
	}
	p.q.number = n
}

// maxQuestionNumber bounds question numbers so that they print and compare
// sanely everywhere.
const maxQuestionNumber = 1_000_000_000

func (p *textParser) addOption(ln int, letter string) {
	q := p.q
	p.state = stOption
	want := "A"
	if n := len(q.options); n > 0 {
		want = string(rune(q.options[n-1].letter[0] + 1))
	}
	switch {
	case len(q.options) >= MaxOptions:
		if !q.tooMany {
			p.problem(ln, "more than %d options (Discord's select menu holds at most %d)", MaxOptions, MaxOptions)
		}
		q.tooMany = true
	case letter != want:
		p.problem(ln, "option %s out of order: want %s", letter, want)
	}
	q.options = append(q.options, textOption{letter: letter, line: ln})
}

func (p *textParser) answer(ln int, letters []string) {
	q := p.q
	p.state = stAnswered
	q.answerLine = ln
	if len(letters) == 0 {
		p.problem(ln, "the answer line lists no letters")
	}
	for _, l := range letters {
		switch {
		case len(l) != 1 || l[0] < 'A' || l[0] > 'Z':
			p.problem(ln, "answer %q is not an option letter", clip(l))
		case contains(q.answer, l):
			p.problem(ln, "answer letter %s given twice", l)
		default:
			q.answer = append(q.answer, l)
		}
	}
}

func (p *textParser) rationale(ln int, letter string, correct bool, text string) {
	q := p.q
	p.state = stRationale
	p.rat = &textRationale{line: ln, correct: correct}
	if text != "" {
		p.rat.text = append(p.rat.text, text)
	}
	i := LetterIndex(letter)
	if i < 0 || i >= len(q.options) {
		p.problem(ln, "rationale for %s, which is not an option", letter)
		return
	}
	o := &q.options[i]
	if o.rationale != nil {
		p.problem(ln, "second rationale for %s (first at line %d)", letter, o.rationale.line)
		return
	}
	o.rationale = p.rat
}

// finish checks the current question and, when it is sound, adds it to its
// bank.
func (p *textParser) finish() {
	q := p.q
	if q == nil {
		return
	}
	p.q, p.rat = nil, nil
	defer func() { p.probs = append(p.probs, q.probs...) }()
	if q.selectLine == 0 {
		q.probs.add(p.path, q.line, "want a line \"Select N\" after the title")
	}
	n, stem := q.selectCount()
	if stem == "" && q.selectLine != 0 {
		where := q.selectLine
		if where < 0 {
			where = q.line
		}
		q.probs.add(p.path, where, "the question has no text")
	}
	if len(q.options) < 2 {
		q.probs.add(p.path, q.line, "the question has %d option(s); at least 2 are needed", len(q.options))
	}
	for _, o := range q.options {
		if joinText(o.text) == "" {
			q.probs.add(p.path, o.line, "option %s has no text", o.letter)
		}
	}
	if q.answerLine == 0 {
		q.probs.add(p.path, q.line, "no answer line (\"Correct answer: A\") in the question")
	}
	for _, l := range q.answer {
		if i := LetterIndex(l); i < 0 || i >= len(q.options) {
			q.probs.add(p.path, q.answerLine, "answer letter %s is not an option (options are %s)", l, letterRange(len(q.options)))
		}
	}
	if q.selectLine > 0 && q.answerLine != 0 && n != len(q.answer) {
		q.probs.add(p.path, q.selectLine, "\"Select %s\" disagrees with the answer line, which lists %d letter(s)", q.digits, len(q.answer))
	}
	for _, o := range q.options {
		if r := o.rationale; r != nil && q.answerLine != 0 && r.correct != contains(q.answer, o.letter) {
			verdict := "Incorrect"
			if r.correct {
				verdict = "Correct"
			}
			q.probs.add(p.path, r.line, "rationale says %s is %s, but the answer line disagrees", o.letter, verdict)
		}
	}
	id := fmt.Sprintf("%s#%d", q.bank, q.number)
	if q.number > 0 {
		if first, ok := p.seen[id]; ok {
			q.probs.add(p.path, q.line, "%s Question %d appears twice (first at line %d)", q.bank, q.number, first)
		} else {
			p.seen[id] = q.line
		}
	}
	if len(q.probs) > 0 || q.number < 1 {
		return
	}
	out := Question{
		ID:          id,
		Bank:        q.bank,
		Number:      q.number,
		Stem:        stem,
		Explanation: joinText(q.explain),
		Line:        q.line,
	}
	for i, o := range q.options {
		opt := Option{Letter: Letter(i), Text: joinText(o.text), Correct: contains(q.answer, o.letter)}
		if o.rationale != nil {
			opt.Rationale = dropVerdict(joinText(o.rationale.text))
		}
		out.Options = append(out.Options, opt)
	}
	p.banks.add(out)
}

// selectCount resolves "Select N" and returns N (-1 if unknown) and the
// stem.
func (q *textQuestion) selectCount() (int, string) {
	if q.selectLine <= 0 {
		return -1, joinText(q.stem)
	}
	digits, rest := q.digits, q.rest
	if digits != "" && q.answerLine != 0 {
		want := strconv.Itoa(len(q.answer))
		if digits != want && strings.HasPrefix(digits, want) {
			digits, rest = want, digits[len(want):]+rest
		}
	}
	q.digits = digits
	n, err := strconv.Atoi(digits)
	if err != nil {
		n = -1
	}
	return n, joinText(append([]string{rest}, q.stem...))
}

// parseTitle recognises "<bank> Question <digits>".
func parseTitle(s string) (bank, number string, ok bool) {
	const sep = " Question "
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", "", false
	}
	bank, number = strings.TrimSpace(s[:i]), s[i+len(sep):]
	if bank == "" || !allDigits(number) {
		return "", "", false
	}
	return bank, number, true
}

// parseSelect recognises "Select <digits><stem>", where the stem may be
// glued to the digits, follow a space, or be empty (it is on the next lines).
func parseSelect(s string) (digits, rest string, ok bool) {
	const prefix = "Select "
	if !strings.HasPrefix(s, prefix) {
		return "", "", false
	}
	s = s[len(prefix):]
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 || n > 9 {
		return "", "", false
	}
	return s[:n], s[n:], true
}

// parseOptionHeader recognises "- A".
func parseOptionHeader(s string) (string, bool) {
	if len(s) < 2 || s[0] != '-' {
		return "", false
	}
	l := strings.TrimSpace(s[1:])
	if len(l) != 1 || l[0] < 'A' || l[0] > 'Z' {
		return "", false
	}
	return l, true
}

// parseAnswer recognises "Correct answer: A" and "Correct answers: A, C".
func parseAnswer(s string) ([]string, bool) {
	var rest string
	var ok bool
	for _, prefix := range []string{"Correct answers:", "Correct answer:"} {
		if rest, ok = strings.CutPrefix(s, prefix); ok {
			break
		}
	}
	if !ok {
		return nil, false
	}
	fields := strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for i, f := range fields {
		fields[i] = strings.ToUpper(strings.TrimSuffix(f, "."))
	}
	return fields, true
}

// parseRationaleHeader recognises "- A. Correct." and "- B. Incorrect.",
// optionally followed by the rationale's first words on the same line.
func parseRationaleHeader(s string) (letter string, correct bool, text string, ok bool) {
	if len(s) < 2 || s[0] != '-' {
		return "", false, "", false
	}
	s = strings.TrimSpace(s[1:])
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' || s[1] != '.' {
		return "", false, "", false
	}
	letter, s = s[:1], strings.TrimSpace(s[2:])
	for _, v := range []struct {
		word    string
		correct bool
	}{{"Incorrect", false}, {"Correct", true}} {
		rest, found := strings.CutPrefix(s, v.word)
		if !found {
			continue
		}
		if rest == "" || rest == "." {
			return letter, v.correct, "", true
		}
		if strings.HasPrefix(rest, ". ") {
			return letter, v.correct, strings.TrimSpace(rest[2:]), true
		}
	}
	return "", false, "", false
}

// dropVerdict removes a "Correct." or "Incorrect." that repeats the
// rationale header at the start of its text.
func dropVerdict(s string) string {
	for _, v := range []string{"Correct.", "Incorrect."} {
		if rest, ok := strings.CutPrefix(s, v); ok {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// letterRange describes the letters of n options: "A–D".
func letterRange(n int) string {
	switch {
	case n <= 0:
		return "none"
	case n == 1:
		return "A"
	case n > MaxOptions:
		n = MaxOptions
	}
	return "A–" + Letter(n-1)
}

// clip shortens s for a message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
