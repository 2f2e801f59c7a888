package bot

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Rendering: pure functions from domain values to discordgo payloads.
// Everything here keeps to Discord's length limits whatever a bank holds.

const (
	colorOpen   = 0x5865F2
	colorClosed = 0x57F287
	colorWrong  = 0xED4245

	maxEmbedTotal = 6000
	maxFieldValue = 1024
	maxDesc       = 4096
	maxTitle      = 256
	maxLabel      = 100
)

// truncate shortens s to at most n runes, ending in "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return headRunes(s, n)
	}
	return headRunes(s, n-1) + "…"
}

// headRunes is the start of s that holds its first n runes (all of s when
// it has no more), sliced rather than converted to runes and back. (A byte
// that is not UTF-8 counts as one rune, as in a conversion, and stays as
// it is instead of becoming U+FFFD: JSON sends it as U+FFFD either way.)
func headRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// Plural counts n things in words: "1 question", "2 questions". The
// command line and the sandbox word their counts with it too.
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func plural(n int, one, many string) string { return Plural(n, one, many) }

// questionTitle names a question for members: its bank and number.
func questionTitle(q *questions.Question) string {
	return truncate(fmt.Sprintf("%s · Question %d", q.Bank, q.Number), maxTitle)
}

// questionEmbeds show the question as posted: its bank and number, the
// stem and every option's full text. They fit one description when they
// can; else the stem is the first embed's description and the options
// follow in the descriptions of the next (splitText), all in one message:
// questions.Validate refuses a question whose embeds would not fit one
// (a stem over questions.MaxStemLength or a Body over
// questions.MaxBodyLength). Only for a question it refuses are they cut to
// fit (fitEmbeds). How to answer and when it closes is the message's
// content (openContent), said once.
func questionEmbeds(q *questions.Question, color int) []*discordgo.MessageEmbed {
	var pieces []string
	if body := strings.TrimSpace(q.Body()); runes(body) <= maxDesc {
		pieces = []string{body}
	} else {
		pieces = append(splitText(q.Stem, maxDesc), splitText(q.OptionLines(), maxDesc)...)
	}
	embeds := make([]*discordgo.MessageEmbed, 0, len(pieces))
	for i, p := range pieces {
		e := &discordgo.MessageEmbed{Description: p, Color: color}
		if i == 0 {
			e.Title = questionTitle(q)
		}
		embeds = append(embeds, e)
	}
	if len(embeds) == 0 {
		embeds = []*discordgo.MessageEmbed{{Title: questionTitle(q), Color: color}}
	}
	if len(embeds) > maxEmbeds || embedsSize(embeds) > maxEmbedTotal {
		embeds = fitEmbeds(embeds[:min(len(embeds), maxEmbeds)])
	}
	return embeds
}

// pickText says how many options to pick.
func pickText(n int) string {
	if n == 1 {
		return "Pick **1** answer"
	}
	return fmt.Sprintf("Pick **%d** answers", n)
}

// openContent is the line above an open question, the one place a post
// says how to answer: what to pick, when it closes and the live answer
// count (which the refresher keeps current by editing this line alone).
func openContent(p questions.Post) string {
	var b strings.Builder
	if p.Daily {
		b.WriteString("📅 **Daily question** · ")
	}
	b.WriteString(pickText(p.SelectCount))
	b.WriteString(" from the menu below")
	if p.ClosesAt.IsZero() {
		b.WriteString(" · closes when the next daily question is posted")
	} else {
		b.WriteString(" · closes " + timestamp(p.ClosesAt, "R"))
	}
	fmt.Fprintf(&b, " · %s so far", plural(p.Answers, "answer", "answers"))
	return b.String()
}

// answerSelect is the string select members answer with: customID, n
// picks. Labels begin with the letter and show the option as plain text
// (optionLabel): Discord shows a label's markdown as typed. The full text
// is in the embed.
func answerSelect(customID string, n int, q *questions.Question, disabled bool) discordgo.ActionsRow {
	opts := make([]discordgo.SelectMenuOption, 0, len(q.Options))
	for _, o := range q.Options {
		opts = append(opts, discordgo.SelectMenuOption{Label: optionLabel(o.Letter, o.Text), Value: o.Letter})
	}
	placeholder := "Choose your answer"
	if n > 1 {
		placeholder = fmt.Sprintf("Choose %d answers", n)
	}
	if disabled {
		placeholder = "Closed"
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		CustomID: customID, Placeholder: placeholder,
		MinValues: &n, MaxValues: n, Options: opts, Disabled: disabled,
	}}}
}

// openMessage is a question as posted, with the extra embeds (the daily
// quiz's streaks) after the question's that fit the message; an extra
// that does not fit is left out, the question never.
func openMessage(p questions.Post, q *questions.Question, extra ...*discordgo.MessageEmbed) *discordgo.MessageSend {
	embeds := questionEmbeds(q, colorOpen)
	room := maxEmbedTotal - embedsSize(embeds)
	for _, e := range extra {
		if n := embedLen(e); n <= room && len(embeds) < maxEmbeds {
			embeds = append(embeds, e)
			room -= n
		}
	}
	return &discordgo.MessageSend{
		Content:         openContent(p),
		Embeds:          embeds,
		Components:      []discordgo.MessageComponent{answerSelect(kindAnswer.id(componentID{post: p.ID}), p.SelectCount, q, false)},
		AllowedMentions: noPings(),
	}
}

// bar draws share as a ten-cell text bar.
func bar(n, total int) string {
	cells := 0
	if total > 0 {
		cells = (n*10 + total/2) / total
	}
	return "`" + strings.Repeat("█", cells) + strings.Repeat("░", 10-cells) + "`"
}

func percent(n, total int) int {
	if total == 0 {
		return 0
	}
	return (n*100 + total/2) / total
}

// communityLine is the line a reveal opens with when most visitors of the
// site q was copied from chose another answer than key (q.Community):
// "⚠️ Key: B · most members of the source site chose C (71%)"; "" when
// they agree or q has no community vote.
func communityLine(q *questions.Question, key []string) string {
	top, ok := q.CommunityDisagrees()
	if !ok || len(top.Letters) == 0 {
		return ""
	}
	return fmt.Sprintf("⚠️ Key: %s · most members of the source site chose %s (%d%%)",
		strings.Join(key, ", "), strings.Join(top.Letters, ", "), top.Percent)
}

// wrongPickLine names the wrong option picked most in p's answers when it
// drew more than a third of them: "🔸 Most picked wrong answer: C (41% of
// the answers)"; "" else.
func wrongPickLine(p questions.Post) string {
	best := -1
	for i, n := range p.Tallies {
		if slices.Contains(p.Correct, questions.Letter(i)) || n == 0 {
			continue
		}
		if best < 0 || n > p.Tallies[best] {
			best = i
		}
	}
	if best < 0 || p.Answers == 0 || 3*p.Tallies[best] <= p.Answers {
		return ""
	}
	return fmt.Sprintf("🔸 Most picked wrong answer: %s (%d%% of the answers)", questions.Letter(best), percent(p.Tallies[best], p.Answers))
}

// revealBlocks is the reveal of q in reading order, as blocks to pack
// into embeds (packEmbeds), none of them cut: the correct letters as the
// title; the community line (communityLine) and the explanation as the
// description, continued in embeds of their own past 4096 characters;
// then a field per option with a rationale, a value over 1024 characters
// continued in the next fields. With votes (the channel's reveal), every
// option shows its votes: in its field, or, when no option has a
// rationale, in one compact "Votes" list. Without votes, an option
// without a rationale has no field.
func revealBlocks(q *questions.Question, p questions.Post, votes bool) []block {
	head := strings.TrimSpace(q.Explanation)
	lines := []string{communityLine(q, p.Correct)}
	if votes {
		lines = append(lines, wrongPickLine(p))
	}
	if line := joinLines(lines...); line != "" {
		head = strings.TrimSpace(line + "\n\n" + head)
	}
	var blocks []block
	for i, piece := range splitText(head, maxDesc) {
		b := block{desc: piece, color: colorClosed}
		if i == 0 {
			b.title = truncate("Answer: "+strings.Join(p.Correct, ", "), maxTitle)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		blocks = []block{{title: truncate("Answer: "+strings.Join(p.Correct, ", "), maxTitle), color: colorClosed}}
	}
	field := func(name, value string) {
		name = truncate(name, maxTitle-runes(" (continued)"))
		for i, piece := range splitText(value, maxFieldValue) {
			n := name
			if i > 0 {
				n += " (continued)"
			}
			blocks = append(blocks, block{field: &discordgo.MessageEmbedField{Name: n, Value: piece}})
		}
	}
	correct := map[string]bool{}
	for _, l := range p.Correct {
		correct[l] = true
	}
	mark := func(letter string) string {
		if correct[letter] {
			return "✅ " + letter
		}
		return "❌ " + letter
	}
	tally := func(i int) int {
		if i < len(p.Tallies) {
			return p.Tallies[i]
		}
		return 0
	}
	voteText := func(n int) string {
		return fmt.Sprintf("%s (%d%%)", plural(n, "vote", "votes"), percent(n, p.Answers))
	}
	rationales := slices.ContainsFunc(q.Options, func(o questions.Option) bool { return strings.TrimSpace(o.Rationale) != "" })
	if votes && !rationales {
		lines := make([]string, len(q.Options))
		for i, o := range q.Options {
			n := tally(i)
			lines[i] = fmt.Sprintf("%s %s %s", mark(o.Letter), bar(n, p.Answers), voteText(n))
		}
		field("Votes", strings.Join(lines, "\n"))
		return blocks
	}
	for i, o := range q.Options {
		rationale := strings.TrimSpace(o.Rationale)
		if !votes {
			if rationale != "" {
				field(mark(o.Letter), rationale)
			}
			continue
		}
		n := tally(i)
		field(mark(o.Letter)+" · "+voteText(n), strings.TrimSpace(bar(n, p.Answers)+" "+rationale))
	}
	return blocks
}

// channelReveal is what closing a post sends to its channel, in order:
// the edit of the post, then the messages that continue its reveal when
// the post cannot hold all of it.
type channelReveal struct {
	edit *discordgo.MessageEdit
	more []*discordgo.MessageSend
}

// closedReveal is the reveal of a closed post: the edit that closes it
// (the select disabled, the question as posted, as much of the reveal and
// the votes as the message holds, and a button to report a problem), then
// the rest of the reveal in further messages, each a reply to the post
// saying which part of the reveal it is. Nothing of the reveal is cut.
// q nil (the bank no longer has the question) shows what the post kept.
func closedReveal(p questions.Post, q *questions.Question) channelReveal {
	content := fmt.Sprintf("**Closed** %s · %s · %d right (%d%%)", timestamp(p.ClosedAt, "R"),
		plural(p.Answers, "answer", "answers"), p.Right, percent(p.Right, p.Answers))
	if p.Daily {
		content = "📅 " + content
	}
	report := discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{
		Label: "Report a problem", Emoji: &discordgo.ComponentEmoji{Name: "⚠️"}, Style: discordgo.SecondaryButton, CustomID: kindReport.id(componentID{post: p.ID})}}}
	edit := &discordgo.MessageEdit{
		Channel: formatID(p.ChannelID), ID: formatID(p.MessageID), AllowedMentions: noPings(),
	}
	if q == nil {
		content += "\nCorrect: **" + strings.Join(p.Correct, ", ") + "**"
		embeds := []*discordgo.MessageEmbed{}
		comps := []discordgo.MessageComponent{report}
		edit.Content, edit.Embeds, edit.Components = &content, &embeds, &comps
		return channelReveal{edit: edit}
	}
	embeds := questionEmbeds(q, colorClosed)
	parts := withReveal(embeds, revealBlocks(q, p, true))
	var more []*discordgo.MessageSend
	if len(parts[0]) == len(embeds) {
		// None of the reveal fits with the question: the post still says
		// the answer.
		content += " · Answer: **" + strings.Join(p.Correct, ", ") + "**"
	}
	if n := len(parts) - 1; n > 0 {
		content += fmt.Sprintf(" · ⬇️ the reveal continues in %s below", plural(n, "more message", "more messages"))
	}
	for i, part := range parts[1:] {
		more = append(more, &discordgo.MessageSend{
			Content: truncate(fmt.Sprintf("↪️ **%s** · the reveal, continued (%d of %d)", questionTitle(q), i+2, len(parts)), maxContent),
			Embeds:  part,
			Reference: &discordgo.MessageReference{MessageID: formatID(p.MessageID), ChannelID: formatID(p.ChannelID),
				GuildID: formatID(p.GuildID), FailIfNotExists: new(bool)},
			AllowedMentions: noPings(),
		})
	}
	comps := []discordgo.MessageComponent{answerSelect(kindAnswer.id(componentID{post: p.ID}), p.SelectCount, q, true), report}
	edit.Content, edit.Embeds, edit.Components = &content, &parts[0], &comps
	return channelReveal{edit: edit, more: more}
}

// withReveal lays a reveal's blocks out after embeds a message carries
// already: the first message's embeds (embeds, then as much of the reveal
// as fits with them), then the embeds of each message the reveal continues
// in.
func withReveal(embeds []*discordgo.MessageEmbed, blocks []block) [][]*discordgo.MessageEmbed {
	parts := packEmbeds(blocks, maxEmbedTotal-embedsSize(embeds), maxEmbeds-len(embeds))
	parts[0] = append(slices.Clone(embeds), parts[0]...)
	return parts
}

// RevealMessageCount is how many messages the channel's reveal of q takes
// when a post of it closes with no answers: 1 when the closing edit of
// the post holds it all (see closedReveal). The vote counts of a real
// close add a few characters, which can move a reveal at the very edge of
// a message into one more. Pure; safe for concurrent use.
func RevealMessageCount(q *questions.Question) int {
	p := previewPost(q)
	p.Closed, p.ClosedAt = true, p.ClosesAt
	return 1 + len(closedReveal(p, q).more)
}

// askedMessage is the private reply to /quiz ask: which question was
// posted and when it closes.
func askedMessage(q *questions.Question, p questions.Post) message {
	return message{ephemeral: true, content: fmt.Sprintf("Posted question %d of **%s**. It closes %s.",
		q.Number, q.Bank, timestamp(p.ClosesAt, "R"))}
}

// answerReveal is what the reply to an answer shows of the answer when the
// guild reveals on answer: the correct letters, the explanation and each
// option's rationale, without the votes, as the embeds of one message or
// more: the first go with the grade, each next group in a follow-up. It
// is the same for every member who answers the post, so the bot renders
// it once per post (revealCache) and shares it between replies: it must
// not be changed once made.
func answerReveal(q *questions.Question, p questions.Post) [][]*discordgo.MessageEmbed {
	return packEmbeds(revealBlocks(q, p, false), maxEmbedTotal, maxEmbeds)
}

// continued is a private message that carries part n of m of a reveal
// begun in the message before it.
func continued(embeds []*discordgo.MessageEmbed, n, m int) message {
	return message{ephemeral: true, content: fmt.Sprintf("↪️ The reveal, continued (%d of %d)", n, m), embeds: embeds}
}

// revealMessages is first carrying the first part of a reveal laid out in
// parts (withReveal, answerReveal), then a follow-up (continued) for each
// part after it; first alone when parts is empty.
func revealMessages(first message, parts [][]*discordgo.MessageEmbed) []message {
	if len(parts) == 0 {
		return []message{first}
	}
	first.embeds = parts[0]
	out := []message{first}
	for i, part := range parts[1:] {
		out = append(out, continued(part, i+2, len(parts)))
	}
	return out
}

// gradeMessage is the private reply to an answer: the member's grade, then
// the reveal (answerReveal), or, when reveal is nil, a line saying when the
// answer shows. A reveal longer than one message continues in the
// messages after the first, sent as follow-ups.
func gradeMessage(a questions.Answer, p questions.Post, reveal [][]*discordgo.MessageEmbed) []message {
	var b strings.Builder
	if a.Right {
		b.WriteString("✅ **Right!**")
	} else {
		b.WriteString("❌ **Not quite.**")
	}
	b.WriteString(" You chose **")
	for i, l := range a.Choice {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(l)
	}
	b.WriteString("**")
	if p.SelectCount > 1 {
		verb := "were"
		if a.RightPicks == 1 {
			verb = "was"
		}
		fmt.Fprintf(&b, ": %d of your %d picks %s right", a.RightPicks, len(a.Choice), verb)
	}
	b.WriteString(". **+")
	b.WriteString(plural(a.Points, "point", "points"))
	b.WriteString("**.")
	if reveal == nil {
		b.WriteString(" The answer and explanation show when the question closes.")
		return []message{{ephemeral: true, content: b.String()}}
	}
	return revealMessages(message{ephemeral: true, content: b.String()}, reveal)
}

// embedLen counts the characters Discord counts toward the 6000 total.
func embedLen(e *discordgo.MessageEmbed) int {
	n := runes(e.Title) + runes(e.Description)
	for _, f := range e.Fields {
		n += runes(f.Name) + runes(f.Value)
	}
	if e.Footer != nil {
		n += runes(e.Footer.Text)
	}
	if e.Author != nil {
		n += runes(e.Author.Name)
	}
	return n
}

// fitEmbeds shortens the longest texts of embeds until all of them together
// fit Discord's 6000-character total. Each text's length is counted once:
// a large paste's preview cut its texts many times over, counting every
// text again at each cut.
func fitEmbeds(embeds []*discordgo.MessageEmbed) []*discordgo.MessageEmbed {
	type text struct {
		s *string
		n int // its runes
	}
	var texts []text // descriptions and field values, in order
	total := 0
	for _, e := range embeds {
		total += embedLen(e)
		texts = append(texts, text{&e.Description, runes(e.Description)})
		for _, f := range e.Fields {
			texts = append(texts, text{&f.Value, runes(f.Value)})
		}
	}
	for total > maxEmbedTotal && len(texts) > 0 {
		// Shorten the longest text (the first of them) by the excess,
		// keeping 20 runes of it.
		longest := &texts[0]
		for i := range texts {
			if texts[i].n > longest.n {
				longest = &texts[i]
			}
		}
		n := longest.n
		if n <= 20 {
			break
		}
		cut := min(total-maxEmbedTotal, n-20)
		*longest.s = truncate(*longest.s, n-cut)
		longest.n = n - cut
		total -= cut
	}
	return embeds
}

// timestamp renders t as a Discord timestamp ("in 3 hours").
func timestamp(t time.Time, style string) string { return fmt.Sprintf("<t:%d:%s>", t.Unix(), style) }
