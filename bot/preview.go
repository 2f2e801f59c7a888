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

// PreviewText renders q as plain text the way Discord will show it, for
// "quizhost preview": first the message /quiz ask posts (its line above,
// the question embed and the answer menu's options), open for a server's
// default time, then the reveal embed a member sees (the correct letters,
// the explanation and every option's rationale; the channel's reveal adds
// the votes). It flattens the bot's own rendering (openMessage,
// revealEmbed), so it cannot drift from what is posted. Discord timestamps
// are written relative to the post ("in 10 minutes"). Pure; safe for
// concurrent use.
func PreviewText(q *questions.Question) string {
	opened := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC) // any instant: times are shown relative to it
	p := questions.Post{
		QuestionID: q.ID, Bank: q.Bank, Tags: q.Tags, Correct: q.Correct(),
		OptionCount: len(q.Options), SelectCount: q.SelectCount(), OpenedAt: opened,
		ClosesAt: opened.Add(time.Duration(questions.DefaultSettings(0).AskMinutes) * time.Minute),
	}
	var b strings.Builder
	m := openMessage(p, q)
	b.WriteString("POSTED\n")
	b.WriteString(m.Content + "\n")
	for _, e := range m.Embeds {
		writeEmbed(&b, e)
	}
	for _, row := range m.Components {
		writeComponents(&b, row)
	}
	b.WriteString("\nREVEALED\n")
	for _, e := range fitEmbeds([]*discordgo.MessageEmbed{revealEmbed(q, p, false)}) {
		writeEmbed(&b, e)
	}
	return flattenTimestamps(b.String(), opened)
}

// writeEmbed writes an embed's title, description and fields.
func writeEmbed(b *strings.Builder, e *discordgo.MessageEmbed) {
	fmt.Fprintf(b, "== %s ==\n", e.Title)
	if e.Description != "" {
		b.WriteString(e.Description + "\n")
	}
	for _, f := range e.Fields {
		fmt.Fprintf(b, "-- %s --\n%s\n", f.Name, f.Value)
	}
}

// writeComponents writes select menus: the placeholder, then each option's
// label as the menu shows it.
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
