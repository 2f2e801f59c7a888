package chart

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The mock exam history chart of /quiz stats: the score of each attempt
// at one bank's mock exam, in order, against the pass mark.

// MocksHeight is the mock exam chart's height in pixels (its width is
// Width).
const MocksHeight = 360

// passColor is the pass line's.
var passColor = textColor

// MockAttempt is one attempt on the mock exam chart.
type MockAttempt struct {
	Percent float64 // the score, 0 to 100
	Passed  bool
}

// MockData is what the mock exam chart shows.
type MockData struct {
	Title string // e.g. the bank; may be ""
	// Attempts are the scores, oldest first.
	Attempts []MockAttempt
	// PassPercent is where the pass line is drawn: the pass mark as a
	// percentage of the questions right (for a scaled pass mark, the
	// percentage that reaches it).
	PassPercent float64
}

// RenderMocks draws d as a Width × MocksHeight PNG: each attempt's score
// (green when it passed, red when not) joined by a line, and the pass
// mark as a dashed line across. It fails only if the plotting library
// does (an error wrapping its own).
func RenderMocks(d MockData) ([]byte, error) {
	p := newPlot("Mock exams: score per attempt", "score %")
	p.Y.Min, p.Y.Max = 0, 105
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"},
		{Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	n := len(d.Attempts)
	p.X.Min, p.X.Max = 0.5, float64(max(n, 1))+0.5
	p.X.Label.Text = "attempt"
	p.X.Tick.Marker = attemptTicks{}
	pass := plotter.XYs{{X: p.X.Min, Y: d.PassPercent}, {X: p.X.Max, Y: d.PassPercent}}
	passLine, err := plotter.NewLine(pass)
	if err != nil {
		return nil, fmt.Errorf("render mock chart: %w", err)
	}
	passLine.Color = passColor
	passLine.Width = vg.Points(1.5)
	passLine.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	p.Add(passLine)
	p.Legend.Add(fmt.Sprintf("pass mark %s%%", strconv.FormatFloat(d.PassPercent, 'f', -1, 64)), passLine)
	if n > 0 {
		pts := make(plotter.XYs, n)
		for i, a := range d.Attempts {
			pts[i] = plotter.XY{X: float64(i + 1), Y: a.Percent}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("render mock chart: %w", err)
		}
		line.Color = accColor
		line.Width = vg.Points(2)
		p.Add(line)
		for _, passed := range []bool{true, false} {
			var xy plotter.XYs
			for i, a := range d.Attempts {
				if a.Passed == passed {
					xy = append(xy, pts[i])
				}
			}
			if len(xy) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, fmt.Errorf("render mock chart: %w", err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: wrongColor, Radius: vg.Points(5), Shape: draw.CircleGlyph{}}
			if passed {
				sc.GlyphStyle.Color = rightColor
			}
			p.Add(sc)
		}
	} else {
		p.Title.Text = "Mock exams: none yet"
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Color = textColor

	img, inner := card(MocksHeight, d.Title)
	p.Draw(inner)
	b, err := cardPNG(img)
	if err != nil {
		return nil, fmt.Errorf("render mock chart: %w", err)
	}
	return b, nil
}

// attemptTicks labels the attempts axis with whole attempt numbers, at
// most about ten of them.
type attemptTicks struct{}

// Ticks marks the attempts from 1, every step of 1, 2, 5, 10… that keeps
// ten labels or fewer.
func (attemptTicks) Ticks(lo, hi float64) []plot.Tick {
	n := int(hi - 0.5)
	step := 1
	for n/step > 10 {
		switch step {
		case 1:
			step = 2
		case 2:
			step = 5
		default:
			step *= 2
		}
	}
	var ticks []plot.Tick
	for v := 1; v <= n; v++ {
		t := plot.Tick{Value: float64(v)}
		if v == 1 || v%step == 0 {
			t.Label = strconv.Itoa(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
