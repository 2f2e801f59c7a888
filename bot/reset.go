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
	var what string
	switch scope {
	case "all":
		what = "every member's scores, streaks and leaderboard places on this server, and which questions were asked"
	case "member":
		id, ok := opts.user("member")
		if !ok {
			return response{}, userErr("With scope member, pick the member to reset.")
		}
		member = id
		what = fmt.Sprintf("<@%d>'s scores, streaks and leaderboard places on this server", id)
	default:
		return response{}, userErr("scope must be all or member.")
	}
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Reset", Style: discordgo.DangerButton, CustomID: resetCustomID(scope, member, c.user)},
		discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: resetCustomID("cancel", 0, c.user)},
	}}
	return asReply(message{ephemeral: true, content: "⚠️ This resets " + what + ". It can't be undone. Reset?",
		components: []discordgo.MessageComponent{row}}), nil
}

// resetConfirm carries out (or cancels) a confirmed reset.
func (b *Bot) resetConfirm(c *call, id componentID) (response, error) {
	if id.by != c.user || !isManager(c.member) {
		return response{}, userErr("Only the admin who asked for this reset can confirm it.")
	}
	if id.scope == "cancel" {
		return asUpdate(message{content: "Reset cancelled. Nothing changed."}), nil
	}
	// A server's whole history can take longer than Discord's 3 s.
	if err := c.deferUpdate(); err != nil {
		return response{}, err
	}
	var text string
	switch id.scope {
	case "all":
		if err := b.store.ResetGuild(c.ctx, c.guild); err != nil {
			return response{}, fmt.Errorf("reset guild: %w", err)
		}
		b.log.Info("guild reset", "guild", c.guild, "user", c.user)
		text = "✅ Reset done: every score, streak and leaderboard starts again from zero. Good luck this term!"
	case "member":
		if err := b.store.ResetMember(c.ctx, c.guild, id.member); err != nil {
			return response{}, fmt.Errorf("reset member: %w", err)
		}
		b.log.Info("member reset", "guild", c.guild, "user", c.user, "member", id.member)
		text = fmt.Sprintf("✅ Reset done for <@%d>.", id.member)
	}
	return asReply(message{content: text}), nil
}
