package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// TestEarlyCloseBringsMissesBack: a miss of a question an admin closes
// early comes due a minute after that close, not a minute after the
// question's scheduled close, and /quiz review offers it then.
func TestEarlyCloseBringsMissesBack(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, start)
	e.start()
	post, _ := e.ask(alice, str("bank", "Test Bank"), integer("minutes", 10))
	e.choose(bob, post, wrongOf(post)...)
	e.advance(time.Minute)
	e.settled(func() {
		if got := e.admin(alice, sub("close")); !strings.Contains(got, "Closed 1 question") {
			t.Fatalf("close: %q", got)
		}
	})
	closed := e.revealed(post.ID)
	if !closed.Closed || !closed.ClosedAt.Before(closed.ClosesAt) {
		t.Fatalf("post closed %v at %v, want closed before %v", closed.Closed, closed.ClosedAt, closed.ClosesAt)
	}
	if due, want := e.memory(7002, post.QuestionID).Due, closed.ClosedAt.Add(time.Minute); !due.Equal(want) {
		t.Errorf("the miss is due %v, want a minute after the close, %v", due, want)
	}
	e.advance(time.Minute)
	r, _ := e.startReview(bob)
	if !strings.Contains(r.Content, "1 question due") || !strings.Contains(r.Content, "you missed this one last time") {
		t.Errorf("review a minute after the early close: %q, want the miss (due %s)", r.Content,
			fmt.Sprintf("<t:%d:R>", e.memory(7002, post.QuestionID).Due.Unix()))
	}
	e.checkWire()
}

// TestExamDayCapsTheSchedule: with an exam date set, no review interval
// runs past the exam: a right review comes back within the days left, a
// question answered before the date was set comes due before the exam
// rather than after it, the readiness says how many answers a day keep the
// member on track, and in the last three days /quiz review goes on with a
// final pass over the weakest questions once nothing is due.
func TestExamDayCapsTheSchedule(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	exam := time.Date(2026, 12, 2, questions.ExamHour, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	// Bob: s1 right 10 days ago (due since), s3 right two hours ago
	// (FSRS: due in about three days, after the exam).
	e.played("s1", []string{"net"}, start.Add(-10*24*time.Hour), map[questions.UserID]string{7002: "A"})
	e.played("s3", []string{"sec"}, start.Add(-2*time.Hour), map[questions.UserID]string{7002: "A"})
	// Carol: s2 right two days ago: due tomorrow, weak on the exam morning.
	e.played("s2", []string{"net", "sec"}, start.Add(-2*24*time.Hour), map[questions.UserID]string{7003: "A"})
	s3 := e.memory(7002, "s3")
	if !s3.Due.After(exam) {
		t.Fatalf("constructed case: s3 is due %v, want FSRS's due after the exam %v", s3.Due, exam)
	}
	for _, m := range []discordtest.Member{bob, carol} {
		if got := e.replyText(e.srv.SlashCommand(guildID, channelID, m, "quiz", sub("exam", str("date", "2026-12-02"), str("bank", "Study")))); !strings.Contains(got, "exam date is set") {
			t.Fatalf("/quiz exam: %q", got)
		}
	}

	// Bob reviews s1, right: FSRS would bring it back days after the exam;
	// it comes back a day from now, the whole days left.
	r, msg := e.startReview(bob)
	if !strings.Contains(r.Content, "1 question due") || !strings.Contains(embedsText(r.Embeds), "port does HTTPS") {
		t.Fatalf("bob's review: %q %s, want s1", r.Content, embedsText(r.Embeds))
	}
	g := e.srv.Component(guildID, channelID, bob, msg.ID, reviewSelect(t, r).CustomID, "A").WaitResponse(t, wait)
	s1 := e.memory(7002, "s1")
	capped := start.Add(24 * time.Hour)
	if !s1.Due.After(exam) {
		t.Fatalf("constructed case: after the review FSRS has s1 due %v, want after the exam %v", s1.Due, exam)
	}
	if want := fmt.Sprintf("comes back <t:%d:R>", capped.Unix()); !strings.Contains(g.Content, want) {
		t.Errorf("graded review %q, want %q (FSRS's %v capped at the day left)", g.Content, want, s1.Due)
	}
	if want := fmt.Sprintf("next review is due <t:%d:R>", capped.Unix()); !strings.Contains(g.Content, want) {
		t.Errorf("graded review %q, want %q", g.Content, want)
	}

	// The readiness: the answers a day that keep bob on track.
	mems := map[string]questions.Memory{"s1": s1, "s3": e.memory(7002, "s3")}
	pace := questions.ComputePace([]questions.Memory{mems["s1"], {QuestionID: "s2"}, mems["s3"]}, start, exam)
	stats := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("stats")))
	want := fmt.Sprintf("On track: %s a day** until the exam: %s over 2 days", bot.Plural(pace.PerDay, "answer", "answers"), bot.Plural(pace.Answers, "answer", "answers"))
	if pace.Unseen != 1 || !strings.Contains(stats, want) || !strings.Contains(stats, "first answer to the 1 question you have not seen yet") {
		t.Errorf("readiness lacks %q and the unseen question (pace %+v):\n%s", want, pace, stats)
	}

	// Carol: nothing due, and the final pass offers s2.
	r, msg = e.startReview(carol)
	if !strings.Contains(r.Content, "Final pass") || !strings.Contains(r.Content, "1 question to go") || !strings.Contains(embedsText(r.Embeds), "encrypts HTTPS") {
		t.Fatalf("carol's review in the last three days: %q %s, want the final pass with s2", r.Content, embedsText(r.Embeds))
	}
	g = e.srv.Component(guildID, channelID, carol, msg.ID, reviewSelect(t, r).CustomID, "A").WaitResponse(t, wait)
	if !strings.Contains(g.Content, "Right!") || len(g.Components) != 0 {
		t.Errorf("carol's final pass answer: %q with %d rows, want graded and the pass done", g.Content, len(g.Components))
	}

	// A day on, s1 comes due for bob; so does s3 on the exam's eve, a day
	// before FSRS would have it.
	e.setClock(capped)
	if r, _ := e.startReview(bob); !strings.Contains(r.Content, "1 question due") || !strings.Contains(embedsText(r.Embeds), "port does HTTPS") {
		t.Errorf("bob's review a day on: %q %s, want s1 due", r.Content, embedsText(r.Embeds))
	}
	e.setClock(s3.LastReview.Add(2 * 24 * time.Hour))
	r, _ = e.startReview(bob)
	if !strings.Contains(r.Content, "2 questions due") {
		t.Errorf("bob's review on the exam's eve: %q, want s1 and s3 due", r.Content)
	}
	e.checkWire()
}
