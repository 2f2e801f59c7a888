package bot

import (
	"errors"
	"fmt"
	"sort"
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
func (b *Bot) leaderboard(c *call, opts options) error {
	p := questions.PeriodAll
	if s, ok := opts.str("period"); ok {
		p = questions.Period(s)
		if !validPeriod(p) {
			return userErr("Pick a period from the list: day, week, month or all.")
		}
	}
	m, err := b.boardMessage(c.guild, c.user, p, questions.ByPoints, 0)
	if err != nil {
		return err
	}
	return c.reply(m)
}

// boardPage answers the leaderboard's paging and ranking buttons. On the
// public leaderboard the page opens privately for the member who clicked
// (the public message stays as posted for everyone); on that private copy,
// the buttons turn its pages in place.
func (b *Bot) boardPage(c *call, id componentID) error {
	m, err := b.boardMessage(c.guild, c.user, id.period, id.ranking, id.page)
	if err != nil {
		return err
	}
	if c.i.Message != nil && c.i.Message.Flags&discordgo.MessageFlagsEphemeral != 0 {
		return c.update(m)
	}
	m.ephemeral = true
	return c.reply(m)
}

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
	title := "🏆 Leaderboard · " + periodNames[p]
	if r == questions.ByAccuracy {
		title += " · by accuracy"
	}
	e := &discordgo.MessageEmbed{Title: title, Color: colorOpen}
	var lines []string
	shown := false
	for _, s := range lb.Entries {
		lines = append(lines, standingLine(s))
		shown = shown || s.UserID == viewer
	}
	if len(lines) == 0 {
		if r == questions.ByAccuracy {
			lines = append(lines, fmt.Sprintf("Nobody has %d answers in this period yet.", questions.MinAnswersForAccuracy))
		} else {
			lines = append(lines, "Nobody has answered in this period yet. `/quiz ask` posts a question.")
		}
	}
	if !shown {
		own, err := b.store.Standing(guild, viewer, p, r, now)
		switch {
		case err == nil:
			lines = append(lines, "", "**You:** "+standingLine(own))
		case !errors.Is(err, questions.ErrNotFound):
			return message{}, fmt.Errorf("leaderboard standing: %w", err)
		}
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
		discordgo.Button{Label: "◀ Previous", Style: discordgo.SecondaryButton, CustomID: boardCustomID(p, r, max(0, page-1)), Disabled: page == 0},
		discordgo.Button{Label: "Next ▶", Style: discordgo.SecondaryButton, CustomID: boardCustomID(p, r, page+1), Disabled: page+1 >= pages},
		discordgo.Button{Label: otherLabel, Style: discordgo.PrimaryButton, CustomID: boardCustomID(p, other, 0)},
	}}
	return message{embeds: []*discordgo.MessageEmbed{e}, components: []discordgo.MessageComponent{row}}, nil
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

// stats shows a member's record (/quiz stats [member]).
func (b *Bot) stats(c *call, opts options) error {
	who := c.user
	if id, ok := opts.user("member"); ok {
		who = id
	}
	st, err := b.store.MemberStats(c.guild, who, b.clock.Now())
	if err != nil && !errors.Is(err, questions.ErrNotFound) {
		return fmt.Errorf("stats: %w", err)
	}
	a := st.All
	e := &discordgo.MessageEmbed{Title: "📊 Stats", Color: colorOpen}
	if a.Answered == 0 {
		e.Description = fmt.Sprintf("<@%d> has not answered any question yet.", who)
		return c.reply(message{ephemeral: true, embeds: []*discordgo.MessageEmbed{e}})
	}
	rank := "unranked"
	if st.Rank > 0 {
		rank = fmt.Sprintf("#%d", st.Rank)
	}
	e.Description = fmt.Sprintf("<@%d>\n**%s** · %d correct (%d%%) · **%s** · rank %s\n🔥 Streak: %s (best %s)",
		who, plural(a.Answered, "answer", "answers"), a.Correct, percent(a.Correct, a.Answered),
		plural(a.Points, "point", "points"), rank, plural(a.CurrentStreak, "study day", "study days"),
		plural(a.BestStreak, "day", "days"))
	topics := append([]questions.TopicStats(nil), st.Topics...)
	// Weak spots first: lowest accuracy, then most answered.
	sort.SliceStable(topics, func(i, j int) bool {
		ai, aj := percent(topics[i].Correct, topics[i].Answered), percent(topics[j].Correct, topics[j].Answered)
		if ai != aj {
			return ai < aj
		}
		return topics[i].Answered > topics[j].Answered
	})
	for _, t := range topics {
		if len(e.Fields) == 25 {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(t.Topic, "bank:"), "tag:")
		kind := "Bank"
		if strings.HasPrefix(t.Topic, "tag:") {
			kind = "Topic"
		}
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{
			Name:   truncate(kind+": "+name, 256),
			Value:  fmt.Sprintf("%s %d%% · %d of %d", bar(t.Correct, t.Answered), percent(t.Correct, t.Answered), t.Correct, t.Answered),
			Inline: true,
		})
	}
	return c.reply(message{ephemeral: true, embeds: fitEmbeds([]*discordgo.MessageEmbed{e})})
}

// banksCmd lists the banks this server can use (/quiz banks).
func (b *Bot) banksCmd(c *call) error {
	banks, err := b.guildBanks(c.guild)
	if err != nil {
		return err
	}
	asked, err := b.store.Asked(c.guild)
	if err != nil {
		return fmt.Errorf("banks: %w", err)
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("banks: %w", err)
	}
	imp, err := b.imported(c.guild)
	if err != nil {
		return err
	}
	var lines []string
	for _, bk := range banks {
		left := 0
		for _, q := range bk.Questions {
			if !asked[q.ID] {
				left++
			}
		}
		line := fmt.Sprintf("**%s** · %s · %d not yet asked", bk.Name, plural(len(bk.Questions), "question", "questions"), left)
		if findBank(imp.banks, bk.Name) != nil {
			line += " · imported"
		}
		if len(set.Banks) > 0 && !containsName(set.Banks, bk.Name) {
			line += " · not in the draw"
		}
		lines = append(lines, line)
	}
	e := &discordgo.MessageEmbed{Title: "📚 Question banks", Color: colorOpen,
		Description: truncate(strings.Join(lines, "\n"), maxDesc)}
	return c.reply(message{ephemeral: true, embeds: []*discordgo.MessageEmbed{e}})
}

// containsName reports whether names holds name (see sameName).
func containsName(names []string, name string) bool {
	for _, x := range names {
		if sameName(x, name) {
			return true
		}
	}
	return false
}

// autocomplete suggests bank names and time zones.
func (b *Bot) autocomplete(c *call, d discordgo.ApplicationCommandInteractionData) error {
	path, opts := subcommand(d.Options)
	f := opts.focused()
	var choices []*discordgo.ApplicationCommandOptionChoice
	if f != nil {
		typed, _ := f.Value.(string)
		typed = strings.ToLower(strings.TrimSpace(typed))
		var names []string
		switch f.Name {
		case "timezone":
			names = matchZones(typed)
		case "id":
			if d.Name != "quizadmin" || !isManager(c.member) {
				break
			}
			banks, err := b.guildBanks(c.guild)
			if path == "question remove" { // only imported banks can lose questions
				var g *guildBanks
				g, err = b.imported(c.guild)
				if g != nil {
					banks = g.banks
				}
			}
			if err != nil {
				return err
			}
			choices = questionChoices(banks, typed)
		case "bank", "name":
			banks, err := b.guildBanks(c.guild)
			// bank remove/export, add and suggest: imported banks only
			if f.Name == "name" || path == "add" || path == "suggest" {
				var g *guildBanks
				g, err = b.imported(c.guild)
				if g != nil {
					banks = g.banks
				}
			}
			if err != nil {
				return err
			}
			for _, bk := range banks {
				if strings.Contains(strings.ToLower(bk.Name), typed) {
					names = append(names, bk.Name)
				}
			}
		}
		for _, n := range names {
			if len(choices) == 25 {
				break
			}
			choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: truncate(n, 100), Value: truncate(n, 100)})
		}
	}
	if choices == nil {
		choices = []*discordgo.ApplicationCommandOptionChoice{}
	}
	c.acked = true
	return c.s.InteractionRespond(c.i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: choices},
	})
}
