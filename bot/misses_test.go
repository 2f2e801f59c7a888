package bot

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

// TestMissesMessageFitsTheLimit: an export larger than the attachment
// limit sends the first questions that fit, and says so.
func TestMissesMessageFitsTheLimit(t *testing.T) {
	t.Parallel()
	var qs []*questions.Question
	for i := range 40 {
		qs = append(qs, &questions.Question{ID: fmt.Sprint(i), Bank: "B", Number: i + 1, Stem: strings.Repeat("word ", 40),
			Options: []questions.Option{{Letter: "A", Text: "yes", Correct: true}, {Letter: "B", Text: "no"}}})
	}
	whole := len(questions.AnkiFile(missesDeck, qs))
	for _, tt := range []struct {
		name  string
		limit int
		all   bool
	}{{"room for all", whole, true}, {"half the room", whole / 2, false}, {"room for one", 400, false}} {
		m := missesMessage(qs, 2, tt.limit)
		if len(m.files) != 1 {
			t.Fatalf("%s: %d files", tt.name, len(m.files))
		}
		data, _ := io.ReadAll(m.files[0].Reader)
		notes := strings.Count(string(data), "\n") - 6
		if len(data) > tt.limit || notes < 1 || (notes == len(qs)) != tt.all {
			t.Errorf("%s: %d bytes for a limit of %d, %d notes of %d", tt.name, len(data), tt.limit, notes, len(qs))
		}
		if cut := fmt.Sprintf("The first %d of your %d misses fit in one file", notes, len(qs)); tt.all == strings.Contains(m.content, cut) {
			t.Errorf("%s: %q, want the cut said only when there is one", tt.name, m.content)
		}
		if !strings.Contains(m.content, "2 questions open in the server right now are left out until they close.") || !m.ephemeral {
			t.Errorf("%s: %q", tt.name, m.content)
		}
	}
}
