package questions

import (
	"fmt"
	"strconv"
	"strings"
)

// Exam text: the format study groups paste from practice-exam pages
// (README.md, "Exam text"). The parser is a line-driven state
// machine; each line is trimmed (and its white space, non-breaking spaces
// included, normalised for recognising elements), blank lines are skipped
// wherever they are (inside a text element they separate paragraphs), and
// the noise line "Show answer and explanation" is dropped once per
// question, before its answer line.
//
// Recognising a title. A title is a line "<bank> Question <digits>", in
// any letter case, with an optional separator before "Question" (" - ",
// ": ", " – ", " — ", " | "), an optional "#" before the number and an
// optional " of <total>" after it (see parseTitle). A bare "Question 12"
// takes the bank of the previous question of the file, or
// ParseOptions.DefaultBank for the first one. Such a line could also be
// part of a stem, an option or an explanation, so it only starts a new
// question when
//   - it is the first element of the file, or follows a title that had no
//     "Select" line, or
//   - it comes where a question may end (after the answer line, in the
//     explanation or in a rationale) and names a bank already seen in the
//     file or none, or
//   - anywhere else, the next non-blank line is a "Select N" line.
//
// Otherwise it is text of the current element.
//
// Never losing a question. A title that is not recognised must not let its
// question be swallowed by the one before: a "Select N" line, a second
// answer line, a second "Show answer and explanation", an option header
// after the answer or option letters starting again at A inside one
// question are each reported as the start of another question whose title
// was not recognised, and the rest of it is skipped up to the next title.
//
// Glued titles. A file that does not end with a newline, concatenated with
// the next one, glues that file's title to its own last line ("...round
// trip.AWS Cloud Practitioner Question 40"). Where a title may start, a
// line ending with a title of a bank already seen in the file (or a bare
// title after punctuation) is split: the text before it belongs to the
// element before, the title starts a question. A title whose bank looks
// like glued text (it starts with an answer line, "Explanation", a
// rationale or a code fence, or holds a sentence ending glued to a capital
// letter) is reported instead of making a junk bank.
//
// Code blocks. Between two lines starting with ``` (a fenced code block,
// inside a stem, an option, an explanation or a rationale) lines keep
// their indentation and nothing is recognised but the closing fence; a
// title followed by a "Select N" line ends an unclosed block, which is
// reported.
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
	stLost                       // after the start of a question whose title was not recognised
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
	noiseLine  int // the "Show answer and explanation" line, 0 if none
	answerLine int
	answer     []string
	lost       bool // the start of another question was found inside it
	explain    []string
	probs      Problems
}

type textParser struct {
	path  string
	opt   ParseOptions
	lines []string
	state textState
	q     *textQuestion
	rat   *textRationale
	banks bankSet
	seen  map[string]int // "<bank>#<number>" → title line
	known []string       // bank names of the titles so far, as first written
	last  string         // bank of the last title
	fence int            // line of the open ``` of a code block, 0 if none
	prev  string         // the previous non-blank line, trimmed
	probs Problems
	omit  int  // problems found past opt.MaxProblems, not listed
	junk  bool // the previous non-blank line was reported as not fitting
}

// ParseText parses an exam text file (see README.md, "Question bank
// formats") with no default bank: a title without
// an exam name ("Question 12") before any titled question is an error. See
// ParseFile for the options.
func ParseText(path string, data []byte) ([]Bank, Problems) {
	return parseText(path, data, ParseOptions{})
}

// parseText returns the banks in order of first appearance, holding the
// questions that parsed without a problem, and every problem found, each
// with its line. Question IDs are "<bank>#<number>". A file with no line
// shaped like a title is not a bank: one problem, no banks (a warning with
// opt.SkipNonBank, else an error).
func parseText(path string, data []byte, opt ParseOptions) ([]Bank, Problems) {
	data, ps := prepare(path, data, opt.MaxProblems)
	if ps != nil {
		return nil, ps
	}
	p := &textParser{
		path:  path,
		opt:   opt,
		lines: splitLines(data),
		banks: bankSet{path: path},
		seen:  map[string]int{},
	}
	if !p.anyTitle() {
		p.probs.notABank(path, opt, `no line is a question title such as "<Exam> Question 12"`,
			"if it holds notes, rename it (notes.md) or move it out of the bank folder")
		return nil, p.probs
	}
	for i, raw := range p.lines {
		p.line(i, raw)
	}
	p.finish()
	if len(p.banks.banks) == 0 && len(p.probs) == 0 && p.omit == 0 {
		p.probs.add(path, 0, "no questions found (a question starts with a line \"<bank> Question <number>\")")
	}
	p.probs.sortByLine()
	p.probs.omitted(path, p.omit)
	return p.banks.banks, p.probs
}

func (p *textParser) anyTitle() bool {
	for _, l := range p.lines {
		if _, ok := parseTitle(l); ok {
			return true
		}
	}
	return false
}

func (p *textParser) problem(line int, format string, args ...any) {
	if p.q != nil {
		// A question's own list is kept whole up to the limit, so that a
		// problem, listed or not, always leaves it non-empty.
		p.q.probs.addMax(p.opt.MaxProblems, &p.omit, p.path, line, format, args...)
		return
	}
	p.probs.addMax(p.opt.MaxProblems, &p.omit, p.path, line, format, args...)
}

// misfit reports a line that fits no element, once per run of such lines.
func (p *textParser) misfit(line int, format string, args ...any) {
	if !p.junk {
		p.problem(line, format, args...)
	}
	p.junk = true
}

// text appends a line (raw: a code block keeps its indentation) to the
// element being read.
func (p *textParser) text(raw string) {
	switch p.state {
	case stStem:
		p.q.stem = append(p.q.stem, raw)
	case stOption:
		o := &p.q.options[len(p.q.options)-1]
		o.text = append(o.text, raw)
	case stExplain:
		p.q.explain = append(p.q.explain, raw)
	case stRationale:
		p.rat.text = append(p.rat.text, raw)
	}
}

func (p *textParser) line(i int, raw string) {
	ln := i + 1
	s := strings.TrimSpace(raw)
	if p.fence > 0 {
		t, ok := parseTitle(s)
		if !ok || !p.selectNext(i) {
			p.text(raw)
			if fenceClose(s) {
				p.fence = 0
			}
			return
		}
		// A title and its Select line: the block ends here.
		prefix, bank, glued := p.splitTitle(t)
		if fenceClose(strings.TrimSpace(prefix)) {
			p.text(prefix) // the closing fence, glued to the title
		} else {
			p.problem(p.fence, "the code block opened here with ``` is not closed before the next question (close it with a line ```)")
		}
		p.fence = 0
		p.finish()
		p.start(ln, t, bank, glued)
		p.prev = s
		return
	}
	if s == "" {
		p.text("")
		return
	}
	defer func() { p.prev = s }()
	if t, ok := parseTitle(s); ok {
		prefix, bank, glued := p.splitTitle(t)
		if p.titleHere(i, t, prefix, bank) {
			if prefix != "" {
				p.element(ln, prefix, prefix)
			}
			p.finish()
			p.start(ln, t, bank, glued)
			return
		}
	}
	p.element(ln, raw, s)
}

// element handles a non-blank line that does not start a question.
func (p *textParser) element(ln int, raw, s string) {
	n := normSpaces(s)
	wasJunk := p.junk
	p.junk = false
	if p.state == stLost {
		return
	}
	if strings.EqualFold(n, noiseLine) {
		switch {
		case p.q == nil || p.state == stTitle:
		case p.q.answerLine != 0:
			p.another(ln, "\"Show answer and explanation\" after the answer line")
		case p.q.noiseLine != 0:
			p.another(ln, fmt.Sprintf("a second \"Show answer and explanation\" (the first is at line %d)", p.q.noiseLine))
		default:
			p.q.noiseLine = ln
		}
		return
	}
	switch p.state {
	case stNone:
		p.junk = wasJunk
		p.misfit(ln, "text before the first question title: %q", clip(s))
	case stTitle:
		p.state = stStem
		if digits, rest, ok := parseSelect(n); ok {
			p.q.selectLine, p.q.digits, p.q.rest = ln, digits, rest
			p.openFence(ln, strings.TrimSpace(rest))
			return
		}
		p.problem(ln, "want a line \"Select N\" after the title, got %q", clip(s))
		p.q.selectLine = -1 // reported: no further Select complaint
		p.q.stem = append(p.q.stem, s)
	case stStem, stOption:
		if l, ok := parseOptionHeader(n); ok {
			if l == "A" && len(p.q.options) > 0 && p.q.options[0].letter == "A" {
				p.another(ln, "option letters start again at A")
				return
			}
			p.addOption(ln, l)
			return
		}
		if letters, ok := parseAnswer(n); ok {
			p.answer(ln, letters)
			return
		}
		if _, _, ok := parseSelect(n); ok {
			p.another(ln, "a second \"Select N\" line")
			return
		}
		if _, _, _, ok := parseRationaleHeader(n); ok {
			p.junk = wasJunk
			p.misfit(ln, "rationale before the answer line: %q", clip(s))
			return
		}
		if strings.EqualFold(n, "Explanation") {
			p.problem(ln, "Explanation before the answer line")
			p.state = stExplain
			return
		}
		p.text(raw)
		p.openFence(ln, s)
	case stAnswered, stExplain, stRationale:
		if l, ok, text, good := parseRationaleHeader(n); good {
			p.rationale(ln, l, ok, text)
			return
		}
		if _, ok := parseAnswer(n); ok {
			p.another(ln, fmt.Sprintf("a second answer line (the first is at line %d)", p.q.answerLine))
			return
		}
		if _, _, ok := parseSelect(n); ok {
			p.another(ln, "a \"Select N\" line after the answer line")
			return
		}
		if l, ok := parseOptionHeader(n); ok {
			p.another(ln, fmt.Sprintf("option %s after the answer line", l))
			return
		}
		switch {
		case p.state == stAnswered && strings.EqualFold(n, "Explanation"):
			p.state = stExplain
		case p.state == stExplain, p.state == stRationale:
			p.text(raw)
			p.openFence(ln, s)
		default:
			p.junk = wasJunk
			p.misfit(ln, "text that fits no element after the answer line: %q (want \"Explanation\", a rationale \"- A. Correct.\" or the next question title)", clip(s))
		}
	}
}

// openFence notes a line of text that opens a code block.
func (p *textParser) openFence(ln int, s string) {
	if fenceToggle(s) {
		p.fence = ln
	}
}

// another reports a line that looks like the start of another question
// inside the current one, and skips the rest of it.
func (p *textParser) another(ln int, what string) {
	hint := "write its title, \"<Exam> Question <N>\", on a line of its own before its \"Select N\" line"
	if strings.Contains(what, "Select") && p.prev != "" {
		hint = fmt.Sprintf("the line before, %q, is not a title \"<Exam> Question <N>\"; write the title on a line of its own", clip(p.prev))
	}
	p.problem(ln, "%s: this looks like the start of another question; its title was not recognised: %s", what, hint)
	p.state, p.rat, p.fence = stLost, nil, 0
	if p.q != nil {
		p.q.lost = true
	}
}

// titleHere reports whether a title-shaped line at index i, split into
// prefix and bank by splitTitle, starts a question (see the comment at the
// top of this file).
func (p *textParser) titleHere(i int, t titleMatch, prefix, bank string) bool {
	switch p.state {
	case stNone, stTitle, stLost:
		return true
	case stAnswered, stExplain, stRationale:
		if t.bank == "" || prefix != "" || p.knownBank(bank) != "" {
			return true
		}
	}
	return p.selectNext(i)
}

// selectNext reports whether the next non-blank line after index i is a
// "Select N" line.
func (p *textParser) selectNext(i int) bool {
	for _, l := range p.lines[i+1:] {
		if l = normSpaces(strings.TrimSpace(l)); l == "" || strings.EqualFold(l, noiseLine) {
			continue
		}
		_, _, ok := parseSelect(l)
		return ok
	}
	return false
}

// knownBank returns the bank of this file's titles that name matches,
// ignoring letter case, or "".
func (p *textParser) knownBank(name string) string {
	for _, k := range p.known {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return ""
}

// splitTitle decides how much of a title-shaped line is the title: prefix
// is text glued before it (a file without a final newline concatenated
// with the next), bank the title's bank ("" for a bare title), and glued
// says that the bank looks like glued text that could not be split.
func (p *textParser) splitTitle(t titleMatch) (prefix, bank string, glued bool) {
	if t.bank == "" { // "Question 12", "- Question 12"
		return "", "", false
	}
	if !endsWithSeparator(t.head) {
		// "...round trip.Question 40": a bare title glued to text.
		return t.head, "", false
	}
	if k := p.knownBank(t.bank); k != "" {
		return "", k, false
	}
	best := ""
	for _, k := range p.known {
		if len(k) <= len(best) || len(k) >= len(t.bank) || !strings.EqualFold(t.bank[len(t.bank)-len(k):], k) {
			continue
		}
		before := t.bank[:len(t.bank)-len(k)]
		if trimmed := strings.TrimRight(before, " "); trimmed == before || !isWordRune(lastRune(trimmed)) {
			best = k
		}
	}
	if best != "" {
		return t.bank[:len(t.bank)-len(best)], best, false
	}
	// A title glued to an element ("Correct answer: AAzure Fundamentals")
	// splits where the element ends.
	if n := elementPrefix(t.bank); n > 0 && n < len(t.bank) {
		return t.bank[:n], strings.TrimLeft(t.bank[n:], titleSeparators), false
	}
	// Glued text can only come after a question's answer or in a code
	// block; a file's first title may be "Node.JS Basics Question 1".
	after := p.state == stAnswered || p.state == stExplain || p.state == stRationale || p.fence > 0
	if after && gluedAt(t.bank) >= 0 {
		return "", t.bank, true
	}
	return "", t.bank, false
}

// gluedAt reports whether a bank name read from a title after a
// question's answer is rather the end of another element with a title
// glued to it: it starts with a code fence or a dash, or holds a sentence
// ending glued to a capital ("...near the user.AWS Cloud"). at is where
// the title seems to start, 0 if unknown, -1 if the bank looks sound.
func gluedAt(bank string) int {
	if strings.HasPrefix(bank, "```") || strings.HasPrefix(bank, "-") {
		return 0
	}
	if elementPrefix(bank) > 0 {
		return 0
	}
	for i := len(bank) - 2; i >= 1; i-- {
		if c, after := bank[i], bank[i+1]; strings.IndexByte(".?!:;)]\"'", c) >= 0 && bank[i-1] != ' ' &&
			after >= 'A' && after <= 'Z' {
			return i + 1
		}
	}
	return -1
}

func (p *textParser) start(ln int, t titleMatch, bank string, glued bool) {
	p.q = &textQuestion{bank: bank, line: ln}
	p.rat = nil
	p.state = stTitle
	switch {
	case glued:
		title := "<Exam> Question " + t.number
		if at := gluedAt(bank); at > 0 {
			title = bank[at:] + " Question " + t.number
		}
		p.problem(ln, "this line looks like a question title glued to the end of the line before it (a file that did not end with a newline?): put the title %q on a line of its own", clip(title))
	case bank == "" && p.last != "":
		p.q.bank = p.last
	case bank == "" && p.opt.DefaultBank != "":
		p.q.bank = p.opt.DefaultBank
	case bank == "":
		p.problem(ln, "the title %q names no exam: write the exam name before \"Question\" (\"AWS Cloud Practitioner Question %s\"), or, for an import, give the bank option", clip(t.line), t.number)
	}
	if !glued && p.q.bank != "" {
		if p.knownBank(p.q.bank) == "" {
			p.known = append(p.known, p.q.bank)
		}
		p.last = p.q.bank
	}
	n, err := strconv.Atoi(t.number)
	if err != nil || n < 1 {
		p.problem(ln, "question number %s is not a number from 1 to %d", clip(t.number), maxQuestionNumber)
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
	defer func() {
		for _, pr := range q.probs {
			p.probs.keepMax(p.opt.MaxProblems, &p.omit, pr)
		}
	}()
	if p.fence > 0 {
		q.probs.add(p.path, p.fence, "the code block opened here with ``` is not closed (close it with a line ```)")
		p.fence = 0
	}
	if q.lost { // reported; its other problems would be noise
		return
	}
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
	if q.number > 0 && q.bank != "" {
		if first, ok := p.seen[id]; ok {
			q.probs.add(p.path, q.line, "%s Question %d appears twice (first at line %d)", q.bank, q.number, first)
		} else {
			p.seen[id] = q.line
		}
	}
	if len(q.probs) > 0 || q.number < 1 || q.bank == "" {
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

// parseSelect recognises "Select <digits><stem>" (any letter case), where the stem may be
// glued to the digits, follow a space, or be empty (it is on the next lines).
func parseSelect(s string) (digits, rest string, ok bool) {
	const prefix = "Select "
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
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

// parseAnswer recognises "Correct answer: A" and "Correct answers: A, C",
// in any letter case.
func parseAnswer(s string) ([]string, bool) {
	var rest string
	var ok bool
	for _, prefix := range []string{"Correct answers:", "Correct answer:"} {
		if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
			rest, ok = s[len(prefix):], true
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
