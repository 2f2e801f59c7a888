package bot

import (
	"testing"

	"github.com/quizhost/quizhost/chart"
	"github.com/quizhost/quizhost/questions"
)

// TestMemberCharts: a member's chart is kept until what it draws changes
// (an answer changes a topic or a day), and only for that member and
// that chart.
func TestMemberCharts(t *testing.T) {
	t.Parallel()
	d := chart.Data{Title: "alice's study", Topics: []questions.TopicReadiness{{Topic: "net", Answers: 4, Right: 3}},
		Days: []questions.DayCount{{Date: "2026-12-01", Answers: 4, Right: 3}}}
	answered := d
	answered.Days = []questions.DayCount{{Date: "2026-12-01", Answers: 5, Right: 3}}
	mc := newGuildCache[memberKey, chartEntry](maxMemberCharts, maxMemberChartsPerGuild)
	mc.put(1, memberKey{1, 7, chartFile}, chartEntry{sum: dataSum(d), png: []byte("png")})
	tests := []struct {
		name  string
		guild questions.GuildID
		user  questions.UserID
		file  string
		data  chart.Data
		hit   bool
	}{
		{"same data", 1, 7, chartFile, d, true},
		{"after an answer", 1, 7, chartFile, answered, false},
		{"another member", 1, 8, chartFile, d, false},
		{"another server", 2, 7, chartFile, d, false},
		{"the member's other chart", 1, 7, mockChartFile, d, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keptChart(mc, memberKey{tt.guild, tt.user, tt.file}, dataSum(tt.data)) != nil; got != tt.hit {
				t.Errorf("kept: got %v, want %v", got, tt.hit)
			}
		})
	}
}
