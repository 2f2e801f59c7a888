package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// mockBankYAML is a bank of four Net and four Sec questions whose exam is
// 5 questions in 10 minutes, pass 700 of 100-1000, Net 40% and Sec 60%.
// Question n's key is option n%3 (A, B or C) of four.
func mockBankYAML() string {
	var b strings.Builder
	b.WriteString("bank: Mock Bank\nexam:\n  questions: 5\n  minutes: 10\n  pass: 700 of 100-1000\n  domains:\n    Net: 40\n    Sec: 60\nquestions:\n")
	for n := 1; n <= 8; n++ {
		tag := "Net"
		if n > 4 {
			tag = "Sec"
		}
		fmt.Fprintf(&b, "  - id: mock-%d\n    question: Mock question %d?\n    tags: [%s]\n    explanation: Because of reason %d.\n    options:\n", n, n, tag, n)
		for k := range 4 {
			fmt.Fprintf(&b, "      - text: option %d of %d\n", k+1, n)
			if k == n%3 {
				fmt.Fprintf(&b, "        correct: true\n        why: Option %d is right for %d.\n", k+1, n)
			}
		}
	}
	return b.String()
}

// newMockEnv is an env whose catalogue holds the mock bank and the
// built-in bank.
func newMockEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	banks, err := questions.Parse("mock.yaml", []byte(mockBankYAML()))
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := questions.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, ps := questions.NewCatalogue(banks, builtin)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	e.cat = cat
	return e
}

// mockCommand runs /quiz mock as a member and returns its private reply,
// once the deferral is replaced.
func (e *env) mockCommand(by discordtest.Member, opts ...discordtest.Option) discordtest.Message {
	e.t.Helper()
	armed := e.clk.Armed()
	p := e.srv.SlashCommand(guildID, channelID, by, "quiz", sub("mock", opts...))
	r := p.WaitResponse(e.t, wait)
	if r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		e.t.Fatalf("/quiz mock answered type %d flags %d, want a private deferral", r.Type, r.Flags)
	}
	m := p.WaitOriginal(e.t, wait, nil)
	if strings.Contains(m.Content, "Your mock exam of") {
		e.waitScheduler(armed) // a new attempt wakes it: it arms the deadline
	}
	return m
}

// mockClick clicks a control of a mock exam's message (picking values,
// for its select) and returns the message as the click left it: a private
// deferred update, then the edit of that message.
func (e *env) mockClick(by discordtest.Member, msg discordtest.Message, customID string, values ...string) discordtest.Message {
	e.t.Helper()
	p := e.srv.Component(guildID, channelID, by, msg.ID, customID, values...)
	if r := p.WaitResponse(e.t, wait); r.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		e.t.Fatalf("click %s answered type %d (%q), want a deferred update", customID, r.Type, r.Content)
	}
	return p.WaitOriginal(e.t, wait, func(m discordtest.Message) bool { return m.Edits > msg.Edits })
}

// mockSelect is the custom ID of the message's answer select ("" if none).
func mockSelect(msg discordtest.Message) (customID string, defaults []string) {
	for _, c := range msg.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, k := range row.Components {
			if s, ok := k.(*discordgo.SelectMenu); ok {
				for _, o := range s.Options {
					if o.Default {
						defaults = append(defaults, o.Value)
					}
				}
				return s.CustomID, defaults
			}
		}
	}
	return "", nil
}

// shownQuestion is the mock question a message shows (its stem's number).
func (e *env) shownQuestion(msg discordtest.Message) *questions.Question {
	e.t.Helper()
	for n := 1; n <= 8; n++ {
		if strings.Contains(embedsText(msg.Embeds), fmt.Sprintf("Mock question %d?", n)) {
			q, _ := e.cat.Question(fmt.Sprintf("mock-%d", n))
			return q
		}
	}
	e.t.Fatalf("message shows no mock question: %q %s", msg.Content, embedsText(msg.Embeds))
	return nil
}

// wrongLetter is an option letter that is not q's key.
func wrongLetter(q *questions.Question) string {
	if q.Correct()[0] == "D" {
		return "A"
	}
	return "D"
}

// TestMockExam sits a mock exam of 5 questions end to end: drawn by the
// bank's domain weights, answered, one answer changed, paged back and
// forth, one flagged, one left unanswered, finished after the prompt,
// scored against the scaled pass mark with each domain's score, and
// gone over page by page with the keys, explanations and rationales. The
// answers count for the member's memory, not for points; /quiz stats
// shows the attempt and its chart.
func TestMockExam(t *testing.T) {
	t.Parallel()
	e := newMockEnv(t)
	e.start()

	msg := e.mockCommand(bob, str("bank", "mock bank"))
	for _, want := range []string{"Your mock exam of Mock Bank**: 5 questions in 10 min, pass mark 700 of 100-1000",
		"question 1 of 5", "ends <t:", "● 0 answered · ⚑ 0 flagged · ○ 5 unanswered", "**1○** 2○ 3○ 4○ 5○", "Pick **1** answer"} {
		if !strings.Contains(msg.Content, want) {
			t.Errorf("first question's content %q lacks %q", msg.Content, want)
		}
	}
	if !msg.Ephemeral() {
		t.Error("the mock exam's message is public, want private")
	}
	m, err := e.db.LatestMock(8001, 7002)
	if err != nil || len(m.Items) != 5 || !m.Deadline.Equal(m.StartedAt.Add(10*time.Minute)) {
		t.Fatalf("stored attempt: %+v, %v; want 5 questions, 10 minutes", m, err)
	}
	domains := map[string]int{}
	for _, it := range m.Items {
		domains[it.Domain]++
	}
	if domains["Net"] != 2 || domains["Sec"] != 3 {
		t.Errorf("drawn domains %v, want Net 2 and Sec 3 (40%% and 60%% of 5)", domains)
	}
	b := buttons(msg.Components)
	if b["Back"] == nil || !b["Back"].Disabled || b["Next"] == nil || b["Next"].Disabled || b["Flag for review"] == nil || b["Finish"] == nil {
		t.Fatalf("first question's buttons %v, want Back (disabled), Next, Flag for review, Finish", b)
	}

	// Question 1: a wrong answer, changed later.
	q1 := e.shownQuestion(msg)
	sel, _ := mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, wrongLetter(q1))
	if !strings.Contains(msg.Content, "Your answer: **"+wrongLetter(q1)+"**") || !strings.Contains(msg.Content, "● 1 answered") {
		t.Errorf("after answering: %q, want the answer shown and counted", msg.Content)
	}
	if strings.Contains(msg.Content, "Right") || strings.Contains(msg.Content, "Not quite") || strings.Contains(embedsText(msg.Embeds), "Answer:") {
		t.Errorf("after answering: %q %s; want no grading before the end", msg.Content, embedsText(msg.Embeds))
	}
	if _, def := mockSelect(msg); !slices.Equal(def, []string{wrongLetter(q1)}) {
		t.Errorf("the select shows %v chosen, want the answer", def)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	q2 := e.shownQuestion(msg)
	if !strings.Contains(msg.Content, "question 2 of 5") || q2 == q1 {
		t.Fatalf("Next: %q, want question 2", msg.Content)
	}
	sel, _ = mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, wrongLetter(q2)) // q2 stays wrong
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Back"].CustomID)
	if !strings.Contains(msg.Content, "question 1 of 5") || !strings.Contains(msg.Content, "Your answer: **"+wrongLetter(q1)+"**") {
		t.Fatalf("Back: %q, want question 1 with its answer", msg.Content)
	}
	sel, _ = mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, q1.Correct()...) // changed to the right one
	for range 2 {
		msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	}
	q3 := e.shownQuestion(msg)
	sel, _ = mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, q3.Correct()...)
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Flag for review"].CustomID)
	if !strings.Contains(msg.Content, "⚑ flagged for review") || !strings.Contains(msg.Content, "**3●⚑**") || buttons(msg.Components)["Unflag"] == nil {
		t.Errorf("after Flag: %q, want question 3 flagged", msg.Content)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	q4 := e.shownQuestion(msg)
	sel, _ = mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, q4.Correct()...)
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	if !strings.Contains(msg.Content, "question 5 of 5") || !buttons(msg.Components)["Next"].Disabled {
		t.Errorf("the last question: %q, want Next disabled", msg.Content)
	}

	// Finish asks first (one unanswered, one flagged); Back to the exam
	// returns to the question.
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Finish"].CustomID)
	if !strings.Contains(msg.Content, "Finish your mock exam now?") || !strings.Contains(msg.Content, "1 unanswered") || !strings.Contains(msg.Content, "1 flagged") {
		t.Fatalf("Finish with questions left: %q, want the prompt", msg.Content)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Back to the exam"].CustomID)
	if !strings.Contains(msg.Content, "question 5 of 5") {
		t.Fatalf("Back to the exam: %q, want question 5", msg.Content)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Finish"].CustomID)
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Finish now"].CustomID)
	// 3 of 5 right: 60%, 100 + 900 × 0.6 = 640, below 700.
	result := msg.Content + "\n" + embedsText(msg.Embeds)
	for _, want := range []string{"Mock exam result** · Mock Bank", "❌ Not passed yet", "**Score: 640** on a scale of 100-1000 · 60% (3 of 5 right)",
		"Pass mark: 700", "(you finished)", "Answered 4 of 5 · 1 unanswered, counted as wrong · ⚑ 1 flagged", "Domain: Net:", "Domain: Sec:"} {
		if !strings.Contains(result, want) {
			t.Errorf("result lacks %q:\n%s", want, result)
		}
	}
	goOver := buttons(msg.Components)["Go over 3 questions"]
	if goOver == nil {
		t.Fatalf("result buttons %v, want Go over 3 questions (the miss, the flag, the unanswered)", buttons(msg.Components))
	}

	// The pages: question 2 missed, 3 right and flagged, 5 unanswered.
	msg = e.mockClick(bob, msg, goOver.CustomID)
	page := msg.Content + "\n" + embedsText(msg.Embeds)
	for _, want := range []string{"review** · 1 of 3 · question 2 of 5 · ❌ missed", "You chose **" + wrongLetter(q2) + "**",
		"The answer: **" + q2.Correct()[0] + "**", "Answer: " + q2.Correct()[0], "Because of reason", "is right for"} {
		if !strings.Contains(page, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, page)
		}
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	if !strings.Contains(msg.Content, "2 of 3 · question 3 of 5 · ✅ right · ⚑ flagged") {
		t.Errorf("page 2: %q, want question 3, right and flagged", msg.Content)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	if !strings.Contains(msg.Content, "3 of 3 · question 5 of 5 · ○ not answered") || !strings.Contains(msg.Content, "You did not answer it.") ||
		!buttons(msg.Components)["Next"].Disabled {
		t.Errorf("page 3: %q, want question 5, not answered, and Next disabled", msg.Content)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Result"].CustomID)
	if !strings.Contains(embedsText(msg.Embeds), "Score: 640") {
		t.Errorf("Result: %s, want the summary again", embedsText(msg.Embeds))
	}

	// Memory: each answered question once, as a private answer; no points.
	mems, err := e.db.Memories(8001, 7002)
	if err != nil || len(mems) != 4 {
		t.Fatalf("memories: %d, %v; want the 4 answered questions", len(mems), err)
	}
	for _, mem := range mems {
		if len(mem.History) != 1 || !mem.History[0].Review || (mem.QuestionID == q2.ID) == mem.History[0].Right {
			t.Errorf("memory of %s: %+v, want one private answer, wrong only for question 2", mem.QuestionID, mem.History)
		}
	}
	st, _ := e.db.MemberStats(8001, 7002, e.clk.Now())
	if st.All.Points != 0 || st.All.Answered != 0 {
		t.Errorf("stats after the mock: %+v, want no points and no answers counted", st.All)
	}
	for _, r := range []questions.Ranking{questions.ByPoints, questions.ByAccuracy} {
		for _, per := range []questions.Period{questions.PeriodDay, questions.PeriodAll} {
			if lb, err := e.db.Leaderboard(8001, per, r, e.clk.Now(), 0, 10); err != nil || lb.Total != 0 {
				t.Errorf("leaderboard (%s, %s) after the mock: %+v, %v; want nobody on it", per, r, lb, err)
			}
		}
	}

	// /quiz stats shows the attempt, and its chart once drawn.
	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("stats"))
	p.WaitResponse(t, wait)
	stats := p.WaitOriginal(t, wait, func(m discordtest.Message) bool { return len(m.Attachments) > 0 })
	if text := embedsText(stats.Embeds); !strings.Contains(text, "📝 Mock exams") || !strings.Contains(text, "**Mock Bank** · 640 (60%) · ❌ not passed (pass mark 700 of 100-1000)") {
		t.Errorf("/quiz stats: %s, want the mock exam listed", text)
	}
	names := []string{}
	for _, a := range stats.Attachments {
		names = append(names, a.Filename)
	}
	if !slices.Contains(names, "mocks.png") {
		t.Errorf("/quiz stats attachments %v, want mocks.png", names)
	}

	// Which bank, when the server has several and the member named none
	// (and set no exam date); ended and seen, /quiz mock starts a new
	// attempt.
	if got := e.mockCommand(bob); !strings.Contains(got.Content, "Which bank? Name it: `/quiz mock bank:<name>` (Mock Bank, quizhost Sample)") {
		t.Errorf("/quiz mock without a bank: %q, want to be asked which", got.Content)
	}
	if again := e.mockCommand(bob, str("bank", "Mock Bank")); !strings.Contains(again.Content, "Your mock exam of Mock Bank") {
		t.Errorf("/quiz mock after the end: %q, want a new attempt", again.Content)
	}
	e.checkWire()
}
