package chart

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/quizhost/quizhost/questions"
)

func sample() Data {
	var days []questions.DayCount
	start := time.Date(2025, 2, 13, 12, 0, 0, 0, time.UTC)
	for i := range 30 {
		n := (i * 7) % 11
		days = append(days, questions.DayCount{Date: start.AddDate(0, 0, i).Format(time.DateOnly), Answers: n, Right: n * 2 / 3})
	}
	return Data{
		Title: "alice · AWS Cloud Practitioner",
		Topics: []questions.TopicReadiness{
			{Topic: "Billing and Pricing", Answers: 20, Right: 15},
			{Topic: "Cloud Concepts", Answers: 10, Right: 9},
			{Topic: "Security and Compliance", Answers: 12, Right: 5},
			{Topic: "Technology", Answers: 30, Right: 21},
			{Topic: "never answered", Answers: 0},
		},
		Days: days,
	}
}

// TestRender decodes the PNG and checks its size, that it is opaque (so
// it reads the same on Discord's dark and light themes), the card colour
// at the centre of an empty area, and that the bars are drawn.
func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data Data
	}{
		{"sample", sample()},
		{"empty", Data{}},
		{"many topics", func() Data {
			d := sample()
			for i := range 20 {
				d.Topics = append(d.Topics, questions.TopicReadiness{Topic: fmt.Sprintf("topic %d with a long name", i), Answers: i + 1, Right: i / 2})
			}
			return d
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := Render(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got := img.Bounds().Size(); got != (image.Point{Width, Height}) {
				t.Errorf("size: got %v, want %dx%d", got, Width, Height)
			}
			counts := opaqueColours(t, img)
			if counts[cardColor] < Width*Height/3 {
				t.Errorf("card colour covers %d pixels, want most of the image", counts[cardColor])
			}
			wantBars := tt.name != "empty"
			for _, c := range []color.RGBA{accColor, rightColor, wrongColor} {
				if got := counts[c] > 50; got != wantBars {
					t.Errorf("colour %v drawn on %d pixels; want bars drawn: %v", c, counts[c], wantBars)
				}
			}
			if counts[textColor] < 100 {
				t.Errorf("text colour on %d pixels, want the labels drawn", counts[textColor])
			}
			if dir := os.Getenv("CHART_OUT"); dir != "" {
				writeOnThemes(t, dir+"/"+tt.name, img)
			}
		})
	}
}

// TestDaysAxisWholeNumbers checks the answers-per-day axis is labelled
// with whole numbers (it counts answers), at least two of them, every
// label within the axis.
func TestDaysAxisWholeNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		most       int // answers on the busiest day
		wantLabels []string
	}{
		{"no answers", 0, []string{"0", "1", "2", "3", "4", "5"}},
		{"a few", 3, []string{"0", "1", "2", "3", "4", "5"}},
		{"ten", 10, []string{"0", "5", "10"}},
		{"a busy day", 37, []string{"0", "10", "20", "30", "40"}},
		{"hundreds", 420, []string{"0", "100", "200", "300", "400", "500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			days := []questions.DayCount{{Date: "2025-03-01", Answers: tt.most, Right: tt.most / 2}, {Date: "2025-03-02"}}
			p, err := daysPlot(days)
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
				if tk.Label == "" {
					continue
				}
				n, err := strconv.Atoi(tk.Label)
				if err != nil || float64(n) != tk.Value {
					t.Errorf("tick %v labelled %q: want a whole number equal to its value", tk.Value, tk.Label)
				}
				if tk.Value < p.Y.Min || tk.Value > p.Y.Max {
					t.Errorf("tick %v outside the axis %v to %v", tk.Value, p.Y.Min, p.Y.Max)
				}
				labels = append(labels, tk.Label)
			}
			if fmt.Sprint(labels) != fmt.Sprint(tt.wantLabels) {
				t.Errorf("labels from 0 to %v: got %q, want %q", p.Y.Max, labels, tt.wantLabels)
			}
		})
	}
}

// opaqueColours counts img's pixels by colour, failing the test at the
// first pixel that is not opaque (a chart must read the same on Discord's
// dark and light themes). An *image.RGBA, what png.Decode gives for the
// charts, is read from its bytes a run of one colour at a time; any other
// image pixel by pixel.
func opaqueColours(t *testing.T, img image.Image) map[color.RGBA]int {
	t.Helper()
	counts := map[color.RGBA]int{}
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, a := img.At(x, y).RGBA()
				if a != 0xffff {
					t.Fatalf("pixel (%d,%d) has alpha %d, want opaque", x, y, a>>8)
				}
				counts[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0xff}]++
			}
		}
		return counts
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := rgba.Pix[rgba.PixOffset(b.Min.X, y):rgba.PixOffset(b.Max.X, y)]
		for i := 0; i < len(row); {
			run := [4]byte(row[i : i+4])
			if run[3] != 0xff {
				t.Fatalf("pixel (%d,%d) has alpha %d, want opaque", b.Min.X+i/4, y, run[3])
			}
			n := 0
			for ; i < len(row) && [4]byte(row[i:i+4]) == run; i += 4 {
				n++
			}
			counts[color.RGBA{run[0], run[1], run[2], 0xff}] += n
		}
	}
	return counts
}

// writeOnThemes writes the chart as is and composited onto Discord's dark
// and light backgrounds, for a person to look at (CHART_OUT=/tmp).
func writeOnThemes(t *testing.T, prefix string, img image.Image) {
	for name, bg := range map[string]color.RGBA{"dark": {0x31, 0x33, 0x38, 0xff}, "light": {0xff, 0xff, 0xff, 0xff}} {
		out := image.NewRGBA(image.Rect(0, 0, Width+80, Height+80))
		draw.Draw(out, out.Bounds(), &image.Uniform{bg}, image.Point{}, draw.Src)
		draw.Draw(out, img.Bounds().Add(image.Point{40, 40}), img, image.Point{}, draw.Over)
		f, err := os.Create(prefix + "-" + name + ".png")
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, out); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkRender measures one chart: a sample's topics and 30 days.
func BenchmarkRender(b *testing.B) {
	d := sample()
	for b.Loop() {
		if _, err := Render(d); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRenderMocks decodes the mock exam chart: its size, opaque, the card
// colour over most of it, the attempts' points in green (passed) and red
// (not), and the pass line in the text colour; none of the points for
// no attempts.
func TestRenderMocks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		data       MockData
		pass, fail bool
	}{
		{"passed and failed", MockData{Title: "AWS Cloud Practitioner", PassPercent: 66.7,
			Attempts: []MockAttempt{{Percent: 40}, {Percent: 60}, {Percent: 72, Passed: true}, {Percent: 80, Passed: true}}}, true, true},
		{"one attempt, passed", MockData{PassPercent: 70, Attempts: []MockAttempt{{Percent: 100, Passed: true}}}, true, false},
		{"none", MockData{PassPercent: 70}, false, false},
		{"many", MockData{PassPercent: 70, Attempts: func() []MockAttempt {
			var as []MockAttempt
			for i := range 40 {
				as = append(as, MockAttempt{Percent: float64(i * 2)})
			}
			return as
		}()}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := RenderMocks(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got := img.Bounds().Size(); got != (image.Point{Width, MocksHeight}) {
				t.Errorf("size: got %v, want %dx%d", got, Width, MocksHeight)
			}
			counts := opaqueColours(t, img)
			if counts[cardColor] < Width*MocksHeight/3 {
				t.Errorf("card colour covers %d pixels, want most of the image", counts[cardColor])
			}
			if got := counts[rightColor] > 30; got != tt.pass {
				t.Errorf("green on %d pixels; want passed attempts drawn: %v", counts[rightColor], tt.pass)
			}
			if got := counts[wrongColor] > 30; got != tt.fail {
				t.Errorf("red on %d pixels; want failed attempts drawn: %v", counts[wrongColor], tt.fail)
			}
			if counts[textColor] < 300 {
				t.Errorf("text colour on %d pixels, want the labels and the pass line", counts[textColor])
			}
			if dir := os.Getenv("CHART_OUT"); dir != "" {
				writeOnThemes(t, dir+"/mocks-"+tt.name, img)
			}
		})
	}
}

// TestCanvasReuse: a canvas on a used image draws the same bytes as a
// canvas vgimg makes afresh, and charts drawn one after another on the
// pooled images give each the bytes it gives when drawn first.
func TestCanvasReuse(t *testing.T) {
	t.Parallel()
	t.Run("used image", func(t *testing.T) {
		t.Parallel()
		p, err := accuracyPlot(sample().Topics)
		if err != nil {
			t.Fatal(err)
		}
		const dpi = 96
		fresh := vgimg.NewWith(vgimg.UseWH(vg.Length(Width)*vg.Inch/dpi, vg.Length(Height)*vg.Inch/dpi), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(cardColor))
		p.Draw(vgdraw.New(fresh))
		var want bytes.Buffer
		if err := encodePNG(&want, fresh.Image()); err != nil {
			t.Fatal(err)
		}

		used := image.NewRGBA(image.Rect(0, 0, Width, Height))
		for i := range used.Pix {
			used.Pix[i] = byte(i * 7)
		}
		c := canvasOn(used, dpi)
		p.Draw(vgdraw.New(c))
		var got bytes.Buffer
		if err := encodePNG(&got, c.Image()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Error("drawn on a used image: the PNG differs from one drawn on a fresh canvas")
		}
	})
	t.Run("in a row", func(t *testing.T) {
		t.Parallel()
		many := sample()
		for i := range 20 {
			many.Topics = append(many.Topics, questions.TopicReadiness{Topic: fmt.Sprintf("topic %d", i), Answers: i + 1, Right: i / 2})
		}
		draws := []struct {
			name   string
			render func() ([]byte, error)
		}{
			{"sample", func() ([]byte, error) { return Render(sample()) }},
			{"many topics", func() ([]byte, error) { return Render(many) }},
			{"empty", func() ([]byte, error) { return Render(Data{Title: "x"}) }},
			{"bank", func() ([]byte, error) {
				return RenderBank("bank", []Item{{Facility: 0.5, Discrimination: 0.2}, {Facility: 0.1, Discrimination: -0.3, Flagged: true}})
			}},
		}
		// Two rounds: the pools hold an image a height, so in the second
		// each chart is drawn on the image the chart before it left
		// (sample on bank's, many topics on sample's, …); a third would
		// repeat those pairs.
		first := map[string][]byte{}
		for round := range 2 {
			for _, d := range draws {
				b, err := d.render()
				if err != nil {
					t.Fatal(err)
				}
				if round == 0 {
					first[d.name] = b
				} else if !bytes.Equal(b, first[d.name]) {
					t.Errorf("%s, drawing %d: the PNG differs from the first drawing", d.name, round+1)
				}
			}
		}
	})
}
