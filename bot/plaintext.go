package bot

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// labelSource is how much of an option's text its label is made from.
const labelSource = 1000

// Discord shows a select option's label as typed, markdown and all:
// plainText turns an option's markdown into the text it reads as.

var (
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
		return collapseSpace(s) // most texts: no mark to remove
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
	escapes := strings.IndexByte(s, '\\') >= 0
	if escapes {
		s = escapedMarks.Replace(s) // an escaped mark is text, not markdown
	}
	// Code (fenced blocks, then spans) is text: set it aside while the
	// marks around it go.
	var code []string
	keep := func(c string) string {
		code = append(code, c)
		return "\x01" + strconv.Itoa(len(code)-1) + "\x01"
	}
	s = replaceFences(s, func(body string) string { return " " + keep(body) + " " })
	s = strings.ReplaceAll(s, "```", "") // an unclosed fence
	s = replaceByGroup(codeSpanRE, s, keep)
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
	if escapes {
		s = escapeRE.ReplaceAllString(s, "$1")
	}
	if len(code) > 0 {
		s = keptRE.ReplaceAllStringFunc(s, func(m string) string {
			i, _ := strconv.Atoi(strings.Trim(m, "\x01"))
			return code[i]
		})
	}
	if escapes {
		s = restoreMarks.Replace(s)
	}
	return collapseSpace(s)
}

// collapseSpace is strings.Join(strings.Fields(s), " ") without the slice
// of fields: s with its leading and trailing white space removed and each
// run of it inside made one space.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	field := -1 // where the field being read starts; -1 between fields
	for i := 0; i < len(s); {
		n, space := 1, false
		if c := s[i]; c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		switch {
		case space && field >= 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[field:i])
			field = -1
		case !space && field < 0:
			field = i
		}
		i += n
	}
	if field >= 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[field:])
	}
	return b.String()
}

// asciiSpace is the ASCII white space of unicode.IsSpace.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// replaceFences replaces each fenced code block of s with repl of its
// body. What it takes for a block is what the regular expression
// "(?s)```(?:[A-Za-z0-9_+#.-]*\n)?(.*?)```" matches, its group the body
// (FuzzFences holds them to it), found without trying every way of
// matching from each fence.
func replaceFences(s string, repl func(body string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(s[i:], "```")
		if k < 0 {
			break
		}
		start := i + k
		body, end, ok := fenceAt(s, start)
		if !ok {
			i = start + 1
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(repl(body))
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// fenceAt matches a fenced block at s[start:], which starts with a fence: the
// block's body and where it ends. A language tag and the line break after
// it are not the body when a closing fence follows them; else the body
// starts right after the opening fence.
func fenceAt(s string, start int) (body string, end int, ok bool) {
	from := start + 3
	k := from
	for k < len(s) && isFenceLang(s[k]) {
		k++
	}
	if k < len(s) && s[k] == '\n' {
		if e := strings.Index(s[k+1:], "```"); e >= 0 {
			return s[k+1 : k+1+e], k + 1 + e + 3, true
		}
	}
	if e := strings.Index(s[from:], "```"); e >= 0 {
		return s[from : from+e], from + e + 3, true
	}
	return "", 0, false
}

// isFenceLang reports whether c may be in a fence's language tag.
func isFenceLang(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_+#.-", c) >= 0
}

// replaceByGroup replaces each match of re in s with repl of the match's
// first group, which re must always capture: ReplaceAllStringFunc with
// the group found in the same pass, not by matching each match again.
func replaceByGroup(re *regexp.Regexp, s string, repl func(group string) string) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(repl(s[m[2]:m[3]]))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
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
	t := plainText(headRunes(text, labelSource))
	if t == "" {
		return letter
	}
	return truncate(letter+" · "+t, maxLabel)
}
