package chart

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Item is one question on the bank's chart of /quizadmin insights.
type Item struct {
	Facility       float64 // share of answers right, 0 to 1
	Discrimination float64 // −1 to 1
	Flagged        bool
}

// RenderBank draws a bank's questions as a Width × Height PNG: one dot per
// question, facility (in percent) across, discrimination up, the flagged
// ones as red squares. title may be "". It fails only if the plotting
// library does.
func RenderBank(title string, items []Item) ([]byte, error) {
	p := newPlot("Facility against discrimination, one mark per question", "discrimination")
	p.X.Label.Text = "facility: % of answers right"
	p.X.Min, p.X.Max = 0, 100
	p.Y.Min, p.Y.Max = -1, 1
	p.Legend.Top = true
	p.Legend.TextStyle.Color = textColor
	var ok, flagged plotter.XYs
	for _, it := range items {
		xy := plotter.XY{X: 100 * it.Facility, Y: it.Discrimination}
		if it.Flagged {
			flagged = append(flagged, xy)
		} else {
			ok = append(ok, xy)
		}
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 100, Y: 0}})
	if err != nil {
		return nil, fmt.Errorf("render bank chart: %w", err)
	}
	zero.Color = borderColor
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(zero)
	if len(ok) > 0 {
		s, err := plotter.NewScatter(ok)
		if err != nil {
			return nil, fmt.Errorf("render bank chart: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: accColor, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("question", s)
	}
	if len(flagged) > 0 {
		s, err := plotter.NewScatter(flagged)
		if err != nil {
			return nil, fmt.Errorf("render bank chart: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: wrongColor, Radius: vg.Points(4), Shape: draw.BoxGlyph{}}
		p.Add(s)
		p.Legend.Add("flagged", s)
	}
	img, inner := card(Height, title)
	p.Draw(inner)
	b, err := cardPNG(img)
	if err != nil {
		return nil, fmt.Errorf("render bank chart: %w", err)
	}
	return b, nil
}
