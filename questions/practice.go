package questions

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The line shapes of questions copied from practice-exam sites and written
// in Moodle's Aiken format (README.md, "Practice-site shape" and "Aiken"),
// which the exam text parser (text.go) reads besides its own: one-line
// options, the answer lines those sources write, "(Choose two.)", a
// community vote distribution, and the leftovers of the page. Each
// recogniser takes a line trimmed and with its white space normalised
// (normSpaces).

// parseLineOption recognises a one-line option: "A. text", "A) text" or
// "(A) text", the letter a capital, followed by a space or by nothing (an
// option whose text is on the next lines).
func parseLineOption(s string) (letter, text string, ok bool) {
	var rest string
	switch {
	case len(s) >= 3 && s[0] == '(' && isOptionLetter(s[1]) && s[2] == ')':
		letter, rest = s[1:2], s[3:]
	case len(s) >= 2 && isOptionLetter(s[0]) && (s[1] == '.' || s[1] == ')'):
		letter, rest = s[:1], s[2:]
	default:
		return "", "", false
	}
	if rest != "" && rest[0] != ' ' {
		return "", "", false // "A.M. shift", "B)C"
	}
	return letter, strings.TrimSpace(rest), true
}

func isOptionLetter(c byte) bool { return c >= 'A' && c <= 'Z' }

// mostVoted is what a practice site appends to the option most of its
// visitors voted for.
const mostVoted = "Most Voted"

// dropMostVoted removes the site's "Most Voted" marker from the end of an
// option's text.
func dropMostVoted(s string) string {
	if len(s) >= len(mostVoted) && strings.EqualFold(s[len(s)-len(mostVoted):], mostVoted) {
		return strings.TrimSpace(s[:len(s)-len(mostVoted)])
	}
	return s
}

// answerPrefixes are the answer lines' words, longest first. The exam
// text's own ("Correct answer:") make an answer line whatever follows, so
// that a mistake after them is reported; the others only when letters
// follow, so that "Answer: it depends" in an explanation stays text.
var answerPrefixes = []struct {
	word   string
	strict bool // only an answer line when every token is a letter
}{
	{"Correct answers:", false},
	{"Correct answer:", false},
	{"Suggested answers:", true},
	{"Suggested answer:", true},
	{"Answers:", true},
	{"Answer:", true},
}

// parseAnswerLine recognises an answer line in any letter case: the exam
// text's "Correct answer: A" and "Correct answers: A, C", a practice
// site's "Correct Answer: BC" and "Suggested Answer: B", Aiken's
// "ANSWER: B", and "Answer: B, C". Letters are separated by commas and/or
// spaces, or run together in one word ("BC", in letter order); a token of
// symbols only (the vote emoji "🗳️" a site puts after the key) is
// dropped. The tokens come back upper case; one that is not a letter is
// for the caller to report.
func parseAnswerLine(s string) ([]string, bool) {
	for _, p := range answerPrefixes {
		if len(s) < len(p.word) || !strings.EqualFold(s[:len(p.word)], p.word) {
			continue
		}
		letters := answerTokens(s[len(p.word):])
		if p.strict && !allLetters(letters) {
			return nil, false
		}
		return letters, true
	}
	return nil, false
}

// answerTokens splits what follows an answer line's words into tokens.
func answerTokens(s string) []string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		f = strings.ToUpper(strings.TrimSuffix(f, "."))
		if f == "" || !strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		out = append(out, f)
	}
	if len(out) == 1 {
		if run, ok := letterRun(out[0]); ok {
			return run
		}
	}
	return out
}

// letterRun splits letters run together ("BC", "ACD"), which must be
// capitals in letter order, into single letters.
func letterRun(s string) ([]string, bool) {
	if len(s) < 2 {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if !isOptionLetter(s[i]) || i > 0 && s[i] <= s[i-1] {
			return nil, false
		}
	}
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out, true
}

// allLetters reports whether tokens are one or more single option
// letters.
func allLetters(tokens []string) bool {
	for _, t := range tokens {
		if len(t) != 1 || !isOptionLetter(t[0]) {
			return false
		}
	}
	return len(tokens) > 0
}

// countWords are the numbers "(Choose two.)" spells out.
var countWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// parseChoose finds "(Choose two.)", "(Select TWO)", "(Choose 3)" in a line
// of a stem, in any letter case: how many answers the question asks for.
func parseChoose(s string) (n int, phrase string, ok bool) {
	for i := strings.IndexByte(s, '('); i >= 0; {
		end := strings.IndexByte(s[i:], ')')
		if end < 0 {
			return 0, "", false
		}
		inner := strings.TrimSuffix(strings.TrimSpace(s[i+1:i+end]), ".")
		if verb, count, found := strings.Cut(inner, " "); found && (strings.EqualFold(verb, "Choose") || strings.EqualFold(verb, "Select")) {
			count = strings.TrimSpace(count)
			if n, err := strconv.Atoi(count); err == nil && n >= 1 && n <= MaxOptions {
				return n, s[i : i+end+1], true
			}
			for w, word := range countWords {
				if strings.EqualFold(count, word) {
					return w + 1, s[i : i+end+1], true
				}
			}
		}
		next := strings.IndexByte(s[i+1:], '(')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return 0, "", false
}

// communityHeader starts a practice site's community vote distribution.
const communityHeader = "Community vote distribution"

// vote is one entry of a community vote line: letters "" for a lone
// percentage ("100%").
type vote struct {
	letters []string
	percent int
}

// voteMarks turns a vote line's brackets and colons into spaces and joins
// a percent sign to its number. (A Replacer is safe to share: built once,
// not for every line.)
var voteMarks = strings.NewReplacer("(", " ", ")", " ", ":", " ", " %", "%")

// parseVotes recognises a line of a community vote distribution: one or
// more entries "B (71%)", "BC (60%)", "B 71%" or "B: 71%", a lone
// percentage "100%", or the site's "Other" bucket ("Other", "Other (5%)"),
// which is skipped (ok with no votes).
func parseVotes(s string) ([]vote, bool) {
	if strings.IndexByte(s, '%') < 0 && !containsOther(s) {
		return nil, false // neither a percentage nor "Other": most lines
	}
	fields := strings.Fields(voteMarks.Replace(s))
	if len(fields) == 0 {
		return nil, false
	}
	var out []vote
	var letters []string // of the entry being read
	other := false
	for _, f := range fields {
		if pct, ok := strings.CutSuffix(f, "%"); ok {
			n, err := strconv.Atoi(pct)
			if err != nil || n < 0 {
				return nil, false
			}
			if !other {
				out = append(out, vote{letters: letters, percent: n})
			}
			letters, other = nil, false
			continue
		}
		if letters != nil || other {
			return nil, false // two words without a percentage between them
		}
		if strings.EqualFold(f, "Other") {
			other = true
			continue
		}
		var ok bool
		if letters, ok = voteLetters(f); !ok {
			return nil, false
		}
	}
	if letters != nil {
		return nil, false // letters without a percentage
	}
	return out, true
}

// containsOther reports whether s holds "other" in any letter case, as
// the "Other" bucket of a vote line without a percentage must (a word
// that folds to it is ASCII: no other rune folds to o, t, h, e or r).
func containsOther(s string) bool {
	for i := 0; i+len("other") <= len(s); i++ {
		if strings.EqualFold(s[i:i+len("other")], "other") {
			return true
		}
	}
	return false
}

// voteLetters recognises the letters of a vote: "B", "BC" (in any
// order, each once), returned in letter order.
func voteLetters(s string) ([]string, bool) {
	if s == "" || len(s) > MaxOptions {
		return nil, false
	}
	out := make([]string, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !isOptionLetter(s[i]) || strings.IndexByte(s[:i], s[i]) >= 0 {
			return nil, false
		}
		out = append(out, s[i:i+1])
	}
	slices.Sort(out)
	return out, true
}

// siteNoise recognises what a practice page adds around a question and a
// copy picks up: "Reveal Solution", "Hide Solution", "Discussion 17" (each
// alone or run together on one line), "Next Questions", "Previous
// Questions", a lone "Most Voted", the vote emoji, "Actual exam question
// from …" and "[All … Questions]".
func siteNoise(s string) bool {
	switch {
	case s == "":
		return false
	case s == "🗳️" || s == "🗳":
		return true
	case hasPrefixFold(s, "Actual exam question from "):
		return true
	case strings.HasPrefix(s, "[All ") && strings.HasSuffix(s, " Questions]"):
		return true
	}
	for s != "" {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			break
		}
		switch {
		case cutWords(&s, "Reveal Solution"), cutWords(&s, "Hide Solution"), cutWords(&s, "Next Questions"),
			cutWords(&s, "Previous Questions"), cutWords(&s, "Most Voted"):
		case cutWords(&s, "Discussion"):
			t := strings.TrimLeft(s, " ")
			if n, rest := leadingDigits(t); n != "" && (rest == "" || rest[0] == ' ') {
				s = rest
			}
		default:
			return false
		}
	}
	return true
}

// cutWords removes words (in any letter case) from the start of *s when
// they are there, followed by a space or the end, and reports whether
// they were.
func cutWords(s *string, words string) bool {
	if !hasPrefixFold(*s, words) || len(*s) > len(words) && (*s)[len(words)] != ' ' {
		return false
	}
	*s = (*s)[len(words):]
	return true
}

// parseTopicLine recognises a practice site's "Topic 1" (also "Topic #1",
// "Topic #: 1") on a line of its own after the title.
func parseTopicLine(s string) bool {
	if len(s) < 6 || !strings.EqualFold(s[:5], "Topic") || (s[5] != ' ' && s[5] != '#') {
		return false
	}
	return allDigits(strings.TrimLeft(s[5:], " #:"))
}

// bankLinePrefix names the bank of the questions after it that do not
// name one: a bare title "Question 12", a practice site's "Question #12
// Topic 1", an Aiken question.
const bankLinePrefix = "Bank:"

// parseBankLine recognises "Bank: <name>" in any letter case; name may be
// "" (a mistake to report).
func parseBankLine(s string) (string, bool) {
	if len(s) < len(bankLinePrefix) || !strings.EqualFold(s[:len(bankLinePrefix)], bankLinePrefix) {
		return "", false
	}
	return strings.TrimSpace(s[len(bankLinePrefix):]), true
}

// hasPrefixFold is strings.HasPrefix ignoring letter case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
