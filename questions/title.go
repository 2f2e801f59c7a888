package questions

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// titleMatch is a line shaped like an exam text title: "<head>Question
// <number>", where head is "" for a bare title "Question 12".
type titleMatch struct {
	line   string // the line, trimmed, its white space normalised
	head   string // the text before "Question", separators included
	bank   string // head without trailing white space and separators
	number string // the digits of the number
	topic  string // the digits of a practice site's "Topic 2", "" if none
}

// titleSeparators may stand between the exam name and "Question", and are
// trimmed from the end of a bank name.
const titleSeparators = " :-–—|"

// parseTitle recognises the titles people paste: "<Exam> Question 12",
// "<Exam> - Question 12", "<Exam>: Question 12", "<Exam> Question #12",
// "<Exam> Question 12 of 65", a bare "Question 12" and a practice site's
// "Question #12 Topic 1" (also "Question #: 12"), with "Question" in
// any letter case and any Unicode space (non-breaking spaces included) as
// a space. "Question" must not follow a letter or digit ("AWSQuestion 1"
// is not a title) unless what is before it is a whole element a title may
// be glued to (see elementPrefix). The last "Question" that ends the line
// so is the one.
func parseTitle(s string) (titleMatch, bool) {
	if strings.IndexByte(s, 'q') < 0 && strings.IndexByte(s, 'Q') < 0 {
		return titleMatch{}, false // no "Question": most lines
	}
	n := collapseSpaces(normSpaces(strings.TrimSpace(s)))
	const word = "question"
	for i := len(n) - len(word); i >= 0; i-- {
		// Eight bytes that fold to "question" are ASCII: a rune of two
		// bytes or more would leave fewer than eight runes.
		if c := n[i]; c != 'q' && c != 'Q' || !strings.EqualFold(n[i:i+len(word)], word) {
			continue
		}
		if i > 0 && isWordRune(lastRune(n[:i])) && elementPrefix(n[:i]) != i && !strings.EqualFold(n[:i], "Other") {
			continue // "AWSQuestion 1"; but "Correct answer: BQuestion 40" and a vote's "OtherQuestion #13" are glued
		}
		number, topic, ok := titleNumber(n[i+len(word):])
		if !ok {
			continue
		}
		head := n[:i]
		return titleMatch{line: n, head: head, bank: strings.TrimRight(head, titleSeparators), number: number, topic: topic}, true
	}
	return titleMatch{}, false
}

// titleNumber parses what follows "Question": " 12", " #12", "#12",
// " #: 12", " 12 of 65", and after any of them a practice site's
// " Topic 1" (also "Topic #1", and glued to the number: "#12Topic 1").
func titleNumber(s string) (number, topic string, ok bool) {
	s = strings.TrimLeft(s, " ")
	if t, found := strings.CutPrefix(s, "#"); found {
		s = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(t, " "), ":"), " ")
	}
	number, rest := leadingDigits(s)
	if number == "" {
		return "", "", false
	}
	if r, found := strings.CutPrefix(rest, " "); found && len(r) >= 3 && strings.EqualFold(r[:2], "of") && r[2] == ' ' {
		total, after := leadingDigits(strings.TrimLeft(r[3:], " "))
		if total == "" {
			return "", "", false
		}
		rest = after
	}
	if rest == "" {
		return number, "", true
	}
	r := strings.TrimPrefix(rest, " ")
	if len(r) < len("Topic") || !strings.EqualFold(r[:len("Topic")], "Topic") {
		return "", "", false
	}
	topic, after := leadingDigits(strings.TrimLeft(r[len("Topic"):], " #:"))
	if topic == "" || after != "" {
		return "", "", false
	}
	return number, topic, true
}

// leadingDigits splits s into its leading ASCII digits and the rest.
func leadingDigits(s string) (digits, rest string) {
	d := 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	return s[:d], s[d:]
}

// endsWithSeparator reports whether a title's head ends with white space
// or a separator, as "<Exam> Question" and "<Exam>: Question" do; a head
// ending otherwise ("...trip.Question 40") is text glued to a bare title.
func endsWithSeparator(head string) bool {
	return head != "" && strings.ContainsRune(titleSeparators, lastRune(head))
}

// normSpaces turns every Unicode space (U+00A0 NO-BREAK SPACE, the
// U+2000 block, U+202F, U+3000, tabs…) into an ASCII space.
func normSpaces(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == '\t' {
			ascii = false
			break
		}
	}
	if ascii || !mapsSpaces(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != ' ' && r != '\n' && unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
}

// mapsSpaces reports whether normSpaces' strings.Map would change s: a
// space other than ' ' and '\n' in it, or a byte that is not UTF-8 (which
// strings.Map writes as U+FFFD). Most lines with a letter that is not
// ASCII (café) have neither: they are returned as they are, without a
// function call a rune.
func mapsSpaces(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\t' || c == '\v' || c == '\f' || c == '\r' {
				return true
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || unicode.IsSpace(r) {
			return true
		}
		i += w
	}
	return false
}

// collapseSpaces turns each run of spaces into one.
func collapseSpaces(s string) string {
	if !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// elementPrefix returns the length of the element that starts s when a
// title may be glued to its end (a file without a final newline,
// concatenated with the next): an answer line "Correct answer: A" or
// "Suggested Answer: BC" (whole, or else its letters end at the first
// letter followed by another letter),
// "Explanation", "Show answer and explanation", a bare rationale header
// "- B. Incorrect." or a closing code fence, each followed by the end of s
// or directly by a title (no space). It returns 0 when s starts with none
// of these.
func elementPrefix(s string) int {
	glued := func(n int) bool { return n == len(s) || s[n] != ' ' }
	for _, m := range []string{noiseLine, "Explanation"} {
		if len(s) >= len(m) && strings.EqualFold(s[:len(m)], m) && glued(len(m)) {
			return len(m)
		}
	}
	if n := len(s) - len(strings.TrimLeft(s, "`")); n >= 3 {
		return n
	}
	if letters, ok := parseAnswerLine(s); ok && allLetters(letters) {
		return len(s) // "Suggested Answer: BC", then a bare title
	}
	for _, a := range answerPrefixes {
		m := a.word
		if len(s) < len(m) || !strings.EqualFold(s[:len(m)], m) {
			continue
		}
		i := len(m)
		for i < len(s) {
			switch c := s[i]; {
			case c == ' ' || c == ',':
				i++
			case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
				i++
				if i < len(s) && isWordRune(rune(s[i])) {
					return i // the letter, then the glued title
				}
			default:
				return 0
			}
		}
		return i
	}
	if l, _, text, ok := parseRationaleHeader(s); ok && l != "" && text == "" {
		return len(s)
	}
	for _, v := range []string{". Correct.", ". Incorrect."} {
		if len(s) > 3 && s[0] == '-' {
			if j := strings.Index(s, v); j >= 0 && j <= 4 {
				if _, _, text, ok := parseRationaleHeader(s[:j+len(v)]); ok && text == "" && glued(j+len(v)) {
					return j + len(v)
				}
			}
		}
	}
	return 0
}
