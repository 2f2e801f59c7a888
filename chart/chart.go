// Package chart draws a member's study chart for /quiz stats: accuracy
// per topic and answers per day, as a PNG made with gonum.org/v1/plot. It
// takes domain values (questions.TopicReadiness, questions.DayCount) and
// returns bytes; it knows nothing of Discord or storage.
//
// The chart is drawn on an opaque light card with a mid-grey border and
// dark text, so it reads the same in Discord's dark (#313338) and light
// (#ffffff) themes: no transparent pixel depends on the theme behind it.
package chart

import (
	"bytes"
	"cmp"
	"fmt"
	"image"
	"image/color"
	imagedraw "image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"git.sr.ht/~sbinet/gg"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/quizhost/quizhost/questions"
)

// Size of the chart in pixels (at 96 dpi).
const (
	Width  = 800
	Height = 600
)

// MaxTopics is the most topics drawn (those with the most answers are
// kept); the rest would not be readable.
const MaxTopics = 12

// The palette: a light card, dark text, mid-tone bars that contrast with
// the card.
var (
	cardColor   = color.RGBA{0xf2, 0xf3, 0xf5, 0xff}
	borderColor = color.RGBA{0x80, 0x84, 0x8e, 0xff}
	textColor   = color.RGBA{0x1e, 0x1f, 0x22, 0xff}
	gridColor   = color.RGBA{0xc4, 0xc9, 0xce, 0xff}
	accColor    = color.RGBA{0x58, 0x65, 0xf2, 0xff} // blurple
	rightColor  = color.RGBA{0x1f, 0x8b, 0x4c, 0xff} // green
	wrongColor  = color.RGBA{0xd8, 0x3c, 0x3e, 0xff} // red
)

// Data is what the chart shows.
type Data struct {
	Title string // e.g. the member's name and bank; may be ""
	// Topics are the accuracy bars (TopicReadiness.Accuracy), in order;
	// topics without answers are left out.
	Topics []questions.TopicReadiness
	// Days are the answers per day, oldest first (questions.AnswersPerDay
	// over the last 30 days).
	Days []questions.DayCount
}

// Render draws d as a Width × Height PNG. It fails only if the plotting
// library does (an error wrapping its own).
func Render(d Data) ([]byte, error) {
	top, err := accuracyPlot(d.Topics)
	if err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	bottom, err := daysPlot(d.Days)
	if err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	img, inner := card(Height, d.Title)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(14)}
	top.Draw(tiles.At(inner, 0, 0))
	bottom.Draw(tiles.At(inner, 0, 1))

	b, err := cardPNG(img)
	if err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	return b, nil
}

// card is a chart's canvas, Width by height pixels: the card's background
// and border, and the title at its top when there is one; inner is the
// area left for the plots. The canvas draws on an image from the pool
// (see newCanvas): cardPNG gives it back.
func card(height int, title string) (img *vgimg.Canvas, inner draw.Canvas) {
	const dpi = 96
	w, h := vg.Length(Width)*vg.Inch/dpi, vg.Length(height)*vg.Inch/dpi
	img = newCanvas(height, dpi)
	dc := draw.New(img)
	border := draw.LineStyle{Color: borderColor, Width: vg.Points(3)}
	in := vg.Points(1.5)
	dc.StrokeLines(border, []vg.Point{{X: in, Y: in}, {X: w - in, Y: in}, {X: w - in, Y: h - in}, {X: in, Y: h - in}, {X: in, Y: in}})
	inner = draw.Crop(dc, vg.Points(12), -vg.Points(12), vg.Points(10), -vg.Points(10))
	if title != "" {
		ts := draw.TextStyle{Color: textColor, Font: font.From(plot.DefaultFont, 15), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		inner.FillText(ts, vg.Point{X: (inner.Min.X + inner.Max.X) / 2, Y: inner.Max.Y}, title)
		inner = draw.Crop(inner, 0, 0, 0, -vg.Points(24))
	}
	return img, inner
}

// The chart's memory is reused from one drawing to the next: its 1.9 MB
// image (vgimg.New allocates one and gg copies it into a second) and the
// PNG encoder's compressor (1.2 MB). Each chart drawn without this left
// about 6 MB of garbage, and the collections it brought held up the
// replies the bot was sending meanwhile. They are kept in a spare (see
// spare), not a sync.Pool: a pool is emptied by the second garbage
// collection after a put, and a busy bot collects more often than it
// draws charts, so most charts found it empty. The spares hold no state a
// drawing can see: an image is cleared to the card's colour before it is
// drawn on.
var (
	images  = map[int]spare[*image.RGBA]{Height: newSpare[*image.RGBA](), MocksHeight: newSpare[*image.RGBA]()}
	encoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: encoderBuffers(newSpare[*png.EncoderBuffer]())}
)

// spare keeps one value for the next drawing, across garbage collections
// (the bot draws one chart at a time: one is enough; a drawing beside it
// makes its own, as with an empty pool).
type spare[T any] chan T

func newSpare[T any]() spare[T] { return make(spare[T], 1) }

// get returns the kept value, if there is one.
func (s spare[T]) get() (v T, ok bool) {
	select {
	case v = <-s:
		return v, true
	default:
		return v, false
	}
}

// put keeps v unless a value is kept already.
func (s spare[T]) put(v T) {
	select {
	case s <- v:
	default:
	}
}

// newCanvas is a vgimg canvas Width by height pixels, cleared to the
// card's colour, on an image from the pool when there is one.
func newCanvas(height, dpi int) *vgimg.Canvas {
	var rgba *image.RGBA
	if kept, ok := images[height]; ok {
		rgba, _ = kept.get()
	}
	if rgba == nil {
		rgba = image.NewRGBA(image.Rect(0, 0, Width, height))
	}
	return canvasOn(rgba, dpi)
}

// canvasOn is a vgimg canvas drawing on rgba, whatever it held, cleared
// to the card's colour: what vgimg.NewWith(UseWH, UseDPI,
// UseBackgroundColor(cardColor)) makes, less the two images it allocates.
// vgimg.UseImage alone would still copy the image, so the canvas gets its
// gg context too, set up as vgimg sets up its own (butt line caps, y up).
func canvasOn(rgba *image.RGBA, dpi int) *vgimg.Canvas {
	ctx := gg.NewContextForRGBA(rgba)
	ctx.SetLineCapButt()
	ctx.InvertY()
	c := vgimg.NewWith(vgimg.UseImageWithContext(rgba, ctx), vgimg.UseDPI(dpi))
	// NewWith cleared the image to white: UseImageWithContext cannot be
	// given a background colour.
	imagedraw.Draw(rgba, rgba.Bounds(), &image.Uniform{cardColor}, image.Point{}, imagedraw.Src)
	return c
}

// cardPNG is a card's image as PNG bytes; the image goes back to the pool.
func cardPNG(img *vgimg.Canvas) ([]byte, error) {
	rgba := img.Image().(*image.RGBA)
	defer func() {
		if kept, ok := images[rgba.Bounds().Dy()]; ok {
			kept.put(rgba)
		}
	}()
	var buf bytes.Buffer
	if err := encodePNG(&buf, rgba); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodePNG writes img to w as a PNG compressed at the fastest level: at
// the default level, compressing took two thirds of a chart's drawing, and
// charts are drawn beside the replies the bot owes.
func encodePNG(w io.Writer, img image.Image) error {
	return encoder.Encode(w, img)
}

// encoderBuffers keeps the PNG encoder's buffers (png.EncoderBufferPool)
// in a spare.
type encoderBuffers spare[*png.EncoderBuffer]

func (e encoderBuffers) Get() *png.EncoderBuffer {
	b, _ := spare[*png.EncoderBuffer](e).get()
	return b
}

func (e encoderBuffers) Put(b *png.EncoderBuffer) { spare[*png.EncoderBuffer](e).put(b) }

// newPlot is a plot in the card's colours.
func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = color.Transparent
	p.Title.Text = title
	p.Title.TextStyle.Color = textColor
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Y.Label.Text = ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Color = textColor
		ax.Label.TextStyle.Color = textColor
		ax.Tick.Label.Color = textColor
		ax.Tick.Label.Font.Size = vg.Points(10)
		ax.Tick.Color = textColor
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = gridColor
	p.Add(grid)
	return p
}

// accuracyPlot is the accuracy per topic, in percent.
func accuracyPlot(topics []questions.TopicReadiness) (*plot.Plot, error) {
	var shown []questions.TopicReadiness
	for _, t := range topics {
		if t.Answers > 0 {
			shown = append(shown, t)
		}
	}
	if len(shown) > MaxTopics {
		// Keep the most answered topics, in their given order.
		keep := map[string]bool{}
		order := append([]questions.TopicReadiness(nil), shown...)
		sortByAnswers(order)
		for _, t := range order[:MaxTopics] {
			keep[t.Topic] = true
		}
		var kept []questions.TopicReadiness
		for _, t := range shown {
			if keep[t.Topic] {
				kept = append(kept, t)
			}
		}
		shown = kept
	}
	p := newPlot("Accuracy per topic", "%")
	p.Y.Min, p.Y.Max = 0, 100
	if len(shown) == 0 {
		p.NominalX("no answers yet")
		return p, nil
	}
	vals := make(plotter.Values, len(shown))
	names := make([]string, len(shown))
	for i, t := range shown {
		vals[i] = 100 * t.Accuracy()
		names[i] = shorten(topicName(t.Topic), 14)
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(min(40, 480/float64(len(shown)))))
	if err != nil {
		return nil, err
	}
	bars.Color = accColor
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalX(names...)
	if len(shown) > 4 {
		// Slanted labels, so long topic names do not run into each other.
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	return p, nil
}

// daysPlot is the answers per day, right stacked under wrong.
func daysPlot(days []questions.DayCount) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("Answers per day, last %d days", len(days)), "answers")
	if len(days) == 0 {
		p.NominalX("no days")
		return p, nil
	}
	right := make(plotter.Values, len(days))
	wrong := make(plotter.Values, len(days))
	names := make([]string, len(days))
	most := 0
	for i, d := range days {
		right[i] = float64(d.Right)
		wrong[i] = float64(d.Answers - d.Right)
		most = max(most, d.Answers)
		if i%5 == (len(days)-1)%5 && len(d.Date) == 10 {
			names[i] = d.Date[5:] // MM-DD, every fifth day ending today
		}
	}
	width := vg.Points(min(16, 560/float64(len(days))))
	rb, err := plotter.NewBarChart(right, width)
	if err != nil {
		return nil, err
	}
	wb, err := plotter.NewBarChart(wrong, width)
	if err != nil {
		return nil, err
	}
	rb.Color, wb.Color = rightColor, wrongColor
	rb.LineStyle.Width, wb.LineStyle.Width = 0, 0
	wb.StackOn(rb)
	p.Add(rb, wb)
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = 0, float64(max(most, 4))*1.3 // headroom for the legend
	p.Y.Tick.Marker = wholeTicks{}
	p.Legend.Add("right", rb)
	p.Legend.Add("wrong", wb)
	p.Legend.Top = true
	p.Legend.TextStyle.Color = textColor
	return p, nil
}

// wholeTicks marks an axis of counts with whole numbers only: gonum's
// default ticks label 0 to 5.2 as 0.00, 2.50, 5.00.
type wholeTicks struct{}

// Ticks marks every step from lo to hi, the step the smallest of 1, 2, 5,
// 10, 20, 50, … that needs at most 6 labels.
func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return nil
	}
	step := 1.0
	for span/step > 6 {
		switch m := step / math.Pow(10, math.Floor(math.Log10(step))); {
		case m < 2:
			step *= 2
		case m < 5:
			step = step / 2 * 5
		default:
			step *= 2
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

func topicName(t string) string {
	if t == "" {
		return "all"
	}
	return t
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

func sortByAnswers(ts []questions.TopicReadiness) {
	slices.SortStableFunc(ts, func(a, b questions.TopicReadiness) int { return cmp.Compare(b.Answers, a.Answers) })
}
