package bot

import (
	"fmt"

	"github.com/quizhost/quizhost/questions"
)

// resetCmd asks to confirm a reset (/quizadmin reset scope:<all|member> [member]).
func (b *Bot) resetCmd(c *call, opts options) (response, error) {
	scope, _ := opts.str("scope")
	var member questions.UserID
	switch scope {
	case "all":
	case "member":
		id, ok := opts.user("member")
		if !ok {
			return response{}, userErr("With scope member, pick the member to reset.")
		}
		member = id
	default:
		return response{}, userErr("scope must be all or member.")
	}
	return b.confirmPrompt(c, questions.Confirmation{Action: questions.ConfirmReset, Member: member}, resetPrompt(member), "Reset")
}

// resetConfirmed carries out a confirmed reset (see confirmButton).
func (b *Bot) resetConfirmed(c *call, conf questions.Confirmation) (message, error) {
	if conf.Member == 0 {
		if err := b.store.ResetGuild(c.ctx, c.guild); err != nil {
			return message{}, fmt.Errorf("reset guild: %w", err)
		}
		b.log.Info("guild reset", "guild", c.guild, "user", c.user)
	} else {
		if err := b.store.ResetMember(c.ctx, c.guild, conf.Member); err != nil {
			return message{}, fmt.Errorf("reset member: %w", err)
		}
		b.log.Info("member reset", "guild", c.guild, "user", c.user, "member", conf.Member)
	}
	return resetDoneMessage(conf.Member), nil
}

// Rendering: pure functions of the reset's member.

// resetPrompt asks to confirm a reset of member (0: everyone).
func resetPrompt(member questions.UserID) string {
	what := "every member's scores, streaks and leaderboard places on this server, and which questions were asked"
	if member != 0 {
		what = fmt.Sprintf("<@%d>'s scores, streaks and leaderboard places on this server", member)
	}
	return "⚠️ This resets " + what + ". It can't be undone. Reset?"
}

// resetDoneMessage replaces the prompt once a reset of member (0:
// everyone) is done.
func resetDoneMessage(member questions.UserID) message {
	if member == 0 {
		return message{content: "✅ Reset done: every score, streak and leaderboard starts again from zero. Good luck this term!"}
	}
	return message{content: fmt.Sprintf("✅ Reset done for <@%d>.", member)}
}
