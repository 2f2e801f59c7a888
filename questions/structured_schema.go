package questions

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The bank schema: decoding the tree into a Bank, strictly (see README.md,
// "Structured banks").

type sdecoder struct {
	path    string
	probs   Problems
	lenient bool     // YAML: any scalar may be read as a string
	max     int      // ParseOptions.MaxProblems: list at most max, count the rest (0: see maxStructuredProblems)
	found   int      // problems found, listed or not: whether a question decoded cleanly
	omit    omission // problems found past max
}

// maxStructuredProblems bounds the problems reported for one structured
// file when the caller sets no ParseOptions.MaxProblems: a hostile file of
// a million unknown keys would otherwise cost a problem, and memory, for
// each.
const maxStructuredProblems = 1000

func (d *sdecoder) problem(line int, format string, args ...any) {
	d.found++
	switch {
	case d.max > 0:
		d.probs.addMax(d.max, &d.omit, d.path, line, format, args...)
	case len(d.probs) < maxStructuredProblems:
		d.probs.add(d.path, line, format, args...)
	case len(d.probs) == maxStructuredProblems:
		d.probs.add(d.path, line, "more than %d problems; the rest are not reported", maxStructuredProblems)
	}
}

// fields checks that n is a map with only the allowed keys, each at most
// once, and returns its keys by name.
func (d *sdecoder) fields(n *snode, what string, allowed ...string) map[string]*skey {
	if n.kind != snMap {
		d.problem(n.line, "%s must be a mapping of fields (%s)", what, strings.Join(allowed, ", "))
		return nil
	}
	out := make(map[string]*skey, len(n.keys))
	for i := range n.keys {
		k := &n.keys[i]
		switch {
		case !contains(allowed, k.name):
			d.problem(k.line, "unknown field %q in %s (want %s)", clip(k.name), what, strings.Join(allowed, ", "))
		case out[k.name] != nil:
			d.problem(k.line, "field %q repeated (first at line %d)", k.name, out[k.name].line)
		default:
			out[k.name] = k
		}
	}
	return out
}

func (d *sdecoder) str(k *skey) string {
	if k == nil {
		return ""
	}
	switch v := k.val; {
	case v.kind == snNull:
		return ""
	case v.kind == snString, d.lenient && v.kind < snMap:
		return strings.TrimSpace(v.value)
	}
	d.problem(k.val.line, "%s must be a string", k.name)
	return ""
}

func (d *sdecoder) boolean(k *skey) bool {
	if k == nil || k.val.kind == snNull {
		return false
	}
	if k.val.kind != snBool {
		d.problem(k.val.line, "%s must be true or false", k.name)
		return false
	}
	b, _ := strconv.ParseBool(k.val.value)
	if d.lenient { // YAML spells booleans in several ways
		b = strings.EqualFold(k.val.value, "true")
	}
	return b
}

// integer returns the whole number at k, or 0 when k is absent; -1 after a
// reported problem.
func (d *sdecoder) integer(k *skey, min, max int) int {
	if k == nil || k.val.kind == snNull {
		return 0
	}
	n, err := strconv.Atoi(k.val.value)
	if k.val.kind != snInt || err != nil || n < min || n > max {
		d.problem(k.val.line, "%s must be a whole number from %d to %d", k.name, min, max)
		return -1
	}
	return n
}

func (d *sdecoder) strings(k *skey) []string {
	if k == nil || k.val.kind == snNull {
		return nil
	}
	if k.val.kind != snList {
		d.problem(k.val.line, "%s must be a list of strings", k.name)
		return nil
	}
	var out []string
	for _, it := range k.val.items {
		s := d.str(&skey{name: k.name + " entry", line: it.line, val: it})
		if s == "" {
			d.problem(it.line, "empty entry in %s", k.name)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *sdecoder) bank(root *snode) *Bank {
	f := d.fields(root, "the bank", "bank", "source", "questions", "exam")
	if f == nil {
		return nil
	}
	exam := d.exam(f["exam"])
	name := d.str(f["bank"])
	if f["bank"] == nil || name == "" {
		d.problem(root.line, "missing bank name (bank: <name>)")
	}
	source := d.str(f["source"])
	qs := f["questions"]
	if qs == nil || qs.val.kind == snNull || (qs.val.kind == snList && len(qs.val.items) == 0) {
		line := root.line
		if qs != nil {
			line = qs.line
		}
		d.problem(line, "the bank has no questions (questions: [...])")
		return nil
	}
	if qs.val.kind != snList {
		d.problem(qs.val.line, "questions must be a list")
		return nil
	}
	b := &Bank{Name: name, Path: d.path, Exam: exam}
	ids := map[string]int{}
	numbers := map[int]int{} // explicit numbers only
	for i, item := range qs.val.items {
		q, how, ok := d.question(item, i+1, name, source)
		dupNumber := false
		if q.Number > 0 && numbered(item) {
			if first, dup := numbers[q.Number]; dup {
				d.problem(q.Line, "question number %d used twice (first at line %d)", q.Number, first)
				ok, dupNumber = false, true
			} else {
				numbers[q.Number] = q.Line
			}
		}
		if q.ID != "" && !dupNumber {
			if first, dup := ids[q.ID]; dup {
				if how == idFromText {
					d.problem(q.Line, "question id %q used twice (first at line %d): both questions have this text and no id; give each an id", clip(q.ID), first)
				} else {
					d.problem(q.Line, "question id %q used twice (first at line %d)", clip(q.ID), first)
				}
				ok = false
			} else {
				ids[q.ID] = q.Line
			}
		}
		if ok && name != "" {
			b.Questions = append(b.Questions, q)
		}
	}
	return b
}

// numbered reports whether the question n gives a number (a null one, as
// in "number:", is none).
func numbered(n *snode) bool {
	for _, k := range n.keys {
		if k.name == "number" && k.val.kind != snNull {
			return true
		}
	}
	return false
}

// idSource says where a structured question's ID came from.
type idSource int

const (
	idDefault    idSource = iota // no ID (a problem was reported)
	idExplicit                   // id: ...
	idFromNumber                 // number: N, without an id
	idFromText                   // neither: ContentID
)

// question decodes one question at position pos (1-based); ok is false
// when it had a problem. how tells where its ID came from.
func (d *sdecoder) question(n *snode, pos int, bank, source string) (q Question, how idSource, ok bool) {
	before := d.found
	q = Question{Bank: bank, Line: n.line, Number: pos}
	f := d.fields(n, "a question", "id", "number", "select", "question", "options", "explanation", "tags", "source", "community")
	if f == nil {
		return q, idDefault, false
	}
	q.Stem = d.str(f["question"])
	if q.Stem == "" {
		d.problem(n.line, "the question has no text (question: ...)")
	}
	number := f["number"]
	if number != nil && number.val.kind == snNull {
		number = nil // "number:" is no number
	}
	if number != nil {
		q.Number = d.integer(number, 1, maxQuestionNumber)
	}
	switch k := f["id"]; {
	case k != nil:
		if q.ID = d.str(k); q.ID == "" {
			d.problem(k.line, "id must not be empty (leave it out to identify the question by its number or its text)")
		} else {
			how = idExplicit
		}
	case number != nil && q.Number > 0:
		q.ID, how = fmt.Sprintf("%s#%d", bank, q.Number), idFromNumber
	case number == nil && q.Stem != "":
		q.ID, how = ContentID(bank, q.Stem), idFromText
	}
	q.Explanation = d.str(f["explanation"])
	q.Tags = d.strings(f["tags"])
	q.Source = cmp.Or(d.str(f["source"]), source)
	sel := d.integer(f["select"], 1, MaxOptions)
	opts := f["options"]
	switch {
	case opts == nil || opts.val.kind == snNull:
		d.problem(n.line, "the question has no options; at least 2 are needed")
	case opts.val.kind != snList:
		d.problem(opts.val.line, "options must be a list")
	case len(opts.val.items) < 2:
		d.problem(opts.line, "the question has %d option(s); at least 2 are needed", len(opts.val.items))
	case len(opts.val.items) > MaxOptions:
		d.problem(opts.val.items[MaxOptions].line, "more than %d options (Discord's select menu holds at most %d)", MaxOptions, MaxOptions)
	default:
		optProbs := d.found
		for i, it := range opts.val.items {
			q.Options = append(q.Options, d.option(it, i))
		}
		if c := q.SelectCount(); c == 0 && d.found == optProbs {
			d.problem(opts.line, "no option is marked correct: true")
		} else if sel > 0 && sel != c {
			d.problem(f["select"].val.line, "select: %d disagrees with the %d option(s) marked correct", sel, c)
		}
	}
	q.Community = d.community(f["community"], len(q.Options))
	return q, how, d.found == before
}

// community decodes a question's community votes (a practice site's
// "Community vote distribution"): a list of {answer: BC, percent: 60},
// the answer one or more option letters ("B", "BC" or "B, C"), the
// percent a whole number from 0 to 100. They come back most voted first,
// each one's letters in letter order.
func (d *sdecoder) community(k *skey, options int) []CommunityVote {
	if k == nil || k.val.kind == snNull {
		return nil
	}
	if k.val.kind != snList {
		d.problem(k.val.line, "community must be a list of votes ({answer: B, percent: 71})")
		return nil
	}
	var out []CommunityVote
	for _, it := range k.val.items {
		f := d.fields(it, "a community vote", "answer", "percent")
		if f == nil {
			continue
		}
		v := CommunityVote{Percent: d.integer(f["percent"], 0, 100)}
		if f["percent"] == nil {
			d.problem(it.line, "the community vote has no percent (percent: 71)")
		}
		tokens := answerTokens(d.str(f["answer"]))
		if len(tokens) == 1 {
			if letters, ok := voteLetters(tokens[0]); ok {
				tokens = letters // "CB"
			}
		}
		switch {
		case f["answer"] == nil || len(tokens) == 0:
			d.problem(it.line, "the community vote has no answer (answer: B, or BC for two options)")
		case !allLetters(tokens):
			d.problem(f["answer"].val.line, "the answer of a community vote must be option letters (B, or BC for two options)")
		default:
			slices.Sort(tokens)
			v.Letters = slices.Compact(tokens)
			for _, l := range v.Letters {
				if LetterIndex(l) >= options {
					d.problem(f["answer"].val.line, "community vote for %s, which is not an option (options are %s)", l, letterRange(options))
				}
			}
		}
		out = append(out, v)
	}
	slices.SortStableFunc(out, func(a, b CommunityVote) int { return cmp.Compare(b.Percent, a.Percent) })
	return out
}

func (d *sdecoder) option(n *snode, i int) Option {
	o := Option{Letter: Letter(i)}
	if n.kind == snString || (d.lenient && n.kind > snNull && n.kind < snMap) {
		d.problem(n.line, "option %s must be a mapping with text: (and correct:, why:)", o.Letter)
		return o
	}
	f := d.fields(n, "an option", "text", "correct", "why")
	if f == nil {
		return o
	}
	o.Text = d.str(f["text"])
	if o.Text == "" {
		d.problem(n.line, "option %s has no text", o.Letter)
	}
	o.Correct = d.boolean(f["correct"])
	o.Rationale = d.str(f["why"])
	return o
}
