package bot

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Answering a posted question: a member's pick on its select menu, graded
// privately and at once (with the reveal, when the server shows it on
// answer), then counted in the post's live count (refresher.go).

// answerBanksWait is how long after its interaction arrived an answer
// waits at most for its server's banks to load (the first answer after a
// start, with the reveal on answer on), before it replies without the
// reveal; the answer path never loads banks itself.
const answerBanksWait = time.Second

// guildPost reads a post of the interaction's server: an error wrapping
// questions.ErrNotFound if there is none, or questions.ErrWrongGuild if it
// belongs to another server (storeErr words both for the member).
func (b *Bot) guildPost(c *call, postID questions.PostID) (questions.Post, error) {
	post, err := b.store.Post(postID)
	if err != nil {
		return questions.Post{}, err
	}
	if post.GuildID != c.guild {
		return questions.Post{}, fmt.Errorf("post %d: %w", postID, questions.ErrWrongGuild)
	}
	return post, nil
}

// answer grades a member's pick on a post's select menu.
func (b *Bot) answer(c *call, postID questions.PostID, values []string) (response, error) {
	post, err := b.guildPost(c, postID)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("This quiz has ended or this control is no longer in use.")
	}
	if err != nil {
		return response{}, storeErr(fmt.Errorf("answer: %w", err))
	}
	if c.i.Message != nil && post.MessageID != 0 && c.i.Message.ID != formatID(post.MessageID) {
		return response{}, userErr("That answer came from a message that isn't this question.")
	}
	if post.Closed {
		return response{}, userErr("This question is closed: answers are no longer taken.")
	}
	if _, err := questions.NormalizeChoice(values, post.OptionCount, post.SelectCount); err != nil {
		return response{}, userErr("That answer doesn't match the options offered. Pick %s from the menu.", plural(post.SelectCount, "option", "options"))
	}

	// Everything the reply needs is read (and rendered) before the commit,
	// so that once the answer is stored only the reply itself is left to do.
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("answer: %w", err)
	}
	var reveal [][]*discordgo.MessageEmbed
	if set.RevealOnAnswer {
		if q := b.answerQuestion(post, c.start.Add(answerBanksWait)); q != nil {
			reveal = b.reveals.get(post, q)
		}
	}

	a, err := b.commitAnswer(c, questions.Answer{
		PostID: postID, GuildID: c.guild, UserID: c.user, InteractionID: mustID(c.i.ID),
		Choice: values, At: b.clock.Now(),
	})
	if errors.Is(err, questions.ErrAlreadyAnswered) && a.InteractionID != mustID(c.i.ID) {
		return response{}, userErr("You already answered **%s**. One answer per member per question.", strings.Join(a.Choice, ", "))
	}
	if err != nil && !errors.Is(err, questions.ErrAlreadyAnswered) {
		return response{}, err
	}
	b.queueRefresh(postID)
	if err == nil {
		b.cfg.Metrics.AnswerRecorded(time.Since(c.start))
	}
	return asReplies(gradeMessage(a, post, reveal)), nil
}

// commitAnswer records a, and returns what RecordAnswer returns (a store
// failure as storeErr). The commit runs on the handler's own goroutine; a
// commit still running near Discord's 3 s deadline (counted from the
// interaction's arrival) gets a deferral, sent from a timer's goroutine
// while the commit goes on, which is not an acknowledgement: the graded
// edit that follows the commit is. A deferral that fails is returned once
// the commit is done (the answer is stored either way).
func (b *Bot) commitAnswer(c *call, a questions.Answer) (questions.Answer, error) {
	deferred := make(chan error, 1)
	late := time.AfterFunc(b.cfg.AnswerAckWait-time.Since(c.start), func() { deferred <- c.deferReply(true) })
	a, err := b.store.RecordAnswer(c.ctx, a)
	if !late.Stop() {
		// The deferral started: wait for it, so that c is the handler's
		// alone again.
		if derr := <-deferred; derr != nil {
			return questions.Answer{}, derr
		}
	}
	if err != nil && !errors.Is(err, questions.ErrAlreadyAnswered) {
		return a, storeErr(err)
	}
	return a, err
}

func mustID(s string) uint64 {
	id, _ := parseID[uint64](s)
	return id
}
