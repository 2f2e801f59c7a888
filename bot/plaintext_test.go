package bot

import (
	"regexp"
	"strings"
	"testing"
)

func TestPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"**bold** and *it* and _it_ and __under__ and ~~gone~~ and ||secret||", "bold and it and it and under and gone and secret"},
		{"the `list` type", "the list type"},
		{"```python\nprint(1)\n```", "print(1)"},
		{"```\nx = 1\n```", "x = 1"},
		{"code `a*b*c` kept", "code a*b*c kept"},
		{"[the docs](https://example.com) say", "the docs say"},
		{"# Heading\n> quoted\n>>> more\n- item", "Heading quoted more item"},
		{"snake_case_name stays", "snake_case_name stays"},
		{`an \*escaped\* star`, "an *escaped* star"},
		{"  lots \n\n of\tspace  ", "lots of space"},
		{"2 * 3 * 4", "2 * 3 * 4"},
	}
	for _, tt := range tests {
		if got := plainMarkdown(tt.in); got != tt.want {
			t.Errorf("plainMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := plainText(tt.in); got != tt.want {
			t.Errorf("plainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := optionLabel("A", strings.Repeat("**word** ", 40)); runes(got) != maxLabel || !strings.HasPrefix(got, "A · word word") || strings.Contains(got, "*") {
		t.Errorf("long label %q (%d runes), want 100 runes of plain text", got, runes(got))
	}
	if got := optionLabel("B", "```\n```"); got != "B" {
		t.Errorf("label of an option with no text but marks: %q, want the letter", got)
	}
}

// FuzzPlainTextFastPath: a text without marks reads the same through the
// fast path as through the full removal of markdown.
func FuzzPlainTextFastPath(f *testing.F) {
	for _, s := range []string{"plain words", "  lots \n\n of\tspace  ", "2 * 3", "a\r\nb", "x\x00sy", "Option (A): 100% — ünïcode", "snake_case"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := plainText(s), plainMarkdown(s); got != want {
			t.Errorf("plainText(%q) = %q, plainMarkdown gives %q", s, got, want)
		}
	})
}

// FuzzPatternSkips: plainMarkdown skips a pattern that starts with no fixed
// text only when the text cannot match it.
func FuzzPatternSkips(f *testing.F) {
	for _, s := range []string{"# Title", "  -# small", "x\n> quote", "\t- item\n+ item", "* one", "a_b_c", "_x_ and _y_",
		"line\n   #", "no marks here", "- ", "a - b > c # d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []struct {
			name string
			re   *regexp.Regexp
			skip bool
		}{
			{"heading", headingRE, !lineStartsWith(s, "#-")},
			{"quote", quoteRE, !lineStartsWith(s, ">")},
			{"list", listRE, !lineStartsWith(s, "-*+")},
			{"underscore emphasis", emphUnderRE, strings.Count(s, "_") < 2},
		} {
			if p.skip && p.re.MatchString(s) {
				t.Errorf("%q: the %s pattern is skipped, and matches", s, p.name)
			}
		}
	})
}

// FuzzFences: replaceFences takes for a code block what the regular
// expression it stands for matches, and its body from the group.
func FuzzFences(f *testing.F) {
	fencedRE := regexp.MustCompile("(?s)```(?:[A-Za-z0-9_+#.-]*\n)?(.*?)```")
	for _, s := range []string{"```python\nprint(1)\n```", "``````", "````a\n```", "```go\nx```y```", "```go```",
		"x```\n```", "```a\nb", "````\n```", "```c++\nx\n``` and ```\ny```", "no fence"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag := func(body string) string { return "<" + body + ">" }
		want := fencedRE.ReplaceAllStringFunc(s, func(m string) string { return tag(fencedRE.FindStringSubmatch(m)[1]) })
		if got := replaceFences(s, tag); got != want {
			t.Errorf("replaceFences(%q) = %q, the regular expression gives %q", s, got, want)
		}
	})
}

// FuzzCollapseSpace: collapseSpace is strings.Fields joined with spaces.
func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{"", " a  b ", "\u00a0x\u0085y\u2028z", "\xff \xfe", "a\tb\nc\v\f\r", "日本 語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}
