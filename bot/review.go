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
// first, one at a time. Each question shown is a stored Review (a snapshot
// of its key, answerable for questions.ReviewExpiry); the answer updates
// the private message into its grading, with Next and Stop.

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

// nextReview shows the member's next due question, or says that none is
// due and when the next one is. lead, when set, is a line put first.
func (b *Bot) nextReview(c *call, lead string) (message, error) {
	now := b.clock.Now()
	queue, err := b.store.ReviewQueue(c.guild, c.user, now, b.inBank(c.guild))
	if err != nil {
		return message{}, fmt.Errorf("review: %w", err)
	}
	if len(queue.Due) == 0 {
		return message{ephemeral: true, content: joinLines(lead, nothingDueText(queue.Next, false))}, nil
	}
	mem := queue.Due[0]
	q := b.question(c.guild, mem.QuestionID)
	if q == nil { // removed between the queue and now
		return message{ephemeral: true, content: joinLines(lead, "That question was just removed from the banks. Try `/quiz review` again.")}, nil
	}
	if err := b.reviews.take(c, now); err != nil {
		return message{}, err
	}
	r, err := b.store.StartReview(c.ctx, questions.Review{
		GuildID: c.guild, UserID: c.user, QuestionID: q.ID, Bank: q.Bank, Tags: q.Tags,
		Correct: q.Correct(), OptionCount: len(q.Options), SelectCount: q.SelectCount(), OpenedAt: now,
	})
	if err != nil {
		return message{}, fmt.Errorf("review: %w", err)
	}
	return reviewQuestionMessage(lead, r, q, mem.Missed(), len(queue.Due)), nil
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

// reviewQuestionMessage is a question shown in a review: the question as
// posted, privately, with its own select and a Stop button.
func reviewQuestionMessage(lead string, r questions.Review, q *questions.Question, missed bool, due int) message {
	head := fmt.Sprintf("🔁 **Review** · %s due", plural(due, "question", "questions"))
	if missed {
		head += " · you missed this one last time"
	}
	head += "\n" + pickText(r.SelectCount) + " from the menu below · private, for your memory and your streak, not for points"
	row := answerSelect(kindReviewAnswer.id(componentID{review: r.ID}), r.SelectCount, q, false)
	return message{ephemeral: true, content: joinLines(lead, head), embeds: questionEmbeds(q, colorOpen),
		components: []discordgo.MessageComponent{row, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Stop", Style: discordgo.SecondaryButton, CustomID: kindReviewNext.id(componentID{action: "stop"})}}}}}
}

// reviewAnswer grades a member's pick on a review question and turns the
// message into its grading.
func (b *Bot) reviewAnswer(c *call, id componentID) (response, error) {
	reviewID, values := id.review, c.values
	r, err := b.store.Review(c.guild, reviewID)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("This review question is gone: it expired, or you were shown %d newer ones. `/quiz review` picks up where you left off.", questions.MaxOpenReviews)
	}
	if err != nil {
		return response{}, fmt.Errorf("review answer: %w", err)
	}
	if err := b.reviews.take(c, b.clock.Now()); err != nil {
		return response{}, err
	}
	a, err := b.store.RecordReview(c.ctx, questions.Answer{
		PostID: reviewID.Post(), GuildID: c.guild, UserID: c.user, InteractionID: mustID(c.i.ID),
		Choice: values, At: b.clock.Now(),
	})
	switch {
	case errors.Is(err, questions.ErrNotYours):
		return response{}, userErr("This review question belongs to another member.")
	case errors.Is(err, questions.ErrClosed):
		return response{}, userErr("This review question has expired (each stays open an hour). `/quiz review` picks up where you left off.")
	case errors.Is(err, questions.ErrQuestionOpen):
		// Posted in the server since it was shown: its grading would give
		// away the answer of an open question. RecordReview decides this in
		// the transaction that would record the answer, so a post made at
		// any moment before it counts.
		return response{}, userErr("This question is open in the server right now: answer it there. Once it closes, this review question takes your answer (each stays open an hour).")
	case errors.Is(err, questions.ErrAlreadyAnswered) && a.InteractionID != mustID(c.i.ID):
		return response{}, userErr("You already answered this review question (**%s**). Press Next, or `/quiz review`.", strings.Join(a.Choice, ", "))
	case err != nil && !errors.Is(err, questions.ErrAlreadyAnswered):
		return response{}, storeErr(err)
	}
	now := b.clock.Now()
	var due time.Time
	mems, err := b.store.Memories(c.guild, c.user)
	if err != nil {
		return response{}, fmt.Errorf("review answer: %w", err)
	}
	if i := slices.IndexFunc(mems, func(m questions.Memory) bool { return m.QuestionID == r.QuestionID }); i >= 0 {
		due = mems[i].Due
	}
	queue, err := b.store.ReviewQueue(c.guild, c.user, now, b.inBank(c.guild))
	if err != nil {
		return response{}, fmt.Errorf("review answer: %w", err)
	}
	q := b.question(c.guild, r.QuestionID)
	if q != nil && (len(q.Options) != r.OptionCount || !slices.Equal(q.Correct(), r.Correct)) {
		q = nil // changed since: show the key the answer was graded against
	}
	return asUpdates(reviewGradeMessage(a, r, q, due, queue)), nil
}

// reviewGradeMessage is the grading of a review answer: right or wrong,
// when the question comes back, the answer with its explanation and
// rationales, then Next and Stop while questions are due. A reveal longer
// than one message continues in follow-ups; Next and Stop are on the last
// message, below all of it.
func reviewGradeMessage(a questions.Answer, r questions.Review, q *questions.Question, due time.Time, queue questions.ReviewQueue) []message {
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
	ms := []message{{ephemeral: true}}
	if q != nil {
		parts := answerReveal(q, questions.Post{Correct: r.Correct, SelectCount: r.SelectCount})
		ms[0].embeds = parts[0]
		for i, part := range parts[1:] {
			ms = append(ms, continued(part, i+2, len(parts)))
		}
	} else {
		fmt.Fprintf(&sb, "\nCorrect: **%s**", strings.Join(r.Correct, ", "))
	}
	if len(queue.Due) == 0 {
		ms[0].content = sb.String() + "\n" + nothingDueText(queue.Next, true)
		return ms
	}
	ms[0].content = sb.String() + "\n" + fmt.Sprintf("%s still due.", plural(len(queue.Due), "question", "questions"))
	ms[len(ms)-1].components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Next question", Style: discordgo.PrimaryButton, CustomID: kindReviewNext.id(componentID{action: "next"})},
		discordgo.Button{Label: "Stop", Style: discordgo.SecondaryButton, CustomID: kindReviewNext.id(componentID{action: "stop"})},
	}}}
	return ms
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
	queue, err := b.store.ReviewQueue(c.guild, c.user, b.clock.Now(), b.inBank(c.guild))
	if err != nil {
		return response{}, fmt.Errorf("review stop: %w", err)
	}
	return asUpdate(reviewStoppedMessage(queue)), nil
}

// reviewStoppedMessage ends a review session: how many questions are still
// due, or when the next one is.
func reviewStoppedMessage(queue questions.ReviewQueue) message {
	text := "⏸️ Review stopped."
	switch {
	case len(queue.Due) > 0:
		text += fmt.Sprintf(" %s still due: `/quiz review` picks up where you left off.", plural(len(queue.Due), "question is", "questions are"))
	case !queue.Next.IsZero():
		text += fmt.Sprintf(" Your next review is due %s.", timestamp(queue.Next, "R"))
	}
	return message{ephemeral: true, content: text}
}
