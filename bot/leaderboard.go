package bot

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// boardPageSize is how many members a leaderboard page shows.
const boardPageSize = 10

var periodNames = map[questions.Period]string{
	questions.PeriodDay: "today", questions.PeriodWeek: "this week",
	questions.PeriodMonth: "this month", questions.PeriodAll: "all time",
}

// leaderboard shows the top members (/quiz leaderboard [period]).
func (b *Bot) leaderboard(c *call, opts options) (response, error) {
	p := questions.PeriodAll
	if s, ok := opts.str("period"); ok {
		p = questions.Period(s)
		if !validPeriod(p) {
			return response{}, userErr("Pick a period from the list: day, week, month or all.")
		}
	}
	m, err := b.boardMessage(c.guild, c.user, p, questions.ByPoints, 0)
	if err != nil {
		return response{}, err
	}
	return asReply(m), nil
}

// boardPage answers the leaderboard's paging and ranking buttons. On the
// public leaderboard the page opens privately for the member who clicked
// (the public message stays as posted for everyone); on that private copy,
// the buttons turn its pages in place.
func (b *Bot) boardPage(c *call, id componentID) (response, error) {
	m, err := b.boardMessage(c.guild, c.user, id.period, id.ranking, id.page)
	if err != nil {
		return response{}, err
	}
	if c.i.Message != nil && c.i.Message.Flags&discordgo.MessageFlagsEphemeral != 0 {
		return asUpdate(m), nil
	}
	m.ephemeral = true
	return asReply(m), nil
}

// boardMessage loads a leaderboard page (the last one when page is past
// it) and, when the viewer is not on it, their own standing.
func (b *Bot) boardMessage(guild questions.GuildID, viewer questions.UserID, p questions.Period, r questions.Ranking, page int) (message, error) {
	now := b.clock.Now()
	lb, err := b.store.Leaderboard(guild, p, r, now, page*boardPageSize, boardPageSize)
	if err != nil {
		return message{}, fmt.Errorf("leaderboard: %w", err)
	}
	pages := max(1, (lb.Total+boardPageSize-1)/boardPageSize)
	if page >= pages && page > 0 {
		return b.boardMessage(guild, viewer, p, r, pages-1)
	}
	var own *questions.Standing
	if !slices.ContainsFunc(lb.Entries, func(s questions.Standing) bool { return s.UserID == viewer }) {
		st, err := b.store.Standing(guild, viewer, p, r, now)
		switch {
		case err == nil:
			own = &st
		case !errors.Is(err, questions.ErrNotFound):
			return message{}, fmt.Errorf("leaderboard standing: %w", err)
		}
	}
	return leaderboardMessage(lb, p, r, page, own), nil
}

// leaderboardMessage renders page (0-based) of a p/r leaderboard, with the
// viewer's own standing below when they are not on the page (own, nil
// when unranked), and the paging and ranking buttons.
func leaderboardMessage(lb questions.Leaderboard, p questions.Period, r questions.Ranking, page int, own *questions.Standing) message {
	pages := max(1, (lb.Total+boardPageSize-1)/boardPageSize)
	title := "🏆 Leaderboard · " + periodNames[p]
	if r == questions.ByAccuracy {
		title += " · by accuracy"
	}
	e := &discordgo.MessageEmbed{Title: title, Color: colorOpen}
	var lines []string
	for _, s := range lb.Entries {
		lines = append(lines, standingLine(s))
	}
	if len(lines) == 0 {
		if r == questions.ByAccuracy {
			lines = append(lines, fmt.Sprintf("Nobody has %d answers in this period yet.", questions.MinAnswersForAccuracy))
		} else {
			lines = append(lines, "Nobody has answered in this period yet. `/quiz ask` posts a question.")
		}
	}
	if own != nil {
		lines = append(lines, "", "**You:** "+standingLine(*own))
	}
	e.Description = truncate(strings.Join(lines, "\n"), maxDesc)
	footer := fmt.Sprintf("Page %d of %d · %s ranked", page+1, pages, plural(lb.Total, "member", "members"))
	if r == questions.ByAccuracy {
		footer += fmt.Sprintf(" · at least %d answers", questions.MinAnswersForAccuracy)
	}
	e.Footer = &discordgo.MessageEmbedFooter{Text: footer}
	other, otherLabel := questions.ByAccuracy, "By accuracy"
	if r == questions.ByAccuracy {
		other, otherLabel = questions.ByPoints, "By points"
	}
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "◀ Previous", Style: discordgo.SecondaryButton, CustomID: kindBoard.id(componentID{period: p, ranking: r, page: max(0, page-1)}), Disabled: page == 0},
		discordgo.Button{Label: "Next ▶", Style: discordgo.SecondaryButton, CustomID: kindBoard.id(componentID{period: p, ranking: r, page: page + 1}), Disabled: page+1 >= pages},
		discordgo.Button{Label: otherLabel, Style: discordgo.PrimaryButton, CustomID: kindBoard.id(componentID{period: p, ranking: other})},
	}}
	return message{embeds: []*discordgo.MessageEmbed{e}, components: []discordgo.MessageComponent{row}}
}

// standingLine is one member's line on a leaderboard. Mentions in embeds
// render as names and never ping.
func standingLine(s questions.Standing) string {
	line := fmt.Sprintf("**%d.** <@%d> · %s · %d%% of %d", s.Rank, s.UserID, plural(s.Points, "pt", "pts"),
		percent(s.Correct, s.Answered), s.Answered)
	if s.CurrentStreak > 0 {
		line += fmt.Sprintf(" · 🔥 %d", s.CurrentStreak)
	}
	if s.BestStreak > 0 {
		line += fmt.Sprintf(" (best %d)", s.BestStreak)
	}
	return line
}
