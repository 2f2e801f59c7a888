package bot

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// bigQuestion is as large as validation lets a question be: the longest
// stem, options filling the rest of the post, the longest explanation and
// rationales.
func bigQuestion(options int) (*questions.Question, questions.Post) {
	q := &questions.Question{ID: "Big#1", Bank: strings.Repeat("B", questions.MaxBankNameLength), Number: 123456789,
		Stem:        strings.Repeat("s", questions.MaxStemLength),
		Explanation: strings.Repeat("e", questions.MaxExplanationLength)}
	per := (questions.MaxBodyLength - questions.MaxStemLength - 1) / options
	for i := 0; i < options; i++ {
		q.Options = append(q.Options, questions.Option{Letter: questions.Letter(i),
			Text: strings.Repeat("o", per-len("\n**A.** ")), Correct: i%2 == 0, Rationale: strings.Repeat("r", questions.MaxRationaleLength)})
	}
	p := questions.Post{ID: 7, GuildID: 1, ChannelID: 2, MessageID: 3, QuestionID: q.ID, Correct: q.Correct(),
		OptionCount: options, SelectCount: q.SelectCount(), Tallies: make([]int, options), Answers: 100000, Right: 40000,
		ClosesAt: time.Unix(1_800_000_000, 0), Closed: true, ClosedAt: time.Unix(1_800_000_000, 0)}
	p.Tallies[0] = 100000
	return q, p
}

// checkLimits reports every way a message breaks Discord's limits, counted
// as Discord counts them (runes of the trimmed texts).
func checkLimits(t *testing.T, what, content string, embeds []*discordgo.MessageEmbed, comps []discordgo.MessageComponent) {
	t.Helper()
	n := func(s string) int { return runes(strings.TrimSpace(s)) }
	if c := runes(content); c > maxContent {
		t.Errorf("%s: content %d runes, want ≤ 2000", what, c)
	}
	if len(embeds) > maxEmbeds {
		t.Errorf("%s: %d embeds, want ≤ 10", what, len(embeds))
	}
	if content == "" && len(embeds) == 0 && len(comps) == 0 {
		t.Errorf("%s: empty message", what)
	}
	total := 0
	for i, e := range embeds {
		if c := n(e.Title); c > maxTitle {
			t.Errorf("%s: embed %d title %d runes, want ≤ 256", what, i, c)
		}
		if c := n(e.Description); c > maxDesc {
			t.Errorf("%s: embed %d description %d runes, want ≤ 4096", what, i, c)
		}
		if len(e.Fields) > maxFields {
			t.Errorf("%s: embed %d has %d fields, want ≤ 25", what, i, len(e.Fields))
		}
		total += n(e.Title) + n(e.Description)
		for j, f := range e.Fields {
			if c := n(f.Value); c > maxFieldValue || c == 0 {
				t.Errorf("%s: embed %d field %d value %d runes, want 1..1024", what, i, j, c)
			}
			if c := n(f.Name); c > maxTitle || c == 0 {
				t.Errorf("%s: embed %d field %d name %d runes, want 1..256", what, i, j, c)
			}
			total += n(f.Name) + n(f.Value)
		}
	}
	if total > maxEmbedTotal {
		t.Errorf("%s: embeds hold %d characters, want ≤ 6000", what, total)
	}
	for _, c := range comps {
		row, ok := c.(discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, k := range row.Components {
			if sel, ok := k.(discordgo.SelectMenu); ok {
				for _, o := range sel.Options {
					if l := runes(o.Label); l == 0 || l > maxLabel {
						t.Errorf("%s: select label %d runes, want 1..100", what, l)
					}
				}
			}
		}
	}
}

// revealedText is the text of a reveal's embeds in order: descriptions and
// field values, each piece on a line.
func revealedText(parts ...[]*discordgo.MessageEmbed) string {
	n := 0
	for _, part := range parts {
		for _, e := range part {
			n += len(e.Description) + 1
			for _, f := range e.Fields {
				n += len(f.Value) + 1
			}
		}
	}
	var b strings.Builder
	b.Grow(n) // one allocation: the render tests join every reveal they check
	for _, part := range parts {
		for _, e := range part {
			b.WriteString(e.Description + "\n")
			for _, f := range e.Fields {
				b.WriteString(f.Value + "\n")
			}
		}
	}
	return b.String()
}

// checkWhole reports a text of wants that does not read, whole and in
// order, in text (compared as readAs compares: white space and the fences
// of cut code blocks aside).
func checkWhole(t *testing.T, what, text string, wants []string) {
	t.Helper()
	wholeChecker{}.check(t, what, text, wants)
}

// wholeChecker is checkWhole reading each want once, for the texts of a
// question checked in several renders: want → readAs(want).
type wholeChecker map[string]string

func (read wholeChecker) check(t *testing.T, what, text string, wants []string) {
	t.Helper()
	got := readAs(text)
	at := 0
	for i, w := range wants {
		r, ok := read[w]
		if !ok {
			r = readAs(w)
			read[w] = r
		}
		w = r
		k := strings.Index(got[at:], w)
		if k < 0 {
			t.Errorf("%s: text %d (%d runes) is not whole after what came before it", what, i, runes(w))
			return
		}
		at += k + len(w)
	}
}

// postTexts are the texts of q a post shows, in order.
func postTexts(q *questions.Question) []string {
	out := []string{q.Stem}
	for _, o := range q.Options {
		out = append(out, o.Text)
	}
	return out
}

// revealTexts are the texts of q a reveal shows, in order.
func revealTexts(q *questions.Question) []string {
	out := []string{q.Explanation}
	for _, o := range q.Options {
		out = append(out, o.Rationale)
	}
	return out
}

// TestRenderKeepsDiscordLimits: the largest question validation accepts
// is posted and revealed within Discord's limits everywhere, and nothing
// of it is cut.
func TestRenderKeepsDiscordLimits(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 5, 25} {
		q, p := bigQuestion(n)
		if ps := questions.Validate([]questions.Bank{{Name: q.Bank, Questions: []questions.Question{*q}}}); len(ps) > 0 {
			t.Fatalf("test question is not valid: %v", ps)
		}
		checkRendering(t, fmt.Sprintf("%d options", n), q, p)
	}
}

// checkRendering renders q everywhere the bot shows it and checks each
// message against Discord's limits, and that every text reached members.
func checkRendering(t *testing.T, what string, q *questions.Question, p questions.Post) {
	t.Helper()
	whole := wholeChecker{}
	checkWhole := func(t *testing.T, what, text string, wants []string) {
		t.Helper()
		whole.check(t, what, text, wants)
	}
	open := openMessage(p, q)
	checkLimits(t, what+": post", open.Content, open.Embeds, open.Components)
	checkWhole(t, what+": post", revealedText(open.Embeds), postTexts(q))
	sel := open.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu)
	if len(sel.Options) != len(q.Options) || *sel.MinValues != p.SelectCount || sel.MaxValues != p.SelectCount {
		t.Errorf("%s: select has %d options, min %d max %d; want %d, %d, %d", what, len(sel.Options), *sel.MinValues, sel.MaxValues, len(q.Options), p.SelectCount, p.SelectCount)
	}

	r := closedReveal(p, q)
	checkLimits(t, what+": closing edit", *r.edit.Content, *r.edit.Embeds, *r.edit.Components)
	parts := [][]*discordgo.MessageEmbed{*r.edit.Embeds}
	for i, m := range r.more {
		checkLimits(t, fmt.Sprintf("%s: reveal message %d", what, i+2), m.Content, m.Embeds, m.Components)
		if m.AllowedMentions == nil || m.AllowedMentions.Parse == nil || len(m.AllowedMentions.Parse) != 0 {
			t.Errorf("%s: reveal message %d allowed_mentions %+v, want parse []", what, i+2, m.AllowedMentions)
		}
		if m.Reference == nil || m.Reference.MessageID != formatID(p.MessageID) {
			t.Errorf("%s: reveal message %d references %+v, want the post", what, i+2, m.Reference)
		}
		parts = append(parts, m.Embeds)
	}
	checkWhole(t, what+": channel reveal", revealedText(parts...), append(postTexts(q), revealTexts(q)...))
	if got := RevealMessageCount(q); got < 1 {
		t.Errorf("%s: RevealMessageCount %d", what, got)
	}

	a := questions.Answer{Choice: p.Correct, Grade: questions.Grade{Right: true, RightPicks: len(p.Correct), Points: len(p.Correct)}}
	ms := gradeMessage(a, p, answerReveal(q, p))
	var texts [][]*discordgo.MessageEmbed
	for i, m := range ms {
		checkLimits(t, fmt.Sprintf("%s: answer reply %d", what, i+1), m.content, m.embeds, m.components)
		if !m.ephemeral {
			t.Errorf("%s: answer reply %d is public", what, i+1)
		}
		texts = append(texts, m.embeds)
	}
	checkWhole(t, what+": answer reveal", revealedText(texts...), revealTexts(q))

	rv := questions.Review{ID: 9, Correct: p.Correct, SelectCount: p.SelectCount, OptionCount: len(q.Options)}
	m := studyQuestionMessage("", "🔁 **Review** · 3 questions due · you missed this one last time", rv, q, kindReviewAnswer, "rn1:stop")
	checkLimits(t, what+": review question", m.content, m.embeds, m.components)
	ms = reviewGradeMessage(studyGraded{a: a, r: rv, q: q, due: time.Unix(1_900_000_000, 0)}, questions.ReviewQueue{Due: make([]questions.Memory, 2)})
	texts = nil
	for i, m := range ms {
		checkLimits(t, fmt.Sprintf("%s: review grade %d", what, i+1), m.content, m.embeds, m.components)
		texts = append(texts, m.embeds)
	}
	checkWhole(t, what+": review reveal", revealedText(texts...), revealTexts(q))
	if len(ms[len(ms)-1].components) == 0 {
		t.Errorf("%s: Next and Stop are not on the review's last message", what)
	}
	ms = drillGradeMessage(studyGraded{a: a, r: rv, q: q, due: time.Unix(1_900_000_000, 0)}, questions.Drill{Topic: strings.Repeat("t", 100), Questions: make([]string, 25), Shown: 3}, 3, 2)
	texts = nil
	for i, m := range ms {
		checkLimits(t, fmt.Sprintf("%s: drill grade %d", what, i+1), m.content, m.embeds, m.components)
		texts = append(texts, m.embeds)
	}
	checkWhole(t, what+": drill reveal", revealedText(texts...), revealTexts(q))
	if len(ms[len(ms)-1].components) == 0 {
		t.Errorf("%s: Next and Stop are not on the drill's last message", what)
	}

	texts = nil
	for i, m := range questionShowMessage(q, false) {
		checkLimits(t, fmt.Sprintf("%s: question show %d", what, i+1), m.content, m.embeds, m.components)
		texts = append(texts, m.embeds)
	}
	checkWhole(t, what+": question show", revealedText(texts...), append(postTexts(q), revealTexts(q)...))
}

// TestRenderValidQuestions: questions made at random up to every limit
// validation keeps (long stems and options, paragraphs, code blocks, long
// words, many options, rationales or none, wide characters), whenever
// Validate accepts them, render within Discord's limits everywhere and
// whole.
func TestRenderValidQuestions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(18, 3))
	words := []string{"the", "service", "stores", "objects", "é", "naïve", "日本語", "😀", "`code`", "**bold**", "x", "internationalisation"}
	text := func(max int) string {
		n := rng.IntN(max + 1)
		out := make([]byte, 0, n)
		count := 0 // runes in out
		add := func(s string) {
			out = append(out, s...)
			count += utf8.RuneCountInString(s)
		}
		for count < n {
			switch k := rng.IntN(40); {
			case k == 0:
				add("\n\n")
			case k == 1:
				add("\n")
			case k == 2:
				lang := []string{"", "go", "python", strings.Repeat("l", 30)}[rng.IntN(4)]
				add("\n```" + lang + "\n")
				for range rng.IntN(80) {
					add(strings.Repeat("  ", rng.IntN(3)) + words[rng.IntN(len(words))] + " = " + words[rng.IntN(len(words))] + "\n")
				}
				add("```\n")
			case k == 3:
				add(strings.Repeat("w", rng.IntN(1500)) + " ")
			default:
				add(words[rng.IntN(len(words))] + " ")
			}
		}
		return headRunes(string(out), n)
	}
	checked := 0
	for i := 0; checked < 100 && i < 2000; i++ {
		opts := 2 + rng.IntN(24)
		q := questions.Question{ID: fmt.Sprintf("G#%d", i), Bank: strings.Repeat("b", 1+rng.IntN(questions.MaxBankNameLength)),
			Number: rng.IntN(1_000_000_000), Stem: "?" + text(questions.MaxStemLength-1), Explanation: text(questions.MaxExplanationLength)}
		room := questions.MaxBodyLength - runes(q.Stem) - 1
		for j := range opts {
			o := questions.Option{Letter: questions.Letter(j), Text: "o" + text(max(0, room/opts-9)), Correct: j == 0 || rng.IntN(3) == 0}
			if rng.IntN(2) == 0 {
				o.Rationale = text(questions.MaxRationaleLength)
			}
			q.Options = append(q.Options, o)
		}
		if rng.IntN(3) == 0 {
			q.Community = []questions.CommunityVote{{Letters: []string{"B"}, Percent: rng.IntN(101)}}
		}
		if ps := questions.Validate([]questions.Bank{{Name: q.Bank, Questions: []questions.Question{q}}}); len(ps) > 0 {
			continue
		}
		checked++
		p := questions.Post{ID: 1, GuildID: 2, ChannelID: 3, MessageID: 4, Correct: q.Correct(), OptionCount: opts,
			SelectCount: q.SelectCount(), Tallies: make([]int, opts), Answers: rng.IntN(1_000_000), Daily: rng.IntN(2) == 0,
			ClosesAt: time.Unix(1_800_000_000, 0), Closed: true, ClosedAt: time.Unix(1_800_000_000, 0)}
		for j := range p.Tallies {
			p.Tallies[j] = rng.IntN(p.Answers + 1)
		}
		checkRendering(t, q.ID, &q, p)
		if t.Failed() {
			return
		}
	}
	if checked < 100 {
		t.Fatalf("only %d generated questions were valid, want 100", checked)
	}
}

func TestRevealShowsVotesAndRationales(t *testing.T) {
	t.Parallel()
	q := &questions.Question{ID: "X#1", Bank: "X", Number: 1, Stem: "Pick two", Explanation: "Because.",
		Options: []questions.Option{
			{Letter: "A", Text: "one", Correct: true, Rationale: "A is right."},
			{Letter: "B", Text: "two", Rationale: "B is wrong."},
			{Letter: "C", Text: "three", Correct: true},
		}}
	p := questions.Post{ID: 1, Correct: []string{"A", "C"}, OptionCount: 3, SelectCount: 2,
		Tallies: []int{3, 1, 2}, Answers: 3, Right: 2}
	parts := packEmbeds(revealBlocks(q, p, true), maxEmbedTotal, maxEmbeds)
	if len(parts) != 1 || len(parts[0]) != 1 {
		t.Fatalf("got %d messages, want one embed in one", len(parts))
	}
	e := parts[0][0]
	if e.Title != "Answer: A, C" || e.Description != "Because." {
		t.Errorf("title %q description %q", e.Title, e.Description)
	}
	checkFields(t, "with votes", e.Fields, [][2]string{
		{"✅ A · 3 votes (100%)", "`██████████` A is right."},
		{"❌ B · 1 vote (33%)", "`███░░░░░░░` B is wrong."},
		{"✅ C · 2 votes (67%)", "`███████░░░`"},
	})
	// Without votes (the reply to an answer, a review), an option without
	// a rationale has no field.
	hidden := answerReveal(q, p)[0][0]
	checkFields(t, "without votes", hidden.Fields, [][2]string{{"✅ A", "A is right."}, {"❌ B", "B is wrong."}})
}

// TestLongRationaleContinues: a rationale that does not fit its field
// beside the vote bar goes on in the next field, named as continued.
func TestLongRationaleContinues(t *testing.T) {
	t.Parallel()
	long := strings.TrimSpace(strings.Repeat("word ", 300)) // 1499 runes
	q := &questions.Question{ID: "X#1", Bank: "X", Number: 1, Stem: "Which?",
		Options: []questions.Option{{Letter: "A", Text: "a", Correct: true, Rationale: long}, {Letter: "B", Text: "b"}}}
	p := questions.Post{ID: 1, Correct: []string{"A"}, OptionCount: 2, SelectCount: 1, Tallies: []int{1, 0}, Answers: 1, Right: 1}
	e := packEmbeds(revealBlocks(q, p, true), maxEmbedTotal, maxEmbeds)[0][0]
	if len(e.Fields) != 3 || e.Fields[0].Name != "✅ A · 1 vote (100%)" || e.Fields[1].Name != "✅ A · 1 vote (100%) (continued)" ||
		e.Fields[2].Name != "❌ B · 0 votes (0%)" {
		t.Fatalf("fields %+v, want A, A continued, B", e.Fields)
	}
	if got := strings.TrimPrefix(e.Fields[0].Value, "`██████████` ") + " " + e.Fields[1].Value; got != long {
		t.Errorf("the rationale reads %q, want it whole", got)
	}
}

func checkFields(t *testing.T, what string, got []*discordgo.MessageEmbedField, want [][2]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d fields, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i].Name != want[i][0] || got[i].Value != want[i][1] {
			t.Errorf("%s: field %d = %q / %q, want %q / %q", what, i, got[i].Name, got[i].Value, want[i][0], want[i][1])
		}
	}
}

// TestRevealWithoutRationales: a question without rationales has no empty
// field per option: the members' reveal has none, and the channel's lists
// the votes compactly in one field.
func TestRevealWithoutRationales(t *testing.T) {
	t.Parallel()
	q := &questions.Question{ID: "X#1", Bank: "X", Number: 1, Stem: "Which?", Explanation: "Because."}
	for i := range 12 {
		q.Options = append(q.Options, questions.Option{Letter: questions.Letter(i), Text: "t", Correct: i == 1})
	}
	p := questions.Post{ID: 1, Correct: []string{"B"}, OptionCount: 12, SelectCount: 1, Tallies: make([]int, 12), Answers: 4, Right: 3}
	p.Tallies[1], p.Tallies[5] = 3, 1
	if e := answerReveal(q, p)[0][0]; len(e.Fields) != 0 {
		t.Errorf("members' reveal has %d fields, want none", len(e.Fields))
	}
	e := packEmbeds(revealBlocks(q, p, true), maxEmbedTotal, maxEmbeds)[0][0]
	if len(e.Fields) != 1 || e.Fields[0].Name != "Votes" {
		t.Fatalf("channel reveal fields %+v, want one Votes field", e.Fields)
	}
	lines := strings.Split(e.Fields[0].Value, "\n")
	if len(lines) != 12 || lines[0] != "❌ A `░░░░░░░░░░` 0 votes (0%)" || lines[1] != "✅ B `████████░░` 3 votes (75%)" ||
		lines[5] != "❌ F `███░░░░░░░` 1 vote (25%)" {
		t.Errorf("votes:\n%s", e.Fields[0].Value)
	}
}

// TestCommunityLine: the reveal says so in one line where the source
// site's community chose another answer than the key, and says nothing
// where it agrees or gave no vote.
func TestCommunityLine(t *testing.T) {
	t.Parallel()
	q := &questions.Question{ID: "X#1", Bank: "X", Number: 12, Stem: "Which?", Explanation: "Because.",
		Options: []questions.Option{{Letter: "A", Text: "a"}, {Letter: "B", Text: "b", Correct: true}, {Letter: "C", Text: "c"}}}
	p := questions.Post{ID: 1, Correct: []string{"B"}, OptionCount: 3, SelectCount: 1, Tallies: []int{0, 1, 0}, Answers: 1}
	tests := []struct {
		name      string
		community []questions.CommunityVote
		want      string
	}{
		{"disagrees", []questions.CommunityVote{{Letters: []string{"C"}, Percent: 71}, {Letters: []string{"B"}, Percent: 29}},
			"⚠️ Key: B · most members of the source site chose C (71%)\n\nBecause."},
		{"several letters", []questions.CommunityVote{{Letters: []string{"A", "C"}, Percent: 60}},
			"⚠️ Key: B · most members of the source site chose A, C (60%)\n\nBecause."},
		{"agrees", []questions.CommunityVote{{Letters: []string{"B"}, Percent: 90}, {Letters: []string{"C"}, Percent: 10}}, "Because."},
		{"no vote", nil, "Because."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := *q
			q.Community = tt.community
			if got := answerReveal(&q, p)[0][0].Description; got != tt.want {
				t.Errorf("members' reveal says %q, want %q", got, tt.want)
			}
			if got := (*closedReveal(p, &q).edit.Embeds)[1].Description; got != tt.want {
				t.Errorf("channel reveal says %q, want %q", got, tt.want)
			}
			preview := PreviewText(&q)
			if line, _, _ := strings.Cut(tt.want, "\n"); strings.HasPrefix(line, "⚠️") != strings.Contains(preview, "most members of the source site") {
				t.Errorf("preview:\n%s", preview)
			}
		})
	}
}

// TestPostSaysHowToAnswerOnce: "Pick N · closes …" is the post's content
// line alone, open and while answers come in; the closing edit replaces
// it with the result.
func TestPostSaysHowToAnswerOnce(t *testing.T) {
	t.Parallel()
	q := &questions.Question{ID: "X#1", Bank: "X", Number: 1, Stem: "Which?",
		Options: []questions.Option{{Letter: "A", Text: "a", Correct: true}, {Letter: "B", Text: "b", Correct: true}, {Letter: "C", Text: "c"}}}
	closes := time.Unix(1_800_000_000, 0)
	p := questions.Post{ID: 1, Correct: []string{"A", "B"}, OptionCount: 3, SelectCount: 2, Tallies: []int{2, 1, 0}, Answers: 2, Right: 1, ClosesAt: closes}
	m := openMessage(p, q)
	text := m.Content + "\n" + embedsTextOf(m.Embeds)
	if got := strings.Count(text, "Pick **2** answers"); got != 1 {
		t.Errorf("post says how to answer %d times, want once:\n%s", got, text)
	}
	if want := "Pick **2** answers from the menu below · closes <t:1800000000:R> · 2 answers so far"; m.Content != want {
		t.Errorf("post content %q, want %q", m.Content, want)
	}
	if got := strings.Count(text, "closes"); got != 1 {
		t.Errorf("post says when it closes %d times, want once", got)
	}
	daily := p
	daily.Daily, daily.ClosesAt = true, time.Time{}
	if got, want := openContent(daily), "📅 **Daily question** · Pick **2** answers from the menu below · closes when the next daily question is posted · 2 answers so far"; got != want {
		t.Errorf("daily content %q, want %q", got, want)
	}
	p.Closed, p.ClosedAt = true, closes
	r := closedReveal(p, q)
	if want := "**Closed** <t:1800000000:R> · 2 answers · 1 right (50%)"; *r.edit.Content != want {
		t.Errorf("closed content %q, want %q", *r.edit.Content, want)
	}
	if text := embedsTextOf(*r.edit.Embeds); strings.Contains(text, "Pick") {
		t.Errorf("closed embeds still say how to answer:\n%s", text)
	}
}

func embedsTextOf(embeds []*discordgo.MessageEmbed) string {
	var b strings.Builder
	for _, e := range embeds {
		b.WriteString(e.Title + "\n" + e.Description + "\n")
		for _, f := range e.Fields {
			b.WriteString(f.Name + "\n" + f.Value + "\n")
		}
	}
	return b.String()
}

// TestLongQuestionLayout: a stem and options too long for one description
// are posted as the stem, then the options, in one message; a reveal too
// long for the post continues in replies to it, numbered.
func TestLongQuestionLayout(t *testing.T) {
	t.Parallel()
	q := longQuestion()
	p := questions.Post{ID: 5, GuildID: 1, ChannelID: 2, MessageID: 3, Correct: q.Correct(), OptionCount: len(q.Options),
		SelectCount: 1, Tallies: make([]int, len(q.Options)), Closed: true}
	open := openMessage(p, q)
	if len(open.Embeds) != 1 || !strings.HasPrefix(open.Embeds[0].Description, q.Stem[:100]) {
		t.Fatalf("post embeds %d, want the stem and options in one", len(open.Embeds))
	}
	r := closedReveal(p, q)
	if len(r.more) == 0 {
		t.Fatal("the long reveal has no continuation")
	}
	if !strings.Contains(*r.edit.Content, fmt.Sprintf("the reveal continues in %s below", plural(len(r.more), "more message", "more messages"))) {
		t.Errorf("closing edit content %q does not say the reveal continues", *r.edit.Content)
	}
	for i, m := range r.more {
		if want := fmt.Sprintf("(%d of %d)", i+2, len(r.more)+1); !strings.Contains(m.Content, want) || !strings.Contains(m.Content, "Long · Question 1") {
			t.Errorf("continuation %d content %q, want the question and %q", i+2, m.Content, want)
		}
	}
	checkRendering(t, "long", q, p)

	longer := *q
	longer.Options = append([]questions.Option(nil), q.Options...)
	longer.Options[0].Text = strings.Repeat("option text ", 100)
	if embeds := openMessage(p, &longer).Embeds; len(embeds) != 2 || embeds[0].Description != strings.TrimSpace(longer.Stem) ||
		!strings.HasPrefix(embeds[1].Description, "**A.** option text") || embeds[1].Title != "" {
		t.Errorf("post of a body over 4096: %d embeds, want the stem, then the options without a title", len(embeds))
	}
}

// longQuestion is the question of issue 18: a 3,800-character stem, a
// 4,000-character explanation and five options with 1,000-character
// rationales, written in paragraphs of distinct words.
func longQuestion() *questions.Question {
	words := func(prefix string, n int) string {
		var b strings.Builder
		for i := 0; runes(b.String()) < n; i++ {
			if i > 0 && i%40 == 0 {
				b.WriteString("\n\n")
			} else if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s%d", prefix, i)
		}
		return string([]rune(b.String())[:n])
	}
	q := &questions.Question{ID: "Long#1", Bank: "Long", Number: 1, Stem: words("stem", 3800), Explanation: words("explanation", 4000)}
	for i := range 5 {
		l := questions.Letter(i)
		q.Options = append(q.Options, questions.Option{Letter: l, Text: "Option " + l, Correct: i == 0,
			Rationale: words("rationale"+l, 1000)})
	}
	return q
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"héllo wörld", 6, "héllo…"},
		{"ab", 1, "a"},
		{"ab", 0, ""},
		{"日本語のテキスト", 4, "日本語…"},
		{"😀😀😀", 3, "😀😀😀"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// FuzzHeadRunes: headRunes slices what a conversion to runes would keep.
func FuzzHeadRunes(f *testing.F) {
	for _, s := range []string{"", "hello", "héllo wörld", "日本語", "😀a😀", "a\xffb"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || !utf8.ValidString(s) { // (a byte that is not UTF-8 stays as it is)
			return
		}
		r := []rune(s)
		want := s
		if n < len(r) {
			want = string(r[:n])
		}
		if got := headRunes(s, n); got != want {
			t.Errorf("headRunes(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}

func TestGradeMessage(t *testing.T) {
	t.Parallel()
	reveal := [][]*discordgo.MessageEmbed{{{Title: "Answer: A"}}}
	long := [][]*discordgo.MessageEmbed{{{Title: "Answer: A"}}, {{Description: "more"}}, {{Description: "last"}}}
	tests := []struct {
		name   string
		a      questions.Answer
		picks  int
		reveal [][]*discordgo.MessageEmbed
		want   string
	}{
		{"right, revealed", questions.Answer{Choice: []string{"A"}, Grade: questions.Grade{Right: true, RightPicks: 1, Points: 1}}, 1, reveal,
			"✅ **Right!** You chose **A**. **+1 point**."},
		{"wrong, not revealed", questions.Answer{Choice: []string{"B"}}, 1, nil,
			"❌ **Not quite.** You chose **B**. **+0 points**. The answer and explanation show when the question closes."},
		{"two picks, one right", questions.Answer{Choice: []string{"A", "B"}, Grade: questions.Grade{RightPicks: 1, Points: 1}}, 2, reveal,
			"❌ **Not quite.** You chose **A, B**: 1 of your 2 picks was right. **+1 point**."},
		{"three picks, all right", questions.Answer{Choice: []string{"A", "C", "D"}, Grade: questions.Grade{Right: true, RightPicks: 3, Points: 3}}, 3, nil,
			"✅ **Right!** You chose **A, C, D**: 3 of your 3 picks were right. **+3 points**. The answer and explanation show when the question closes."},
		{"two picks, none right, long reveal", questions.Answer{Choice: []string{"B", "D"}}, 2, long,
			"❌ **Not quite.** You chose **B, D**: 0 of your 2 picks were right. **+0 points**."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := gradeMessage(tt.a, questions.Post{SelectCount: tt.picks}, tt.reveal)
			if want := max(1, len(tt.reveal)); len(ms) != want {
				t.Fatalf("got %d messages, want %d", len(ms), want)
			}
			if ms[0].content != tt.want {
				t.Errorf("got content %q, want %q", ms[0].content, tt.want)
			}
			for i, m := range ms {
				if !m.ephemeral {
					t.Errorf("message %d is public, want ephemeral", i+1)
				}
				if tt.reveal != nil && (len(m.embeds) != 1 || m.embeds[0] != tt.reveal[i][0]) {
					t.Errorf("message %d embeds %v, want %v", i+1, m.embeds, tt.reveal[i])
				}
				if i > 0 && m.content != fmt.Sprintf("↪️ The reveal, continued (%d of %d)", i+1, len(ms)) {
					t.Errorf("follow-up %d content %q", i+1, m.content)
				}
			}
			if tt.reveal == nil && ms[0].embeds != nil {
				t.Errorf("got embeds %v, want none", ms[0].embeds)
			}
		})
	}
}

func TestWrongPickLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    questions.Post
		want string
	}{
		{"no answers", questions.Post{Correct: []string{"B"}, Tallies: []int{0, 0, 0}}, ""},
		{"over a third", questions.Post{Correct: []string{"B"}, Tallies: []int{1, 4, 5}, Answers: 10}, "🔸 Most picked wrong answer: C (50% of the answers)"},
		{"exactly a third", questions.Post{Correct: []string{"B"}, Tallies: []int{1, 5, 3}, Answers: 9}, ""},
		{"the key picked most", questions.Post{Correct: []string{"A"}, Tallies: []int{8, 1, 1}, Answers: 10}, ""},
		{"two to pick", questions.Post{Correct: []string{"A", "B"}, Tallies: []int{3, 1, 3, 1}, Answers: 4}, "🔸 Most picked wrong answer: C (75% of the answers)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wrongPickLine(tt.p); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
