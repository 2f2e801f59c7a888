package questions

import "strings"

// MaxBodyLength is the longest Body may be: Discord's limit on an embed
// description, which is where the bot shows it. Validation refuses a
// question whose body is longer.
const MaxBodyLength = 4096

// MaxExplanationLength and MaxRationaleLength bound the reveal: the
// explanation goes in an embed description, each rationale in an embed
// field value.
const (
	MaxExplanationLength = 4096
	MaxRationaleLength   = 1024
)

// Body is the question as members read it: the stem, a blank line, then one
// line per option, "**A.** text". Its length in runes is what validation
// checks against MaxBodyLength.
func (q *Question) Body() string {
	var b strings.Builder
	b.WriteString(q.Stem)
	b.WriteString("\n")
	for _, o := range q.Options {
		b.WriteString("\n**")
		b.WriteString(o.Letter)
		b.WriteString(".** ")
		b.WriteString(o.Text)
	}
	return b.String()
}
