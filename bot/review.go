package bot

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// /quiz review: a private session of the member's due questions, misses
// first, one at a time, then in the days before their exam its final pass
// (questions.ExamPlan). Each question shown is a stored Review (a snapshot
// of its key, answerable for questions.ReviewExpiry); the answer updates
// the private message into its grading, with Next and Stop. /quiz drill
// (drill.go) shows and grades its questions the same way.

// review starts a member's review (/quiz review).
func (b *Bot) review(c *call, _ options) (response, error) {
	m, err := b.nextReview(c, "")
	if err != nil {
		return response{}, err
	}
	return asReply(m), nil
}

// inBank reports whether a question is in one of the guild's banks: a
// question removed from them is never reviewed.
func (b *Bot) inBank(guild questions.GuildID) func(string) bool {
	return func(id string) bool { return b.question(guild, id) != nil }
}

// reviewQueue is the member's review queue at now under their exam plan.
func (b *Bot) reviewQueue(c *call, now time.Time) (questions.ReviewQueue, questions.ExamPlan, error) {
	plan, err := b.examPlan(c.guild, c.user)
	if err != nil {
		return questions.ReviewQueue{}, plan, err
	}
	queue, err := b.store.ReviewQueue(c.guild, c.user, now, b.inBank(c.guild), plan)
	if err != nil {
		return questions.ReviewQueue{}, plan, fmt.Errorf("review queue: %w", err)
	}
	return queue, plan, nil
}

// nextReview shows the member's next due question (or, once none is due,
// the next of their final pass before the exam), or says that none is due
// and when the next one is. lead, when set, is a line put first.
func (b *Bot) nextReview(c *call, lead string) (message, error) {
	now := b.clock.Now()
	queue, plan, err := b.reviewQueue(c, now)
	if err != nil {
		return message{}, err
	}
	var mem questions.Memory
	var head string
	switch {
	case len(queue.Due) > 0:
		mem = queue.Due[0]
		head = fmt.Sprintf("🔁 **Review** · %s due", plural(len(queue.Due), "question", "questions"))
		if mem.Missed() {
			head += " · you missed this one last time"
		}
	case len(queue.Final) > 0:
		mem = queue.Final[0]
		head = fmt.Sprintf("🏁 **Final pass** before your exam %s · %s to go, weakest first · predicted recall of this one on the exam morning: %d%%",
			timestamp(plan.At, "R"), plural(len(queue.Final), "question", "questions"), recallPercent(mem.Retrievability(plan.At)))
	default:
		return message{ephemeral: true, content: joinLines(lead, nothingDueText(queue.Next, false))}, nil
	}
	q := b.question(c.guild, mem.QuestionID)
	if q == nil { // removed between the queue and now
		return message{ephemeral: true, content: joinLines(lead, "That question was just removed from the banks. Try `/quiz review` again.")}, nil
	}
	r, err := b.showStudy(c, q, now)
	if err != nil {
		return message{}, fmt.Errorf("review: %w", err)
	}
	return studyQuestionMessage(lead, head, r, q, kindReviewAnswer, kindReviewNext.id(componentID{action: "stop"})), nil
}

// showStudy stores q as a question shown to the member in a review or a
// drill (a Review: its key as it is now), counting the step against the
// member's review rate limit.
func (b *Bot) showStudy(c *call, q *questions.Question, now time.Time) (questions.Review, error) {
	if err := b.reviews.take(c, now); err != nil {
		return questions.Review{}, err
	}
	return b.store.StartReview(c.ctx, questions.Review{
		GuildID: c.guild, UserID: c.user, QuestionID: q.ID, Bank: q.Bank, Tags: q.Tags,
		Correct: q.Correct(), OptionCount: len(q.Options), SelectCount: q.SelectCount(), OpenedAt: now,
	})
}

// joinLines joins the non-empty lines.
func joinLines(lines ...string) string {
	var out []string
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// nothingDueText says that nothing is due, and when the next question is.
func nothingDueText(next time.Time, after bool) string {
	first := "🎉 Nothing is due for review right now."
	if after {
		first = "🎉 That was your last due question."
	}
	if next.IsZero() {
		return first + " Answer questions in the channel or the daily quiz: the ones you miss come back here."
	}
	return fmt.Sprintf("%s Your next review is due %s.", first, timestamp(next, "R"))
}

// studyQuestionMessage is a question shown in a review or a drill: head,
// then how to answer, and the question as posted, privately, with its own
// select (of kind answer, for the review r) and a Stop button (stopID).
func studyQuestionMessage(lead, head string, r questions.Review, q *questions.Question, answer idKind, stopID string) message {
	head += "\n" + pickText(r.SelectCount) + " from the menu below · private, for your memory and your streak, not for points"
	row := answerSelect(answer.id(componentID{review: r.ID}), r.SelectCount, q, false)
	return message{ephemeral: true, content: joinLines(lead, head), embeds: questionEmbeds(q, colorOpen),
		components: []discordgo.MessageComponent{row, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Stop", Style: discordgo.SecondaryButton, CustomID: stopID}}}}}
}

// studyGraded is a review or drill answer once recorded: the answer, the
// review it answers, the question as it is now (nil when it changed since
// it was shown, or is gone: then the key it was graded against is all
// there is to show), and when the question comes back for the member.
type studyGraded struct {
	a    questions.Answer
	r    questions.Review
	q    *questions.Question
	due  time.Time
	mems []questions.Memory // the member's memory, this answer in it
}

// studySession names a review or a drill in the refusals of its answers.
type studySession struct {
	noun  string // "review question"
	cmd   string // "`/quiz review`"
	again string // what the member does to go on: "`/quiz review` picks up where you left off."
}

var (
	reviewSession = studySession{noun: "review question", cmd: "`/quiz review`", again: "`/quiz review` picks up where you left off."}
	drillSession  = studySession{noun: "drill question", cmd: "`/quiz drill`", again: "`/quiz drill` starts a new drill."}
)

// gradeStudy records a member's pick on a question shown in a review or a
// drill (id.review), after the refusals a member can act on.
func (b *Bot) gradeStudy(c *call, id componentID, s studySession) (studyGraded, error) {
	reviewID, values := id.review, c.values
	r, err := b.store.Review(c.guild, reviewID)
	if errors.Is(err, questions.ErrNotFound) {
		return studyGraded{}, userErr("This %s is gone: it expired, or you were shown %d newer ones. %s", s.noun, questions.MaxOpenReviews, s.again)
	}
	if err != nil {
		return studyGraded{}, fmt.Errorf("study answer: %w", err)
	}
	if err := b.reviews.take(c, b.clock.Now()); err != nil {
		return studyGraded{}, err
	}
	a, err := b.store.RecordReview(c.ctx, questions.Answer{
		PostID: reviewID.Post(), GuildID: c.guild, UserID: c.user, InteractionID: mustID(c.i.ID),
		Choice: values, At: b.clock.Now(),
	})
	switch {
	case errors.Is(err, questions.ErrNotYours):
		return studyGraded{}, userErr("This %s belongs to another member.", s.noun)
	case errors.Is(err, questions.ErrClosed):
		return studyGraded{}, userErr("This %s has expired (each stays open an hour). %s", s.noun, s.again)
	case errors.Is(err, questions.ErrQuestionOpen):
		// Posted in the server since it was shown: its grading would give
		// away the answer of an open question. RecordReview decides this in
		// the transaction that would record the answer, so a post made at
		// any moment before it counts.
		return studyGraded{}, userErr("This question is open in the server right now: answer it there. Once it closes, this %s takes your answer (each stays open an hour).", s.noun)
	case errors.Is(err, questions.ErrAlreadyAnswered) && a.InteractionID != mustID(c.i.ID):
		return studyGraded{}, userErr("You already answered this %s (**%s**). Press Next, or %s.", s.noun, strings.Join(a.Choice, ", "), s.cmd)
	case err != nil && !errors.Is(err, questions.ErrAlreadyAnswered):
		return studyGraded{}, storeErr(err)
	}
	mems, err := b.store.Memories(c.guild, c.user)
	if err != nil {
		return studyGraded{}, fmt.Errorf("study answer: %w", err)
	}
	g := studyGraded{a: a, r: r, mems: mems}
	if i := slices.IndexFunc(mems, func(m questions.Memory) bool { return m.QuestionID == r.QuestionID }); i >= 0 {
		plan, err := b.examPlan(c.guild, c.user)
		if err != nil {
			return studyGraded{}, err
		}
		g.due = plan.Due(mems[i], b.clock.Now())
	}
	g.q = b.question(c.guild, r.QuestionID)
	if g.q != nil && (len(g.q.Options) != r.OptionCount || !slices.Equal(g.q.Correct(), r.Correct)) {
		g.q = nil // changed since: show the key the answer was graded against
	}
	return g, nil
}

// reviewAnswer grades a member's pick on a review question and turns the
// message into its grading.
func (b *Bot) reviewAnswer(c *call, id componentID) (response, error) {
	g, err := b.gradeStudy(c, id, reviewSession)
	if err != nil {
		return response{}, err
	}
	queue, _, err := b.reviewQueue(c, b.clock.Now())
	if err != nil {
		return response{}, err
	}
	return asUpdates(reviewGradeMessage(g, queue)), nil
}

// reviewGradeMessage is the grading of a review answer (studyGrade), then
// how many questions are still due, or left in the final pass, with Next
// and Stop; or, when none is, when the next one is due.
func reviewGradeMessage(g studyGraded, queue questions.ReviewQueue) []message {
	ms := studyGrade(g)
	switch {
	case len(queue.Due) > 0:
		ms[0].content += "\n" + fmt.Sprintf("%s still due.", plural(len(queue.Due), "question", "questions"))
	case len(queue.Final) > 0:
		ms[0].content += "\n" + fmt.Sprintf("%s left in your final pass before the exam.", plural(len(queue.Final), "question", "questions"))
	default:
		ms[0].content += "\n" + nothingDueText(queue.Next, true)
		return ms
	}
	ms[len(ms)-1].components = nextStopRow(kindReviewNext.id(componentID{action: "next"}), kindReviewNext.id(componentID{action: "stop"}))
	return ms
}

// nextStopRow is the Next question and Stop buttons.
func nextStopRow(next, stop string) []discordgo.MessageComponent {
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Next question", Style: discordgo.PrimaryButton, CustomID: next},
		discordgo.Button{Label: "Stop", Style: discordgo.SecondaryButton, CustomID: stop},
	}}}
}

// studyGrade is the grading of a review or drill answer: right or wrong,
// when the question comes back, the answer with its explanation and
// rationales. A reveal longer than one message continues in follow-ups;
// the caller adds what comes next to the first message's content and its
// buttons to the last, below all of it.
func studyGrade(g studyGraded) []message {
	a, r, q, due := g.a, g.r, g.q, g.due
	var sb strings.Builder
	if a.Right {
		sb.WriteString("✅ **Right!**")
	} else {
		sb.WriteString("❌ **Not quite.**")
	}
	fmt.Fprintf(&sb, " You chose **%s**.", strings.Join(a.Choice, ", "))
	if !due.IsZero() {
		fmt.Fprintf(&sb, " This question comes back %s.", timestamp(due, "R"))
	}
	sb.WriteString(" Reviews count for your streak, not for points.")
	if q == nil {
		fmt.Fprintf(&sb, "\nCorrect: **%s**", strings.Join(r.Correct, ", "))
		return []message{{ephemeral: true, content: sb.String()}}
	}
	parts := answerReveal(q, questions.Post{Correct: r.Correct, SelectCount: r.SelectCount})
	return revealMessages(message{ephemeral: true, content: sb.String()}, parts)
}

// reviewNext shows the next due question in place of the graded one, or
// stops the review (the Next and Stop buttons).
func (b *Bot) reviewNext(c *call, id componentID) (response, error) {
	if id.action == "next" {
		m, err := b.nextReview(c, "")
		if err != nil {
			return response{}, err
		}
		return asUpdate(m), nil
	}
	queue, _, err := b.reviewQueue(c, b.clock.Now())
	if err != nil {
		return response{}, err
	}
	return asUpdate(reviewStoppedMessage(queue)), nil
}

// reviewStoppedMessage ends a review session: how many questions are still
// due (or left in the final pass), or when the next one is.
func reviewStoppedMessage(queue questions.ReviewQueue) message {
	text := "⏸️ Review stopped."
	switch {
	case len(queue.Due) > 0:
		text += fmt.Sprintf(" %s still due: `/quiz review` picks up where you left off.", plural(len(queue.Due), "question is", "questions are"))
	case len(queue.Final) > 0:
		text += fmt.Sprintf(" %s left in your final pass before the exam: `/quiz review` picks up where you left off.", plural(len(queue.Final), "question is", "questions are"))
	case !queue.Next.IsZero():
		text += fmt.Sprintf(" Your next review is due %s.", timestamp(queue.Next, "R"))
	}
	return message{ephemeral: true, content: text}
}
