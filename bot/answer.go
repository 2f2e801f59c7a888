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

// answer grades a member's pick on a post's select menu. Its route
// acknowledges it only if it is late (ackDeferIfLate): a deferral
// costs a request, and most answers are graded well within Discord's 3 s.
func (b *Bot) answer(c *call, id componentID) (response, error) {
	postID, values := id.post, c.values
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
		if q := b.answerQuestion(post, c.start.Add(b.cfg.AnswerBanksWait)); q != nil {
			reveal = b.reveals.get(post, q)
		}
	}

	a, err := b.store.RecordAnswer(c.ctx, questions.Answer{
		PostID: postID, GuildID: c.guild, UserID: c.user, InteractionID: mustID(c.i.ID),
		Choice: values, At: b.clock.Now(),
	})
	if errors.Is(err, questions.ErrAlreadyAnswered) && a.InteractionID != mustID(c.i.ID) {
		return response{}, userErr("You already answered **%s**. One answer per member per question.", strings.Join(a.Choice, ", "))
	}
	if err != nil && !errors.Is(err, questions.ErrAlreadyAnswered) {
		return response{}, storeErr(err)
	}
	b.queueRefresh(postID)
	if err == nil {
		b.cfg.Metrics.AnswerRecorded(time.Since(c.start))
	}
	return asReplies(gradeMessage(a, post, reveal)), nil
}

func mustID(s string) uint64 {
	id, _ := parseID[uint64](s)
	return id
}
