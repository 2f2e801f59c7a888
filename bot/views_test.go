package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// Rendering is pure: these tests run the view functions on domain values,
// without a server. The end-to-end tests check the same messages as sent.

func TestLeaderboardMessage(t *testing.T) {
	t.Parallel()
	entries := func(n int) []questions.Standing {
		var out []questions.Standing
		for i := range n {
			out = append(out, questions.Standing{Rank: i + 1, Score: questions.Score{UserID: questions.UserID(100 + i),
				Points: 10 - i, Answered: 4, Correct: 2, CurrentStreak: 1, BestStreak: 3}})
		}
		return out
	}
	own := &questions.Standing{Rank: 31, Score: questions.Score{UserID: 7, Points: 1, Answered: 1}}
	tests := []struct {
		name     string
		lb       questions.Leaderboard
		r        questions.Ranking
		page     int
		own      *questions.Standing
		want     []string // in the description, in order
		footer   string
		prev     bool // Previous enabled
		next     bool // Next enabled
		otherRnk questions.Ranking
	}{
		{"first page of three", questions.Leaderboard{Total: 25, Entries: entries(10)}, questions.ByPoints, 0, own,
			[]string{"**1.** <@100> · 10 pts · 50% of 4 · 🔥 1 (best 3)", "**You:** **31.** <@7> · 1 pt · 0% of 1"},
			"Page 1 of 3 · 25 members ranked", false, true, questions.ByAccuracy},
		{"last page, viewer on it", questions.Leaderboard{Total: 25, Entries: entries(5)}, questions.ByPoints, 2, nil,
			[]string{"**5.** <@104>"}, "Page 3 of 3 · 25 members ranked", true, false, questions.ByAccuracy},
		{"nobody yet", questions.Leaderboard{}, questions.ByPoints, 0, nil,
			[]string{"Nobody has answered in this period yet."}, "Page 1 of 1 · 0 members ranked", false, false, questions.ByAccuracy},
		{"nobody by accuracy", questions.Leaderboard{}, questions.ByAccuracy, 0, nil,
			[]string{"Nobody has 10 answers in this period yet."}, "Page 1 of 1 · 0 members ranked · at least 10 answers", false, false, questions.ByPoints},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := leaderboardMessage(tc.lb, questions.PeriodWeek, tc.r, tc.page, tc.own)
			if len(m.embeds) != 1 {
				t.Fatalf("%d embeds, want 1", len(m.embeds))
			}
			e := m.embeds[0]
			if !strings.HasPrefix(e.Title, "🏆 Leaderboard · this week") {
				t.Errorf("title %q", e.Title)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(e.Description[at:], w)
				if i < 0 {
					t.Fatalf("description %q lacks %q (in order)", e.Description, w)
				}
				at += i
			}
			if tc.own == nil && strings.Contains(e.Description, "**You:**") {
				t.Errorf("description %q shows the viewer's line although they are on the page", e.Description)
			}
			if e.Footer == nil || e.Footer.Text != tc.footer {
				t.Errorf("footer %+v, want %q", e.Footer, tc.footer)
			}
			row := m.components[0].(discordgo.ActionsRow).Components
			prev, next, other := row[0].(discordgo.Button), row[1].(discordgo.Button), row[2].(discordgo.Button)
			if prev.Disabled == tc.prev || next.Disabled == tc.next {
				t.Errorf("previous disabled %v, next disabled %v; want %v, %v", prev.Disabled, next.Disabled, !tc.prev, !tc.next)
			}
			if want := kindBoard.id(componentID{period: questions.PeriodWeek, ranking: tc.otherRnk}); other.CustomID != want {
				t.Errorf("ranking button %q, want %q", other.CustomID, want)
			}
		})
	}
}

func TestStatsMessage(t *testing.T) {
	t.Parallel()
	none := statsMessage(7, questions.MemberStats{})
	if got := none.embeds[0].Description; got != "<@7> has not answered any question yet." || !none.ephemeral {
		t.Errorf("no answers: %q (ephemeral %v)", got, none.ephemeral)
	}
	st := questions.MemberStats{Rank: 2,
		All: questions.Score{Answered: 10, Correct: 7, Points: 9, CurrentStreak: 2, BestStreak: 5},
		Topics: []questions.TopicStats{
			{Topic: "bank:Net", Answered: 6, Correct: 5},
			{Topic: "tag:dns", Answered: 4, Correct: 1},
			{Topic: "tag:tcp", Answered: 8, Correct: 2},
		}}
	e := statsMessage(7, st).embeds[0]
	if want := "<@7>\n**10 answers** · 7 correct (70%) · **9 points** · rank #2\n🔥 Streak: 2 study days (best 5 days)"; e.Description != want {
		t.Errorf("description %q, want %q", e.Description, want)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	// Weakest first: tcp 25% and dns 25% (tcp answered more), then Net.
	if got, want := strings.Join(names, ", "), "Topic: tcp, Topic: dns, Bank: Net"; got != want {
		t.Errorf("fields %q, want %q", got, want)
	}
}

func TestBanksMessage(t *testing.T) {
	t.Parallel()
	net := &questions.Bank{Name: "Net", Questions: []questions.Question{{ID: "Net#1"}, {ID: "Net#2"}}}
	mine := &questions.Bank{Name: "Mine", Questions: []questions.Question{{ID: "Mine#1"}}}
	tests := []struct {
		name string
		draw []string
		want string
	}{
		{"every bank drawn", nil, "**Net** · 2 questions · 1 not yet asked\n**Mine** · 1 question · 1 not yet asked · imported"},
		{"one bank drawn", []string{"net"}, "**Net** · 2 questions · 1 not yet asked\n**Mine** · 1 question · 1 not yet asked · imported · not in the draw"},
	}
	for _, tc := range tests {
		m := banksMessage([]*questions.Bank{net, mine}, []*questions.Bank{mine}, map[string]bool{"Net#1": true}, tc.draw)
		if got := m.embeds[0].Description; got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSettingsMessage(t *testing.T) {
	t.Parallel()
	set := questions.DefaultSettings(1)
	if got, want := settingsMessage(set, false).content, "⚙️ **Settings**\nAnswer and explanation shown: at once, in the private answer reply\n`/quiz ask` stays open: 10 minutes\n"+
		"Members' `/quiz ask` (admins exempt): one per member every 60 seconds; none while 3 questions are open in the channel\nQuestions drawn from: every bank\nTime zone: UTC"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	set.RevealOnAnswer, set.Banks, set.AskMinutes, set.TimeZone = false, []string{"A", "B"}, 1, "Europe/Paris"
	set.AskCooldown, set.AskMaxOpen = 0, 0
	if got, want := settingsMessage(set, true).content, "⚙️ **Settings saved**\nAnswer and explanation shown: only when the question closes\n`/quiz ask` stays open: 1 minute\n"+
		"Members' `/quiz ask` (admins exempt): no cooldown; no cap on open questions\nQuestions drawn from: A, B\nTime zone: Europe/Paris"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	set.AskCooldown, set.AskMaxOpen = 5*time.Minute, 1
	if got, want := settingsMessage(set, false).content, "one per member every 5 minutes; none while 1 question is open in the channel"; !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDailyStatusMessage(t *testing.T) {
	t.Parallel()
	set := questions.DefaultSettings(1)
	if got := dailyStatusMessage(set, time.UTC).content; !strings.Contains(got, "The daily quiz is off") {
		t.Errorf("off: %q", got)
	}
	loc, err := questions.LoadZone("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	set.TimeZone = "Europe/Paris"
	next := time.Date(2026, 3, 2, 7, 30, 0, 0, time.UTC)
	set.Daily = &questions.Daily{ChannelID: 6001, Time: "08:30", Count: 2, CloseAfterHours: 3, Next: next,
		LastPosted: "2026-03-01", LastError: "missing access"}
	got := dailyStatusMessage(set, loc).content
	for _, want := range []string{"Channel: <#6001>", "Time: **08:30** (Europe/Paris)", "Questions per day: 2",
		"Questions close: after 3 hours", "Last posted: 2026-03-01", "Next post: Mon 2 Mar 2026 08:30 CET",
		"⚠️ The last post failed: missing access"} {
		if !strings.Contains(got, want) {
			t.Errorf("status %q lacks %q", got, want)
		}
	}
}

func TestStreaksEmbed(t *testing.T) {
	t.Parallel()
	if e := streaksEmbedOf(nil); e != nil {
		t.Errorf("no streaks: %+v, want nil", e)
	}
	e := streaksEmbedOf([]questions.Score{{UserID: 1, CurrentStreak: 3}, {UserID: 2, CurrentStreak: 1}})
	if want := "<@1> · 🔥 3 days\n<@2> · 🔥 1 day\nAnswer today to keep yours going."; e.Description != want {
		t.Errorf("got %q, want %q", e.Description, want)
	}
}
