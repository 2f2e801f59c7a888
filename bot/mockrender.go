package bot

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Rendering /quiz mock: an attempt's question with its navigator and
// buttons, the prompt to finish, the result and its pages, the direct
// message of a result. Pure functions of the attempt and the questions.

// mockMapMax is the longest attempt whose navigator lists every question
// (a longer one shows the counts only): 100 questions take about 600
// characters of the message's 2000.
const mockMapMax = 100

// The navigator's marks.
const (
	markAnswered   = "●"
	markUnanswered = "○"
	markFlagged    = "⚑"
)

// mockStartText is the line that opens a new attempt: its size, time and
// pass mark, and why it has fewer questions than asked for, if it has.
func mockStartText(m questions.Mock, drawn, asked, available int) string {
	text := fmt.Sprintf("📝 **Your mock exam of %s**: %s in %s, pass mark %s. Answer in any order and change your answers until you press **Finish**; nothing is graded before.",
		m.Bank, plural(drawn, "question", "questions"), durationText(m.Deadline.Sub(m.StartedAt)), m.Pass)
	if asked > drawn {
		text += fmt.Sprintf(" (%s can be drawn from this bank right now.)", plural(available, "question", "questions"))
	}
	return text
}

// mockQuestionMessage is the attempt at its current question: where it is
// and when the attempt ends, the navigator (how many questions are
// answered, flagged and unanswered, and each one's mark), the member's
// answer, the question (nil: gone from the bank) with its select showing
// that answer, and Back, Next, Flag for review and Finish.
func mockQuestionMessage(m questions.Mock, q *questions.Question, lead string) message {
	i := m.Current
	it := m.Items[i]
	answered, flagged, unanswered := m.Counts()
	head := fmt.Sprintf("📝 **Mock exam** · %s · question %d of %d · ends %s", m.Bank, i+1, len(m.Items), timestamp(m.Deadline, "R"))
	nav := fmt.Sprintf("%s %d answered · %s %d flagged · %s %d unanswered", markAnswered, answered, markFlagged, flagged, markUnanswered, unanswered)
	if len(m.Items) <= mockMapMax {
		nav += "\n" + mockMap(m)
	}
	status := pickText(len(it.Correct)) + " from the menu below"
	if it.Answered() {
		status = fmt.Sprintf("Your answer: **%s** · change it any time before you finish", strings.Join(it.Choice, ", "))
	}
	if it.Flagged {
		status += " · " + markFlagged + " flagged for review"
	}
	msg := message{ephemeral: true, content: joinLines(lead, head, nav, status)}
	if q == nil {
		msg.embeds = []*discordgo.MessageEmbed{{Color: colorWrong, Description: "This question is no longer in the bank as it was when your attempt started: it can't be answered now. It counts as your answer was, or as unanswered."}}
	} else {
		msg.embeds = questionEmbeds(q, colorOpen)
		msg.components = append(msg.components, mockSelect(m, q))
	}
	flag := "Flag for review"
	if it.Flagged {
		flag = "Unflag"
	}
	id := func(action string) string { return kindMockButton.id(componentID{action: action, mock: m.ID, page: i}) }
	msg.components = append(msg.components, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Back", Style: discordgo.SecondaryButton, CustomID: id("back"), Disabled: i == 0},
		discordgo.Button{Label: "Next", Style: discordgo.PrimaryButton, CustomID: id("next"), Disabled: i == len(m.Items)-1},
		discordgo.Button{Label: flag, Emoji: &discordgo.ComponentEmoji{Name: "🚩"}, Style: discordgo.SecondaryButton, CustomID: id("flag")},
		discordgo.Button{Label: "Finish", Style: discordgo.DangerButton, CustomID: id("finish")},
	}})
	return msg
}

// mockMap is the navigator's list: each question's number and marks, the
// one shown in bold.
func mockMap(m questions.Mock) string {
	parts := make([]string, len(m.Items))
	for j, it := range m.Items {
		mark := markUnanswered
		if it.Answered() {
			mark = markAnswered
		}
		if it.Flagged {
			mark += markFlagged
		}
		parts[j] = fmt.Sprintf("%d%s", j+1, mark)
		if j == m.Current {
			parts[j] = "**" + parts[j] + "**"
		}
	}
	return strings.Join(parts, " ")
}

// mockSelect is the current question's answer select, the member's
// answer chosen in it.
func mockSelect(m questions.Mock, q *questions.Question) discordgo.ActionsRow {
	it := m.Items[m.Current]
	row := answerSelect(kindMockAnswer.id(componentID{mock: m.ID, page: m.Current}), len(it.Correct), q, false)
	menu := row.Components[0].(discordgo.SelectMenu)
	menu.Options = slices.Clone(menu.Options)
	for k := range menu.Options {
		menu.Options[k].Default = slices.Contains(it.Choice, menu.Options[k].Value)
	}
	row.Components = []discordgo.MessageComponent{menu}
	return row
}

// mockFinishPrompt asks to confirm the end of an attempt with questions
// unanswered or flagged, from question page.
func mockFinishPrompt(m questions.Mock, page int) message {
	_, flagged, unanswered := m.Counts()
	var left []string
	if unanswered > 0 {
		left = append(left, fmt.Sprintf("%s **%d unanswered** (they count as wrong)", markUnanswered, unanswered))
	}
	if flagged > 0 {
		left = append(left, fmt.Sprintf("%s **%d flagged** for review", markFlagged, flagged))
	}
	text := fmt.Sprintf("🏁 **Finish your mock exam now?** %s. After this your answers can't change. Time left: it ends %s.",
		strings.Join(left, " · "), timestamp(m.Deadline, "R"))
	return message{ephemeral: true, content: text, components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Finish now", Style: discordgo.DangerButton, CustomID: kindMockButton.id(componentID{action: "end", mock: m.ID, page: page})},
		discordgo.Button{Label: "Back to the exam", Style: discordgo.SecondaryButton, CustomID: kindMockButton.id(componentID{action: "resume", mock: m.ID, page: page})},
	}}}}
}

// mockSummaryMessage is an ended attempt's result: the score (and the
// scaled score) against the pass mark, passed or not, the time used, the
// score per domain, and a button to go over the questions missed or
// flagged.
func mockSummaryMessage(m questions.Mock, r questions.MockResult, lead string) message {
	e := mockResultEmbed(m, r)
	msg := message{ephemeral: true, content: joinLines(lead, "🏁 **Mock exam result** · "+m.Bank), embeds: []*discordgo.MessageEmbed{e}}
	if len(r.Review) > 0 {
		msg.components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: fmt.Sprintf("Go over %s", plural(len(r.Review), "question", "questions")), Style: discordgo.PrimaryButton,
				CustomID: kindMockResult.id(componentID{action: "next", mock: m.ID, page: 1})},
		}}}
	}
	return msg
}

// mockResultEmbed is the result's embed (the summary, and the direct
// message's).
func mockResultEmbed(m questions.Mock, r questions.MockResult) *discordgo.MessageEmbed {
	e := &discordgo.MessageEmbed{Title: "✅ Passed", Color: colorClosed,
		Footer: &discordgo.MessageEmbedFooter{Text: "Your answers count for your review schedule (/quiz review), never for points."}}
	if !r.Passed {
		e.Title, e.Color = "❌ Not passed yet", colorWrong
	}
	var lines []string
	if r.Pass.Scaled() {
		lines = append(lines, fmt.Sprintf("**Score: %d** on a scale of %d-%d · %d%% (%d of %d right)", r.Scaled, r.Pass.Min, r.Pass.Max, r.Percent, r.Right, r.Questions),
			fmt.Sprintf("Pass mark: %d", r.Pass.Score))
	} else {
		lines = append(lines, fmt.Sprintf("**Score: %d%%** (%d of %d right)", r.Percent, r.Right, r.Questions),
			fmt.Sprintf("Pass mark: %d%%", r.Pass.Percent))
	}
	ended := "you finished"
	if m.TimedOut {
		ended = "time ran out"
	}
	lines = append(lines, fmt.Sprintf("Time used: %s of %s (%s)", durationText(r.Used), durationText(m.Deadline.Sub(m.StartedAt)), ended))
	_, flagged, unanswered := m.Counts()
	counts := fmt.Sprintf("Answered %d of %d", r.Answered, r.Questions)
	if unanswered > 0 {
		counts += fmt.Sprintf(" · %d unanswered, counted as wrong", unanswered)
	}
	if flagged > 0 {
		counts += fmt.Sprintf(" · %s %d flagged", markFlagged, flagged)
	}
	lines = append(lines, counts)
	e.Description = strings.Join(lines, "\n")
	if len(r.Domains) > 1 || len(r.Domains) == 1 && r.Domains[0].Domain != "" {
		for _, d := range r.Domains {
			if len(e.Fields) == maxFields {
				break
			}
			name := "Other questions"
			if d.Domain != "" {
				name = "Domain: " + d.Domain
			}
			e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: truncate(name, maxTitle), Inline: true,
				Value: fmt.Sprintf("%s %d%% · %d of %d", bar(d.Right, d.Questions), percent(d.Right, d.Questions), d.Right, d.Questions)})
		}
	}
	return e
}

// mockReviewMessages is page of an ended attempt's result (1 to
// len(r.Review)): a question missed or flagged, with the member's answer,
// the key, the explanation and each option's rationale (the reveal, never
// cut: it continues in follow-ups when one message cannot hold it), and
// the buttons to page on, under the last message. q nil: the question is
// gone from the bank (its key shows); open: it is open in the server now,
// so its key stays hidden until it closes.
func mockReviewMessages(m questions.Mock, r questions.MockResult, page int, q *questions.Question, open bool) []message {
	i := r.Review[page-1]
	it := m.Items[i]
	status := "❌ missed"
	switch {
	case !it.Answered():
		status = markUnanswered + " not answered"
	case it.Right():
		status = "✅ right"
	}
	if it.Flagged {
		status += " · " + markFlagged + " flagged"
	}
	head := fmt.Sprintf("🔎 **Mock exam review** · %d of %d · question %d of %d · %s", page, len(r.Review), i+1, len(m.Items), status)
	chose := "You did not answer it."
	if it.Answered() {
		chose = fmt.Sprintf("You chose **%s**.", strings.Join(it.Choice, ", "))
	}
	var parts [][]*discordgo.MessageEmbed
	switch {
	case open:
		chose += " This question is open in the server right now: its answer shows here once it closes."
		if q != nil {
			parts = [][]*discordgo.MessageEmbed{questionEmbeds(q, colorOpen)}
		}
	case q == nil:
		chose += fmt.Sprintf(" The answer: **%s**. (The question is no longer in the bank as it was.)", strings.Join(it.Correct, ", "))
	default:
		chose += fmt.Sprintf(" The answer: **%s**.", strings.Join(it.Correct, ", "))
		parts = withReveal(questionEmbeds(q, colorClosed), revealBlocks(q, questions.Post{Correct: it.Correct, SelectCount: len(it.Correct)}, false))
	}
	ms := revealMessages(message{ephemeral: true, content: joinLines(head, chose)}, parts)
	id := func(action string, p int) string {
		return kindMockResult.id(componentID{action: action, mock: m.ID, page: p})
	}
	ms[len(ms)-1].components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Previous", Style: discordgo.SecondaryButton, CustomID: id("back", page-1)},
		discordgo.Button{Label: "Next", Style: discordgo.PrimaryButton, CustomID: id("next", page+1), Disabled: page == len(r.Review)},
		discordgo.Button{Label: "Result", Style: discordgo.SecondaryButton, CustomID: id("top", 0)},
	}}}
	return ms
}

// mockDM is the direct message of an attempt that ended when its time ran
// out: its result (summary, the result page's embed), and the numbers of
// the questions to go over, whose answers the server's /quiz mock shows.
func mockDM(m questions.Mock, summary message, guildName string) *discordgo.MessageSend {
	r := m.Result()
	text := fmt.Sprintf("⏰ Your mock exam of **%s** in **%s** ended when its time ran out; questions you had not answered count as wrong.",
		m.Bank, guildName)
	if len(r.Review) > 0 {
		marks := make([]string, len(r.Review))
		for k, i := range r.Review {
			it := m.Items[i]
			mark := "❌"
			switch {
			case !it.Answered():
				mark = markUnanswered
			case it.Right():
				mark = "✅"
			}
			if it.Flagged {
				mark += markFlagged
			}
			marks[k] = fmt.Sprintf("%d%s", i+1, mark)
		}
		text += fmt.Sprintf("\nTo go over (missed %s, not answered %s, flagged %s): %s. In the server, `/quiz mock` shows them with their answers explained.",
			"❌", markUnanswered, markFlagged, strings.Join(marks, " "))
	}
	return &discordgo.MessageSend{Content: truncate(text, maxContent), Embeds: summary.embeds, AllowedMentions: noPings()}
}

// durationText writes a duration for members: "1 h 5 min", "23 min 10 s",
// "40 s".
func durationText(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if s > 0 && h == 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return strings.Join(parts, " ")
}

// mockHistoryEmbed lists a member's ended attempts in /quiz stats, newest
// first (the last 10 of ms, which is oldest first): when, the bank, the
// score and whether it passed.
func mockHistoryEmbed(ms []questions.Mock) *discordgo.MessageEmbed {
	var lines []string
	for k := len(ms) - 1; k >= 0 && len(lines) < 10; k-- {
		m := ms[k]
		r := m.Result()
		score := fmt.Sprintf("%d%%", r.Percent)
		if r.Pass.Scaled() {
			score = fmt.Sprintf("%d (%d%%)", r.Scaled, r.Percent)
		}
		verdict := "✅ passed"
		if !r.Passed {
			verdict = "❌ not passed"
		}
		lines = append(lines, fmt.Sprintf("%s · **%s** · %s · %s (pass mark %s)", timestamp(m.FinishedAt, "d"), truncate(m.Bank, 100), score, verdict, r.Pass))
	}
	last := ms[len(ms)-1]
	return &discordgo.MessageEmbed{Title: "📝 Mock exams", Color: colorOpen, Description: strings.Join(lines, "\n"),
		Footer: &discordgo.MessageEmbedFooter{Text: truncate(fmt.Sprintf("%s · the chart: each attempt at %s against its pass mark",
			plural(len(ms), "attempt", "attempts"), last.Bank), 2048)}}
}
