package questions

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The shapes other sources write never lose a question silently either:
// generated questions written in the practice-site shape, in Aiken, and as
// exam text with one-line options (files of one to three questions, with
// and without a final newline, CRLF or LF, byte-order marks, banks named
// by a Bank: line, the folder or the title, parsed one by one or, for the
// titled shapes, concatenated as `cat` does) parse to exactly the
// questions written, community votes included, or to an error.
//
// What the generator assumes of real files: text lines are prose that
// ends a sentence, never shaped like an element (an option "A. ", an
// answer line, a vote "B (71%)", a title); an Aiken explanation is one
// paragraph (a blank line ends it); concatenated files without a final
// newline are the titled shapes only (an Aiken question has no title to
// find after the glue).
func TestParseShapesProperty(t *testing.T) {
	t.Parallel() // CPU-bound: beside the package's other tests
	const cases = 300
	errored := 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 18))
		set := newShapeSet(rng, shapeKinds[seed%uint64(len(shapeKinds))])
		got, ps := set.parse()
		if len(ps) > 0 {
			errored++
			for _, p := range ps {
				if !set.concat || !strings.Contains(p.Msg, "looks like a question title glued to the end of the line before it") {
					t.Errorf("seed %d (%s): got %v, want no error (a sound set)\n%s", seed, set.kind, p, set.show())
				}
			}
			continue
		}
		if diff := diffQuestions(got, set.want); diff != "" {
			t.Errorf("seed %d (%s): the parser returned other questions than were written, and no error: %s\n%s", seed, set.kind, diff, set.show())
		}
	}
	t.Logf("%d of %d sets refused", errored, cases)
}

// No input holding an answer line is skipped: whatever is cut from or
// shuffled in generated files of every shape (titles lost, options lost,
// lines swapped), when a line is an answer line the file loads questions
// or fails with an error, read as the loader reads a bank folder; never
// "no questions" with at most a warning.
func TestParseNeverSkipsAnAnswer(t *testing.T) {
	t.Parallel() // CPU-bound: beside the package's other tests
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 19))
		var data []byte
		name := "bank/q.txt"
		switch k := seed % 4; k {
		case 3: // the exam text generator of TestParseTextProperty
			set := newGenSet(rng)
			data = set.files[0]
		default:
			set := newShapeSet(rng, shapeKinds[k])
			data = set.files[0]
			if set.kind == shapeKindAiken && set.ext[0] == ".aiken" {
				name = "bank/q.aiken"
			}
		}
		ls := strings.Split(string(data), "\n")
		for range 1 + rng.IntN(4) {
			switch i := rng.IntN(len(ls)); rng.IntN(3) {
			case 0:
				ls = slices.Delete(ls, i, i+1)
			case 1:
				j := rng.IntN(len(ls))
				ls[i], ls[j] = ls[j], ls[i]
			default:
				ls = ls[i:]
			}
			if len(ls) == 0 {
				ls = []string{""}
			}
		}
		mutated := strings.Join(ls, "\n")
		hasAnswer := false
		for _, l := range splitLines([]byte(mutated)) {
			if _, ok := parseAnswerLine(normSpaces(strings.TrimSpace(l))); ok {
				hasAnswer = true
			}
		}
		if !hasAnswer {
			continue
		}
		banks, ps := ParseFile(name, []byte(mutated), ParseOptions{DefaultBank: "bank", SkipNonBank: true})
		if len(banks) == 0 && ps.Err() == nil {
			t.Errorf("seed %d: a file holding an answer line gave no question and no error (%v):\n%s", seed, ps, mutated)
		}
	}
}

// shapeKind is a shape TestParseShapesProperty writes.
type shapeKind string

const (
	shapeKindPractice shapeKind = "practice-site"
	shapeKindAiken    shapeKind = "Aiken"
	shapeKindOneLine  shapeKind = "exam text with one-line options"
)

var shapeKinds = []shapeKind{shapeKindPractice, shapeKindAiken, shapeKindOneLine}

type shapeSet struct {
	kind     shapeKind
	want     []Question
	files    [][]byte
	ext      []string
	defaults []string // DefaultBank per file (concatenated: the first)
	concat   bool
}

func newShapeSet(rng *rand.Rand, kind shapeKind) *shapeSet {
	s := &shapeSet{kind: kind, concat: kind != shapeKindAiken && rng.IntN(3) == 0}
	type genQ struct {
		q     Question
		lines []string // without the title
		topic int
	}
	var qs []genQ
	nBanks := 1 + rng.IntN(2)
	stems := map[string]bool{}
	for _, bi := range rng.Perm(len(genBanks))[:nBanks] {
		bank := genBanks[bi]
		for pos, num := range rng.Perm(80)[:1+rng.IntN(4)] {
			topic := 0
			if kind == shapeKindPractice && rng.IntN(5) == 0 {
				topic = 2
			}
			var q Question
			var ls []string
			for {
				switch kind {
				case shapeKindAiken:
					q, ls = genAiken(rng, bank, pos+1)
				default:
					q, ls = genOneLine(rng, kind, bank, num+1, topic)
				}
				if !stems[q.Bank+"\x00"+q.Stem] {
					break
				}
			}
			stems[q.Bank+"\x00"+q.Stem] = true
			qs = append(qs, genQ{q, ls, topic})
		}
	}
	if kind != shapeKindAiken { // Aiken numbers questions by position: keep the order
		rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	}
	// Files of one to three questions of one bank, in order.
	var groups [][]genQ
	for i := 0; i < len(qs); {
		n := 1 + rng.IntN(3)
		j := i + 1
		for j < len(qs) && j-i < n && qs[j].q.Bank == qs[i].q.Bank {
			j++
		}
		groups = append(groups, qs[i:j])
		i = j
	}
	prevBank := "" // concatenated: the bank of the question before
	for gi, g := range groups {
		bank := g[0].q.Bank
		// The bank comes from a Bank: line, the folder, or (exam text) the
		// titles. Concatenated, every file names its bank.
		bankLine := rng.IntN(2) == 0 || s.concat && gi > 0 && kind == shapeKindPractice
		def := ""
		if !bankLine && (kind != shapeKindOneLine || rng.IntN(2) == 0) {
			def = bank
		}
		if s.concat && gi > 0 {
			def = s.defaults[0]
			if kind == shapeKindPractice && !bankLine {
				bankLine = true
			}
		}
		var ls []string
		if bankLine {
			ls = append(ls, "Bank: "+bank)
		}
		for qi, q := range g {
			switch kind {
			case shapeKindAiken:
				if qi > 0 && rng.IntN(4) > 0 {
					ls = append(ls, "")
				}
			case shapeKindPractice:
				if qi > 0 || bankLine {
					ls = append(ls, "")
				}
				ls = append(ls, genPracticeTitle(rng, q.q.Number, q.topic))
			default:
				named := bankLine || qi > 0 || (!s.concat || gi == 0) && def == bank || s.concat && prevBank == bank
				ls = append(ls, genTitle(rng, bank, q.q.Number, named && rng.IntN(2) == 0))
			}
			prevBank = bank
			ls = append(ls, q.lines...)
			w := q.q
			if kind == shapeKindAiken {
				w.Number = qi + 1 // its position in its bank, in the file
			}
			s.want = append(s.want, w)
		}
		nl, crlf := rng.IntN(2) == 0, rng.IntN(4) == 0
		if s.concat || kind == shapeKindAiken && gi > 0 {
			nl = nl || kind == shapeKindAiken
		}
		eol := "\n"
		if crlf {
			eol = "\r\n"
		}
		text := strings.Join(ls, eol)
		if nl {
			text += eol
		}
		if rng.IntN(5) == 0 {
			text = "\uFEFF" + text
		}
		ext := ".txt"
		if kind == shapeKindAiken && rng.IntN(2) == 0 {
			ext = ".aiken"
		}
		s.files = append(s.files, []byte(text))
		s.ext = append(s.ext, ext)
		s.defaults = append(s.defaults, def)
	}
	return s
}

// genPracticeTitle writes a practice site's title as pasted.
func genPracticeTitle(rng *rand.Rand, n, topic int) string {
	if topic > 1 {
		return fmt.Sprintf([]string{"Question #%d Topic %d", "Question #%dTopic %d", "Question #%d\u00a0Topic %d"}[rng.IntN(3)], n, topic)
	}
	forms := []string{"Question #%d Topic 1", "Question #%dTopic 1", "Question #%d\u00a0Topic 1", "Question %d", "QUESTION %d", "Question #%d", "Question #: %d"}
	return fmt.Sprintf(forms[rng.IntN(len(forms))], n)
}

// genPlain is a sentence shaped like no element of any text shape.
func genPlain(rng *rand.Rand) string {
	for {
		s := genSentence(rng)
		n := normSpaces(s)
		if _, _, ok := parseLineOption(n); ok {
			continue
		}
		if _, ok := parseVotes(n); ok {
			continue
		}
		if _, ok := voteLetters(n); ok {
			continue
		}
		if _, _, ok := parseChoose(n); ok || siteNoise(n) || parseTopicLine(n) {
			continue
		}
		return s
	}
}

// genPlainText is one to three lines of plain prose, maybe with a
// paragraph break (para) or a fenced code block (code); it returns the
// lines and the text the parser should make of them.
func genPlainText(rng *rand.Rand, para, code bool) ([]string, string) {
	var ls []string
	for i := range 1 + rng.IntN(3) {
		if para && i > 0 && rng.IntN(4) == 0 {
			ls = append(ls, "")
		}
		ls = append(ls, genPlain(rng))
	}
	if code && rng.IntN(4) == 0 {
		ls = append(ls, "```python", "def f(x):", "    if x:", "", "        return x  # indented", "```")
	}
	return ls, strings.Join(ls, "\n")
}

// genKey picks the correct options of a question of n options.
func genKey(rng *rand.Rand, n int) []string {
	var key []string
	for i := range n {
		if rng.IntN(3) == 0 {
			key = append(key, Letter(i))
		}
	}
	if len(key) == 0 {
		key = []string{Letter(rng.IntN(n))}
	}
	return key
}

// genOptions writes n one-line options with key correct into q and
// returns their lines; more allows an option's text to continue on the
// next lines; marker may append the site's "Most Voted".
func genOptions(rng *rand.Rand, q *Question, n int, key []string, more, marker bool) []string {
	var ls []string
	forms := []string{"%s. %s", "%s) %s", "(%s) %s"}
	form := forms[rng.IntN(len(forms))]
	for i := range n {
		l := Letter(i)
		text, want := genPlain(rng), ""
		lines := []string{text}
		if more && rng.IntN(4) == 0 {
			rest, restWant := genPlainText(rng, false, true)
			lines = append(lines, rest...)
			want = text + "\n" + restWant
		} else {
			want = text
		}
		if marker && len(lines) == 1 && rng.IntN(4) == 0 {
			lines[0] += " Most Voted"
		}
		ls = append(ls, fmt.Sprintf(form, l, lines[0]))
		ls = append(ls, lines[1:]...)
		q.Options = append(q.Options, Option{Letter: l, Text: want, Correct: slices.Contains(key, l)})
	}
	return ls
}

// genAnswer writes an answer line in one of the forms of kind.
func genAnswer(rng *rand.Rand, kind shapeKind, key []string) string {
	run, list := strings.Join(key, ""), strings.Join(key, ", ")
	var forms []string
	switch kind {
	case shapeKindAiken:
		forms = []string{"ANSWER: " + list, "ANSWER: " + run, "Answer: " + list}
	case shapeKindPractice:
		forms = []string{"Suggested Answer: " + run, "Suggested Answer: " + run + " 🗳️", "Correct Answer: " + run, "Correct Answer: " + list, "Answer: " + run}
	default:
		forms = []string{"Correct answers: " + list, "Correct Answer: " + run}
		if len(key) == 1 {
			forms = append(forms, "Correct answer: "+key[0])
		}
	}
	return forms[rng.IntN(len(forms))]
}

// genCommunity writes a community vote distribution for a question of n
// options whose key is key, and returns its lines and votes.
func genCommunity(rng *rand.Rand, n int, key []string) ([]string, []CommunityVote) {
	ls := []string{communityHeader}
	if rng.IntN(4) == 0 {
		ls = append(ls, "100%")
		return ls, []CommunityVote{{Letters: key, Percent: 100}}
	}
	var votes []CommunityVote
	left := 100
	seen := map[string]bool{}
	for range 1 + rng.IntN(3) {
		if left <= 1 {
			break
		}
		letters := genKey(rng, n)
		if seen[strings.Join(letters, "")] {
			continue
		}
		seen[strings.Join(letters, "")] = true
		pct := left - rng.IntN(left/2+1)
		if len(votes) > 0 {
			pct = min(pct, votes[len(votes)-1].Percent)
		}
		left -= pct
		votes = append(votes, CommunityVote{Letters: letters, Percent: pct})
		written := strings.Join(letters, "")
		if len(letters) == 2 && rng.IntN(3) == 0 {
			written = letters[1] + letters[0] // "CB (90%)"
		}
		switch rng.IntN(4) {
		case 0:
			ls = append(ls, fmt.Sprintf("%s %d%%", written, pct))
		case 1:
			ls = append(ls, written, fmt.Sprintf("%d%%", pct))
		default:
			ls = append(ls, fmt.Sprintf("%s (%d%%)", written, pct))
		}
	}
	if left > 0 && rng.IntN(2) == 0 {
		ls = append(ls, "Other")
	}
	return ls, votes
}

// genOneLine writes a question of the practice-site shape or of exam text
// with one-line options; lines are without the title.
func genOneLine(rng *rand.Rand, kind shapeKind, bank string, number, topic int) (Question, []string) {
	q := Question{ID: fmt.Sprintf("%s#%d", bank, number), Bank: bank, Number: number}
	if topic > 1 {
		q.ID = fmt.Sprintf("%s#topic%d-%d", bank, topic, number)
	}
	n := 2 + rng.IntN(4)
	key := genKey(rng, n)
	var ls []string
	stem, stemText := genPlainText(rng, true, true)
	if kind == shapeKindPractice {
		if len(key) > 1 || rng.IntN(4) == 0 {
			choose := fmt.Sprintf([]string{"(Choose %s.)", "(Select %s)", "(Choose %s)"}[rng.IntN(3)],
				[]string{countWords[len(key)-1], strings.ToUpper(countWords[len(key)-1]), fmt.Sprint(len(key))}[rng.IntN(3)])
			stem = append(stem, choose)
			stemText += "\n" + choose
		}
		ls = append(ls, stem...)
	} else {
		switch rng.IntN(3) {
		case 0:
			ls = append(ls, fmt.Sprintf("Select %d%s", len(key), stem[0]))
			ls = append(ls, stem[1:]...)
		case 1:
			ls = append(ls, fmt.Sprintf("Select %d %s", len(key), stem[0]))
			ls = append(ls, stem[1:]...)
		default:
			ls = append(ls, fmt.Sprintf("Select %d", len(key)))
			ls = append(ls, stem...)
		}
	}
	q.Stem = stemText
	ls = append(ls, genOptions(rng, &q, n, key, true, kind == shapeKindPractice)...)
	if kind == shapeKindPractice && rng.IntN(2) == 0 {
		ls = append(ls, fmt.Sprintf("Reveal Solution Hide Solution   Discussion   %d", rng.IntN(40)))
	}
	if kind != shapeKindPractice && rng.IntN(2) == 0 {
		ls = append(ls, noiseLine)
	}
	ls = append(ls, genAnswer(rng, kind, key))
	explain := func() {
		if rng.IntN(2) == 0 {
			return
		}
		text, want := genPlainText(rng, true, true)
		switch {
		case kind != shapeKindPractice:
			ls = append(ls, "Explanation")
		case rng.IntN(2) == 0:
			ls = append(ls, "Explanation:")
		default:
			text = append([]string{"Reference:"}, text...)
			want = "Reference:\n" + want
		}
		ls = append(ls, text...)
		q.Explanation = want
	}
	community := kind == shapeKindPractice && rng.IntN(2) == 0
	before := rng.IntN(2) == 0
	if !community || before {
		explain()
	}
	if community {
		c, votes := genCommunity(rng, n, key)
		ls = append(ls, c...)
		q.Community = votes
		if !before {
			explain()
		}
	}
	if kind == shapeKindOneLine {
		for i, o := range q.Options {
			if rng.IntN(2) == 0 {
				continue
			}
			verdict := "Incorrect."
			if o.Correct {
				verdict = "Correct."
			}
			text, want := genPlainText(rng, true, true)
			q.Options[i].Rationale = want
			ls = append(ls, "- "+o.Letter+". "+verdict)
			ls = append(ls, text...)
		}
	}
	return q, ls
}

// genAiken writes an Aiken question.
func genAiken(rng *rand.Rand, bank string, pos int) (Question, []string) {
	n := 2 + rng.IntN(5)
	key := []string{Letter(rng.IntN(n))}
	if rng.IntN(5) == 0 {
		key = genKey(rng, n)
	}
	stem, stemText := genPlainText(rng, true, true)
	q := Question{ID: ContentID(bank, stemText), Bank: bank, Number: pos, Stem: stemText}
	ls := append([]string(nil), stem...)
	ls = append(ls, genOptions(rng, &q, n, key, false, false)...)
	ls = append(ls, genAnswer(rng, shapeKindAiken, key))
	if rng.IntN(4) == 0 {
		text, want := genPlainText(rng, false, false)
		ls = append(ls, "Explanation: "+text[0])
		ls = append(ls, text[1:]...)
		ls = append(ls, "") // an Aiken explanation ends at a blank line
		q.Explanation = want
	}
	if rng.IntN(4) == 0 {
		c, votes := genCommunity(rng, n, key)
		ls = append(ls, c...)
		q.Community = votes
	}
	return q, ls
}

func (s *shapeSet) show() string {
	var b strings.Builder
	fmt.Fprintf(&b, "concatenated %v, default banks %q\n", s.concat, s.defaults)
	for i, f := range s.files {
		fmt.Fprintf(&b, "--- file %d (%s)\n%s\n", i, s.ext[i], f)
	}
	return b.String()
}

func (s *shapeSet) parse() ([]Question, Problems) {
	var qs []Question
	var ps Problems
	add := func(banks []Bank, fps Problems) {
		ps = append(ps, fps...)
		for _, b := range banks {
			qs = append(qs, b.Questions...)
		}
	}
	if s.concat {
		add(ParseFile("all.txt", slices.Concat(s.files...), ParseOptions{DefaultBank: s.defaults[0]}))
	} else {
		for i, f := range s.files {
			add(ParseFile(fmt.Sprintf("q%d%s", i, s.ext[i]), f, ParseOptions{DefaultBank: s.defaults[i]}))
		}
	}
	return qs, ps.Errors()
}
