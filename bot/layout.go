package bot

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Layout: cutting a long text into pieces Discord holds, and packing
// embeds into as many messages as they need. Pure functions; everything
// is counted in runes, as Discord counts characters, and texts are
// trimmed, as Discord trims them before counting.

const (
	maxEmbeds  = 10 // embeds per message
	maxFields  = 25 // fields per embed
	maxContent = 2000
	// maxFenceInfo is the longest language name a code block split between
	// two pieces is reopened with ("```python"); a longer info string is
	// dropped from the reopening fence.
	maxFenceInfo = 20
)

// fence is the text that closes a code block at the end of a piece.
const fence = "\n```"

// splitText cuts s into pieces of at most limit runes each that read, one
// after the other, as s does. It cuts at a paragraph break where one falls
// in the second half of a piece, else at a line break there, and never
// inside a ``` code block when it can be avoided: a code block that fits in
// a piece of its own starts a new piece. A block that cannot be kept whole
// is cut at a line break inside it, closed at the end of the piece and
// reopened (with its language) at the start of the next. A line longer
// than a piece is cut at a space, else anywhere. Space at the ends of each
// piece is trimmed; an empty s gives no pieces. limit must be at least 64.
func splitText(s string, limit int) []string {
	var out []string
	reopen := "" // the fence the next piece starts with, inside a code block
	for {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
		s = strings.TrimLeft(s, "\r\n")
		if reopen != "" {
			s = reopen + "\n" + s
		}
		if s == "" || strings.TrimSpace(s) == "" {
			return out
		}
		if utf8.RuneCountInString(s) <= limit { // most texts: no need of their runes
			return append(out, strings.TrimSpace(s))
		}
		r := []rune(s)
		at, open := cutAt(r, limit)
		head := strings.TrimRightFunc(string(r[:at]), unicode.IsSpace)
		if open != "" {
			head += fence
		}
		if h := strings.TrimSpace(head); h != "" {
			out = append(out, h)
		}
		s, reopen = string(r[at:]), reopenFence(open)
	}
}

// reopenFence is the line that reopens a code block opened by the line
// open: its fence and a short language name ("```go"), or "".
func reopenFence(open string) string {
	if open == "" {
		return ""
	}
	t := strings.TrimSpace(open)
	if !strings.HasPrefix(t, "```") {
		return "```" // a block opened mid-line
	}
	info := strings.TrimSpace(strings.TrimPrefix(t, "```"))
	if info == "" || len([]rune(info)) > maxFenceInfo || strings.ContainsAny(info, " `") {
		return "```"
	}
	return "```" + info
}

// cutAt chooses where the first piece of r (longer than limit) ends: the
// piece is r[:at]. When that is inside a code block, open is the line that
// opened the block (the piece then has room left for its closing fence).
func cutAt(r []rune, limit int) (at int, open string) {
	half := limit / 2
	inMax := limit - len([]rune(fence)) // a cut inside a code block leaves room to close it
	var (
		para, line, space int // the last cut outside code: before a blank line, at a line's end, at a space
		codeLine          int // the last cut inside code at a line's end
		codeBefore        int // the one before it
		codeOpen          string
		inCode            bool
		opener            string // the line that opened the current block
		openerStart       int    // where that line starts
		openerEnd         int    // where it ends
	)
	for i := 0; i < len(r) && i <= limit; {
		j := i
		for j < len(r) && r[j] != '\n' {
			j++
		}
		text := string(r[i:j])
		toggles := strings.Count(text, "```")%2 == 1
		if !inCode && !toggles {
			if strings.TrimSpace(text) == "" && i > 0 {
				para = i
			}
			for k := i; k < j && k <= limit; k++ {
				if r[k] == ' ' && k > 0 {
					space = k
				}
			}
		}
		if toggles && !inCode {
			opener, openerStart, openerEnd = text, i, j
		}
		if toggles && inCode && codeLine == i-1 {
			// A cut just before the closing fence would leave the next
			// piece an empty block.
			codeLine = codeBefore
		}
		if toggles {
			inCode = !inCode
		}
		switch {
		case !inCode && j <= limit && j > 0:
			line = j
		case inCode && j <= inMax && j > openerEnd:
			codeBefore, codeLine, codeOpen = codeLine, j, opener
		}
		i = j + 1
	}
	switch {
	case para >= half:
		return para, ""
	case line >= half:
		return line, ""
	}
	if inCode {
		// The piece would end inside a code block: start the block in a
		// piece of its own when it fits one, else cut inside it.
		if line > 0 && line <= openerStart && blockEnd(r, openerEnd)-openerStart <= limit {
			return line, ""
		}
		if codeLine > 0 && codeLine > line {
			return codeLine, codeOpen
		}
	}
	switch {
	case space >= half:
		return space, ""
	case line > 0 && line >= codeLine:
		return line, ""
	case codeLine > 0:
		return codeLine, codeOpen
	}
	// One line longer than a piece: cut it anywhere.
	if inCode {
		return inMax, opener
	}
	return limit, ""
}

// blockEnd is where the code block whose opening line ends at from ends:
// the end of its closing fence's line, or of r.
func blockEnd(r []rune, from int) int {
	for i := from + 1; i < len(r); {
		j := i
		for j < len(r) && r[j] != '\n' {
			j++
		}
		if strings.Count(string(r[i:j]), "```")%2 == 1 {
			return j
		}
		i = j + 1
	}
	return len(r)
}

// block is a part of a long text laid out in embeds: the start of an
// embed (a title, a description, or both), or one field of the embed
// before it.
type block struct {
	title, desc string
	field       *discordgo.MessageEmbedField
	color       int
}

func (b block) size() int {
	if b.field != nil {
		return runes(b.field.Name) + runes(b.field.Value)
	}
	return runes(b.title) + runes(b.desc)
}

// packEmbeds lays blocks out in embeds and the embeds in messages, in
// order: a block that starts an embed starts one, and a field joins the
// embed before it while that has fewer than 25 fields and its message
// has room, else starts an embed of its own (without a title). A message
// holds at most 10 embeds of at most 6000 characters in all; the first
// has only room characters and slots embeds left (the embeds it carries
// already), and may get none. Each block must fit an empty message (as
// every part splitText makes does). Embeds are new values, safe to share.
func packEmbeds(blocks []block, room, slots int) [][]*discordgo.MessageEmbed {
	msgs := [][]*discordgo.MessageEmbed{nil}
	var cur *discordgo.MessageEmbed // the embed fields join; nil to start a new one
	for _, b := range blocks {
		need := b.size()
		starts := b.field == nil || cur == nil || len(cur.Fields) >= maxFields
		if need > room || starts && slots == 0 {
			msgs = append(msgs, nil)
			room, slots, cur, starts = maxEmbedTotal, maxEmbeds, nil, true
		}
		last := len(msgs) - 1
		if starts {
			cur = &discordgo.MessageEmbed{Title: b.title, Description: b.desc, Color: b.color}
			msgs[last] = append(msgs[last], cur)
			slots--
		}
		if b.field != nil {
			f := *b.field
			cur.Fields = append(cur.Fields, &f)
		}
		room -= need
	}
	return msgs
}

// embedsSize counts the characters of embeds toward a message's 6000.
func embedsSize(embeds []*discordgo.MessageEmbed) int {
	n := 0
	for _, e := range embeds {
		n += embedLen(e)
	}
	return n
}
