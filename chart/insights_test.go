package chart

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// TestRenderBank decodes the bank chart: its size, opaque pixels, the
// card colour, and marks in the colours of plain and flagged questions
// exactly when there are such questions.
func TestRenderBank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		items         []Item
		plain, marked bool
	}{
		{"none", nil, false, false},
		{"plain", []Item{{Facility: 0.8, Discrimination: 0.4}, {Facility: 0.5, Discrimination: 0.2}}, true, false},
		{"flagged", []Item{{Facility: 0.8, Discrimination: 0.4}, {Facility: 0.1, Discrimination: -0.5, Flagged: true}}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := RenderBank("AWS", tt.items)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if got := img.Bounds().Size(); got != (image.Point{Width, Height}) {
				t.Errorf("size: got %v, want %dx%d", got, Width, Height)
			}
			counts := opaqueColours(t, img)
			if counts[cardColor] < Width*Height/3 {
				t.Errorf("card colour covers %d pixels, want most of the image", counts[cardColor])
			}
			if got := counts[accColor] > 10; got != tt.plain {
				t.Errorf("question marks on %d pixels; want drawn: %v", counts[accColor], tt.plain)
			}
			if got := counts[wrongColor] > 10; got != tt.marked {
				t.Errorf("flagged marks on %d pixels; want drawn: %v", counts[wrongColor], tt.marked)
			}
		})
	}
}
