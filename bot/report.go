package bot

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Reports and regrades: the Report button of a revealed question opens a
// form asking what is wrong; /quizadmin reports lists the open reports with
// Close buttons; /quizadmin regrade grades a question's stored answers
// again against the bank's current key.

// reportInputID is the custom ID of the report form's text input.
const reportInputID = "what"

// maxReportsShown is how many open reports /quizadmin reports shows at
// once (one embed and one Close button each).
const maxReportsShown = 10

// reportOpen opens the report form for a post (the Report button).
func (b *Bot) reportOpen(c *call, id componentID) (response, error) {
	post, err := b.guildPost(c, id.post)
	if err != nil {
		return response{}, storeErr(fmt.Errorf("report: %w", err))
	}
	title := "Report a problem"
	if q := b.question(c.guild, post.QuestionID); q != nil {
		title = truncate("Report · "+questionTitle(q), 45)
	}
	return asModal(reportModal(id.post, title)), nil
}

// reportModal is the form asking what is wrong with a question.
func reportModal(postID questions.PostID, title string) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{
		CustomID: kindReportModal.id(componentID{post: postID}),
		Title:    title,
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: reportInputID, Label: "What is wrong with this question?",
				Style: discordgo.TextInputParagraph, Placeholder: "e.g. the answer should be C: the explanation says so",
				Required: true, MinLength: 3, MaxLength: questions.MaxReportText},
		}}},
	}
}

// reportSubmit stores a member's report from the form.
func (b *Bot) reportSubmit(c *call, id componentID) (response, error) {
	postID, text := id.post, strings.TrimSpace(c.text(reportInputID))
	if text == "" {
		return response{}, userErr("Say what is wrong with the question, then send the form.")
	}
	post, err := b.guildPost(c, postID)
	if err != nil {
		return response{}, storeErr(fmt.Errorf("report: %w", err))
	}
	r, err := b.store.AddReport(c.ctx, questions.Report{GuildID: c.guild, QuestionID: post.QuestionID, PostID: postID,
		UserID: c.user, Text: text, At: b.clock.Now()})
	if err != nil {
		return response{}, fmt.Errorf("report: %w", err)
	}
	b.log.Info("question reported", "guild", c.guild, "question", post.QuestionID, "report", r.ID)
	return asReply(reportThanksMessage()), nil
}

// reportThanksMessage thanks a member for a report, privately.
func reportThanksMessage() message {
	return message{ephemeral: true, content: "📨 Thanks: the admins will see your report in `/quizadmin reports`. If the key was wrong, they can fix the bank and re-grade everyone's answers."}
}

// reportsCmd lists the open reports (/quizadmin reports).
func (b *Bot) reportsCmd(c *call, _ options) (response, error) {
	m, err := b.reportsPage(c.guild, "")
	if err != nil {
		return response{}, err
	}
	return asReply(m), nil
}

// reportsPage renders the guild's open reports, note first.
func (b *Bot) reportsPage(guild questions.GuildID, note string) (message, error) {
	rs, err := b.store.Reports(guild)
	if err != nil {
		return message{}, fmt.Errorf("reports: %w", err)
	}
	titles := make(map[string]string, len(rs))
	for _, r := range rs {
		if q := b.question(guild, r.QuestionID); q != nil {
			titles[r.QuestionID] = questionTitle(q)
		}
	}
	return reportsMessage(note, rs, titles), nil
}

// reportsMessage shows up to maxReportsShown open reports, oldest first,
// each with the question (its title and ID), the reporter, when, and the
// text, and a Close button per report.
func reportsMessage(note string, rs []questions.Report, titles map[string]string) message {
	if len(rs) == 0 {
		return message{ephemeral: true, content: joinLines(note, "There are no open reports.")}
	}
	head := fmt.Sprintf("⚠️ **%s**", plural(len(rs), "open report", "open reports"))
	if len(rs) > maxReportsShown {
		head += fmt.Sprintf(" · the oldest %d shown; close them to see the rest", maxReportsShown)
	}
	head += "\nFix the bank (`/quizadmin import` or `/quizadmin add`), then `/quizadmin regrade id:<question>` grades the stored answers again."
	var embeds []*discordgo.MessageEmbed
	var buttons []discordgo.MessageComponent
	for _, r := range rs[:min(len(rs), maxReportsShown)] {
		title := titles[r.QuestionID]
		if title == "" {
			title = "(no longer in the banks)"
		}
		embeds = append(embeds, &discordgo.MessageEmbed{
			Title:       truncate(fmt.Sprintf("#%d · %s", r.ID, title), maxTitle),
			Description: truncate(fmt.Sprintf("Question `%s` · reported by <@%d> %s\n>>> %s", r.QuestionID, r.UserID, timestamp(r.At, "R"), r.Text), maxDesc),
			Color:       colorWrong,
		})
		buttons = append(buttons, discordgo.Button{Label: truncate(fmt.Sprintf("Close #%d", r.ID), maxLabel),
			Style: discordgo.SecondaryButton, CustomID: kindReportClose.id(componentID{report: r.ID})})
	}
	var rows []discordgo.MessageComponent
	for len(buttons) > 0 {
		n := min(5, len(buttons))
		rows = append(rows, discordgo.ActionsRow{Components: buttons[:n]})
		buttons = buttons[n:]
	}
	return message{ephemeral: true, content: joinLines(note, head), embeds: fitEmbeds(embeds), components: rows}
}

// reportClose closes a report (its Close button) and shows the list again.
func (b *Bot) reportClose(c *call, id componentID) (response, error) {
	note := fmt.Sprintf("✅ Closed report #%d.", id.report)
	if err := b.store.CloseReport(c.ctx, c.guild, id.report); errors.Is(err, questions.ErrNotFound) {
		note = fmt.Sprintf("Report #%d was closed already.", id.report)
	} else if err != nil {
		return response{}, fmt.Errorf("close report: %w", err)
	}
	b.log.Info("report closed", "guild", c.guild, "report", id.report, "by", c.user)
	m, err := b.reportsPage(c.guild, note)
	if err != nil {
		return response{}, err
	}
	return asUpdate(m), nil
}

// regrade grades every stored answer to a question again against the
// bank's current key (/quizadmin regrade id:<question>).
func (b *Bot) regrade(c *call, opts options) (response, error) {
	id, _ := opts.str("id")
	id = strings.TrimSpace(id)
	q := b.question(c.guild, id)
	if q == nil {
		return response{}, userErr("There is no question with id %q here. Type part of its text and pick it from the list.", truncate(id, 100))
	}
	// Every stored answer to it is graded again: that can take a while.
	return later(func() (response, error) { return b.regradeNow(c, q) }), nil
}

// regradeNow grades every stored answer to q again against its current
// key.
func (b *Bot) regradeNow(c *call, q *questions.Question) (response, error) {
	res, err := b.store.Regrade(c.ctx, c.guild, q.ID, q.Correct(), len(q.Options))
	if err := regradeErr(q, err); err != nil {
		return response{}, err
	}
	b.log.Info("question regraded", "guild", c.guild, "question", q.ID, "by", c.user, "answers", res.Answers, "changed", res.Changed)
	return asReply(regradeMessage(q, res)), nil
}

// regradeErr words a regrade's refusal for the admin; other errors are
// wrapped, nil stays nil.
func regradeErr(q *questions.Question, err error) error {
	switch {
	case errors.Is(err, questions.ErrQuestionOpen):
		return userErr("`%s` is open in the server right now: close it first (`/quizadmin close` in its channel), then regrade.", truncate(q.ID, 200))
	case errors.Is(err, questions.ErrOptionsChanged):
		return userErr("`%s` now has %d options, but it was asked with another number: its answers can't be graded against the new options. Keep the options and fix only the answer, or add the new version as a new question.", truncate(q.ID, 200), len(q.Options))
	case err != nil:
		return fmt.Errorf("regrade: %w", err)
	}
	return nil
}

// regradeMessage says what a regrade did.
func regradeMessage(q *questions.Question, res questions.Regraded) message {
	text := fmt.Sprintf("🔁 Re-graded `%s` (%s) against its current answer **%s**: %s, **%d changed**.",
		truncate(q.ID, 200), questionTitle(q), strings.Join(q.Correct(), ", "), plural(res.Answers, "answer", "answers"), res.Changed)
	if res.Changed > 0 {
		text += " Scores, streaks, leaderboards and review schedules are now what they would have been with this answer from the start."
	} else {
		text += " Nothing else changed."
	}
	return message{ephemeral: true, content: text}
}
