package questions

import "strings"

// Limits of what a post shows. The bot posts a question as one message: the
// stem in the description of its first embed (Discord holds 4,096
// characters there), the options after it in the same description when
// the whole Body fits, else in the descriptions of further embeds of the
// same message. Discord holds 6,000 characters over all the embeds of a
// message, the title included; MaxBodyLength leaves room for the title
// (a bank name of at most MaxBankNameLength runes and the number) and for
// the fence a code block split between two embeds is closed and reopened
// with. Validation refuses a question over either limit; a question within
// them is posted whole.
const (
	// MaxStemLength is the longest Stem may be, in runes.
	MaxStemLength = 4096
	// MaxBodyLength is the longest Body may be, in runes.
	MaxBodyLength = 5800
)

// MaxExplanationLength and MaxRationaleLength bound the reveal: the
// explanation goes in an embed description, each rationale in an embed
// field value. A reveal longer than one message holds continues in
// further messages, so these keep each part whole rather than the reveal
// within one message.
const (
	MaxExplanationLength = 4096
	MaxRationaleLength   = 1024
)

// Body is the question as members read it: the stem, a blank line, then one
// line per option, "**A.** text". Its length in runes is what validation
// checks against MaxBodyLength.
func (q *Question) Body() string {
	return q.Stem + "\n" + q.OptionLines()
}

// OptionLines is the options as Body shows them after the stem: each on a
// line of its own, "**A.** text", each line begun with a newline.
func (q *Question) OptionLines() string {
	n := 0
	for _, o := range q.Options {
		n += len("\n**.** ") + len(o.Letter) + len(o.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for _, o := range q.Options {
		b.WriteString("\n**")
		b.WriteString(o.Letter)
		b.WriteString(".** ")
		b.WriteString(o.Text)
	}
	return b.String()
}
