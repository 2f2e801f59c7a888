package bot

import (
	"fmt"

	"github.com/bwmarrin/discordgo"

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
	return asReply(resetPromptMessage(scope, member, c.user)), nil
}

// resetConfirm carries out (or cancels) a confirmed reset.
func (b *Bot) resetConfirm(c *call, id componentID) (response, error) {
	if id.by != c.user || !isManager(c.member) {
		return response{}, userErr("Only the admin who asked for this reset can confirm it.")
	}
	if id.scope == "cancel" {
		return asUpdate(resetCancelledMessage()), nil
	}
	// A server's whole history can take longer than Discord's 3 s.
	if err := c.deferUpdate(); err != nil {
		return response{}, err
	}
	switch id.scope {
	case "all":
		if err := b.store.ResetGuild(c.ctx, c.guild); err != nil {
			return response{}, fmt.Errorf("reset guild: %w", err)
		}
		b.log.Info("guild reset", "guild", c.guild, "user", c.user)
	case "member":
		if err := b.store.ResetMember(c.ctx, c.guild, id.member); err != nil {
			return response{}, fmt.Errorf("reset member: %w", err)
		}
		b.log.Info("member reset", "guild", c.guild, "user", c.user, "member", id.member)
	}
	return asReply(resetDoneMessage(id.scope, id.member)), nil
}

// Rendering: pure functions of the reset's scope.

// resetPromptMessage asks admin by to confirm a reset of scope ("all", or
// "member" for member), with Reset and Cancel.
func resetPromptMessage(scope string, member, by questions.UserID) message {
	what := "every member's scores, streaks and leaderboard places on this server, and which questions were asked"
	if scope == "member" {
		what = fmt.Sprintf("<@%d>'s scores, streaks and leaderboard places on this server", member)
	}
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Reset", Style: discordgo.DangerButton, CustomID: resetCustomID(scope, member, by)},
		discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: resetCustomID("cancel", 0, by)},
	}}
	return message{ephemeral: true, content: "⚠️ This resets " + what + ". It can't be undone. Reset?",
		components: []discordgo.MessageComponent{row}}
}

// resetCancelledMessage replaces the prompt when the admin cancels.
func resetCancelledMessage() message {
	return message{content: "Reset cancelled. Nothing changed."}
}

// resetDoneMessage replaces the prompt once a reset of scope ("all", or
// "member" for member) is done.
func resetDoneMessage(scope string, member questions.UserID) message {
	switch scope {
	case "all":
		return message{content: "✅ Reset done: every score, streak and leaderboard starts again from zero. Good luck this term!"}
	case "member":
		return message{content: fmt.Sprintf("✅ Reset done for <@%d>.", member)}
	}
	return message{}
}
