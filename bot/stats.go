package bot

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// stats shows a member's record (/quiz stats [member]): scores and
// topics, readiness for their exam date when they set one, their mock
// exams (mock.go), and the study chart and the mock exams' chart as
// attached pictures. The reply goes out first and the chart
// follows in an edit of it: drawing it takes longer than everything else
// (tens of milliseconds), and the figures should not wait for the picture.
func (b *Bot) stats(c *call, opts options) (response, error) {
	who := c.user
	if id, ok := opts.user("member"); ok {
		who = id
	}
	now := b.clock.Now()
	st, err := b.store.MemberStats(c.guild, who, now)
	if err != nil && !errors.Is(err, questions.ErrNotFound) {
		return response{}, fmt.Errorf("stats: %w", err)
	}
	m := statsMessage(who, st)
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("stats: %w", err)
	}
	r, ok, err := b.readiness(c.guild, who, set, now)
	if err != nil {
		return response{}, err
	}
	if ok {
		m.embeds = fitEmbeds(append(m.embeds, readinessEmbed(r)))
	}
	mocks, err := b.store.Mocks(c.guild, who, mockHistoryShown)
	if err != nil {
		return response{}, fmt.Errorf("stats: %w", err)
	}
	if len(mocks) > 0 {
		m.embeds = fitEmbeds(append(m.embeds, mockHistoryEmbed(mocks)))
	}
	resp := asReply(m)
	resp.after = func() {
		if f := b.statsChart(c.guild, who, chartTitle(c, who), set, now); f != nil {
			m.files = append(m.files, f)
			m.embeds[0].Image = &discordgo.MessageEmbedImage{URL: "attachment://" + f.Name}
		}
		if f := b.mockChart(c.guild, who, mocks); f != nil {
			m.files = append(m.files, f)
			m.embeds[len(m.embeds)-1].Image = &discordgo.MessageEmbedImage{URL: "attachment://" + f.Name}
		}
		if len(m.files) == 0 {
			return
		}
		if err := c.edit(m); err != nil {
			b.log.Warn("attach the stats chart", "guild", c.guild, "err", redact(err))
		}
	}
	return resp, nil
}

// statsMessage renders a member's stats, weak spots first.
func statsMessage(who questions.UserID, st questions.MemberStats) message {
	a := st.All
	e := &discordgo.MessageEmbed{Title: "📊 Stats", Color: colorOpen}
	if a.Answered == 0 {
		e.Description = fmt.Sprintf("<@%d> has not answered any question yet.", who)
		return message{ephemeral: true, embeds: []*discordgo.MessageEmbed{e}}
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
	return message{ephemeral: true, embeds: fitEmbeds([]*discordgo.MessageEmbed{e})}
}

// streaksEmbed shows the server's active study streaks on the first daily
// question; nil when nobody has one.
func (b *Bot) streaksEmbed(guild questions.GuildID, now time.Time) *discordgo.MessageEmbed {
	streaks, err := b.store.ActiveStreaks(guild, now, 10)
	if err != nil {
		b.log.Error("daily streaks", "guild", guild, "err", err)
		return nil
	}
	return streaksEmbedOf(streaks)
}

// streaksEmbedOf renders the active streaks; nil for none.
func streaksEmbedOf(streaks []questions.Score) *discordgo.MessageEmbed {
	if len(streaks) == 0 {
		return nil
	}
	var lines []string
	for _, s := range streaks {
		lines = append(lines, fmt.Sprintf("<@%d> · 🔥 %s", s.UserID, plural(s.CurrentStreak, "day", "days")))
	}
	return &discordgo.MessageEmbed{Title: "🔥 Active study streaks", Color: colorClosed,
		Description: strings.Join(lines, "\n") + "\nAnswer today to keep yours going."}
}
