package questions

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits that Validate enforces besides MaxOptions, MaxStemLength,
// MaxBodyLength, MaxExplanationLength and MaxRationaleLength.
const (
	// MaxBankNameLength is the longest bank name in runes: bank names are
	// offered as autocomplete choices, whose names Discord caps at 100.
	MaxBankNameLength = 100
	// MaxIDLength is the longest question ID in bytes; storage keys embed it.
	MaxIDLength = 200
	// MaxTagLength is the longest tag in runes.
	MaxTagLength = 100
)

// Parse parses a bank file of any format, chosen by FormatOf(path), and
// validates the result with Validate. The error, when not nil, is Problems
// listing every error of the file (warnings left out: see ParseFile); the
// banks then still hold the questions that parsed and validated cleanly
// (and only those), for a caller that wants to count them.
func Parse(path string, data []byte) ([]Bank, error) {
	banks, ps := ParseFile(path, data, ParseOptions{})
	return banks, ps.Err()
}

// ParseOptions are the choices a caller makes about a file beyond its
// contents.
type ParseOptions struct {
	// DefaultBank names the bank of questions whose file does not name one.
	// In exam text, a bare title "Question 12" (or a practice site's
	// "Question #12 Topic 1") takes the bank of the title before it in the
	// file, or of a "Bank: <name>" line before it; DefaultBank is the bank
	// of one that comes before both, and of Aiken questions when no
	// "Bank:" line names theirs. With "" such a question is an error. In a
	// table, it is the bank of a row with no bank column (with "", a *.csv
	// or *.tsv file's name, and an error for a table pasted as text).
	DefaultBank string
	// SkipNonBank is for files read from disk, where other files collect
	// among the banks (a package.json, a notes.txt): a file that is not a
	// question bank at all is skipped with a warning that says so, instead
	// of an error. Not a bank at all means, for exam text, no line shaped
	// like a title; for a structured file, one that is empty, or that
	// neither has a "bank" or "questions" field at its top level nor holds
	// a question anywhere (see isBankShaped), or that cannot be read and
	// never mentions a bank or a question. A file that is recognisably a
	// bank reports its mistakes as errors either way. Leave it false for a
	// file chosen as a bank (an upload, a paste): not being one is then the
	// mistake to report (an unreadable file is reported as it reads).
	SkipNonBank bool
	// MaxProblems, when not 0, bounds the problems listed for the file:
	// the first MaxProblems (errors before warnings), then one summary
	// (Problem.Omitted) of how many more there are. Past the bound the
	// parsers count problems instead of building them, so a file of a
	// million mistakes costs a counter, not a million Problems. For files
	// from members (uploads, pastes).
	MaxProblems int
	// MaxValues, when not 0, bounds the values (strings, numbers, lists,
	// mappings) a YAML or JSON file may hold: reading stops at the first
	// value past it, with one problem, so that a file built to be a huge
	// tree is refused before that tree is built. A JSON file whose first
	// token does not open an object (a bank is one) is refused on that
	// token, and a YAML file with more than twice MaxValues marks that
	// start a value (- : , ? [ {) before it is parsed. A bank needs about
	// ten values a question. It bounds a table's cells (CSV, TSV,
	// tab-separated text) likewise: a table is read whole before its rows
	// are parsed, and refused at the first cell past the bound.
	MaxValues int
}

// notABank reports that the file at path is not a question bank at all,
// for reason: an error, or with opt.SkipNonBank a warning that ends with
// advice on what to do with a stray file.
func (ps *Problems) notABank(path string, opt ParseOptions, reason, advice string) {
	if opt.SkipNonBank {
		ps.warn(path, 0, "not a question bank: %s; %s", reason, advice)
		return
	}
	ps.add(path, 0, "not a question bank: %s", reason)
}

// ParseFile is Parse returning every problem, warnings included (see
// Problem.Warning); the file is usable when ps.Err() is nil.
func ParseFile(path string, data []byte, opt ParseOptions) (banks []Bank, ps Problems) {
	return parse(path, data, opt)
}

func parse(path string, data []byte, opt ParseOptions) ([]Bank, Problems) {
	f, ok := FormatOf(path)
	if !ok {
		return nil, Problems{{Path: path, Msg: "not a bank file (want .txt, .aiken, .yaml, .yml, .json, .gift, .csv or .tsv)"}}
	}
	var banks []Bank
	var ps Problems
	switch f {
	case FormatText:
		banks, ps = parseText(path, data, opt)
	case FormatAiken:
		banks, ps = parseTextShape(path, data, opt, true)
	case FormatCSV, FormatTSV:
		banks, ps = parseTable(path, data, f, opt)
	case FormatYAML, FormatJSON:
		banks, ps = parseStructured(path, data, f, opt)
	case FormatGIFT:
		banks, ps = parseGIFT(path, data, opt)
	}
	vps, bad := validate(banks, opt.MaxProblems)
	ps = append(ps, vps...)
	ps.sortByLine()
	if opt.MaxProblems > 0 {
		ps = ps.limit(opt.MaxProblems)
	}
	return dropInvalid(banks, bad), ps
}

// invalid marks what validate refused: a whole bank (question -1) or one
// question of it, by index.
type invalid map[[2]int]bool

// dropInvalid returns banks without the banks and questions bad marks, and
// without banks left with no question; banks is not modified.
func dropInvalid(banks []Bank, bad invalid) []Bank {
	if len(bad) == 0 {
		return banks
	}
	var out []Bank
	for bi, b := range banks {
		if bad[[2]int{bi, -1}] {
			continue
		}
		var keep []Question
		for qi, q := range b.Questions {
			if !bad[[2]int{bi, qi}] {
				keep = append(keep, q)
			}
		}
		if len(keep) > 0 {
			b.Questions = keep
			out = append(out, b)
		}
	}
	return out
}

// Validate checks banks against the limits that would break posting them
// on Discord and the rules every bank must keep whatever its format: a bank
// name of 1 to MaxBankNameLength runes and at least one question; for each
// question a non-empty ID of at most MaxIDLength bytes, unique among banks;
// a stem; 2 to MaxOptions options lettered in order, each with text, at
// least one correct; a stem of at most MaxStemLength runes and a Body of
// at most MaxBodyLength (what one post holds: see MaxBodyLength), an explanation
// of at most MaxExplanationLength, rationales of at most MaxRationaleLength
// and tags of 1 to MaxTagLength runes; community votes as
// validateCommunity says. Long option text is allowed: the
// bot shows it in full in the embed and cuts only the select label.
// Problems name each bank's Path and each question's Line.
func Validate(banks []Bank) Problems {
	ps, _ := validate(banks, 0)
	return ps
}

// validate is Validate listing at most max problems (0: all), then a
// summary of the rest (see ParseOptions.MaxProblems), and marking what it
// refuses: a bank whose name is refused, and each question with a problem
// (of two with the same ID, the second), listed or not.
func validate(banks []Bank, max int) (Problems, invalid) {
	var ps Problems
	bad := invalid{}
	var omitted omission
	path := ""
	found := 0                 // problems found, listed or not: whether a question had one
	ids := map[string]string{} // ID → where first seen
	for bi := range banks {
		b := &banks[bi]
		path = b.Path
		where := func(line int, format string, args ...any) {
			found++
			ps.addMax(max, &omitted, b.Path, line, format, args...)
		}
		if n := utf8.RuneCountInString(b.Name); n == 0 || n > MaxBankNameLength {
			where(firstLine(b), "bank name %q is %d characters; it must be 1 to %d (it is offered as an autocomplete choice)", clip(b.Name), n, MaxBankNameLength)
			bad[[2]int{bi, -1}] = true
		}
		if len(b.Questions) == 0 {
			where(0, "bank %q has no questions", clip(b.Name))
		}
		if b.Exam != nil {
			path := b.Exam.Path
			if path == "" {
				path = b.Path
			}
			checkExam(b.Exam, func(line int, format string, args ...any) {
				found++
				ps.addMax(max, &omitted, path, line, format, args...)
			})
		}
		for qi := range b.Questions {
			q := &b.Questions[qi]
			before := found
			validateQuestion(q, func(format string, args ...any) { where(q.Line, format, args...) })
			if q.ID != "" {
				here := fmt.Sprintf("%s:%d", b.Path, q.Line)
				if first, dup := ids[q.ID]; dup {
					where(q.Line, "question id %q used twice (first at %s)", clip(q.ID), first)
				} else {
					ids[q.ID] = here
				}
			}
			if found > before {
				bad[[2]int{bi, qi}] = true
			}
		}
	}
	ps.omitted(path, omitted)
	return ps, bad
}

func firstLine(b *Bank) int {
	if len(b.Questions) > 0 {
		return b.Questions[0].Line
	}
	return 0
}

func validateQuestion(q *Question, problem func(format string, args ...any)) {
	switch {
	case q.ID == "":
		problem("the question has no id")
	case len(q.ID) > MaxIDLength:
		problem("question id is %d bytes; at most %d are allowed", len(q.ID), MaxIDLength)
	}
	if strings.TrimSpace(q.Stem) == "" {
		problem("the question has no text")
	}
	switch n := len(q.Options); {
	case n < 2:
		problem("the question has %d option(s); at least 2 are needed", n)
	case n > MaxOptions:
		problem("the question has %d options; Discord's select menu holds at most %d", n, MaxOptions)
	}
	for i, o := range q.Options {
		if i < MaxOptions && o.Letter != Letter(i) {
			problem("option %d has letter %q, want %s", i+1, o.Letter, Letter(i))
		}
		if strings.TrimSpace(o.Text) == "" {
			problem("option %s has no text", o.Letter)
		}
		if n := utf8.RuneCountInString(o.Rationale); n > MaxRationaleLength {
			problem("the rationale of option %s is %d characters; a Discord embed field holds at most %d", o.Letter, n, MaxRationaleLength)
		}
	}
	if len(q.Options) > 0 && q.SelectCount() == 0 {
		problem("no option is correct")
	}
	if n := utf8.RuneCountInString(q.Stem); n > MaxStemLength {
		problem("the question text is %d characters; a Discord embed description holds at most %d", n, MaxStemLength)
	} else if n := utf8.RuneCountInString(q.Body()); n > MaxBodyLength {
		problem("question text and options are %d characters; one post holds at most %d (Discord's 6000 for a message's embeds, less the title)", n, MaxBodyLength)
	}
	if n := utf8.RuneCountInString(q.Explanation); n > MaxExplanationLength {
		problem("the explanation is %d characters; a Discord embed description holds at most %d", n, MaxExplanationLength)
	}
	for _, t := range q.Tags {
		if n := utf8.RuneCountInString(t); n == 0 || n > MaxTagLength {
			problem("tag %q is %d characters; it must be 1 to %d", clip(t), n, MaxTagLength)
		}
	}
	validateCommunity(q, problem)
}

// validateCommunity checks a question's community votes: each names one
// or more option letters, in letter order, each once, with a share of 0
// to 100 percent; the most voted come first.
func validateCommunity(q *Question, problem func(format string, args ...any)) {
	for i, v := range q.Community {
		if len(v.Letters) == 0 {
			problem("community vote %d names no option", i+1)
		}
		for j, l := range v.Letters {
			if k := LetterIndex(l); k < 0 || k >= len(q.Options) {
				problem("community vote for %s, which is not an option (options are %s)", clip(l), letterRange(len(q.Options)))
			} else if j > 0 && l <= v.Letters[j-1] {
				problem("community vote %s: its letters must be in letter order, each once", strings.Join(v.Letters, ""))
			}
		}
		if v.Percent < 0 || v.Percent > 100 {
			problem("community vote %s has %d%%; it must be 0 to 100", strings.Join(v.Letters, ""), v.Percent)
		}
		if i > 0 && v.Percent > q.Community[i-1].Percent {
			problem("community votes must come most voted first (%d%% after %d%%)", v.Percent, q.Community[i-1].Percent)
		}
	}
}
