package bot

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// PreviewText renders q as plain text, message by message, exactly as the
// bot sends it to a channel, for "quizhost preview": the message /quiz ask
// posts (open for a server's default time), then the reveal when it
// closes, with no answers yet: the edit of that message, and each message
// the reveal continues in when the post cannot hold all of it. Each
// message is headed by a line saying which it is; each embed shows its
// title, description and fields, each menu its options as Discord shows
// them. It flattens what the bot sends (openMessage, closedReveal), so it
// cannot drift from it. Discord timestamps are written relative to the
// post ("in 10 minutes"). Pure; safe for concurrent use.
func PreviewText(q *questions.Question) string {
	p := previewPost(q)
	var posted, revealed strings.Builder
	m := openMessage(p, q)
	posted.WriteString("━━ message 1: posted ━━\n")
	writeMessage(&posted, m.Content, m.Embeds, m.Components)
	closed := p
	closed.Closed, closed.ClosedAt = true, p.ClosesAt
	r := closedReveal(closed, q)
	revealed.WriteString("\n━━ message 1: edited when the question closes ━━\n")
	writeMessage(&revealed, *r.edit.Content, *r.edit.Embeds, *r.edit.Components)
	for i, more := range r.more {
		fmt.Fprintf(&revealed, "\n━━ message %d: posted after it, a reply to message 1 ━━\n", i+2)
		writeMessage(&revealed, more.Content, more.Embeds, more.Components)
	}
	// Each part's times as a member reads them then.
	return flattenTimestamps(posted.String(), p.OpenedAt) + flattenTimestamps(revealed.String(), closed.ClosedAt)
}

// previewPost is the post PreviewText shows q in: asked now for a server's
// default time, not answered yet.
func previewPost(q *questions.Question) questions.Post {
	opened := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC) // any instant: times are shown relative to it
	return questions.Post{
		ID: 1, GuildID: 1, ChannelID: 1, MessageID: 1,
		QuestionID: q.ID, Bank: q.Bank, Tags: q.Tags, Correct: q.Correct(),
		OptionCount: len(q.Options), SelectCount: q.SelectCount(), OpenedAt: opened,
		ClosesAt: opened.Add(time.Duration(questions.DefaultSettings(0).AskMinutes) * time.Minute),
		Tallies:  make([]int, len(q.Options)),
	}
}

// writeMessage writes a message's content, embeds and components.
func writeMessage(b *strings.Builder, content string, embeds []*discordgo.MessageEmbed, comps []discordgo.MessageComponent) {
	if content != "" {
		b.WriteString(content + "\n")
	}
	for _, e := range embeds {
		writeEmbed(b, e)
	}
	for _, c := range comps {
		writeComponents(b, c)
	}
}

// writeEmbed writes an embed's title, description and fields.
func writeEmbed(b *strings.Builder, e *discordgo.MessageEmbed) {
	if e.Title == "" {
		b.WriteString("==\n") // an embed without a title
	} else {
		fmt.Fprintf(b, "== %s ==\n", e.Title)
	}
	if e.Description != "" {
		b.WriteString(e.Description + "\n")
	}
	for _, f := range e.Fields {
		fmt.Fprintf(b, "-- %s --\n%s\n", f.Name, f.Value)
	}
}

// writeComponents writes select menus (the placeholder, then each
// option's label as the menu shows it) and buttons.
func writeComponents(b *strings.Builder, c discordgo.MessageComponent) {
	switch c := c.(type) {
	case discordgo.ActionsRow:
		for _, inner := range c.Components {
			writeComponents(b, inner)
		}
	case discordgo.SelectMenu:
		fmt.Fprintf(b, "[menu: %s]\n", c.Placeholder)
		for _, o := range c.Options {
			fmt.Fprintf(b, "  %s\n", o.Label)
		}
	case discordgo.Button:
		fmt.Fprintf(b, "[button: %s]\n", c.Label)
	}
}

var discordTimestamp = regexp.MustCompile(`<t:(-?\d+):([tTdDfFR])>`)

// flattenTimestamps writes Discord's <t:unix:style> markup as text: the
// relative style relative to now, the others as a UTC time.
func flattenTimestamps(s string, now time.Time) string {
	return discordTimestamp.ReplaceAllStringFunc(s, func(m string) string {
		sub := discordTimestamp.FindStringSubmatch(m)
		unix, err := strconv.ParseInt(sub[1], 10, 64)
		if err != nil {
			return m
		}
		t := time.Unix(unix, 0).UTC()
		if sub[2] != "R" {
			return t.Format("2006-01-02 15:04 UTC")
		}
		d := t.Sub(now).Round(time.Minute)
		switch {
		case d == 0:
			return "now"
		case d > 0:
			return "in " + minutesText(d)
		default:
			return minutesText(-d) + " ago"
		}
	})
}

// minutesText says a duration in whole minutes, or hours when exact.
func minutesText(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return plural(int(d/time.Hour), "hour", "hours")
	}
	return plural(int(d/time.Minute), "minute", "minutes")
}
