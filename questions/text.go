package questions

import (
	"cmp"
	"fmt"
	"slices"
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
// optional " of <total>" or a practice site's " Topic <n>" after it (see
// parseTitle). A bare "Question 12"
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
// letter) is reported instead of making a junk bank. A "Bank:" line glued
// so, right before a title, is split the same way.
//
// Code blocks. Between two lines starting with ``` (a fenced code block,
// inside a stem, an option, an explanation or a rationale) lines keep
// their indentation and nothing is recognised but the closing fence; a
// title followed by a "Select N" line ends an unclosed block, which is
// reported.
//
// Practice-site and Aiken shapes (practice.go holds their recognisers). A
// question whose options are not "- A" headers may write them on one line
// each ("A. text", "A) text", "(A) text"; the text may continue on the
// following lines, up to the next option or the answer line); such a
// question needs no "Select N" line: "(Choose two.)" in its stem, else the
// number of answer letters, says how many to pick. Whether a question's
// options may be one-line is decided when it starts, by looking ahead to
// its answer line: a question with a "- A" header reads exactly as exam
// text always did. Answer lines may be written as practice sites and Aiken
// write them ("Suggested Answer: BC", "ANSWER: B"). After the answer, a
// "Community vote distribution" block is kept as the question's Community;
// in a one-line question any other text is its explanation, and the
// page's leftovers ("Reveal Solution", "Discussion 17"...) are skipped.
// A "Bank: <name>" line, first in the file or right before a title, names
// the bank of the bare titles after it.
//
// Untitled questions (Aiken). A file the sniffer (see textShape) finds
// without titles but with one-line options and answer lines is read with
// p.untitled: a question starts at the first line of text after the
// previous question's answer (and its community block, or its
// explanation, which there ends at a blank line); its ID is
// ContentID(bank, stem), its number its position in its bank in the file.
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
	stCommunity                  // in a community vote distribution, after the answer line
	stLost                       // after the start of a question whose title was not recognised
)

type textOption struct {
	letter    string
	line      int
	text      []string
	oneLine   bool // "A. text", not a "- A" header
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
	topic      int // a practice site's "Topic 2"; 0 if none
	untitled   bool
	line       int
	selectLine int // 0: no Select line
	digits     string
	rest       string // the stem text on the Select line, after the digits
	stemLine   int    // the line after the title, when it is not a Select line
	stem       []string
	choose     int // "(Choose two.)" in the stem: 2; 0 if none
	chooseText string
	chooseLine int
	lineOpts   bool // one-line options ("A. text") are options: no "- A" header in the question
	oneLine    bool // a one-line option was read
	options    []textOption
	tooMany    bool
	noiseLine  int // the "Show answer and explanation" line, 0 if none
	answerLine int
	answer     []string
	lost       bool // the start of another question was found inside it
	explain    []string
	votes      []textVote
	voteLine   int       // the "Community vote distribution" line, 0 if none
	resume     textState // the state to go back to after the community block
	pending    []string  // vote letters on a line of their own, waiting for their percentage
	pendLine   int
	probs      Problems
}

type textVote struct {
	line    int
	letters []string
	percent int
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
	omit  omission // problems found past opt.MaxProblems, not listed
	junk  bool     // the previous non-blank line was reported as not fitting

	untitled  bool           // Aiken: questions have no titles
	positions map[string]int // untitled: questions started so far, by bank
	noBank    bool           // untitled: the missing bank was reported
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
// with its line. Question IDs are "<bank>#<number>" (see textQuestion.id).
// Which shape the file has is textShape's call: a file with nothing shaped
// like a question is not a bank (one problem, no banks: a warning with
// opt.SkipNonBank, else an error); one with question-like lines but no
// question to find is an error at the first of them (see unrecognised).
// aiken says the file is an *.aiken file: read untitled, whatever its
// lines look like.
func parseText(path string, data []byte, opt ParseOptions) ([]Bank, Problems) {
	return parseTextShape(path, data, opt, false)
}

func parseTextShape(path string, raw []byte, opt ParseOptions, aiken bool) ([]Bank, Problems) {
	data, ps := prepare(path, raw, opt.MaxProblems)
	if ps != nil {
		return nil, ps
	}
	p := &textParser{
		path:      path,
		opt:       opt,
		lines:     splitLines(data),
		banks:     bankSet{path: path},
		seen:      map[string]int{},
		positions: map[string]int{},
	}
	shape := textShape(p.lines)
	if aiken && shape != shapeNone {
		shape = shapeAiken
	}
	switch shape {
	case shapeNone:
		reason := `no line is a question title such as "<Exam> Question 12"`
		if aiken {
			reason = `no line is an option ("A. text") or an answer line ("ANSWER: A")`
		}
		p.probs.notABank(path, opt, reason, "if it holds notes, rename it (notes.md) or move it out of the bank folder")
		return nil, p.probs
	case shapeUnrecognised:
		return nil, unrecognised(path, p.lines)
	case shapeTable:
		return parseTable(path, raw, FormatText, opt)
	case shapeAiken:
		p.untitled = true
	}
	for i, raw := range p.lines {
		p.line(i, raw)
	}
	p.finish()
	if len(p.banks.banks) == 0 && len(p.probs) == 0 && p.omit.n == 0 {
		p.probs.add(path, 0, "no questions found (a question starts with a line \"<bank> Question <number>\")")
	}
	if len(p.banks.banks) > 0 {
		textCodeWarnings(&p.probs, opt.MaxProblems, &p.omit, path, data, p.lines)
	}
	p.probs.sortByLine()
	p.probs.omitted(path, p.omit)
	return p.banks.banks, p.probs
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

// title returns the title a trimmed line is shaped like; an untitled
// file has none.
func (p *textParser) title(s string) (titleMatch, bool) {
	if p.untitled {
		return titleMatch{}, false
	}
	return parseTitle(s)
}

func (p *textParser) line(i int, raw string) {
	ln := i + 1
	s := strings.TrimSpace(raw)
	if p.fence > 0 {
		n := normSpaces(s)
		if at := gluedBankLine(n); at > 0 && fenceClose(n[:at]) && !p.untitled && p.titleNext(i) {
			p.text(n[:at]) // "```Bank: Two", concatenated
			p.fence = 0
			name, _ := parseBankLine(n[at:])
			p.setBank(ln, name)
			return
		}
		t, ok := p.title(s)
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
		if p.untitled && p.state == stExplain && len(p.q.explain) > 0 {
			p.state = stAnswered // an untitled question's explanation ends at a blank line
			return
		}
		p.text("")
		return
	}
	defer func() { p.prev = s }()
	n := normSpaces(s)
	if name, ok := parseBankLine(n); ok && p.bankLineHere(i) {
		p.setBank(ln, name)
		return
	}
	// "...(29%)Bank: Two": a file without a final newline, then one naming
	// its bank, concatenated.
	if !p.untitled {
		if at := gluedBankLine(n); at > 0 && p.titleNext(i) {
			if _, answer := parseAnswerLine(n[:at]); answer || p.bankLineHere(i) {
				p.element(ln, n[:at], n[:at])
				name, _ := parseBankLine(n[at:])
				p.setBank(ln, name)
				return
			}
		}
	}
	if t, ok := p.title(s); ok {
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

// bankLineHere reports whether a "Bank:" line at index i names the bank of
// the questions after it: where a question may start (before the first
// one, or after a question's answer) and, between titled questions, right
// before a title (elsewhere it is text of an explanation).
func (p *textParser) bankLineHere(i int) bool {
	switch p.state {
	case stNone:
		return true
	case stAnswered, stExplain, stRationale, stCommunity:
		return p.untitled || p.titleNext(i)
	}
	return false
}

// gluedBankLine returns where a "Bank:" line starts that is glued to the
// text before it ("OtherBank: Two"), or 0.
func gluedBankLine(n string) int {
	for j := strings.LastIndexByte(n, ':'); j >= 0; j = strings.LastIndexByte(n[:j], ':') {
		if i := j + 1 - len(bankLinePrefix); i > 0 && n[i-1] != ' ' && hasPrefixFold(n[i:], bankLinePrefix) {
			return i
		}
	}
	return 0
}

// setBank takes a "Bank: <name>" line: the bank of the bare titles and
// untitled questions after it.
func (p *textParser) setBank(ln int, name string) {
	p.junk = false
	if p.state == stCommunity {
		p.endCommunity()
	}
	if name == "" {
		p.problem(ln, "the line \"Bank:\" names no bank: write \"Bank: <name>\"")
		return
	}
	if p.knownBank(name) == "" {
		p.known = append(p.known, name)
	}
	p.last = name
	if p.untitled && p.state != stNone {
		p.state = stAnswered // the next text starts a question
	}
}

// element handles a non-blank line that does not start a question.
func (p *textParser) element(ln int, raw, s string) {
	n := normSpaces(s)
	wasJunk := p.junk
	p.junk = false
	if p.state == stLost {
		if _, ok := parseAnswerLine(n); ok && p.untitled {
			p.state = stAnswered // the lost question's answer: the next text starts a question
		}
		return
	}
	if (p.q == nil || p.q.lineOpts) && siteNoise(n) {
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
		if p.untitled {
			p.startUntitled(ln)
			p.element(ln, raw, s)
			return
		}
		p.junk = wasJunk
		p.misfit(ln, "text before the first question title: %q (to name the bank of the titles after it, write \"Bank: <name>\")", clip(s))
	case stTitle:
		if digits, rest, ok := parseSelect(n); ok {
			p.state = stStem
			p.q.selectLine, p.q.digits, p.q.rest = ln, digits, rest
			p.openFence(ln, strings.TrimSpace(rest))
			return
		}
		if !p.q.untitled && p.q.lineOpts && parseTopicLine(n) {
			return // "Topic 1" on a line of its own after a practice site's title
		}
		p.q.stemLine = ln // a stem without "Select N": see finish
		p.state = stStem
		p.beforeAnswer(ln, raw, s, n, wasJunk)
	case stStem, stOption:
		p.beforeAnswer(ln, raw, s, n, wasJunk)
	case stAnswered, stExplain, stRationale, stCommunity:
		p.afterAnswer(ln, raw, s, n, wasJunk)
	}
}

// beforeAnswer handles a line of a question's stem or options.
func (p *textParser) beforeAnswer(ln int, raw, s, n string, wasJunk bool) {
	if l, ok := parseOptionHeader(n); ok {
		if l == "A" && len(p.q.options) > 0 && p.q.options[0].letter == "A" {
			p.another(ln, "option letters start again at A")
			return
		}
		p.addOption(ln, l)
		return
	}
	if l, text, ok := parseLineOption(n); ok && p.q.lineOpts && (l == "A" || p.state == stOption) {
		if l == "A" && len(p.q.options) > 0 && p.q.options[0].letter == "A" {
			p.another(ln, "option letters start again at A")
			return
		}
		p.addOption(ln, l)
		o := &p.q.options[len(p.q.options)-1]
		o.oneLine, p.q.oneLine = true, true
		if text != "" {
			o.text = append(o.text, text)
		}
		p.openFence(ln, text)
		return
	}
	if letters, ok := parseAnswerLine(n); ok {
		p.answer(ln, letters)
		return
	}
	if _, _, ok := parseSelect(n); ok {
		if p.q.selectLine == 0 {
			p.another(ln, "a \"Select N\" line after the question's text")
		} else {
			p.another(ln, "a second \"Select N\" line")
		}
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
	if p.q.lineOpts && strings.EqualFold(n, communityHeader) {
		p.junk = wasJunk
		p.misfit(ln, "%s before the answer line (want \"Suggested Answer: B\" before it)", communityHeader)
		return
	}
	if p.state == stStem && p.q.chooseLine == 0 {
		if k, phrase, ok := parseChoose(n); ok {
			p.q.choose, p.q.chooseText, p.q.chooseLine = k, phrase, ln
		}
	}
	p.text(raw)
	p.openFence(ln, s)
}

// afterAnswer handles a line after a question's answer line.
func (p *textParser) afterAnswer(ln int, raw, s, n string, wasJunk bool) {
	q := p.q
	if p.state == stCommunity {
		if p.vote(ln, n) {
			return
		}
		p.endCommunity()
	}
	if strings.EqualFold(n, communityHeader) {
		if q.voteLine != 0 {
			p.another(ln, fmt.Sprintf("a second %q (the first is at line %d)", communityHeader, q.voteLine))
			return
		}
		q.voteLine, q.resume, p.state = ln, p.state, stCommunity
		return
	}
	if l, ok, text, good := parseRationaleHeader(n); good {
		p.rationale(ln, l, ok, text)
		return
	}
	if _, ok := parseAnswerLine(n); ok {
		p.another(ln, fmt.Sprintf("a second answer line (the first is at line %d)", q.answerLine))
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
	if l, _, ok := parseLineOption(n); ok && l == "A" && q.oneLine && !(p.untitled && p.state == stAnswered) {
		p.another(ln, "option A after the answer line")
		return
	}
	explanation, text, marker := explanationMarker(n)
	switch {
	case p.state == stAnswered && marker:
		p.state = stExplain
		if explanation {
			p.text(text)
		}
	case p.untitled && p.state == stAnswered:
		// Untitled (Aiken): the next question starts here.
		p.finish()
		p.startUntitled(ln)
		p.element(ln, raw, s)
	case p.state == stExplain, p.state == stRationale:
		p.text(raw)
		p.openFence(ln, s)
	case q.oneLine:
		// A practice site's explanation, "Reference:" and its links.
		p.state = stExplain
		p.text(raw)
		p.openFence(ln, s)
	default:
		p.junk = wasJunk
		p.misfit(ln, "text that fits no element after the answer line: %q (want \"Explanation\", a rationale \"- A. Correct.\" or the next question title)", clip(s))
	}
}

// explanationMarker recognises the line that starts an explanation:
// "Explanation", also "Explanation:", possibly followed by its first
// words (text, with hasText).
func explanationMarker(n string) (hasText bool, text string, ok bool) {
	const word = "Explanation"
	if !hasPrefixFold(n, word) {
		return false, "", false
	}
	rest := n[len(word):]
	if rest == "" || rest == ":" {
		return false, "", true
	}
	if after, found := strings.CutPrefix(rest, ": "); found {
		return true, strings.TrimSpace(after), true
	}
	return false, "", false
}

// vote reads a line of a community vote distribution, and reports whether
// it was one.
func (p *textParser) vote(ln int, n string) bool {
	q := p.q
	if letters, ok := voteLetters(n); ok && q.pending == nil && LetterIndex(letters[len(letters)-1]) < len(q.options) {
		q.pending, q.pendLine = letters, ln // "B", its percentage on the next line
		return true
	}
	votes, ok := parseVotes(n)
	if !ok {
		return false
	}
	for _, v := range votes {
		if v.letters == nil { // a lone percentage: of the letters before, or the key's
			v.letters = q.pending
			if v.letters == nil {
				v.letters = q.answer
			}
			q.pending = nil
		}
		p.addVote(ln, v)
	}
	return true
}

// endCommunity ends a community vote distribution at a line that is not a
// vote.
func (p *textParser) endCommunity() {
	q := p.q
	if q.pending != nil {
		p.problem(q.pendLine, "community vote %s has no percentage (want \"%s (71%%)\")", strings.Join(q.pending, ""), strings.Join(q.pending, ""))
		q.pending = nil
	}
	if len(q.votes) == 0 {
		p.problem(q.voteLine, "%q is followed by no vote (want lines such as \"B (71%%)\")", communityHeader)
	}
	p.state = q.resume
}

func (p *textParser) addVote(ln int, v vote) {
	if v.percent > 100 {
		p.problem(ln, "community vote %s has %d%%; at most 100%% is possible", strings.Join(v.letters, ""), v.percent)
	}
	letters := slices.Clone(v.letters)
	slices.Sort(letters)
	p.q.votes = append(p.q.votes, textVote{line: ln, letters: slices.Compact(letters), percent: v.percent})
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
	switch {
	case p.untitled:
		hint = "the question before has no answer line (\"ANSWER: B\") before it"
	case strings.Contains(what, "Select") && p.prev != "":
		hint = fmt.Sprintf("the line before, %q, is not a title \"<Exam> Question <N>\"; write the title on a line of its own", clip(p.prev))
	case p.q != nil && p.q.oneLine:
		hint = "write its title, \"Question #<N> Topic 1\" or \"<Exam> Question <N>\", on a line of its own before its text"
	}
	if p.untitled {
		p.problem(ln, "%s: this looks like the start of another question; %s", what, hint)
	} else {
		p.problem(ln, "%s: this looks like the start of another question; its title was not recognised: %s", what, hint)
	}
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
	case stAnswered, stExplain, stRationale, stCommunity:
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

// titleNext reports whether the next non-blank line after index i is a
// title.
func (p *textParser) titleNext(i int) bool {
	for _, l := range p.lines[i+1:] {
		if l = strings.TrimSpace(l); l != "" {
			_, ok := p.title(l)
			return ok
		}
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
	after := p.state == stAnswered || p.state == stExplain || p.state == stRationale || p.state == stCommunity || p.fence > 0
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
	p.q = &textQuestion{bank: bank, line: ln, lineOpts: p.lineOptionsAfter(ln - 1)}
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
		p.problem(ln, "the title %q names no exam: write the exam name before \"Question\" (\"AWS Cloud Practitioner Question %s\"), or, for an import, give the bank option, or write a first line \"Bank: <name>\"", clip(t.line), t.number)
	}
	if !glued && p.q.bank != "" {
		if p.knownBank(p.q.bank) == "" {
			p.known = append(p.known, p.q.bank)
		}
		p.last = p.q.bank
	}
	p.q.number = p.questionNumber(ln, "question number", t.number)
	if t.topic != "" {
		p.q.topic = p.questionNumber(ln, "topic number", t.topic)
	}
}

// questionNumber parses a title's number; -1 after a reported problem.
func (p *textParser) questionNumber(ln int, what, digits string) int {
	n, err := strconv.Atoi(digits)
	switch {
	case err != nil || n < 1:
		p.problem(ln, "%s %s is not a number from 1 to %d", what, clip(digits), maxQuestionNumber)
		return -1
	case n > maxQuestionNumber:
		p.problem(ln, "%s %d is larger than %d", what, n, maxQuestionNumber)
		return -1
	}
	return n
}

// startUntitled starts an untitled (Aiken) question at line ln: its bank
// is the last "Bank:" line's, else ParseOptions.DefaultBank.
func (p *textParser) startUntitled(ln int) {
	bank := cmp.Or(p.last, p.opt.DefaultBank)
	p.positions[bank]++
	p.q = &textQuestion{bank: bank, line: ln, untitled: true, number: p.positions[bank], lineOpts: p.lineOptionsAfter(ln - 2)}
	p.rat = nil
	p.state = stTitle
	if bank == "" && !p.noBank {
		p.noBank = true
		p.problem(ln, "the file names no bank for its questions, which have no titles: write a first line \"Bank: <name>\", or, for an import, give the bank option")
	}
}

// lineOptionsAfter reports whether the question whose first line is
// after index i may write its options on one line ("A. text"): it has no
// "- A" header before its answer line (or the next title).
func (p *textParser) lineOptionsAfter(i int) bool {
	for _, l := range p.lines[i+1:] {
		n := normSpaces(strings.TrimSpace(l))
		if l, ok := parseOptionHeader(n); ok && l == "A" {
			return false
		}
		if _, ok := parseAnswerLine(n); ok {
			return true
		}
		if _, ok := p.title(n); ok {
			return true
		}
	}
	return true
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
	if p.state == stCommunity {
		p.endCommunity()
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
	if q.selectLine == 0 && !q.oneLine && !q.untitled {
		q.probs.add(p.path, cmp.Or(q.stemLine, q.line), "want a line \"Select N\" after the title")
	}
	n, stem := q.selectCount()
	switch {
	case stem != "":
	case q.selectLine > 0:
		q.probs.add(p.path, q.selectLine, "the question has no text")
	case q.oneLine || q.untitled:
		q.probs.add(p.path, q.line, "the question has no text")
	}
	if len(q.options) < 2 {
		q.probs.add(p.path, q.line, "the question has %d option(s); at least 2 are needed", len(q.options))
	}
	texts := make([]string, len(q.options))
	for i, o := range q.options {
		if texts[i] = joinText(o.text); o.oneLine {
			texts[i] = dropMostVoted(texts[i])
		}
		if texts[i] == "" {
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
	switch {
	case q.answerLine == 0:
	case q.selectLine > 0 && n != len(q.answer):
		q.probs.add(p.path, q.selectLine, "\"Select %s\" disagrees with the answer line, which lists %d letter(s)", q.digits, len(q.answer))
	case q.selectLine == 0 && q.chooseLine > 0 && q.choose != len(q.answer):
		q.probs.add(p.path, q.chooseLine, "%q asks for %d answer(s), but the answer line (line %d) lists %d letter(s)", q.chooseText, q.choose, q.answerLine, len(q.answer))
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
	for _, v := range q.votes {
		for _, l := range v.letters {
			if i := LetterIndex(l); i < 0 || i >= len(q.options) {
				q.probs.add(p.path, v.line, "community vote for %s, which is not an option (options are %s)", l, letterRange(len(q.options)))
			}
		}
	}
	id := q.id(stem)
	if id != "" {
		if first, ok := p.seen[id]; !ok {
			p.seen[id] = q.line
		} else if q.untitled {
			q.probs.add(p.path, q.line, "this question's text is also the question's at line %d: questions without titles are told apart by their text; remove one, or reword it", first)
		} else {
			q.probs.add(p.path, q.line, "%s Question %d%s appears twice (first at line %d)", q.bank, q.number, q.topicSuffix(), first)
		}
	}
	if len(q.probs) > 0 || id == "" {
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
		opt := Option{Letter: Letter(i), Text: texts[i], Correct: contains(q.answer, o.letter)}
		if o.rationale != nil {
			opt.Rationale = dropVerdict(joinText(o.rationale.text))
		}
		out.Options = append(out.Options, opt)
	}
	for _, v := range q.votes {
		out.Community = append(out.Community, CommunityVote{Letters: v.letters, Percent: v.percent})
	}
	slices.SortStableFunc(out.Community, func(a, b CommunityVote) int { return cmp.Compare(b.Percent, a.Percent) })
	p.banks.add(out)
}

// id is the question's ID: "<bank>#<number>" for a titled question,
// "<bank>#topic<T>-<number>" for a practice site's topic 2 and later (whose
// numbers start again at 1), ContentID(bank, stem) for an untitled one; ""
// when the bank, the number or the stem is missing (reported).
func (q *textQuestion) id(stem string) string {
	switch {
	case q.bank == "":
		return ""
	case q.untitled:
		if stem == "" {
			return ""
		}
		return ContentID(q.bank, stem)
	case q.number < 1 || q.topic < 0:
		return ""
	case q.topic > 1:
		return fmt.Sprintf("%s#topic%d-%d", q.bank, q.topic, q.number)
	}
	return fmt.Sprintf("%s#%d", q.bank, q.number)
}

// topicSuffix is " Topic 2" for a practice site's question of topic 2 and
// later, else "".
func (q *textQuestion) topicSuffix() string {
	if q.topic > 1 {
		return fmt.Sprintf(" Topic %d", q.topic)
	}
	return ""
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
