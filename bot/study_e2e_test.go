package bot_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// studyBank is a tagged bank the study tests import: three questions, A
// right in each.
const studyBank = `bank: Study
questions:
  - id: s1
    question: Which port does HTTPS use by default?
    options:
      - {text: "443", correct: true, why: "HTTPS listens on 443."}
      - {text: "80", why: "80 is plain HTTP."}
      - {text: "25", why: "25 is SMTP."}
    explanation: HTTPS is HTTP over TLS on port 443.
    tags: [net]
  - id: s2
    question: Which protocol encrypts HTTPS traffic?
    options:
      - {text: TLS, correct: true}
      - {text: ARP}
      - {text: UDP}
    tags: [net, sec]
  - id: s3
    question: What does a second factor add to a password?
    options:
      - {text: Something you have or are, correct: true}
      - {text: A longer password}
      - {text: Nothing}
    tags: [sec]
`

// studyEnv starts the bot with the Study bank imported.
func studyEnv(t *testing.T, start time.Time) *env {
	t.Helper()
	return importedEnv(t, start, "study.yaml", studyBank, "**Study** (new bank): added 3")
}

// played records, through storage, a member's answer to a question posted
// at `at` and closed 10 minutes later (a constructed history).
func (e *env) played(qid string, tags []string, at time.Time, answers map[questions.UserID]string) questions.Post {
	e.t.Helper()
	ctx := e.t.Context()
	p, err := e.db.CreatePost(ctx, questions.Post{GuildID: 8001, ChannelID: 6001, QuestionID: qid, Bank: "Study", Tags: tags,
		Correct: []string{"A"}, OptionCount: 3, SelectCount: 1, OpenedAt: at, ClosesAt: at.Add(10 * time.Minute)})
	if err != nil {
		e.t.Fatal(err)
	}
	for u, choice := range answers {
		if _, err := e.db.RecordAnswer(ctx, questions.Answer{PostID: p.ID, GuildID: 8001, UserID: u, InteractionID: uint64(p.ID)*10000 + uint64(u),
			Choice: []string{choice}, At: at.Add(time.Minute)}); err != nil {
			e.t.Fatal(err)
		}
	}
	if _, _, err := e.db.ClosePost(ctx, p.ID, at.Add(10*time.Minute)); err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.MarkRevealed(ctx, p.ID); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) memory(user questions.UserID, qid string) questions.Memory {
	e.t.Helper()
	mems, err := e.db.Memories(8001, user)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range mems {
		if m.QuestionID == qid {
			return m
		}
	}
	e.t.Fatalf("member %d has no memory of %s", user, qid)
	return questions.Memory{}
}

// startReview runs /quiz review as m and returns the reply and its message.
func (e *env) startReview(m discordtest.Member) (discordtest.Response, discordtest.Message) {
	e.t.Helper()
	p := e.srv.SlashCommand(guildID, channelID, m, "quiz", sub("review"))
	r := p.WaitResponse(e.t, wait)
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		e.t.Fatalf("review reply type %d flags %d, want a private message", r.Type, r.Flags)
	}
	msg, _ := p.Original()
	return r, msg
}

// reviewSelect is the review question's select menu in a reply.
func reviewSelect(t *testing.T, r discordtest.Response) *discordgo.SelectMenu {
	t.Helper()
	if len(r.Components) == 0 {
		t.Fatalf("review reply %q has no components", r.Content)
	}
	sel, ok := r.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu)
	if !ok || !strings.HasPrefix(sel.CustomID, "rv1:") {
		t.Fatalf("review reply's first component %#v, want the rv1 select", r.Components[0])
	}
	return sel
}

func standings(t *testing.T, db *storage.DB, at time.Time) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []questions.Period{questions.PeriodAll, questions.PeriodWeek, questions.PeriodDay} {
		for _, r := range []questions.Ranking{questions.ByPoints, questions.ByAccuracy} {
			lb, err := db.Leaderboard(8001, p, r, at, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s/%v total %d:", p, r, lb.Total)
			for _, s := range lb.Entries {
				fmt.Fprintf(&b, " #%d %d pts=%d ans=%d ok=%d reached=%s streak=%d/%d/%s;", s.Rank, s.UserID, s.Points, s.Answered, s.Correct,
					s.ReachedAt.UTC().Format(time.RFC3339Nano), s.CurrentStreak, s.BestStreak, s.LastStudyDay)
			}
			b.WriteString("\n")
		}
	}
	for _, u := range []questions.UserID{7001, 7002, 7003} {
		st, err := db.MemberStats(8001, u, at)
		if err != nil {
			fmt.Fprintf(&b, "stats %d: %v\n", u, err)
			continue
		}
		fmt.Fprintf(&b, "stats %d: %+v rank %d topics %+v\n", u, st.All, st.Rank, st.Topics)
	}
	return b.String()
}

func memoriesText(t *testing.T, db *storage.DB) string {
	t.Helper()
	var b strings.Builder
	for _, u := range []questions.UserID{7001, 7002, 7003} {
		mems, err := db.Memories(8001, u)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mems {
			fmt.Fprintf(&b, "%d %s due=%s s=%.9f d=%.9f reps=%d lapses=%d state=%d history=%v\n", u, m.QuestionID,
				m.Due.UTC().Format(time.RFC3339Nano), m.Stability, m.Difficulty, m.Reps, m.Lapses, m.State, m.History)
		}
	}
	return b.String()
}

// TestReviewMissComesDue: a miss comes due a minute after the question's
// close (never while it is open), is reviewed privately with the reveal,
// and a right review pushes the next due date out by days; reviews leave
// every leaderboard as it was.
func TestReviewMissComesDue(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, start)
	e.start()
	post, _ := e.ask(alice, str("bank", "Test Bank"), integer("minutes", 5))
	q, _ := e.cat.Question(post.QuestionID)
	e.choose(alice, post, post.Correct...)
	e.choose(bob, post, wrongOf(post)...)

	// While the question is open, nothing is due (its miss comes due after the close).
	r, _ := e.startReview(bob)
	if !strings.Contains(r.Content, "Nothing is due") {
		t.Errorf("review while the question is open: %q, want nothing due", r.Content)
	}
	boards := standings(t, e.db, start)

	e.advance(5 * time.Minute) // the close
	closedAt := e.revealed(post.ID).ClosedAt
	if closedAt.IsZero() {
		t.Fatal("the question did not close")
	}
	missDue := e.memory(7002, post.QuestionID).Due
	if want := closedAt.Add(time.Minute); !missDue.Equal(want) {
		t.Errorf("the miss is due %v, want a minute after the close, %v", missDue, want)
	}
	r, _ = e.startReview(bob)
	if want := fmt.Sprintf("next review is due <t:%d:R>", missDue.Unix()); !strings.Contains(r.Content, want) {
		t.Errorf("review right after the close: %q, want %q", r.Content, want)
	}

	e.advance(time.Minute)
	r, msg := e.startReview(bob)
	sel := reviewSelect(t, r)
	for _, want := range []string{"Review", "1 question due", "you missed this one last time"} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("review reply %q lacks %q", r.Content, want)
		}
	}
	if len(r.Embeds) != 1 || !strings.Contains(r.Embeds[0].Description, q.Stem) || *sel.MinValues != post.SelectCount || len(sel.Options) != len(q.Options) {
		t.Errorf("review question %s, select %+v; want the stem and a select of %d of %d", embedsText(r.Embeds), sel, post.SelectCount, len(q.Options))
	}
	// Alice may not answer Bob's review.
	if got := e.srv.Component(guildID, channelID, alice, msg.ID, sel.CustomID, post.Correct...).WaitResponse(t, wait); !strings.Contains(got.Content, "another member") {
		t.Errorf("another member's answer: %q, want a refusal", got.Content)
	}
	// Bob answers right: graded privately with the explanation and rationales.
	now := e.clk.Now()
	g := e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, post.Correct...).WaitResponse(t, wait)
	after := e.memory(7002, post.QuestionID)
	text := g.Content + "\n" + embedsText(g.Embeds)
	for _, want := range []string{"Right!", fmt.Sprintf("comes back <t:%d:R>", after.Due.Unix()), "Answer: " + strings.Join(post.Correct, ", "),
		q.Explanation, q.Options[0].Rationale, "last due question"} {
		if !strings.Contains(text, want) {
			t.Errorf("graded review lacks %q:\n%s", want, text)
		}
	}
	if g.Type != discordgo.InteractionResponseUpdateMessage || len(g.Components) != 0 {
		t.Errorf("graded review: type %d with %d component rows, want an update without the menu", g.Type, len(g.Components))
	}
	if after.Due.Before(now.Add(20*time.Hour)) || !after.History[len(after.History)-1].Review {
		t.Errorf("after a right review the question is due %v (now %v), want a day or more out, counted as a review", after.Due, now)
	}
	// A second answer to the same review question is refused.
	if got := e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, post.Correct...).WaitResponse(t, wait); !strings.Contains(got.Content, "already answered") {
		t.Errorf("second review answer: %q", got.Content)
	}
	if got := standings(t, e.db, start); got != boards {
		t.Errorf("reviews changed the boards:\n%s\nwant\n%s", got, boards)
	}
	r, _ = e.startReview(bob)
	if want := fmt.Sprintf("next review is due <t:%d:R>", after.Due.Unix()); !strings.Contains(r.Content, want) {
		t.Errorf("review with nothing due: %q, want %q", r.Content, want)
	}
	e.checkWire()
}

// TestReviewSkipsOpenQuestions: a due question open in the server again
// is left out of the review until it closes; Stop ends a session.
func TestReviewSkipsOpenQuestions(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	e.played("s1", []string{"net"}, start.Add(-time.Hour), map[questions.UserID]string{7002: "B"})
	e.played("s2", []string{"net", "sec"}, start.Add(-time.Hour), map[questions.UserID]string{7002: "C"})
	// s1 is posted again and open.
	open := e.openInServer("s1", start.Add(time.Hour))
	r, msg := e.startReview(bob)
	if !strings.Contains(r.Content, "1 question due") || !strings.Contains(embedsText(r.Embeds), "encrypts HTTPS") {
		t.Fatalf("review with s1 open: %q %s, want only s2", r.Content, embedsText(r.Embeds))
	}
	stop := r.Components[1].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)
	got := e.srv.Component(guildID, channelID, bob, msg.ID, stop.CustomID).WaitResponse(t, wait)
	if got.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(got.Content, "Review stopped") || !strings.Contains(got.Content, "1 question is still due") {
		t.Errorf("stop: type %d %q", got.Type, got.Content)
	}
	e.closeInServer(open)
	r, _ = e.startReview(bob)
	if !strings.Contains(r.Content, "2 questions due") {
		t.Errorf("review after the close: %q, want both due", r.Content)
	}
	e.checkWire()
}

// TestReviewAnswerWhileOpenInServer: a question shown in a review that is
// posted in the server before the member answers it there is not graded
// (the grading would show the answer of an open question) and nothing is
// recorded; once it closes, the same review question takes the answer.
func TestReviewAnswerWhileOpenInServer(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	e.played("s1", []string{"net"}, start.Add(-time.Hour), map[questions.UserID]string{7002: "B"})
	r, msg := e.startReview(bob)
	if !strings.Contains(embedsText(r.Embeds), "port does HTTPS") {
		t.Fatalf("review: %q %s, want s1", r.Content, embedsText(r.Embeds))
	}
	sel := reviewSelect(t, r)
	before := e.memory(7002, "s1")
	// s1 is posted in the channel meanwhile.
	open := e.openInServer("s1", start.Add(time.Hour))
	got := e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, "A").WaitResponse(t, wait)
	text := got.Content + "\n" + embedsText(got.Embeds)
	if strings.Contains(text, "Right") || strings.Contains(text, "HTTPS is HTTP over TLS") || !strings.Contains(text, "open in the server") {
		t.Errorf("review answer while s1 is open in the server: %q, want a refusal that gives nothing away", text)
	}
	if after := e.memory(7002, "s1"); after.Reps != before.Reps || !after.Due.Equal(before.Due) {
		t.Errorf("refused review answer changed the memory: %+v, want %+v", after, before)
	}
	e.closeInServer(open)
	got = e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, "A").WaitResponse(t, wait)
	if !strings.Contains(got.Content, "Right") {
		t.Errorf("review answer after the close: %q, want it graded", got.Content)
	}
	e.checkWire()
}

// TestReadinessAndChart: for a constructed history, /quiz stats shows the
// readiness for the exam date overall and per topic, as FSRS predicts
// from the stored memories, and attaches the chart.
func TestReadinessAndChart(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	// s1 right yesterday; s2 missed two days ago (due since); s3 never seen.
	e.played("s1", []string{"net"}, start.Add(-24*time.Hour), map[questions.UserID]string{7002: "A"})
	e.played("s2", []string{"net", "sec"}, start.Add(-48*time.Hour), map[questions.UserID]string{7002: "B"})
	m1, m2 := e.memory(7002, "s1"), e.memory(7002, "s2")
	if m1.DueBy(start) || !m2.DueBy(start) {
		t.Fatalf("constructed history: s1 due %v, s2 due %v; want s1 not due and s2 due at %v", m1.Due, m2.Due, start)
	}

	bad := []struct{ date, want string }{
		{"2026-13-01", "not a date written YYYY-MM-DD"},
		{"20-12-2026", "not a date written YYYY-MM-DD"},
		{"2026-11-29", "has passed"},
	}
	for _, b := range bad {
		if got := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("exam", str("date", b.date)))); !strings.Contains(got, b.want) {
			t.Errorf("/quiz exam date:%s = %q, want %q", b.date, got, b.want)
		}
	}
	if got := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("exam", str("date", "2026-12-20"), str("bank", "nope")))); !strings.Contains(got, "no bank named") {
		t.Errorf("/quiz exam with an unknown bank = %q", got)
	}
	if _, err := e.db.ExamDate(8001, 7002); err == nil {
		t.Fatal("a refused /quiz exam stored a date")
	}

	exam := time.Date(2026, 12, 20, questions.ExamHour, 0, 0, 0, time.UTC)
	r1, r2 := m1.Retrievability(exam), m2.Retrievability(exam)
	pct := func(x float64) int { return int(math.Round(100 * x)) }
	got := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("exam", str("date", "2026-12-20"), str("bank", "study"))))
	if !strings.Contains(got, "Sunday 20 December 2026") || !strings.Contains(got, "**Study**") || !strings.Contains(got, fmt.Sprintf("**%d%%**", pct((r1+r2)/3))) {
		t.Errorf("/quiz exam reply %q", got)
	}

	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("stats"))
	r := p.WaitResponse(t, wait)
	if r.Flags&discordgo.MessageFlagsEphemeral == 0 || len(r.Embeds) != 2 {
		t.Fatalf("stats reply flags %d with %d embeds, want a private reply with the stats and the readiness", r.Flags, len(r.Embeds))
	}
	text := embedsText(r.Embeds[1:])
	for _, want := range []string{
		"Readiness for 2026-12-20 · Study",
		fmt.Sprintf("Predicted recalled on the exam date: %d%%** of 3 questions", pct((r1+r2)/3)),
		"Seen 2 of 3 · accuracy 50% · 1 question due now",
		fmt.Sprintf("Topic: net: recalled %d%% · seen 2 of 2 · accuracy 50%% · 1 due", pct((r1+r2)/2)),
		fmt.Sprintf("Topic: sec: recalled %d%% · seen 1 of 2 · accuracy 0%% · 1 due", pct(r2/2)),
		questions.ReadinessExplained,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("readiness lacks %q:\n%s", want, text)
		}
	}
	// The stats themselves are still there.
	if s := embedsText(r.Embeds[:1]); !strings.Contains(s, "2 answers") || !strings.Contains(s, "1 correct (50%)") {
		t.Errorf("stats embed:\n%s", s)
	}
	// The chart follows the reply, in an edit of it: one PNG, 800×600,
	// shown in the stats embed, the figures kept.
	chart := e.chartOf(p)
	cfg, err := png.DecodeConfig(bytes.NewReader(chart.file.Data))
	if err != nil || cfg.Width != 800 || cfg.Height != 600 {
		t.Errorf("chart: %dx%d, %v; want an 800x600 PNG", cfg.Width, cfg.Height, err)
	}
	if img := chart.msg.Embeds[0].Image; img == nil || img.URL != "attachment://stats.png" || len(chart.msg.Embeds) != 2 {
		t.Errorf("stats after the chart: %d embeds, image %+v; want the stats and readiness, the image attachment://stats.png", len(chart.msg.Embeds), img)
	}
	// Another member's stats: the readiness and chart too.
	p = e.srv.SlashCommand(guildID, channelID, alice, "quiz", sub("stats", discordtest.Option{Name: "member", Type: discordgo.ApplicationCommandOptionUser, Value: bob.ID}))
	if r = p.WaitResponse(t, wait); len(r.Embeds) != 2 {
		t.Errorf("bob's stats seen by alice: %d embeds; want his stats and readiness", len(r.Embeds))
	}
	e.chartOf(p)
	// Without any answer: no readiness and no chart (stop waits for the
	// handler, so a chart would be there by then).
	p = e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("stats"))
	r = p.WaitResponse(t, wait)
	if len(r.Embeds) != 1 || len(r.Files) != 0 || !strings.Contains(r.Embeds[0].Description, "has not answered") {
		t.Errorf("stats of a member without answers: %d embeds, %d files: %s", len(r.Embeds), len(r.Files), embedsText(r.Embeds))
	}
	e.checkWire()
	e.stop()
	for _, req := range e.srv.Requests() {
		if req.Method == "PATCH" && strings.Contains(req.Route, p.Token()) {
			t.Errorf("a chart was attached to the stats of a member without answers")
		}
	}
}

// TestGroupAwareDraw: once every question of the bank was asked, /quiz
// ask posts the one the players are closest to forgetting, and never one
// that is open already.
func TestGroupAwareDraw(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	// Everyone knows s1 and s3 from this morning; s2 only alice, 25 days ago.
	e.played("s2", []string{"net", "sec"}, start.Add(-25*24*time.Hour), map[questions.UserID]string{7001: "A"})
	e.played("s1", []string{"net"}, start.Add(-2*time.Hour), map[questions.UserID]string{7001: "A", 7002: "A"})
	e.played("s3", []string{"sec"}, start.Add(-3*time.Hour), map[questions.UserID]string{7001: "A", 7002: "A"})
	// The oracle: the group's recall of each question, as the rule defines it.
	recall := map[string]float64{}
	for _, u := range []questions.UserID{7001, 7002} {
		mems, _ := e.db.Memories(8001, u)
		for _, m := range mems {
			recall[m.QuestionID] += m.Retrievability(start) / 2
		}
	}
	if !(recall["s2"] < recall["s1"] && recall["s2"] < recall["s3"]) {
		t.Fatalf("constructed case: group recall %v, want s2 lowest", recall)
	}
	post, _ := e.ask(alice, str("bank", "Study"))
	if post.QuestionID != "s2" {
		t.Errorf("drew %s, want s2, the most forgotten (group recall %v)", post.QuestionID, recall)
	}
	// s2 is open now: the next draw takes another.
	next, _ := e.ask(alice, str("bank", "Study"))
	if next.QuestionID == "s2" {
		t.Errorf("drew s2 again while it is open")
	}
	e.checkWire()
}

// fixBank has one question whose key is wrong (A); fixedBank corrects it
// to B.
const fixBank = `bank: Fix
questions:
  - id: f1
    question: Which is the largest planet?
    options:
      - {text: Mars, correct: true}
      - {text: Jupiter}
      - {text: Venus}
    explanation: Jupiter is the largest planet.
`

var fixedBank = strings.Replace(strings.Replace(fixBank, "{text: Mars, correct: true}", "{text: Mars}", 1), "{text: Jupiter}", "{text: Jupiter, correct: true}", 1)

// TestReportAndRegrade: a member reports a revealed question; an admin
// lists and closes reports; after the bank is corrected, a regrade
// changes the boards, stats and memories exactly to what grading with the
// right key from the start gives.
func TestReportAndRegrade(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, start)
	e.start()
	if got := e.admin(alice, sub("import", attachment("fix.yaml", fixBank))); !strings.Contains(got, "added 1") {
		t.Fatalf("import: %q", got)
	}
	post, _ := e.ask(alice, str("bank", "Fix"), integer("minutes", 5))
	answeredAt := e.clk.Now()
	e.choose(alice, post, "A")
	e.choose(bob, post, "B")
	e.choose(carol, post, "B")
	e.advance(5 * time.Minute)
	closed := e.revealed(post.ID)
	msg, _ := e.srv.Message(channelID, fmt.Sprint(post.MessageID))
	if len(msg.Components) != 2 {
		t.Fatalf("closed message has %d rows, want the menu and the Report button", len(msg.Components))
	}
	report := msg.Components[1].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)
	if report.CustomID != fmt.Sprintf("rp1:%d", post.ID) || !strings.Contains(report.Label, "Report") {
		t.Errorf("report button %+v", report)
	}
	// Bob reports it: a form asking what is wrong.
	form := e.srv.Component(guildID, channelID, bob, msg.ID, report.CustomID).WaitResponse(t, wait)
	if form.Type != discordgo.InteractionResponseModal || form.CustomID != fmt.Sprintf("rm1:%d", post.ID) {
		t.Fatalf("report button answered type %d %q, want the report modal", form.Type, form.CustomID)
	}
	got := e.replyText(e.srv.ModalSubmit(guildID, channelID, bob, msg.ID, form.CustomID, map[string]string{"what": "The answer is Jupiter, not Mars."}))
	if !strings.Contains(got, "Thanks") {
		t.Errorf("report sent: %q", got)
	}
	if got := e.admin(bob, sub("reports")); !strings.Contains(got, "Manage Server") {
		t.Errorf("member's /quizadmin reports: %q, want a refusal", got)
	}
	lp := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("reports"))
	lr := lp.WaitResponse(t, wait)
	list := lr.Content + "\n" + embedsText(lr.Embeds)
	for _, want := range []string{"1 open report", "Fix · Question 1", "`f1`", "<@7002>", "The answer is Jupiter, not Mars."} {
		if !strings.Contains(list, want) {
			t.Errorf("reports list lacks %q:\n%s", want, list)
		}
	}
	listMsg, _ := lp.Original()
	closeBtn := lr.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button)

	// Bob's miss comes due; he reviews it and answers B (graded against A).
	e.advance(time.Minute)
	r, rmsg := e.startReview(bob)
	reviewedAt := e.clk.Now()
	if g := e.srv.Component(guildID, channelID, bob, rmsg.ID, reviewSelect(t, r).CustomID, "B").WaitResponse(t, wait); !strings.Contains(g.Content, "Not quite") {
		t.Errorf("review answer B against key A: %q", g.Content)
	}

	// The bank is corrected, then the question regraded.
	if got := e.admin(alice, sub("import", attachment("fix.yaml", fixedBank))); !strings.Contains(got, "updated 1") {
		t.Fatalf("corrected import: %q", got)
	}
	if got := e.admin(bob, sub("regrade", str("id", "f1"))); !strings.Contains(got, "Manage Server") {
		t.Errorf("member's regrade: %q", got)
	}
	if got := e.admin(alice, sub("regrade", str("id", "nope"))); !strings.Contains(got, "no question with id") {
		t.Errorf("regrade of an unknown id: %q", got)
	}
	got = e.admin(alice, sub("regrade", str("id", "f1")))
	if !strings.Contains(got, "4 answers, **4 changed**") || !strings.Contains(got, "**B**") {
		t.Errorf("regrade reply %q, want 4 answers, 4 changed, against B", got)
	}
	if p := e.revealed(post.ID); !slices.Equal(p.Correct, []string{"B"}) || p.Right != 2 {
		t.Errorf("post after the regrade: key %v, %d right; want [B], 2", p.Correct, p.Right)
	}

	// The oracle: the same play graded against B from the start.
	clk := e.clk
	oracle, err := storage.Open(t.Context(), filepath.Join(t.TempDir(), "oracle.db"), storage.Options{Timeout: time.Second, Now: clk.Now, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	ctx := t.Context()
	op, err := oracle.CreatePost(ctx, questions.Post{GuildID: 8001, ChannelID: 6001, QuestionID: "f1", Bank: "Fix", Correct: []string{"B"},
		OptionCount: 3, SelectCount: 1, OpenedAt: closed.OpenedAt, ClosesAt: closed.ClosesAt})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range []struct {
		u      questions.UserID
		choice string
	}{{7001, "A"}, {7002, "B"}, {7003, "B"}} {
		if _, err := oracle.RecordAnswer(ctx, questions.Answer{PostID: op.ID, GuildID: 8001, UserID: a.u, InteractionID: uint64(i + 1), Choice: []string{a.choice}, At: answeredAt}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := oracle.ClosePost(ctx, op.ID, closed.ClosedAt); err != nil {
		t.Fatal(err)
	}
	rv, err := oracle.StartReview(ctx, questions.Review{GuildID: 8001, UserID: 7002, QuestionID: "f1", Correct: []string{"B"}, OptionCount: 3, SelectCount: 1, OpenedAt: reviewedAt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oracle.RecordReview(ctx, questions.Answer{PostID: rv.ID.Post(), GuildID: 8001, UserID: 7002, InteractionID: 9, Choice: []string{"B"}, At: reviewedAt}); err != nil {
		t.Fatal(err)
	}
	now := e.clk.Now()
	if got, want := standings(t, e.db, now), standings(t, oracle, now); got != want {
		t.Errorf("boards after the regrade:\n%s\nwant (graded against B from the start):\n%s", got, want)
	}
	if got, want := memoriesText(t, e.db), memoriesText(t, oracle); got != want {
		t.Errorf("memories after the regrade:\n%s\nwant:\n%s", got, want)
	}
	lb := e.replyText(e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("leaderboard")))
	if !strings.Contains(lb, "<@7002>") || !strings.Contains(lb, "<@7003>") || strings.Contains(lb, "<@7001>") && strings.Index(lb, "<@7001>") < strings.Index(lb, "<@7003>") {
		t.Errorf("leaderboard after the regrade:\n%s", lb)
	}

	// Closing the report: Manage Server checked again on the button.
	if got := e.srv.Component(guildID, channelID, bob, listMsg.ID, closeBtn.CustomID).WaitResponse(t, wait); !strings.Contains(got.Content, "Manage Server") {
		t.Errorf("member closing a report: %q", got.Content)
	}
	cr := e.srv.Component(guildID, channelID, alice, listMsg.ID, closeBtn.CustomID).WaitResponse(t, wait)
	if cr.Type != discordgo.InteractionResponseUpdateMessage || !strings.Contains(cr.Content, "Closed report #1") || !strings.Contains(cr.Content, "no open reports") {
		t.Errorf("close report: type %d %q", cr.Type, cr.Content)
	}
	if rs, _ := e.db.Reports(8001); len(rs) != 0 {
		t.Errorf("%d reports left open", len(rs))
	}
	e.checkWire()
}

// statsChart is the chart edited into a stats reply, and the reply after it.
type statsChart struct {
	file discordtest.File
	msg  discordtest.Message
}

// chartOf waits for the edit that attaches the chart to p's stats reply.
func (e *env) chartOf(p *discordtest.Pending) statsChart {
	e.t.Helper()
	req := e.srv.WaitRequest(e.t, func(r discordtest.Request) bool {
		return r.Method == "PATCH" && strings.Contains(r.Route, p.Token()) && len(r.Files) > 0
	}, wait)
	f := req.Files[0]
	if len(req.Files) != 1 || f.Name != "stats.png" || !bytes.HasPrefix(f.Data, []byte("\x89PNG\r\n\x1a\n")) {
		e.t.Fatalf("the stats edit attached %d files (first %q), want stats.png", len(req.Files), f.Name)
	}
	msg := p.WaitOriginal(e.t, wait, func(m discordtest.Message) bool { return len(m.Attachments) == 1 })
	return statsChart{file: f, msg: msg}
}

// openInServer posts question qid of the Study bank in the channel, open
// until closes, as if asked there, and waits for the scheduler to take it
// in.
func (e *env) openInServer(qid string, closes time.Time) questions.Post {
	e.t.Helper()
	var open questions.Post
	e.settled(func() {
		var err error
		open, err = e.db.CreatePost(e.t.Context(), questions.Post{GuildID: 8001, ChannelID: 6001, QuestionID: qid, Bank: "Study",
			Correct: []string{"A"}, OptionCount: 3, SelectCount: 1, ClosesAt: closes})
		if err != nil {
			e.t.Fatal(err)
		}
		e.admin(alice, sub("settings", discordtest.Option{Name: "ask_minutes", Type: discordgo.ApplicationCommandOptionInteger, Value: 10})) // pokes the scheduler
	})
	return open
}

// closeInServer closes the channel's open question with /quizadmin close
// and checks it is closed.
func (e *env) closeInServer(open questions.Post) {
	e.t.Helper()
	if got := e.admin(alice, sub("close")); !strings.Contains(got, "Closed 1 question") {
		e.t.Fatalf("close: %q", got)
	}
	if p := e.revealed(open.ID); !p.Closed {
		e.t.Fatalf("%s is still open", open.QuestionID)
	}
}
