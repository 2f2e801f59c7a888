package bot

import (
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Confirmations. An admin's command that can't be taken back by the click
// that made it (/quizadmin reset; bank remove, import mode:replace and
// question remove) answers with a private prompt saying exactly what will
// happen, with a danger button and Cancel. What it will do, and a stamp of
// the state it was asked against, is stored (questions.Confirmation); the
// buttons carry only its ID (cf1:<confirm|cancel>:<id>). A click is checked
// again: Manage Server (now, not when asked), the admin who asked (the
// prompt is private, so nobody else sees it: any other click is forged or
// from another admin's session, and refused), and one use (the first click
// takes the confirmation; a second click, or one after
// questions.ConfirmExpiry, is told the prompt is spent). Each action then
// checks that what it was asked against still holds, and otherwise says so
// and does nothing.

// confirmPrompt stores conf as the caller's and answers with its prompt:
// text, a danger button labelled label, and Cancel.
func (b *Bot) confirmPrompt(c *call, conf questions.Confirmation, text, label string, embeds ...*discordgo.MessageEmbed) (response, error) {
	conf.GuildID, conf.UserID, conf.CreatedAt = c.guild, c.user, b.clock.Now()
	saved, err := b.store.SaveConfirmation(c.ctx, conf)
	if errors.Is(err, questions.ErrTooLarge) {
		return response{}, userErr("This is too large to keep until you confirm it (more than %d MiB of questions). Nothing changed: import fewer files at once.",
			questions.MaxConfirmBytes>>20)
	}
	if err != nil {
		return response{}, fmt.Errorf("confirmation: %w", err)
	}
	m := confirmMessage(text, label, saved.ID)
	m.embeds = embeds
	return asReply(m), nil
}

// confirmButton answers a click on a prompt's Confirm or Cancel (the
// table lets only managers click).
func (b *Bot) confirmButton(c *call, id componentID) (response, error) {
	conf, err := b.store.Confirmation(c.guild, id.confirmation)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, errConfirmGone
	}
	if err != nil {
		return response{}, fmt.Errorf("confirmation: %w", err)
	}
	if conf.UserID != c.user {
		return response{}, userErr("Only the admin who asked for this can confirm or cancel it. Nothing changed.")
	}
	// One use: of two clicks at once, one takes it.
	if _, err := b.store.TakeConfirmation(c.ctx, c.guild, conf.ID); errors.Is(err, questions.ErrNotFound) {
		return response{}, errConfirmGone
	} else if err != nil {
		return response{}, fmt.Errorf("take confirmation: %w", err)
	}
	if id.action == "cancel" {
		return asUpdate(message{content: "Cancelled. Nothing changed."}), nil
	}
	// A server's whole history, or ten bank files, can take longer than
	// Discord's 3 s.
	return later(func() (response, error) { return b.confirmed(c, conf) }), nil
}

// confirmed carries out a confirmed prompt's action, in place of the
// prompt.
func (b *Bot) confirmed(c *call, conf questions.Confirmation) (response, error) {
	var m message
	var err error
	switch conf.Action {
	case questions.ConfirmReset:
		m, err = b.resetConfirmed(c, conf)
	case questions.ConfirmBankRemove:
		m, err = b.bankRemoveConfirmed(c, conf)
	case questions.ConfirmQuestionRemove:
		m, err = b.questionRemoveConfirmed(c, conf)
	case questions.ConfirmImportReplace:
		m, err = b.importReplaceConfirmed(c, conf)
	default:
		return response{}, userErr("This prompt is from another version of quizhost. Nothing changed; run the command again.")
	}
	if err != nil {
		return response{}, err
	}
	return asReply(m), nil
}

// errConfirmGone answers a click on a prompt already answered or expired.
var errConfirmGone = userErr("This prompt was already answered, or it expired (prompts last %d minutes). Nothing changed by this click; run the command again if you still want it.",
	int(questions.ConfirmExpiry.Minutes()))

// confirmMessage is a private prompt: text, then Confirm (label, danger)
// and Cancel (secondary) for the confirmation id.
func confirmMessage(text, label string, id questions.ConfirmationID) message {
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: label, Style: discordgo.DangerButton, CustomID: kindConfirm.id(componentID{action: "confirm", confirmation: id})},
		discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: kindConfirm.id(componentID{action: "cancel", confirmation: id})},
	}}
	return message{ephemeral: true, content: text, components: []discordgo.MessageComponent{row}}
}
