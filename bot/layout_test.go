package bot

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// readAs is what a text reads as for comparing it with its pieces: without
// the ``` fences a cut closes and reopens code blocks with (each with the
// language tag after it), nor white space. One pass, one allocation: the
// render tests read every text they check.
func readAs(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '`' && strings.HasPrefix(s[i:], "```"):
			for i += 3; i < len(s) && isFenceLang(s[i]); i++ {
			}
		case c < utf8.RuneSelf: // every unicode.IsSpace out, ASCII without decoding
			if c != ' ' && (c < '\t' || c > '\r') {
				b.WriteByte(c)
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

func TestSplitText(t *testing.T) {
	t.Parallel()
	para := func(c string, n int) string { return strings.Repeat(c, n) }
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 100, nil},
		{"only space", " \n\t ", 100, nil},
		{"fits", "  short text\n", 100, []string{"short text"}},
		{"exactly max", para("a", 100), 100, []string{para("a", 100)}},
		{"paragraphs", para("a", 60) + "\n\n" + para("b", 60) + "\n\n" + para("c", 30), 100,
			[]string{para("a", 60), para("b", 60) + "\n\n" + para("c", 30)}},
		{"a paragraph in the second half before a line break", para("a", 55) + "\n\n" + para("b", 20) + "\n" + para("c", 50), 100,
			[]string{para("a", 55), para("b", 20) + "\n" + para("c", 50)}},
		{"a line break when no paragraph is late enough", para("a", 10) + "\n\n" + para("b", 60) + "\n" + para("c", 50), 100,
			[]string{para("a", 10) + "\n\n" + para("b", 60), para("c", 50)}},
		{"words", strings.Repeat("word ", 30), 100,
			[]string{strings.TrimSpace(strings.Repeat("word ", 20)), strings.TrimSpace(strings.Repeat("word ", 10))}},
		{"no space: anywhere", para("x", 250), 100, []string{para("x", 100), para("x", 100), para("x", 50)}},
		{"runes, not bytes", para("é", 150), 100, []string{para("é", 100), para("é", 50)}},
		{"a code block that fits a piece starts one",
			"Look:\n```go\n" + para("x", 34) + "\n" + para("y", 34) + "\n```\nDone.", 80,
			[]string{"Look:", "```go\n" + para("x", 34) + "\n" + para("y", 34) + "\n```", "Done."}},
		{"a code block longer than a piece is closed and reopened",
			"```python\n" + para("a", 40) + "\n" + para("b", 40) + "\n" + para("c", 40) + "\n```", 100,
			[]string{"```python\n" + para("a", 40) + "\n" + para("b", 40) + "\n```", "```python\n" + para("c", 40) + "\n```"}},
		{"a block is not cut before its closing fence",
			"```\n" + para("a", 45) + "\n" + para("b", 45) + "\n```" + para("c", 20), 100,
			[]string{"```\n" + para("a", 45) + "\n```", "```\n" + para("b", 45) + "\n```" + para("c", 20)}},
		{"a long info string is not reopened",
			"```" + para("i", 30) + "\n" + para("a", 50) + "\n" + para("b", 50) + "\n```", 100,
			[]string{"```" + para("i", 30) + "\n" + para("a", 50) + "\n```", "```\n" + para("b", 50) + "\n```"}},
		{"a fenced line of its own does not open a block", "```one line```\n" + para("a", 60) + "\n" + para("b", 60), 100,
			[]string{"```one line```\n" + para("a", 60), para("b", 60)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitText(tt.in, tt.max)
			if strings.Join(got, "\n|\n") != strings.Join(tt.want, "\n|\n") || len(got) != len(tt.want) {
				t.Errorf("got %d pieces\n%s\nwant %d\n%s", len(got), strings.Join(got, "\n|\n"), len(tt.want), strings.Join(tt.want, "\n|\n"))
			}
			for i, p := range got {
				if n := runes(p); n > tt.max {
					t.Errorf("piece %d is %d runes, want ≤ %d", i, n, tt.max)
				}
			}
			if readAs(strings.Join(got, "\n")) != readAs(tt.in) {
				t.Errorf("pieces read %q, want %q", readAs(strings.Join(got, "\n")), readAs(tt.in))
			}
		})
	}
}

// FuzzSplitText: whatever the text, every piece fits and the pieces read
// as the text did, in order.
func FuzzSplitText(f *testing.F) {
	f.Add("Intro\n\n```go\nfunc f() {\n\treturn\n}\n```\n\nMore text here.", 64)
	f.Add(strings.Repeat("é word ", 300), 100)
	f.Add(strings.Repeat("```\n"+strings.Repeat("x", 70)+"\n", 20), 64)
	f.Add(strings.Repeat("a\n\n", 200), 64)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 64 || limit > 5000 || !utf8Valid(s) {
			return
		}
		got := splitText(s, limit)
		for i, p := range got {
			if n := runes(p); n > limit || strings.TrimSpace(p) == "" || p != strings.TrimSpace(p) {
				t.Fatalf("piece %d: %d runes %q, want 1..%d, trimmed", i, n, p, limit)
			}
		}
		// The pieces hold every character of s in order, besides white
		// space and fences, and nothing else but the language names of
		// reopened code blocks.
		strip := func(s string) []rune {
			return []rune(strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) || r == '`' {
					return -1
				}
				return r
			}, s))
		}
		want, have := strip(s), strip(strings.Join(got, "\n"))
		i := 0
		for _, r := range have {
			if i < len(want) && r == want[i] {
				i++
			}
		}
		if i < len(want) || len(have)-len(want) > max(0, len(got)-1)*maxFenceInfo {
			t.Fatalf("pieces %q do not read as %q", got, s)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestPackEmbeds(t *testing.T) {
	t.Parallel()
	field := func(n int) block {
		return block{field: &discordgo.MessageEmbedField{Name: "f", Value: strings.Repeat("v", n-1)}}
	}
	tests := []struct {
		name        string
		blocks      []block
		room, slots int
		want        [][]int // per message, per embed: the number of fields
	}{
		{"all in the first", []block{{title: "T", desc: "d"}, field(10), field(10)}, 6000, 10, [][]int{{2}}},
		{"none in a full first message", []block{{title: "T", desc: "d"}, field(10)}, 1, 10, [][]int{nil, {1}}},
		{"no embed slot left", []block{{title: "T", desc: "d"}}, 6000, 0, [][]int{nil, {0}}},
		{"fields carry on in the next message", []block{{title: "T", desc: strings.Repeat("d", 3998)}, field(1024), field(1024), field(1024)}, 6000, 10,
			[][]int{{1}, {2}}},
		{"25 fields an embed", append([]block{{title: "T"}}, repeatBlock(field(10), 30)...), 6000, 10, [][]int{{25, 5}}},
		{"a new description starts an embed", []block{{title: "T", desc: "a"}, field(10), {desc: "b"}, field(10)}, 6000, 10, [][]int{{1, 1}}},
		{"ten embeds a message", repeatBlock(block{desc: "d"}, 12), 6000, 10, [][]int{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := packEmbeds(tt.blocks, tt.room, tt.slots)
			var got [][]int
			for _, m := range msgs {
				var fields []int
				for _, e := range m {
					fields = append(fields, len(e.Fields))
				}
				got = append(got, fields)
			}
			if !equalShape(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			for i, m := range msgs {
				limit := maxEmbedTotal
				if i == 0 {
					limit = tt.room
				}
				if n := embedsSize(m); n > limit {
					t.Errorf("message %d holds %d characters, want ≤ %d", i, n, limit)
				}
			}
		})
	}
}

func repeatBlock(b block, n int) []block {
	out := make([]block, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func equalShape(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}
