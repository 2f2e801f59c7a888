package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot/internal/discord"
	"github.com/quizhost/quizhost/questions"
)

// The suggestion queue: members' suggestions wait as queued drafts until an
// admin approves (merging them into their banks) or rejects them; the
// member is told by direct message. Nothing queued is ever drawn.

// suggestionsCmd shows the first suggestion waiting (/quizadmin suggestions).
func (b *Bot) suggestionsCmd(c *call, _ options) (response, error) {
	m, err := b.suggestionPage(c.guild, 0, "")
	if err != nil {
		return response{}, err
	}
	m.ephemeral = true
	return asReply(m), nil
}

// suggestionPage is the review of the first queued suggestion after the
// draft after (wrapping round to the oldest), below a note on what was
// just done.
func (b *Bot) suggestionPage(guild questions.GuildID, after questions.DraftID, note string) (message, error) {
	queue, err := b.store.Suggestions(guild)
	if err != nil {
		return message{}, fmt.Errorf("suggestions: %w", err)
	}
	if len(queue) == 0 {
		return noSuggestionsMessage(note), nil
	}
	at := 0
	for i, d := range queue {
		if d.ID > after {
			at = i
			break
		}
	}
	d := queue[at]
	parts, ps := parsePaste(d)
	var results []bankResult
	if len(ps.Errors()) == 0 {
		ch, refused, err := b.planBanks(guild, d.UserID, parts, false)
		if err != nil {
			return message{}, err
		}
		ps, results = append(ps, refused...), ch.results
	}
	return suggestionMessage(note, d, at, len(queue), parts, results, ps.Errors()), nil
}

// suggestionMessage shows one queued suggestion with Approve, Reject and
// Next; a suggestion that no longer fits (problems) can only be rejected.
func suggestionMessage(note string, d questions.Draft, at, total int, banks []questions.Bank, results []bankResult, problems questions.Problems) message {
	head := fmt.Sprintf("📬 **Suggestion %d of %d** from <@%d> · sent %s", at+1, total, d.UserID, timestamp(d.CreatedAt, "R"))
	if note != "" {
		head = note + "\n" + head
	}
	var embeds []*discordgo.MessageEmbed
	if len(problems) > 0 {
		head += "\n⚠️ It can't be added as it stands: reject it, and the member can suggest it again."
		embeds = []*discordgo.MessageEmbed{{Title: "Problems", Description: problemList(problems, false), Color: colorWrong}}
	} else {
		var n int
		embeds, n = previewOf(banks)
		head += fmt.Sprintf("\n%s%s\n%s", plural(n, "question", "questions"), shownNote(n), changeOutlook(results))
	}
	return message{content: head, embeds: embeds,
		components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Approve", Style: discordgo.SuccessButton, CustomID: kindSuggestion.id(componentID{action: "approve", draft: d.ID}), Disabled: len(problems) > 0},
			discordgo.Button{Label: "Reject", Style: discordgo.DangerButton, CustomID: kindSuggestion.id(componentID{action: "reject", draft: d.ID})},
			discordgo.Button{Label: "Next ▶", Style: discordgo.SecondaryButton, CustomID: kindSuggestion.id(componentID{action: "next", draft: d.ID}), Disabled: total < 2},
		}}}}
}

// noSuggestionsMessage is the review when the queue is empty, below a
// note on what was just done.
func noSuggestionsMessage(note string) message {
	return message{content: strings.TrimSpace(note + "\n📭 No suggestions are waiting.")}
}

// rejectedTexts are, after a rejection of d (a suggestion for the banks
// names, on the server guildName), the note above the next review and the
// direct message to the member.
func rejectedTexts(d questions.Draft, names, guildName string) (note, dm string) {
	return fmt.Sprintf("🗑️ Rejected <@%d>'s suggestion for %s.", d.UserID, names),
		fmt.Sprintf("Your suggestion for %s on **%s** was not added this time. Thank you for contributing!", names, guildName)
}

// approvedTexts are, after d's approval did results, the note above the
// next review and the direct message to the member.
func approvedTexts(d questions.Draft, names, guildName string, results []bankResult) (note, dm string) {
	return fmt.Sprintf("✅ Approved <@%d>'s suggestion.\n%s", d.UserID, changeSummary("Added to", results)),
		fmt.Sprintf("✅ Your suggestion for %s on **%s** was approved: %s. Thank you!", names, guildName, addedText(results))
}

// suggestionButton answers Approve, Reject and Next on a suggestion's
// review.
func (b *Bot) suggestionButton(c *call, id componentID) (response, error) {
	if id.action == "next" {
		m, err := b.suggestionPage(c.guild, id.draft, "")
		if err != nil {
			return response{}, err
		}
		return asUpdate(m), nil
	}
	d, err := b.store.Draft(c.guild, id.draft)
	if errors.Is(err, questions.ErrNotFound) || err == nil && !d.Queued {
		m, err := b.suggestionPage(c.guild, id.draft, "That suggestion was handled already.")
		if err != nil {
			return response{}, err
		}
		return asUpdate(m), nil
	}
	if err != nil {
		return response{}, fmt.Errorf("suggestion: %w", err)
	}
	parts, ps := parsePaste(d)
	names := bankNames(parts, d.Bank)
	var note, dm string
	if id.action == "reject" {
		err := b.store.DeleteDraft(c.ctx, c.guild, d.ID)
		if errors.Is(err, questions.ErrNotFound) {
			// Another admin approved or rejected it since it was read: it
			// was not this rejection, and the member is not told so.
			m, err := b.suggestionPage(c.guild, d.ID, "That suggestion was handled already.")
			if err != nil {
				return response{}, err
			}
			return asUpdate(m), nil
		}
		if err != nil {
			return response{}, fmt.Errorf("reject suggestion: %w", err)
		}
		b.log.Info("suggestion rejected", "guild", c.guild, "user", c.user, "draft", d.ID)
		note, dm = rejectedTexts(d, names, b.guildName(c.guild))
	} else {
		ch, err := b.approve(c, d, parts, ps)
		if err != nil {
			return response{}, err
		}
		note, dm = approvedTexts(d, names, b.guildName(c.guild), ch.results)
	}
	m, err := b.suggestionPage(c.guild, d.ID, note)
	if err != nil {
		return response{}, err
	}
	r := asUpdate(m)
	r.after = func() { b.tellMember(c.ctx, c.guild, d.UserID, dm) }
	return r, nil
}

// approve merges a queued suggestion into its banks, consuming it.
func (b *Bot) approve(c *call, d questions.Draft, parts []questions.Bank, ps questions.Problems) (bankChange, error) {
	if errs := ps.Errors(); len(errs) > 0 {
		return bankChange{}, userErr("This suggestion can't be added as it stands (%s). Reject it.", truncate(errs[0].Error(), 300))
	}
	ch, refused, err := b.applyChange(c.ctx, c.guild, c.user, parts, false, d.ID)
	if errors.Is(err, questions.ErrNotFound) {
		return bankChange{}, userErr("That suggestion was handled already.")
	}
	if err != nil {
		return bankChange{}, fmt.Errorf("approve suggestion: %w", err)
	}
	if len(refused) > 0 {
		return bankChange{}, userErr("This suggestion can't be added as it stands (%s). Reject it.", truncate(refused[0].Error(), 300))
	}
	b.log.Info("suggestion approved", "guild", c.guild, "user", c.user, "draft", d.ID)
	return ch, nil
}

// bankNames names the banks of parsed text for a member: "**A**, **B**".
func bankNames(parts []questions.Bank, fallback string) string {
	var names []string
	for _, p := range parts {
		if !containsName(names, p.Name) {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 && fallback != "" {
		names = []string{fallback}
	}
	if len(names) == 0 {
		return "a bank"
	}
	return "**" + strings.Join(names, "**, **") + "**"
}

// addedText says what a change added, for the member who suggested it.
func addedText(results []bankResult) string {
	var added, updated int
	for _, r := range results {
		added += r.count.Added
		updated += r.count.Updated
	}
	s := plural(added, "question", "questions") + " added"
	if updated > 0 {
		s += fmt.Sprintf(", %d updated", updated)
	}
	return s
}

// guildName is the server's name as the gateway told it, or "the
// server".
func (b *Bot) guildName(guild questions.GuildID) string {
	if name := b.conn.GuildName(formatID(guild)); name != "" {
		return name
	}
	return "the server"
}

// tellMember sends a member a direct message. A member whose direct
// messages are closed is not told; nothing else fails either way: the
// outcome is only logged.
func (b *Bot) tellMember(ctx context.Context, guild questions.GuildID, user questions.UserID, text string) {
	err := b.out.DM(ctx, formatID(user), &discordgo.MessageSend{Content: truncate(text, 2000), AllowedMentions: noPings()})
	switch {
	case err == nil:
		b.log.Info("member told by direct message", "guild", guild, "user", user)
	case errors.Is(err, discord.ErrDMClosed):
		b.log.Info("member's direct messages are closed", "guild", guild, "user", user)
	default:
		b.log.Warn("direct message failed", "guild", guild, "user", user, "err", redact(err))
	}
}
