package questions

import (
	"bytes"
	"encoding/csv"
	"html"
	"slices"
	"strings"
	"testing"
)

// TestAnkiFile checks the file against Anki's documented text import
// (docs.ankiweb.net, Importing › Text Files › File Headers): header lines
// "#key:value" at the top, the separator set before the columns are named
// with it, html true; then one line per note with exactly the named
// columns, read back here as a tab-separated file (encoding/csv, the
// header lines as comments). Fields are HTML: escaped, line breaks as
// <br>, no tab or quote that would split or quote a field.
func TestAnkiFile(t *testing.T) {
	qs := []*Question{
		{ID: "a#1", Bank: "AWS Cloud Practitioner", Number: 12, Stem: "Which \"two\" store objects?\nPick <both> & more\tnow.",
			Options: []Option{
				{Letter: "A", Text: "Amazon S3", Correct: true, Rationale: "S3 is object storage."},
				{Letter: "B", Text: "Amazon EC2", Rationale: "EC2 is compute."},
				{Letter: "C", Text: "S3 Glacier", Correct: true},
			},
			Explanation: "Objects live in buckets.\r\nOr vaults.", Tags: []string{"storage", "Cloud Concepts", "storage"}},
		{ID: "b#1", Bank: "Net", Number: 1, Stem: `"Quoted" first`, Options: []Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y", Correct: true}}},
	}
	data := AnkiFile("quizhost::Misses", qs)
	lines := strings.Split(string(data), "\n")
	wantHeaders := []string{"#separator:tab", "#html:true", "#notetype:Basic", "#deck:quizhost::Misses", "#tags column:3", "#columns:Front\tBack\tTags"}
	if !slices.Equal(lines[:len(wantHeaders)], wantHeaders) {
		t.Errorf("header lines:\n%q\nwant\n%q", lines[:len(wantHeaders)], wantHeaders)
	}
	documented := []string{"separator", "html", "tags", "columns", "notetype", "deck", "notetype column", "deck column", "tags column", "guid column"}
	for _, l := range lines[:len(wantHeaders)] {
		key, _, ok := strings.Cut(strings.TrimPrefix(l, "#"), ":")
		if !ok || !slices.Contains(documented, key) {
			t.Errorf("header %q: not a documented #key:value", l)
		}
	}
	if n := len(lines) - len(wantHeaders) - 1; n != len(qs) || lines[len(lines)-1] != "" {
		t.Errorf("%d note lines, want %d, one per question, each ended by a newline", n, len(qs))
	}

	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.Comment, r.FieldsPerRecord = '\t', '#', len(AnkiColumns)
	notes, err := r.ReadAll()
	if err != nil || len(notes) != len(qs) {
		t.Fatalf("read back as tab-separated: %d notes, %v; want %d", len(notes), err, len(qs))
	}
	plain := func(field string) string { return html.UnescapeString(strings.ReplaceAll(field, "<br>", "\n")) }
	for i, f := range notes {
		for j, field := range f {
			if strings.HasPrefix(field, `"`) || strings.ContainsAny(field, "\t\n\r\"") {
				t.Errorf("note %d column %d %q: a raw quote, tab or line break", i+1, j+1, field)
			}
		}
	}
	front, back, tags := notes[0][0], notes[0][1], notes[0][2]
	if strings.Contains(front, "<both>") || !strings.Contains(front, "&lt;both&gt; &amp; more&#9;now.") {
		t.Errorf("front %q: want the stem escaped as HTML", front)
	}
	for _, want := range []string{"AWS Cloud Practitioner · Question 12", qs[0].Stem, "A. Amazon S3", "B. Amazon EC2", "C. S3 Glacier", "Pick 2 answers."} {
		if !strings.Contains(plain(stripTags(front)), want) {
			t.Errorf("front lacks %q:\n%s", want, plain(stripTags(front)))
		}
	}
	for _, want := range []string{"Answer: A, C", "Objects live in buckets.\nOr vaults.", "✓ A. S3 is object storage.", "✗ B. EC2 is compute."} {
		if !strings.Contains(plain(stripTags(back)), want) {
			t.Errorf("back lacks %q:\n%s", want, plain(stripTags(back)))
		}
	}
	if tags != "AWS_Cloud_Practitioner storage Cloud_Concepts" {
		t.Errorf("tags %q, want the bank and topics, spaces as underscores, each once", tags)
	}
	if notes[1][0] == "" || strings.HasPrefix(notes[1][0], `"`) || notes[1][2] != "Net" || !strings.Contains(notes[1][1], "Answer: B") {
		t.Errorf("second note %q", notes[1])
	}
	if got := string(AnkiFile("a\tdeck\nname", nil)); !strings.Contains(got, "#deck:a deck name\n") || strings.Count(got, "\n") != 6 {
		t.Errorf("file without notes, deck with a tab and a newline:\n%s", got)
	}
}

// stripTags drops the markup Anki renders (bold, italics), leaving line
// breaks.
func stripTags(s string) string {
	return strings.NewReplacer("<b>", "", "</b>", "", "<i>", "", "</i>", "").Replace(s)
}
