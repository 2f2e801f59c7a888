package questions

import (
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The exam text parser never loses a question silently: for generated sets
// of sound questions, written as study groups keep them (one or a few
// questions per file, files with and without a final newline, CRLF or LF,
// byte-order marks, any order, parsed one by one or concatenated as `cat`
// does, titles in every form people paste), it returns exactly the
// questions written or reports an error, never fewer or different
// questions without one.
//
// What the generator assumes of real files: text lines end a sentence
// (with punctuation) or a code block. A file without a final newline whose
// last line ends with a bare word, concatenated with a file of an exam not
// seen before in the concatenation, cannot be told apart from a title
// whose exam name starts with that word.
func TestParseTextProperty(t *testing.T) {
	t.Parallel() // CPU-bound: beside the package's other tests
	const cases = 400
	errored := 0
	for seed := range uint64(cases) {
		set := newGenSet(rand.New(rand.NewPCG(seed, 8)))
		got, ps := set.parse()
		if len(ps) > 0 {
			// Every generated set is sound: the one error allowed is a
			// title glued to an exam not seen before in a concatenation,
			// which cannot be split with certainty. (A parser that refused
			// everything would pass the property otherwise.)
			errored++
			for _, p := range ps {
				if !set.concat || !strings.Contains(p.Msg, "looks like a question title glued to the end of the line before it") {
					t.Errorf("seed %d: got %v, want no error (a sound set)\nfiles (%s):\n%s", seed, p, set.mode(), set.show())
				}
			}
			continue
		}
		if diff := diffQuestions(got, set.want); diff != "" {
			t.Errorf("seed %d: the parser returned other questions than were written, and no error: %s\nfiles (%s):\n%s", seed, diff, set.mode(), set.show())
		}
	}
	t.Logf("%d of %d sets refused", errored, cases)
}

// genBanks are exam names, two of which end like another.
var genBanks = []string{"AWS Cloud Practitioner", "Cloud Practitioner", "Net+ Prep", "Data Engineering 101", "C++ Basics", "Kubernetes CKA", "Question Bank", "Sécurité réseau"}

var genWords = strings.Fields("the a data model node cluster replica latency Question question request cache bucket policy role user group region zone 12 2024 v3 é café (beta) select answer correct explanation option key value queue stream shard join index")

type genQuestion struct {
	q     Question
	lines []string // without the title
}

type genSet struct {
	want       []Question
	files      [][]byte
	defaults   []string // DefaultBank per file (concatenated: the first)
	concat     bool
	finalNL    []bool
	crlf       []bool
	dataCat    []byte
	defaultCat string
}

func newGenSet(rng *rand.Rand) *genSet {
	var qs []genQuestion
	nBanks := 1 + rng.IntN(3)
	banks := make([]string, 0, nBanks)
	for _, i := range rng.Perm(len(genBanks))[:nBanks] {
		banks = append(banks, genBanks[i])
	}
	for _, bank := range banks {
		n := 1 + rng.IntN(5)
		for _, num := range rng.Perm(80)[:n] {
			qs = append(qs, genQ(rng, bank, num+1))
		}
	}
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	// Files of one to three questions, in any order.
	var groups [][]genQuestion
	for i := 0; i < len(qs); {
		n := 1
		if rng.IntN(3) == 0 {
			n = 1 + rng.IntN(3)
		}
		n = min(n, len(qs)-i)
		groups = append(groups, qs[i:i+n])
		i += n
	}
	s := &genSet{concat: rng.IntN(2) == 0}
	for _, q := range qs {
		s.want = append(s.want, q.q)
	}
	prevBank := "" // bank of the question before, in the same parsed file
	for gi, g := range groups {
		def := "" // the loader passes the folder's name
		if !s.concat || gi == 0 {
			prevBank = ""
			if rng.IntN(3) == 0 {
				def = g[0].q.Bank
			}
		}
		var ls []string
		for _, q := range g {
			bare := rng.IntN(2) == 0 && (prevBank == q.q.Bank || (prevBank == "" && def == q.q.Bank))
			ls = append(ls, genTitle(rng, q.q.Bank, q.q.Number, bare))
			ls = append(ls, q.lines...)
			prevBank = q.q.Bank
		}
		nl, crlf := rng.IntN(2) == 0, rng.IntN(4) == 0
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
		s.files = append(s.files, []byte(text))
		s.defaults = append(s.defaults, def)
		s.finalNL = append(s.finalNL, nl)
		s.crlf = append(s.crlf, crlf)
	}
	if s.concat {
		s.dataCat = []byte(string(slices.Concat(s.files...)))
		s.defaultCat = s.defaults[0]
	}
	return s
}

// genTitle writes a title in one of the forms people paste.
func genTitle(rng *rand.Rand, bank string, n int, bare bool) string {
	if bare {
		forms := []string{"Question %d", "Question #%d", "question %d", "Question %d of 90"}
		return fmt.Sprintf(forms[rng.IntN(len(forms))], n)
	}
	forms := []string{
		"%s Question %d", "%s Question %d", "%s - Question %d", "%s: Question %d", "%s Question #%d",
		"%s Question %d of 90", "%s question %d", "%s QUESTION %d", "%s\u00a0Question\u00a0%d",
		"%s – Question %d", "%s — Question #%d of 90", "%s | Question %d", "%s  Question %d",
	}
	return fmt.Sprintf(forms[rng.IntN(len(forms))], bank, n)
}

// genSentence is prose ending with punctuation, never shaped like an
// element.
func genSentence(rng *rand.Rand) string {
	n := 1 + rng.IntN(9)
	var b strings.Builder
	b.Grow(10 * (n + 1))
	for i := range n {
		w := genWords[rng.IntN(len(genWords))]
		if i > 0 {
			b.WriteByte(' ')
			b.WriteString(w)
			continue
		}
		switch w {
		case "select", "correct", "explanation": // the elements' words start no sentence
			w = "the " + w
		}
		if c := w[0]; c >= 'a' && c <= 'z' {
			b.WriteByte(c - 'a' + 'A')
			w = w[1:]
		}
		b.WriteString(w)
	}
	b.WriteString(sentenceEnds[rng.IntN(len(sentenceEnds))])
	return b.String()
}

var sentenceEnds = []string{".", "?", "!", ".", ".", ":)"}

// genText is one to three lines of prose, maybe with a paragraph break or
// a fenced code block with indented lines; it returns the lines and the
// text the parser should make of them.
func genText(rng *rand.Rand) ([]string, string) {
	n := 1 + rng.IntN(3)
	ls := make([]string, 0, 2*n+6)
	for i := range n {
		if i > 0 && rng.IntN(4) == 0 {
			ls = append(ls, "")
		}
		ls = append(ls, genSentence(rng))
	}
	if rng.IntN(4) == 0 {
		ls = append(ls, "```python", "def f(x):", "    if x:", "", "        return x  # indented", "```")
	}
	return ls, strings.Join(ls, "\n")
}

func genQ(rng *rand.Rand, bank string, number int) genQuestion {
	nOpts := 2 + rng.IntN(5)
	if rng.IntN(20) == 0 {
		nOpts = MaxOptions
	}
	q := Question{ID: bank + "#" + strconv.Itoa(number), Bank: bank, Number: number}
	var correct []string
	for i := range nOpts {
		c := rng.IntN(3) == 0
		q.Options = append(q.Options, Option{Letter: Letter(i), Correct: c})
	}
	if q.SelectCount() == 0 {
		q.Options[rng.IntN(nOpts)].Correct = true
	}
	for _, o := range q.Options {
		if o.Correct {
			correct = append(correct, o.Letter)
		}
	}
	var ls []string
	stem, stemText := genText(rng)
	if rng.IntN(10) == 0 {
		stem[0] = "10 servers fail. " + stem[0]
		stemText = "10 servers fail. " + stemText
	}
	q.Stem = stemText
	switch rng.IntN(3) {
	case 0:
		ls = append(ls, "Select "+strconv.Itoa(len(correct))+stem[0])
		ls = append(ls, stem[1:]...)
	case 1:
		ls = append(ls, "Select "+strconv.Itoa(len(correct))+" "+stem[0])
		ls = append(ls, stem[1:]...)
	default:
		ls = append(ls, "Select "+strconv.Itoa(len(correct)))
		ls = append(ls, stem...)
	}
	for i := range q.Options {
		text, want := genText(rng)
		q.Options[i].Text = want
		ls = append(ls, "- "+Letter(i))
		ls = append(ls, text...)
	}
	if rng.IntN(2) == 0 {
		ls = append(ls, noiseLine)
	}
	if len(correct) == 1 && rng.IntN(2) == 0 {
		ls = append(ls, "Correct answer: "+correct[0])
	} else {
		ls = append(ls, "Correct answers: "+strings.Join(correct, ", "))
	}
	if rng.IntN(3) > 0 {
		text, want := genText(rng)
		q.Explanation = want
		ls = append(ls, "Explanation")
		ls = append(ls, text...)
	}
	for i, o := range q.Options {
		if rng.IntN(2) == 0 {
			continue
		}
		verdict := "Incorrect."
		if o.Correct {
			verdict = "Correct."
		}
		text, want := genText(rng)
		q.Options[i].Rationale = want
		switch rng.IntN(3) {
		case 0:
			ls = append(ls, "- "+o.Letter+". "+verdict)
			ls = append(ls, text...)
		case 1:
			ls = append(ls, "- "+o.Letter+". "+verdict, verdict+" "+text[0])
			ls = append(ls, text[1:]...)
		default:
			ls = append(ls, "- "+o.Letter+". "+verdict+" "+text[0])
			ls = append(ls, text[1:]...)
		}
	}
	return genQuestion{q: q, lines: ls}
}

func (s *genSet) mode() string {
	if s.concat {
		return "concatenated, default bank " + fmt.Sprintf("%q", s.defaultCat)
	}
	return fmt.Sprintf("parsed one by one, default banks %q", s.defaults)
}

func (s *genSet) show() string {
	var b strings.Builder
	for i, f := range s.files {
		fmt.Fprintf(&b, "--- file %d (final newline %v, CRLF %v)\n%s\n", i, s.finalNL[i], s.crlf[i], f)
	}
	return b.String()
}

// parse parses the files as the set says and returns the questions, and
// the errors if any.
func (s *genSet) parse() ([]Question, Problems) {
	var qs []Question
	var ps Problems
	add := func(banks []Bank, fps Problems) {
		ps = append(ps, fps...)
		for _, b := range banks {
			qs = append(qs, b.Questions...)
		}
	}
	if s.concat {
		add(ParseFile("all.txt", s.dataCat, ParseOptions{DefaultBank: s.defaultCat}))
	} else {
		for i, f := range s.files {
			add(ParseFile(fmt.Sprintf("q%d.txt", i), f, ParseOptions{DefaultBank: s.defaults[i]}))
		}
	}
	return qs, ps.Errors()
}

// diffQuestions compares questions by ID, ignoring their order and lines.
func diffQuestions(got, want []Question) string {
	index := func(qs []Question) map[string]Question {
		m := map[string]Question{}
		for _, q := range qs {
			q.Line = 0
			m[q.ID] = q
		}
		return m
	}
	g, w := index(got), index(want)
	if len(got) != len(want) || len(g) != len(got) {
		return fmt.Sprintf("got %d questions %q, want %d %q", len(got), ids([]Bank{{Questions: got}}), len(want), ids([]Bank{{Questions: want}}))
	}
	for id, wq := range w {
		gq, ok := g[id]
		if !ok {
			return fmt.Sprintf("missing %q; got %q", id, ids([]Bank{{Questions: got}}))
		}
		if !reflect.DeepEqual(gq, wq) {
			return fmt.Sprintf("question %q:\ngot  %s\nwant %s", id, dump(gq), dump(wq))
		}
	}
	return ""
}

// Tables never lose a question silently either: generated questions,
// written as a spreadsheet or a flashcard tool writes them (CSV with
// commas or semicolons, TSV, tab-separated text pasted as .txt; columns in
// any order and spelling; cells quoted where they hold the delimiter,
// quotes or line breaks; CRLF or LF, with or without a final newline, a
// byte-order mark, UTF-16), parse to exactly the questions written, or to
// an error (an answer that reads two ways, say), never to other questions
// without one.
func TestParseTableProperty(t *testing.T) {
	t.Parallel() // CPU-bound: beside the package's other tests
	const cases = 300
	refused := 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 18))
		g := newGenTable(rng)
		banks, ps := ParseFile(g.path, g.data, ParseOptions{DefaultBank: g.defaultBank})
		if err := ps.Err(); err != nil {
			refused++
			for _, p := range ps.Errors() {
				if !strings.Contains(p.Msg, "can be read as") {
					t.Errorf("seed %d: got %v, want no error but an ambiguous answer\n%s", seed, p, g.show())
				}
			}
			continue
		}
		var got []Question
		for _, b := range banks {
			got = append(got, b.Questions...)
		}
		if diff := diffQuestions(got, g.want); diff != "" {
			t.Errorf("seed %d: the parser returned other questions than were written, and no error: %s\n%s", seed, diff, g.show())
		}
	}
	if refused > cases/10 {
		t.Errorf("%d of %d tables refused, want at most a tenth", refused, cases)
	}
	t.Logf("%d of %d tables refused", refused, cases)
}

// genTable is a generated table file and the questions it holds.
type genTable struct {
	path        string
	data        []byte
	text        string // before encoding, for failure messages
	defaultBank string
	want        []Question
}

func (g *genTable) show() string { return g.path + ":\n" + g.text }

// genCell is the text of a generated cell and what the parser should make
// of it: prose on one or more lines, maybe a fenced code block, maybe code
// written without a fence (which the parser fences).
func genCell(rng *rand.Rand) (string, string) {
	ls, want := genText(rng)
	cell := strings.Join(ls, "\n")
	if rng.IntN(8) == 0 {
		cell += "\ndef h(y):\n    return y"
		want += "\n```\ndef h(y):\n    return y\n```"
	}
	return cell, want
}

func newGenTable(rng *rand.Rand) *genTable {
	g := &genTable{}
	delim := []rune{',', ';', '\t', '\t'}[rng.IntN(4)]
	switch {
	case delim != '\t':
		g.path = "bank.csv"
	case rng.IntN(2) == 0:
		g.path = "bank.tsv"
	default:
		g.path = "pasted text.txt"
	}
	bankCol := rng.IntN(2) == 0
	if !bankCol {
		g.defaultBank = genBanks[rng.IntN(len(genBanks))]
	}
	idMode := rng.IntN(3) // 0: ContentID, 1: number column, 2: id column
	nOpts := 2 + rng.IntN(5)
	hasExpl, hasTopic, hasWhy := rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(3) == 0
	pick := func(names ...string) string { return names[rng.IntN(len(names))] }

	// Columns, in any order: the header's name and each row's cell.
	type column struct {
		name string
		cell func(r int) string
	}
	n := 1 + rng.IntN(6)
	cells := make([]map[string]string, n)
	for r := range cells {
		cells[r] = map[string]string{}
	}
	perBank := map[string]int{}
	for r := range n {
		q := Question{}
		q.Bank = g.defaultBank
		if bankCol {
			q.Bank = genBanks[rng.IntN(3)]
			cells[r]["bank"] = q.Bank
		}
		perBank[q.Bank]++
		q.Number = perBank[q.Bank]
		cells[r]["question"], q.Stem = genCell(rng)
		var correct []int
		for i := range nOpts {
			text := genSentence(rng)
			cells[r][fmt.Sprintf("option %d", i)] = text
			c := rng.IntN(3) == 0
			q.Options = append(q.Options, Option{Letter: Letter(i), Text: text, Correct: c})
			if hasWhy && rng.IntN(2) == 0 {
				why, wantWhy := genCell(rng)
				cells[r][fmt.Sprintf("why %d", i)] = why
				q.Options[i].Rationale = wantWhy
			}
		}
		for i, o := range q.Options {
			if o.Correct {
				correct = append(correct, i)
			}
		}
		if len(correct) == 0 {
			i := rng.IntN(nOpts)
			q.Options[i].Correct = true
			correct = []int{i}
		}
		var letters, numbers, texts []string
		for _, i := range correct {
			letters = append(letters, Letter(i))
			numbers = append(numbers, fmt.Sprint(i+1))
			texts = append(texts, q.Options[i].Text)
		}
		switch rng.IntN(5) {
		case 0:
			cells[r]["answer"] = strings.Join(letters, ", ")
		case 1:
			cells[r]["answer"] = strings.Join(letters, "")
		case 2:
			cells[r]["answer"] = strings.ToLower(strings.Join(letters, " and "))
		case 3:
			cells[r]["answer"] = strings.Join(numbers, ",")
		default:
			cells[r]["answer"] = strings.Join(texts, " | ")
		}
		if hasExpl {
			cells[r]["explanation"], q.Explanation = genCell(rng)
		}
		if hasTopic && rng.IntN(3) > 0 {
			tags := []string{genWords[rng.IntN(len(genWords))], genBanks[rng.IntN(len(genBanks))]}
			if tags[0] == tags[1] {
				tags = tags[:1]
			}
			cells[r]["topic"] = strings.Join(tags, ", ")
			q.Tags = tags
		}
		switch idMode {
		case 0:
			q.ID = ContentID(q.Bank, q.Stem)
		case 1:
			q.Number = 10*r + 1 + rng.IntN(9)
			cells[r]["number"] = fmt.Sprint(q.Number)
			q.ID = fmt.Sprintf("%s#%d", q.Bank, q.Number)
		case 2:
			q.ID = fmt.Sprintf("id-%d-%s", r, genWords[rng.IntN(len(genWords))])
			cells[r]["id"] = q.ID
		}
		g.want = append(g.want, q)
	}
	// Two questions with the same text and no id or number would share
	// an ID: a mistake the generator does not make.
	if idMode == 0 {
		seen := map[string]bool{}
		for _, q := range g.want {
			if seen[q.ID] {
				return newGenTable(rng)
			}
			seen[q.ID] = true
		}
	}
	cols := []column{
		{pick("Question", "question", "Question text", "Stem"), func(r int) string { return cells[r]["question"] }},
		{pick("Answer", "Correct answer", "correct", "Answer key"), func(r int) string { return cells[r]["answer"] }},
	}
	for i := range nOpts {
		name := pick(Letter(i), "Option "+Letter(i), "option_"+strings.ToLower(Letter(i)), fmt.Sprintf("Choice %d", i+1))
		cols = append(cols, column{name, func(r int) string { return cells[r][fmt.Sprintf("option %d", i)] }})
		if hasWhy {
			cols = append(cols, column{pick("Explanation ", "Rationale ") + Letter(i), func(r int) string { return cells[r][fmt.Sprintf("why %d", i)] }})
		}
	}
	for _, c := range []struct {
		key, name string
		on        bool
	}{{"bank", "Bank", bankCol}, {"explanation", "Explanation", hasExpl}, {"topic", pick("Topic", "Tags"), hasTopic}, {"number", "Number", idMode == 1}, {"id", "ID", idMode == 2}} {
		if c.on {
			cols = append(cols, column{c.name, func(r int) string { return cells[r][c.key] }})
		}
	}
	rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Comma, w.UseCRLF = delim, rng.IntN(3) == 0
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	w.Write(header)
	for r := range n {
		rec := make([]string, len(cols))
		for i, c := range cols {
			rec[i] = c.cell(r)
		}
		w.Write(rec)
	}
	w.Flush()
	text := b.String()
	if rng.IntN(3) == 0 {
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	}
	if rng.IntN(4) == 0 {
		text = "\uFEFF" + text
	}
	g.text, g.data = text, []byte(text)
	if rng.IntN(5) == 0 {
		g.data = notepadUnicode(strings.ReplaceAll(text, "\r\n", "\n"))
	}
	return g
}
