package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

func pasteBank(name string, n int, big bool) questions.Bank {
	bk := questions.Bank{Name: name}
	for i := 1; i <= n; i++ {
		q := questions.Question{ID: fmt.Sprintf("%s#%d", name, i), Bank: name, Number: i, Stem: fmt.Sprintf("Stem %d?", i),
			Explanation: "Because.",
			Options:     []questions.Option{{Letter: "A", Text: "yes", Correct: true, Rationale: "Right."}, {Letter: "B", Text: "no"}}}
		if big {
			q, _ := bigQuestion(25)
			q.Number, q.ID = i, fmt.Sprintf("%s#%d", name, i)
			bk.Questions = append(bk.Questions, *q)
			continue
		}
		bk.Questions = append(bk.Questions, q)
	}
	return bk
}

// rowButtons lists a message's buttons as "label/style/custom id".
func rowButtons(m message) []string {
	var out []string
	for _, c := range m.components {
		for _, k := range c.(discordgo.ActionsRow).Components {
			b := k.(discordgo.Button)
			out = append(out, fmt.Sprintf("%s/%d/%s/%v", b.Label, b.Style, b.CustomID, b.Disabled))
		}
	}
	return out
}

func TestPastePreviewMessage(t *testing.T) {
	t.Parallel()
	d := questions.Draft{ID: 42, Kind: questions.DraftPaste}
	tests := []struct {
		name       string
		banks      []questions.Bank
		results    []bankResult
		warnings   questions.Problems
		wantEmbeds int
		want       []string
	}{
		{"one question, new bank", []questions.Bank{pasteBank("Net", 1, false)},
			[]bankResult{{name: "Net", isNew: true, count: questions.MergeCount{Added: 1}}}, nil, 2,
			[]string{"Preview** of 1 question, as members", "→ a new bank **Net**: add 1, update 0, leave 0 unchanged"}},
		{"seven questions show five", []questions.Bank{pasteBank("Net", 7, false)},
			[]bankResult{{name: "Net", count: questions.MergeCount{Added: 5, Updated: 1, Unchanged: 1}}}, nil, 10,
			[]string{"7 questions (the first 5 shown)", "→ **Net**: add 5, update 1, leave 1 unchanged"}},
		{"warnings first, ten embeds at most", []questions.Bank{pasteBank("Net", 5, false)},
			[]bankResult{{name: "Net", count: questions.MergeCount{Added: 5}}},
			questions.Problems{{Path: pastePath, Line: 3, Msg: "skipped", Warning: true}}, 10,
			[]string{"5 questions,"}},
		{"largest questions fit", []questions.Bank{pasteBank("Big", 5, true)},
			[]bankResult{{name: "Big", count: questions.MergeCount{Added: 5}}}, nil, 10, []string{"5 questions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pastePreviewMessage(d, tt.banks, tt.results, tt.warnings)
			if len(m.embeds) != tt.wantEmbeds {
				t.Errorf("%d embeds, want %d", len(m.embeds), tt.wantEmbeds)
			}
			checkLimits(t, tt.name, m.content, m.embeds, m.components)
			for _, w := range tt.want {
				if !strings.Contains(m.content, w) {
					t.Errorf("content %q lacks %q", m.content, w)
				}
			}
			if tt.warnings != nil && m.embeds[0].Title != "Warnings" {
				t.Errorf("first embed %q, want the warnings", m.embeds[0].Title)
			}
			got := strings.Join(rowButtons(m), " ")
			if want := "Add/3/pd1:add:42/false Cancel/2/pd1:cancel:42/false"; got != want {
				t.Errorf("buttons %s, want %s", got, want)
			}
			if !m.ephemeral {
				t.Error("preview is public")
			}
		})
	}
}

func TestDraftProblemsMessage(t *testing.T) {
	t.Parallel()
	ps := questions.Problems{{Path: pastePath, Line: 8, Msg: "answer letter E is not an option"}, {Path: pastePath, Msg: "no questions found"}}
	m := draftProblemsMessage(questions.Draft{ID: 9}, ps)
	if !strings.Contains(m.content, "2 problems") {
		t.Errorf("content %q", m.content)
	}
	if want := "• line 8: answer letter E is not an option\n• no questions found\n"; m.embeds[0].Description != want {
		t.Errorf("problems %q, want %q", m.embeds[0].Description, want)
	}
	if got, want := strings.Join(rowButtons(m), " "), "Fix it/1/pd1:fix:9/false Cancel/2/pd1:cancel:9/false"; got != want {
		t.Errorf("buttons %s, want %s", got, want)
	}
}

func TestReviewMessage(t *testing.T) {
	t.Parallel()
	d := questions.Draft{ID: 5, UserID: 7002}
	banks := []questions.Bank{pasteBank("Net", 1, false)}
	res := []bankResult{{name: "Net", count: questions.MergeCount{Added: 1}}}
	tests := []struct {
		name     string
		total    int
		problems questions.Problems
		buttons  string
		want     string
	}{
		{"one of one", 1, nil, "Approve/3/sg1:approve:5/false Reject/4/sg1:reject:5/false Next ▶/2/sg1:next:5/true", "**Suggestion 1 of 1** from <@7002>"},
		{"one of three", 3, nil, "Approve/3/sg1:approve:5/false Reject/4/sg1:reject:5/false Next ▶/2/sg1:next:5/false", "→ **Net**: add 1"},
		{"no longer fits", 2, questions.Problems{{Line: 1, Msg: "question id clash"}},
			"Approve/3/sg1:approve:5/true Reject/4/sg1:reject:5/false Next ▶/2/sg1:next:5/false", "can't be added as it stands"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := suggestionMessage("", d, 0, tt.total, banks, res, tt.problems)
			if got := strings.Join(rowButtons(m), " "); got != tt.buttons {
				t.Errorf("buttons %s, want %s", got, tt.buttons)
			}
			if !strings.Contains(m.content, tt.want) {
				t.Errorf("content %q lacks %q", m.content, tt.want)
			}
		})
	}
}

func TestChangeSummary(t *testing.T) {
	t.Parallel()
	got := changeSummary("Imported", []bankResult{
		{name: "Net", isNew: true, count: questions.MergeCount{Added: 2}, total: 2},
		{name: "Data", replaced: true, count: questions.MergeCount{Added: 1}, total: 1},
		{name: "Ops", count: questions.MergeCount{Added: 1, Updated: 2, Unchanged: 3}, total: 9},
	})
	want := "📚 Imported **Net** (new bank): added 2, updated 0, unchanged 0 · 2 questions in the bank now\n" +
		"📚 Imported **Data** (replaced): added 1, updated 0, unchanged 0 · 1 question in the bank now\n" +
		"📚 Imported **Ops**: added 1, updated 2, unchanged 3 · 9 questions in the bank now"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestQuestionChoices(t *testing.T) {
	t.Parallel()
	net := pasteBank("Net", 30, false)
	long := questions.Bank{Name: "L", Questions: []questions.Question{{ID: strings.Repeat("x", 101), Bank: "L", Number: 1, Stem: "Stem 1?"}}}
	banks := []*questions.Bank{&net, &long}
	tests := []struct {
		typed string
		want  []string
	}{
		{"stem 12?", []string{"Net#12"}},
		{"net#3", []string{"Net#3", "Net#30"}},
		{"question 7", []string{"Net#7"}},
		{"nothing like it", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range questionChoices(banks, tt.typed) {
			got = append(got, c.Value.(string))
			if runes(c.Name) > 100 {
				t.Errorf("choice name %d runes", runes(c.Name))
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("questionChoices(%q) = %v, want %v", tt.typed, got, tt.want)
		}
	}
	if n := len(questionChoices(banks, "")); n != 25 {
		t.Errorf("%d choices for everything, want 25 (and no ID over 100 characters)", n)
	}
}

func TestModalText(t *testing.T) {
	t.Parallel()
	rows := []discordgo.MessageComponent{
		&discordgo.ActionsRow{Components: []discordgo.MessageComponent{&discordgo.TextInput{CustomID: "other", Value: "no"}}},
		&discordgo.ActionsRow{Components: []discordgo.MessageComponent{&discordgo.TextInput{CustomID: pasteInputID, Value: "yes"}}},
		nil,
	}
	if got := (&call{inputs: rows}).text(pasteInputID); got != "yes" {
		t.Errorf("text = %q, want yes", got)
	}
	if got := (&call{}).text(pasteInputID); got != "" {
		t.Errorf("text of no form = %q", got)
	}
}

func TestPasteModal(t *testing.T) {
	t.Parallel()
	d := questions.Draft{ID: 3, Kind: questions.DraftSuggestion, Bank: strings.Repeat("B", 100)}
	m := pasteModal(d, strings.Repeat("é", 5000))
	in := m.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.TextInput)
	if runes(m.Title) > 45 || runes(in.Label) > 45 || runes(in.Placeholder) > 100 || runes(in.Value) != 4000 || in.MaxLength != 4000 || m.CustomID != "pm1:3" {
		t.Errorf("modal title %d, label %d, placeholder %d, value %d runes, max %d, id %q",
			runes(m.Title), runes(in.Label), runes(in.Placeholder), runes(in.Value), in.MaxLength, m.CustomID)
	}
}
