package questions

import (
	"bytes"
	"fmt"
	"html"
	"strings"
)

// Anki's text import (the Anki manual, "Importing › Text Files"): a UTF-8
// file of one note per line, its fields split by the separator, with
// header lines first (Anki 2.1.54 and later; older versions skip them as
// comments): "#separator:tab", "#html:true", "#notetype:…", "#deck:…",
// "#tags column:N" and "#columns:" naming the columns, separated by the
// separator set before. The deck and note type lines preset the import
// window's choices when the collection has them (Anki creates no deck
// from "#deck:"); the columns named after the note type's fields fill
// them. With html true, fields are HTML: a newline is
// "<br>", and "<", ">" and "&" are written as entities. A field that starts
// with a double quote would be read as quoted, so quotes are entities too
// (as is a tab, the separator).

// AnkiColumns are the columns of an Anki file, in order: the note's Front
// and Back fields (of Anki's Basic note type), then its tags.
var AnkiColumns = []string{"Front", "Back", "Tags"}

// AnkiFile renders questions as an Anki text file that imports into the
// deck named deck (when the collection has it) as notes of Anki's Basic
// type: the Front is the
// question (its bank and number, the stem, every option with its letter,
// and how many to pick when more than one), the Back the correct letters,
// the explanation and every option's rationale (✓ on the correct ones),
// and the tags the question's bank and topics (spaces become
// underscores: Anki splits tags on spaces). Anki takes a note whose Front
// is already in the collection as an update of it, so importing a newer
// file again updates the notes rather than doubling them.
func AnkiFile(deck string, qs []*Question) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#separator:tab\n#html:true\n#notetype:Basic\n#deck:%s\n#tags column:%d\n#columns:%s\n",
		ankiHeader(deck), len(AnkiColumns), strings.Join(AnkiColumns, "\t"))
	for _, q := range qs {
		b.WriteString(ankiFront(q))
		b.WriteByte('\t')
		b.WriteString(ankiBack(q))
		b.WriteByte('\t')
		b.WriteString(ankiTags(q))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func ankiFront(q *Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<b>%s · Question %d</b><br><br>%s<br>", ankiText(q.Bank), q.Number, ankiText(q.Stem))
	for _, o := range q.Options {
		fmt.Fprintf(&b, "<br><b>%s.</b> %s", ankiText(o.Letter), ankiText(o.Text))
	}
	if n := q.SelectCount(); n > 1 {
		fmt.Fprintf(&b, "<br><br><i>Pick %d answers.</i>", n)
	}
	return b.String()
}

func ankiBack(q *Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<b>Answer: %s</b>", ankiText(strings.Join(q.Correct(), ", ")))
	if e := strings.TrimSpace(q.Explanation); e != "" {
		b.WriteString("<br><br>" + ankiText(e))
	}
	first := true
	for _, o := range q.Options {
		r := strings.TrimSpace(o.Rationale)
		if r == "" {
			continue
		}
		if first {
			b.WriteString("<br>")
			first = false
		}
		mark := "✗"
		if o.Correct {
			mark = "✓"
		}
		fmt.Fprintf(&b, "<br>%s <b>%s.</b> %s", mark, ankiText(o.Letter), ankiText(r))
	}
	return b.String()
}

// ankiTags are the question's bank and topics as Anki tags.
func ankiTags(q *Question) string {
	var tags []string
	seen := map[string]bool{}
	for _, t := range append([]string{q.Bank}, q.Tags...) {
		t = strings.Join(strings.Fields(ankiTagMarks.Replace(t)), "_")
		if k := strings.ToLower(t); t != "" && !seen[k] {
			seen[k] = true
			tags = append(tags, t)
		}
	}
	return strings.Join(tags, " ")
}

// ankiText is s as the HTML of an Anki field: escaped, its line breaks
// "<br>", with no tab (the separator) or bare line break left.
func ankiText(s string) string {
	s = html.EscapeString(strings.ReplaceAll(s, "\r\n", "\n"))
	return ankiBreaks.Replace(s)
}

// The replacements of ankiTags and ankiText, made once (a Replacer builds
// its tables at its first use, for each of a file's questions when it was
// made for each).
var (
	ankiTagMarks = strings.NewReplacer(`"`, "", "\u00a0", " ")
	ankiBreaks   = strings.NewReplacer("\n", "<br>", "\r", "<br>", "\t", "&#9;")
)

// ankiHeader is s fit for a header line's value: one line, no tab.
func ankiHeader(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == '\t' }), " ")
}
