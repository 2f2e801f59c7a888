package bot

import (
	"fmt"
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
		return string([]rune(s)[:n])
	}
	return string([]rune(s)[:n-1]) + "…"
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

// questionEmbed shows the bank and number, the stem and every option's
// full text, how many options to pick and when the question closes.
func questionEmbed(q *questions.Question, p questions.Post) *discordgo.MessageEmbed {
	how := pickText(p.SelectCount) + " from the menu below"
	color := colorOpen
	switch {
	case p.Closed:
		how, color = pickText(p.SelectCount)+" · closed "+timestamp(p.ClosedAt, "R"), colorClosed
	case p.ClosesAt.IsZero():
		how += " · closes when the next daily question is posted"
	default:
		how += " · closes " + timestamp(p.ClosesAt, "R")
	}
	return &discordgo.MessageEmbed{
		Title:       questionTitle(q),
		Description: truncate(q.Body(), maxDesc),
		Fields:      []*discordgo.MessageEmbedField{{Name: "How to answer", Value: how}},
		Color:       color,
	}
}

// pickText says how many options to pick.
func pickText(n int) string {
	if n == 1 {
		return "Pick **1** answer"
	}
	return fmt.Sprintf("Pick **%d** answers", n)
}

// openContent is the line above an open question: what to pick, when it
// closes and the live answer count.
func openContent(p questions.Post) string {
	var b strings.Builder
	if p.Daily {
		b.WriteString("📅 **Daily question** · ")
	}
	b.WriteString(pickText(p.SelectCount))
	if !p.ClosesAt.IsZero() {
		fmt.Fprintf(&b, " · closes <t:%d:R>", p.ClosesAt.Unix())
	}
	fmt.Fprintf(&b, " · %s so far", plural(p.Answers, "answer", "answers"))
	return b.String()
}

// answerSelect is the string select members answer with. Labels begin with
// the letter and preview the option; the full text is in the embed.
func answerSelect(p questions.Post, q *questions.Question, disabled bool) discordgo.ActionsRow {
	opts := make([]discordgo.SelectMenuOption, 0, len(q.Options))
	for _, o := range q.Options {
		label := o.Letter
		if t := strings.Join(strings.Fields(o.Text), " "); t != "" {
			label = truncate(o.Letter+" · "+t, maxLabel)
		}
		opts = append(opts, discordgo.SelectMenuOption{Label: label, Value: o.Letter})
	}
	n := p.SelectCount
	placeholder := "Choose your answer"
	if n > 1 {
		placeholder = fmt.Sprintf("Choose %d answers", n)
	}
	if disabled {
		placeholder = "Closed"
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		CustomID: answerCustomID(p.ID), Placeholder: placeholder,
		MinValues: &n, MaxValues: n, Options: opts, Disabled: disabled,
	}}}
}

// openMessage is a question as posted.
func openMessage(p questions.Post, q *questions.Question, extra ...*discordgo.MessageEmbed) *discordgo.MessageSend {
	return &discordgo.MessageSend{
		Content:         openContent(p),
		Embeds:          fitEmbeds(append([]*discordgo.MessageEmbed{questionEmbed(q, p)}, extra...)),
		Components:      []discordgo.MessageComponent{answerSelect(p, q, false)},
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

// revealEmbed shows the correct letters, the explanation and each option's
// rationale; with votes, also how many members picked each option.
func revealEmbed(q *questions.Question, p questions.Post, votes bool) *discordgo.MessageEmbed {
	e := &discordgo.MessageEmbed{
		Title:       truncate("Answer: "+strings.Join(p.Correct, ", "), maxTitle),
		Description: truncate(q.Explanation, maxDesc),
		Color:       colorClosed,
	}
	correct := map[string]bool{}
	for _, l := range p.Correct {
		correct[l] = true
	}
	for i, o := range q.Options {
		mark := "❌"
		if correct[o.Letter] {
			mark = "✅"
		}
		name := mark + " " + o.Letter
		var value string
		if votes {
			n := 0
			if i < len(p.Tallies) {
				n = p.Tallies[i]
			}
			name += fmt.Sprintf(" · %s (%d%%)", plural(n, "vote", "votes"), percent(n, p.Answers))
			value = bar(n, p.Answers)
		}
		if o.Rationale != "" {
			if value != "" {
				value += " "
			}
			value += o.Rationale
		}
		if value == "" {
			value = "—"
		}
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: truncate(name, 256), Value: truncate(value, maxFieldValue)})
	}
	return e
}

// closedMessage is the edit that closes a question: the select disabled,
// the reveal and the votes, and a button to report a problem with it.
func closedMessage(p questions.Post, q *questions.Question) *discordgo.MessageEdit {
	content := fmt.Sprintf("**Closed** · %s · %d right (%d%%)", plural(p.Answers, "answer", "answers"),
		p.Right, percent(p.Right, p.Answers))
	if p.Daily {
		content = "📅 " + content
	}
	var embeds []*discordgo.MessageEmbed
	var comps []discordgo.MessageComponent
	report := discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{
		Label: "Report a problem", Emoji: &discordgo.ComponentEmoji{Name: "⚠️"}, Style: discordgo.SecondaryButton, CustomID: reportCustomID(p.ID)}}}
	if q != nil {
		embeds = fitEmbeds([]*discordgo.MessageEmbed{questionEmbed(q, p), revealEmbed(q, p, true)})
		comps = []discordgo.MessageComponent{answerSelect(p, q, true), report}
	} else {
		// The bank no longer has the question: show what the post kept.
		content += "\nCorrect: **" + strings.Join(p.Correct, ", ") + "**"
		embeds = []*discordgo.MessageEmbed{}
		comps = []discordgo.MessageComponent{report}
	}
	return &discordgo.MessageEdit{
		Channel: formatID(p.ChannelID), ID: formatID(p.MessageID),
		Content: &content, Embeds: &embeds, Components: &comps, AllowedMentions: noPings(),
	}
}

// askedMessage is the private reply to /quiz ask: which question was
// posted and when it closes.
func askedMessage(q *questions.Question, p questions.Post) message {
	return message{ephemeral: true, content: fmt.Sprintf("Posted question %d of **%s**. It closes %s.",
		q.Number, q.Bank, timestamp(p.ClosesAt, "R"))}
}

// answerReveal is what the reply to an answer shows of the answer when the
// guild reveals on answer: the correct letters, the explanation and each
// option's rationale, without the votes. It is the same for every member
// who answers the post, so the bot renders it once per post (revealCache)
// and shares it between replies: it must not be changed once made.
func answerReveal(q *questions.Question, p questions.Post) []*discordgo.MessageEmbed {
	return fitEmbeds([]*discordgo.MessageEmbed{revealEmbed(q, p, false)})
}

// gradeMessage is the private reply to an answer: the member's grade, then
// reveal (answerReveal), or, when reveal is nil, a line saying when the
// answer shows.
func gradeMessage(a questions.Answer, p questions.Post, reveal []*discordgo.MessageEmbed) message {
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
	m := message{ephemeral: true, embeds: reveal}
	if reveal == nil {
		b.WriteString(" The answer and explanation show when the question closes.")
	}
	m.content = b.String()
	return m
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
// fit Discord's 6000-character total.
func fitEmbeds(embeds []*discordgo.MessageEmbed) []*discordgo.MessageEmbed {
	total := 0
	for _, e := range embeds {
		total += embedLen(e)
	}
	for total > maxEmbedTotal {
		// Shorten the longest text by the excess (keeping 20 runes of it).
		var longest *string
		for _, e := range embeds {
			if longest == nil || runes(e.Description) > runes(*longest) {
				longest = &e.Description
			}
			for _, f := range e.Fields {
				if runes(f.Value) > runes(*longest) {
					longest = &f.Value
				}
			}
		}
		n := runes(*longest)
		if n <= 20 {
			break
		}
		cut := total - maxEmbedTotal
		if cut > n-20 {
			cut = n - 20
		}
		*longest = truncate(*longest, n-cut)
		total -= cut
	}
	return embeds
}

// timestamp renders t as a Discord timestamp ("in 3 hours").
func timestamp(t time.Time, style string) string { return fmt.Sprintf("<t:%d:%s>", t.Unix(), style) }
