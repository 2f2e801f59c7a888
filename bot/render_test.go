package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// bigQuestion is as large as validation lets a question be.
func bigQuestion(options int) (*questions.Question, questions.Post) {
	q := &questions.Question{ID: "Big#1", Bank: strings.Repeat("B", 100), Number: 1,
		Explanation: strings.Repeat("e", questions.MaxExplanationLength)}
	per := (questions.MaxBodyLength - 200) / options
	q.Stem = strings.Repeat("s", 100)
	for i := 0; i < options; i++ {
		q.Options = append(q.Options, questions.Option{Letter: questions.Letter(i),
			Text: strings.Repeat("o", per-10), Correct: i%2 == 0, Rationale: strings.Repeat("r", questions.MaxRationaleLength)})
	}
	p := questions.Post{ID: 7, GuildID: 1, ChannelID: 2, MessageID: 3, QuestionID: q.ID, Correct: q.Correct(),
		OptionCount: options, SelectCount: q.SelectCount(), Tallies: make([]int, options), Answers: 100, Right: 40,
		ClosesAt: time.Unix(1_800_000_000, 0)}
	p.Tallies[0] = 100
	return q, p
}

func checkEmbeds(t *testing.T, embeds []*discordgo.MessageEmbed) {
	t.Helper()
	total := 0
	for _, e := range embeds {
		if n := runes(e.Title); n > 256 {
			t.Errorf("title %d runes, want ≤ 256", n)
		}
		if n := runes(e.Description); n > 4096 {
			t.Errorf("description %d runes, want ≤ 4096", n)
		}
		if len(e.Fields) > 25 {
			t.Errorf("%d fields, want ≤ 25", len(e.Fields))
		}
		for _, f := range e.Fields {
			if n := runes(f.Value); n > 1024 || n == 0 {
				t.Errorf("field value %d runes, want 1..1024", n)
			}
			if n := runes(f.Name); n > 256 || n == 0 {
				t.Errorf("field name %d runes, want 1..256", n)
			}
		}
		total += embedLen(e)
	}
	if total > 6000 {
		t.Errorf("embeds total %d characters, want ≤ 6000", total)
	}
}

func TestRenderKeepsDiscordLimits(t *testing.T) {
	for _, n := range []int{2, 5, 25} {
		q, p := bigQuestion(n)
		if got := runes(q.Body()); got > questions.MaxBodyLength {
			t.Fatalf("test question body %d runes, over the limit validation enforces", got)
		}
		open := openMessage(p, q)
		checkEmbeds(t, open.Embeds)
		sel := open.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu)
		if len(sel.Options) != n || *sel.MinValues != p.SelectCount || sel.MaxValues != p.SelectCount {
			t.Errorf("select has %d options, min %d max %d; want %d, %d, %d", len(sel.Options), *sel.MinValues, sel.MaxValues, n, p.SelectCount, p.SelectCount)
		}
		for i, o := range sel.Options {
			if runes(o.Label) > 100 || !strings.HasPrefix(o.Label, questions.Letter(i)) || o.Value != questions.Letter(i) {
				t.Errorf("option %d: label %q (%d runes) value %q", i, o.Label[:10], runes(o.Label), o.Value)
			}
		}
		closed := closedMessage(p, q)
		checkEmbeds(t, *closed.Embeds)
		if !(*closed.Components)[0].(discordgo.ActionsRow).Components[0].(discordgo.SelectMenu).Disabled {
			t.Error("closed select is not disabled")
		}
		a := questions.Answer{Choice: p.Correct, Grade: questions.Grade{Right: true, RightPicks: len(p.Correct), Points: len(p.Correct)}}
		checkEmbeds(t, gradeMessage(a, p, answerReveal(q, p)).embeds)
	}
}

func TestRevealShowsVotesAndRationales(t *testing.T) {
	q := &questions.Question{ID: "X#1", Bank: "X", Number: 1, Stem: "Pick two", Explanation: "Because.",
		Options: []questions.Option{
			{Letter: "A", Text: "one", Correct: true, Rationale: "A is right."},
			{Letter: "B", Text: "two", Rationale: "B is wrong."},
			{Letter: "C", Text: "three", Correct: true},
		}}
	p := questions.Post{ID: 1, Correct: []string{"A", "C"}, OptionCount: 3, SelectCount: 2,
		Tallies: []int{3, 1, 2}, Answers: 3, Right: 2}
	e := revealEmbed(q, p, true)
	if e.Title != "Answer: A, C" || e.Description != "Because." {
		t.Errorf("title %q description %q", e.Title, e.Description)
	}
	want := []struct{ name, value string }{
		{"✅ A · 3 votes (100%)", "`██████████` A is right."},
		{"❌ B · 1 vote (33%)", "`███░░░░░░░` B is wrong."},
		{"✅ C · 2 votes (67%)", "`███████░░░`"},
	}
	for i, w := range want {
		if e.Fields[i].Name != w.name || e.Fields[i].Value != w.value {
			t.Errorf("field %d = %q / %q, want %q / %q", i, e.Fields[i].Name, e.Fields[i].Value, w.name, w.value)
		}
	}
	hidden := revealEmbed(q, p, false)
	if strings.Contains(hidden.Fields[0].Name, "vote") {
		t.Errorf("answer-time reveal shows votes: %q", hidden.Fields[0].Name)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"héllo wörld", 6, "héllo…"},
		{"ab", 1, "a"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestGradeMessage(t *testing.T) {
	reveal := []*discordgo.MessageEmbed{{Title: "Answer: A"}}
	tests := []struct {
		name   string
		a      questions.Answer
		picks  int
		reveal []*discordgo.MessageEmbed
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
		{"two picks, none right", questions.Answer{Choice: []string{"B", "D"}}, 2, reveal,
			"❌ **Not quite.** You chose **B, D**: 0 of your 2 picks were right. **+0 points**."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := gradeMessage(tt.a, questions.Post{SelectCount: tt.picks}, tt.reveal)
			if !m.ephemeral {
				t.Error("got a public reply, want ephemeral")
			}
			if m.content != tt.want {
				t.Errorf("got content %q, want %q", m.content, tt.want)
			}
			if len(m.embeds) != len(tt.reveal) || len(tt.reveal) > 0 && m.embeds[0] != tt.reveal[0] {
				t.Errorf("got embeds %v, want %v", m.embeds, tt.reveal)
			}
		})
	}
}
