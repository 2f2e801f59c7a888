package bot

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// labelSource is how much of an option's text its label is made from.
const labelSource = 1000

// Discord shows a select option's label as typed, markdown and all:
// plainText turns an option's markdown into the text it reads as.

var (
	fencedRE     = regexp.MustCompile("(?s)```(?:[A-Za-z0-9_+#.-]*\n)?(.*?)```")
	keptRE       = regexp.MustCompile("\x01[0-9]+\x01")
	linkRE       = regexp.MustCompile(`\[([^\]\n]*)\]\((?:[^)\s]*)(?:\s+"[^"]*")?\)`)
	autolinkRE   = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	headingRE    = regexp.MustCompile(`(?m)^[ \t]*(?:#{1,6}|-#)[ \t]+`)
	quoteRE      = regexp.MustCompile(`(?m)^[ \t]*>{1,3}[ \t]?`)
	listRE       = regexp.MustCompile(`(?m)^[ \t]*[-*+][ \t]+`)
	strongRE     = regexp.MustCompile(`\*\*(.+?)\*\*`)
	underlineRE  = regexp.MustCompile(`__(.+?)__`)
	strikeRE     = regexp.MustCompile(`~~(.+?)~~`)
	spoilerRE    = regexp.MustCompile(`\|\|(.+?)\|\|`)
	emphStarRE   = regexp.MustCompile(`\*([^*\s](?:[^*]*[^*\s])?)\*`)
	emphUnderRE  = regexp.MustCompile(`(^|[^\p{L}\p{N}_])_([^_\s](?:[^_]*[^_\s])?)_($|[^\p{L}\p{N}_])`)
	codeSpanRE   = regexp.MustCompile("`+([^`]+?)`+")
	escapeRE     = regexp.MustCompile(`\\([\\` + "`" + `*_{}\[\]()#+\-.!|~>])`)
	escapedMarks = strings.NewReplacer(`\*`, "\x00s", `\_`, "\x00u", `\~`, "\x00t", `\|`, "\x00p", "\\`", "\x00b")
	placeholders = strings.NewReplacer("\x00", "", "\x01", "")
	restoreMarks = strings.NewReplacer("\x00s", "*", "\x00u", "_", "\x00t", "~", "\x00p", "|", "\x00b", "`")
)

// plainText is s with Discord's markdown taken out, as a member reads it:
// code fences and backticks, bold, italics, underline, strike-through and
// spoiler marks, headings, quotes and list bullets removed, a link shown
// as its text; backslash escapes resolved; white space collapsed to single
// spaces. Code is kept as written. Pure.
func plainText(s string) string {
	if !strings.ContainsAny(s, markChars) {
		return strings.Join(strings.Fields(s), " ") // most texts: no mark to remove
	}
	return plainMarkdown(s)
}

// markChars are the characters of which every pattern of plainMarkdown
// needs one (and the placeholders it uses): a text holding none of them
// reads as written.
const markChars = "`[<#>-*+_~|\\\x00\x01"

// plainMarkdown is plainText of a text that may hold marks.
func plainMarkdown(s string) string {
	s = placeholders.Replace(s) // control characters, and ours below
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = escapedMarks.Replace(s) // an escaped mark is text, not markdown
	// Code (fenced blocks, then spans) is text: set it aside while the
	// marks around it go.
	var code []string
	keep := func(c string) string {
		code = append(code, c)
		return "\x01" + strconv.Itoa(len(code)-1) + "\x01"
	}
	s = fencedRE.ReplaceAllStringFunc(s, func(m string) string {
		body := fencedRE.FindStringSubmatch(m)[1]
		return " " + keep(body) + " "
	})
	s = strings.ReplaceAll(s, "```", "") // an unclosed fence
	s = codeSpanRE.ReplaceAllStringFunc(s, func(m string) string {
		return keep(codeSpanRE.FindStringSubmatch(m)[1])
	})
	s = linkRE.ReplaceAllString(s, "$1")
	s = autolinkRE.ReplaceAllString(s, "$1")
	// The patterns below that start with no fixed text are tried at every
	// position of s: skip those whose mark no line of s starts with.
	if lineStartsWith(s, "#-") {
		s = headingRE.ReplaceAllString(s, "")
	}
	if lineStartsWith(s, ">") {
		s = quoteRE.ReplaceAllString(s, "")
	}
	if lineStartsWith(s, "-*+") {
		s = listRE.ReplaceAllString(s, "")
	}
	for _, re := range []*regexp.Regexp{strongRE, underlineRE, strikeRE, spoilerRE, emphStarRE} {
		s = re.ReplaceAllString(s, "$1")
	}
	if strings.Count(s, "_") >= 2 {
		// Twice: "_a_ _b_" shares the space between its two matches.
		s = emphUnderRE.ReplaceAllString(s, "$1$2$3")
		s = emphUnderRE.ReplaceAllString(s, "$1$2$3")
	}
	s = escapeRE.ReplaceAllString(s, "$1")
	s = keptRE.ReplaceAllStringFunc(s, func(m string) string {
		i, _ := strconv.Atoi(strings.Trim(m, "\x01"))
		return code[i]
	})
	s = restoreMarks.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// lineStartsWith reports whether a line of s starts, after spaces and
// tabs, with one of the bytes of marks: where headingRE, quoteRE and
// listRE can match.
func lineStartsWith(s, marks string) bool {
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t")
		if s != "" && strings.IndexByte(marks, s[0]) >= 0 {
			return true
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return false
}

// optionLabel is the label of an option in the answer menu: its letter and
// its text as plain text, at most 100 characters. Only the start of a long
// text is read: 100 characters of plain text come from far fewer than
// labelSource.
func optionLabel(letter, text string) string {
	if utf8.RuneCountInString(text) > labelSource {
		text = string([]rune(text)[:labelSource])
	}
	t := plainText(text)
	if t == "" {
		return letter
	}
	return truncate(letter+" · "+t, maxLabel)
}
