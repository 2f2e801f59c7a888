package bot

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// TestInsightsChartKeptAcrossSorts: a bank's insights chart is drawn once
// for its statistics, whatever order its list is sorted in, and drawn
// again when what it shows changes.
func TestInsightsChartKeptAcrossSorts(t *testing.T) {
	t.Parallel()
	b := &Bot{charts: newGuildCache[insightsKey, chartEntry](maxInsightsCharts, maxInsightsChartsPerGuild),
		drawer: newDrawer(1), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	drawn := 0
	b.drawer.after = func(_ time.Duration, rest func()) { drawn++; rest() } // once after each drawing
	entry := func(n uint32, facility, disc float64, flagged bool) insightEntry {
		e := insightEntry{st: questions.QuestionStats{Number: n, Answers: 10, Right: int(10 * facility)},
			facility: facility, disc: disc, hasDisc: true}
		if flagged {
			e.flags = []questions.Flag{{}}
		}
		return e
	}
	a, c, d := entry(1, 0.5, 0.3, false), entry(2, 0.8, -0.2, true), entry(3, 0.2, 0.6, false)
	view := func(sort string, entries ...insightEntry) insightsView {
		return insightsView{bank: "Keys", ref: bankRef("Keys"), sort: sort, entries: entries}
	}
	first := b.insightsChart(1, view("flagged", c, a, d))
	again := b.insightsChart(1, view("discrimination", d, a, c))
	if drawn != 1 || first == nil || !bytes.Equal(first, again) {
		t.Errorf("the same bank sorted another way: %d drawings, the same chart %v; want 1 and the chart kept", drawn, bytes.Equal(first, again))
	}
	changed := entry(3, 0.2, 0.5, false)
	if b.insightsChart(1, view("facility", a, c, changed)); drawn != 2 {
		t.Errorf("after a question's discrimination changed: %d drawings, want 2", drawn)
	}
}
