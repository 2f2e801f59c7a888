package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
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

// lateMocks is the bot's store with a scheduler that is late for mock
// exams while late is set: MocksDue lists none, so a member's click or
// /quiz mock reaches an attempt past its deadline first.
type lateMocks struct {
	*storage.DB
	late atomic.Bool
}

func (s *lateMocks) MocksDue() ([]questions.MockDue, error) {
	if s.late.Load() {
		return nil, nil
	}
	return s.DB.MocksDue()
}

// TestMockTimesOut: an attempt whose time runs out ends at its deadline.
// Ended by the scheduler, the member gets the result by direct message
// and on their next click; reached first by a click or by /quiz mock
// (the scheduler late), that shows the result and the direct message
// follows. A member whose direct messages are closed sees the result in
// the server; the failure is logged, not retried.
func TestMockTimesOut(t *testing.T) {
	t.Parallel()
	e := newMockEnv(t)
	st := &lateMocks{}
	e.store = func(db *storage.DB) bot.Store { st.DB = db; return st }
	e.start()
	e.srv.CloseDMs(carol.ID)
	start := e.clk.Now()

	bobMsg := e.mockCommand(bob, str("bank", "Mock Bank"), integer("questions", 3), integer("minutes", 5))
	q1 := e.shownQuestion(bobMsg)
	sel, _ := mockSelect(bobMsg)
	bobMsg = e.mockClick(bob, bobMsg, sel, q1.Correct()...)
	bobMsg = e.mockClick(bob, bobMsg, buttons(bobMsg.Components)["Next"].CustomID)
	q2 := e.shownQuestion(bobMsg)
	sel, _ = mockSelect(bobMsg)
	bobMsg = e.mockClick(bob, bobMsg, sel, wrongLetter(q2))
	bobMsg = e.mockClick(bob, bobMsg, buttons(bobMsg.Components)["Flag for review"].CustomID)
	e.mockCommand(carol, str("bank", "Mock Bank"), integer("questions", 3), integer("minutes", 10))
	aliceMsg := e.mockCommand(alice, str("bank", "Mock Bank"), integer("questions", 1), integer("minutes", 10))
	aq := e.shownQuestion(aliceMsg)
	sel, _ = mockSelect(aliceMsg)
	aliceMsg = e.mockClick(alice, aliceMsg, sel, aq.Correct()...)

	// Bob's deadline: the scheduler ends his attempt and sends the result.
	e.advance(5 * time.Minute)
	dm := e.srv.WaitDMs(t, bob.ID, 1, wait)
	text := dm[0].Content + "\n" + embedsText(dm[0].Embeds)
	for _, want := range []string{"Your mock exam of **Mock Bank** in **Study Group** ended when its time ran out",
		"To go over", "2❌⚑", "3○", "**Score: 400** on a scale of 100-1000 · 33% (1 of 3 right)", "Pass mark: 700",
		"Time used: 5 min of 5 min (time ran out)", "Answered 2 of 3 · 1 unanswered, counted as wrong · ⚑ 1 flagged", "Not passed yet"} {
		if !strings.Contains(text, want) {
			t.Errorf("the direct message lacks %q:\n%s", want, text)
		}
	}
	m, err := e.db.LatestMock(8001, 7002)
	if err != nil || m.Open() || !m.TimedOut || !m.FinishedAt.Equal(start.Add(5*time.Minute)) {
		t.Errorf("bob's attempt after its deadline: %+v, %v; want ended by its time", m, err)
	}
	// His next click shows the result, once with the notice; a change
	// comes too late.
	sel, _ = mockSelect(bobMsg)
	bobMsg = e.mockClick(bob, bobMsg, sel, q2.Correct()...)
	result := bobMsg.Content + "\n" + embedsText(bobMsg.Embeds)
	for _, want := range []string{"⏰ **Time is up.**", "The result is also in your direct messages", "Mock exam result** · Mock Bank", "Score: 400", "(time ran out)"} {
		if !strings.Contains(result, want) {
			t.Errorf("bob's click after the deadline lacks %q:\n%s", want, result)
		}
	}
	if got, _ := e.db.LatestMock(8001, 7002); !slices.Equal(got.Items[1].Choice, []string{wrongLetter(q2)}) || got.Items[1].Flagged != true {
		t.Errorf("bob's attempt after a late click: %+v, want it as it ended", got.Items[1])
	}
	bobMsg = e.mockClick(bob, bobMsg, buttons(bobMsg.Components)["Go over 2 questions"].CustomID)
	if page := bobMsg.Content + embedsText(bobMsg.Embeds); !strings.Contains(page, "question 2 of 3 · ❌ missed · ⚑ flagged") || !strings.Contains(page, "The answer: **"+q2.Correct()[0]+"**") {
		t.Errorf("bob's review page 1: %s", page)
	}

	// Carol's and Alice's deadline, with the scheduler late.
	st.late.Store(true)
	e.advance(5 * time.Minute)
	for _, u := range []questions.UserID{7001, 7003} {
		if m, _ := e.db.LatestMock(8001, u); !m.Open() {
			t.Fatalf("attempt of %d ended by a late scheduler", u)
		}
	}
	// Carol runs /quiz mock (the scheduler still late): it ends the
	// attempt and shows the result, not a new attempt.
	var got discordtest.Message
	e.settled(func() { got = e.mockCommand(carol, str("bank", "Mock Bank")) })
	result = got.Content + "\n" + embedsText(got.Embeds)
	for _, want := range []string{"⏰ **Time is up.**", "Score: 100** on a scale of 100-1000 · 0% (0 of 3 right)", "Answered 0 of 3 · 3 unanswered"} {
		if !strings.Contains(result, want) {
			t.Errorf("carol's /quiz mock after the deadline lacks %q:\n%s", want, result)
		}
	}
	if m, _ := e.db.LatestMock(8001, 7003); m.Open() || !m.TimedOut {
		t.Errorf("carol's attempt after /quiz mock: %+v, want ended by its time", m)
	}
	// Alice clicks (a change of answer, too late): her click ends the
	// attempt as it was and shows the result; the scheduler, on time
	// again and woken, sends hers by direct message, and tries Carol's,
	// whose closed direct messages are only logged.
	st.late.Store(false)
	sel, _ = mockSelect(aliceMsg)
	e.settled(func() { aliceMsg = e.mockClick(alice, aliceMsg, sel, wrongLetter(aq)) })
	result = aliceMsg.Content + "\n" + embedsText(aliceMsg.Embeds)
	for _, want := range []string{"⏰ **Time is up.**", "✅ Passed", "**Score: 1000** on a scale of 100-1000 · 100% (1 of 1 right)", "Pass mark: 700", "Time used: 10 min of 10 min (time ran out)"} {
		if !strings.Contains(result, want) {
			t.Errorf("alice's click after the deadline lacks %q:\n%s", want, result)
		}
	}
	if dm := e.srv.WaitDMs(t, alice.ID, 1, wait); !strings.Contains(embedsText(dm[0].Embeds), "100% (1 of 1 right)") {
		t.Errorf("alice's direct message: %q %s", dm[0].Content, embedsText(dm[0].Embeds))
	}
	if !e.logs.waitFor("mock exam result not sent: the member's direct messages are closed", wait) {
		t.Error("carol's closed direct messages were not logged")
	}
	if got := e.srv.DMs(carol.ID); len(got) != 0 {
		t.Errorf("%d direct messages delivered to carol's closed DMs", len(got))
	}
	if due, err := e.db.MocksDue(); err != nil || len(due) != 0 {
		t.Errorf("mock exams due after the results: %+v, %v; want none (a closed DM is not retried)", due, err)
	}
	// Seen, /quiz mock starts a new attempt.
	if again := e.mockCommand(carol, str("bank", "Mock Bank")); !strings.Contains(again.Content, "Your mock exam of Mock Bank") {
		t.Errorf("carol's /quiz mock after seeing the result: %q, want a new attempt", again.Content)
	}
	e.checkWire()
}

// TestMockSurvivesRestart: an attempt open when the bot stops goes on
// with a new bot on the same database file, from the message the member
// has (each click a new interaction) and from /quiz mock; a deadline that
// passes while the bot is down ends it at the next start, and the member
// gets the result by direct message.
func TestMockSurvivesRestart(t *testing.T) {
	t.Parallel()
	e := newMockEnv(t)
	e.start()
	msg := e.mockCommand(bob, str("bank", "Mock Bank"), integer("questions", 4), integer("minutes", 30))
	q1 := e.shownQuestion(msg)
	sel, _ := mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, q1.Correct()...)
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Flag for review"].CustomID)
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	q2 := e.shownQuestion(msg)

	e.stop()
	e.clk.Advance(10 * time.Minute)
	e.start()
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Next"].CustomID)
	if !strings.Contains(msg.Content, "question 3 of 4") || !strings.Contains(msg.Content, "● 1 answered · ⚑ 1 flagged · ○ 3 unanswered") ||
		!strings.Contains(msg.Content, "1●⚑ 2○ **3○** 4○") {
		t.Errorf("a click after the restart: %q, want question 3 with question 1 answered and flagged", msg.Content)
	}
	msg = e.mockClick(bob, msg, buttons(msg.Components)["Back"].CustomID)
	if e.shownQuestion(msg) != q2 {
		t.Errorf("Back after the restart shows another question than question 2")
	}
	sel, _ = mockSelect(msg)
	msg = e.mockClick(bob, msg, sel, wrongLetter(q2))
	// /quiz mock shows the open attempt where the member left it.
	again := e.mockCommand(bob)
	if !strings.Contains(again.Content, "Your mock exam is still open") || !strings.Contains(again.Content, "question 2 of 4") ||
		!strings.Contains(again.Content, "Your answer: **"+wrongLetter(q2)+"**") || e.shownQuestion(again) != q2 {
		t.Errorf("/quiz mock after the restart: %q, want the open attempt at question 2", again.Content)
	}

	// Down across the deadline: the next start ends it and sends the result.
	e.stop()
	e.clk.Advance(25 * time.Minute)
	e.start()
	dm := e.srv.WaitDMs(t, bob.ID, 1, wait)
	if text := dm[0].Content + embedsText(dm[0].Embeds); !strings.Contains(text, "ended when its time ran out") ||
		!strings.Contains(text, "25% (1 of 4 right)") || !strings.Contains(text, "Time used: 30 min of 30 min (time ran out)") {
		t.Errorf("the direct message after the restart: %s", text)
	}
	msg = e.mockClick(bob, again, buttons(again.Components)["Next"].CustomID)
	if !strings.Contains(msg.Content, "⏰ **Time is up.**") || !strings.Contains(embedsText(msg.Embeds), "Answered 2 of 4") {
		t.Errorf("a click after the deadline: %q %s, want the result", msg.Content, embedsText(msg.Embeds))
	}
	if ms, err := e.db.Mocks(8001, 7002, 10); err != nil || len(ms) != 1 {
		t.Errorf("bob's attempts: %d, %v; want the one", len(ms), err)
	}
	e.checkWire()
}

// TestMockOneOpenPerMember: while a member's attempt is open, /quiz mock
// (with any options, twice at once) shows it again and starts no other;
// another member's attempt is their own.
func TestMockOneOpenPerMember(t *testing.T) {
	t.Parallel()
	e := newMockEnv(t)
	e.start()
	first := e.mockCommand(bob, str("bank", "Mock Bank"))
	m, _ := e.db.LatestMock(8001, 7002)
	again := e.mockCommand(bob, str("bank", "quizhost Sample"), integer("questions", 2), integer("minutes", 3))
	if !strings.Contains(again.Content, "Your mock exam is still open") || !strings.Contains(again.Content, "Finish it before you start another") ||
		!strings.Contains(again.Content, "Mock Bank · question 1 of 5") || e.shownQuestion(again) != e.shownQuestion(first) {
		t.Errorf("a second /quiz mock: %q, want the open attempt shown again", again.Content)
	}
	// Two at once, from two devices: one attempt.
	var ps []*discordtest.Pending
	for range 2 {
		ps = append(ps, e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("mock", str("bank", "Mock Bank"))))
	}
	started := 0
	for _, p := range ps {
		p.WaitResponse(t, wait)
		got := p.WaitOriginal(t, wait, nil)
		switch {
		case strings.Contains(got.Content, "Your mock exam of Mock Bank"):
			started++
		case !strings.Contains(got.Content, "Your mock exam is still open"):
			t.Errorf("carol's /quiz mock: %q", got.Content)
		}
	}
	if started != 1 {
		t.Errorf("two /quiz mock at once started %d attempts, want 1", started)
	}
	// The guild numbers attempts in order: Bob's is 1, Carol's 2, and
	// there is no third.
	for u, want := range map[questions.UserID]questions.MockID{7002: 1, 7003: 2} {
		if latest, err := e.db.LatestMock(8001, u); err != nil || latest.ID != want || !latest.Open() {
			t.Errorf("latest attempt of %d: %d (open %v), %v; want %d, open", u, latest.ID, latest.Open(), err, want)
		}
	}
	if m.ID != 1 {
		t.Errorf("bob's first attempt is %d, want 1", m.ID)
	}
	// Bob's click on Carol's attempt's message is not hers to change.
	carols, _ := e.db.LatestMock(8001, 7003)
	forged := fmt.Sprintf("mb1:next:%d:0", carols.ID)
	if mine := fmt.Sprintf("mb1:next:%d:0", m.ID); buttons(first.Components)["Next"].CustomID != mine {
		t.Fatalf("Next's custom ID %q, want %q", buttons(first.Components)["Next"].CustomID, mine)
	}
	// Refused in a private follow-up; the message clicked stays as it was.
	p := e.srv.Component(guildID, channelID, bob, first.ID, forged)
	if r := p.WaitResponse(t, wait); r.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Fatalf("the forged click answered type %d, want a deferred update", r.Type)
	}
	if f := p.WaitFollowups(t, 1, wait); !strings.Contains(f[0].Content, "This mock exam is gone") || f[0].Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("bob's click on carol's attempt: %q (flags %d), want it refused privately", f[0].Content, f[0].Flags)
	}
	if now, ok := e.srv.Message(channelID, first.ID); !ok || now.Edits != first.Edits || now.Content != first.Content {
		t.Errorf("the message clicked after the refusal: %d edits, %q; want it as it was (%d edits)", now.Edits, now.Content, first.Edits)
	}
	if after, _ := e.db.LatestMock(8001, 7003); after.Current != 0 {
		t.Errorf("bob's click moved carol's attempt to question %d", after.Current+1)
	}
	e.checkWire()
}

// TestMockSkipsOpenQuestions: a question open in the server's channel is
// never drawn into a mock exam; with every question open, none starts.
func TestMockSkipsOpenQuestions(t *testing.T) {
	t.Parallel()
	e := newMockEnv(t)
	e.start()
	post, _ := e.ask(alice, str("bank", "Mock Bank"), integer("minutes", 30))
	msg := e.mockCommand(bob, str("bank", "Mock Bank"), integer("questions", 8))
	if !strings.Contains(msg.Content, "7 questions in") || !strings.Contains(msg.Content, "(7 questions can be drawn from this bank right now.)") {
		t.Errorf("a mock of the whole bank with a question open: %q, want 7 questions", msg.Content)
	}
	m, _ := e.db.LatestMock(8001, 7002)
	for _, it := range m.Items {
		if it.QuestionID == post.QuestionID {
			t.Errorf("the mock drew %s, open in the channel", post.QuestionID)
		}
	}
	if len(m.Items) != 7 {
		t.Errorf("the mock drew %d questions, want 7", len(m.Items))
	}

	// A bank without exam settings: the defaults.
	one := e.mockCommand(carol, str("bank", "quizhost sample"))
	if !strings.Contains(one.Content, "Your mock exam of quizhost Sample**: 42 questions in 1 h 24 min, pass mark 70%") {
		t.Errorf("a mock of a bank without exam settings: %q, want the defaults (2 minutes a question, pass 70%%)", one.Content)
	}
	e.checkWire()
}

// TestBankExamSettings: /quizadmin bank exam shows a bank's exam settings
// and where each comes from, sets the server's over the file's (a bare
// pass score keeps the bank's scale), refuses bad ones with the settings
// unchanged, and goes back to the file's; /quiz mock sits what it shows.
func TestBankExamSettings(t *testing.T) {
	t.Parallel()
	e := newMockEnv(t)
	e.start()
	exam := func(opts ...discordtest.Option) string {
		t.Helper()
		return e.admin(alice, group("bank", sub("exam", append([]discordtest.Option{str("bank", "mock bank")}, opts...)...)))
	}
	wants(t, "bank exam", exam(), "A mock exam of **Mock Bank** (`/quiz mock`): 5 questions · 10 minutes · pass 700 of 100-1000 · domains: Net 40%, Sec 60%.",
		"Questions: the bank's file · minutes: the bank's file · pass mark: the bank's file · domains: the bank's file")
	// The server's exam is 4 questions in the file's 10 minutes.
	wants(t, "bank exam set", exam(integer("questions", 4), str("pass", "750")), "✅ Saved.",
		"4 questions · 10 minutes · pass 750 of 100-1000", "Questions: set here · minutes: the bank's file · pass mark: set here")
	if got := e.mockCommand(bob, str("bank", "Mock Bank")); !strings.Contains(got.Content, "Your mock exam of Mock Bank**: 4 questions in 10 min, pass mark 750 of 100-1000") {
		t.Errorf("/quiz mock after the admin's settings: %q, want 4 questions in 10 min, pass 750", got.Content)
	}
	for _, bad := range []struct {
		opt  discordtest.Option
		want string
	}{
		{str("pass", "seventy"), `pass mark "seventy": write a percentage (70%) or a score on a scale`},
		{str("pass", "1200"), "the pass score 1200 must be above the scale's lowest (100) and at most its highest (1000)"},
		{str("pass", "0%"), "the pass mark must be 1% to 100%"},
		{integer("questions", 251), "exam questions must be a whole number from 1 to 250"},
		{integer("minutes", 601), "exam minutes must be a whole number from 1 to 600"},
	} {
		wants(t, "bank exam "+bad.opt.Name, exam(bad.opt), bad.want)
	}
	wants(t, "bank exam after the refusals", exam(), "4 questions · 10 minutes · pass 750 of 100-1000")
	wants(t, "bank exam back to the file's", exam(integer("questions", 0), str("pass", "default")), "✅ Saved.",
		"5 questions · 10 minutes · pass 700 of 100-1000", "Questions: the bank's file · minutes: the bank's file · pass mark: the bank's file")

	// A bank without settings: the defaults, then the server's.
	sample := func(opts ...discordtest.Option) string {
		t.Helper()
		return e.admin(alice, group("bank", sub("exam", append([]discordtest.Option{str("bank", "quizhost Sample")}, opts...)...)))
	}
	wants(t, "bank exam of the built-in bank", sample(), "42 questions · 84 minutes · pass 70%", "Questions: the default · minutes: the default · pass mark: the default")
	wants(t, "bank exam set on the built-in bank", sample(integer("minutes", 30), str("pass", "80%")), "42 questions · 30 minutes · pass 80%")
	if got := e.mockCommand(carol, str("bank", "quizhost sample"), integer("questions", 21)); !strings.Contains(got.Content, "21 questions in 15 min, pass mark 80%") {
		t.Errorf("/quiz mock of half the built-in bank: %q, want 21 questions in 15 min (half of 30), pass 80%%", got.Content)
	}
	wants(t, "bank exam of a bank that is not there", e.admin(alice, group("bank", sub("exam", str("bank", "nope")))), `There is no bank named "nope" here`)
	e.checkWire()
}
