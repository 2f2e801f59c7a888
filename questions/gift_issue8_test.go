package questions

import (
	"os"
	"reflect"
	"testing"
)

// testdata/moodle-export.gift is shaped like a Moodle export: a $CATEGORY,
// [html] on most questions, <pre> code written with \n escapes, entities,
// <br/>, several = answers, and the types quizhost skips.
func TestParseGIFTMoodleExport(t *testing.T) {
	const path = "testdata/moodle-export.gift"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	banks, ps := ParseFile(path, data, ParseOptions{})
	if err := ps.Err(); err != nil {
		t.Fatalf("got errors %v, want none", err)
	}
	wantWarnings := []string{
		path + ":39: warning: skipped: unsupported GIFT question type (essay)",
		path + ":42: warning: skipped: unsupported GIFT question type (matching)",
		path + ":49: warning: skipped: unsupported GIFT question type (numerical)",
		path + ":54: warning: skipped: unsupported GIFT question type (short answer)",
		path + ":60: warning: skipped: unsupported GIFT question type (description: no answer block {…})",
	}
	if got := problemStrings(ps.Warnings()); !reflect.DeepEqual(got, wantWarnings) {
		t.Errorf("got warnings %q, want %q", got, wantWarnings)
	}
	const bank = "Cloud 101 Networking"
	q := func(title string, number, line int, stem string, opts ...Option) Question {
		return Question{ID: bank + "#" + title, Bank: bank, Number: number, Stem: stem, Options: opts, Line: line}
	}
	dns := q("DNS", 1, 6, "Which protocol resolves a host name **before** a browser connects?",
		Option{Letter: "A", Text: "DNS", Correct: true, Rationale: "Right: DNS maps names to addresses."},
		Option{Letter: "B", Text: "ARP", Rationale: "ARP maps IP addresses to MAC addresses on a *local* link."},
		Option{Letter: "C", Text: "SMTP"})
	dns.Explanation = "Name resolution happens first.\nThen the TCP handshake."
	want := []Bank{{Name: bank, Path: path, Questions: []Question{
		dns,
		q("Python indentation", 2, 14, "What does this print?\n\n```\ndef f(xs):\n    total = 0\n    for x in xs:\n        if x < 3 && x > 0:\n            total += x\n    return total\n\nprint(f([1, 2, 5]))\n```",
			Option{Letter: "A", Text: "3", Correct: true},
			Option{Letter: "B", Text: "8", Rationale: "5 is not < 3."},
			Option{Letter: "C", Text: "0"}),
		q("Latency", 3, 21, "Which of these reduce latency for distant users? Choose **two**.",
			Option{Letter: "A", Text: "A CDN", Correct: true, Rationale: "Edge caches answer from near the user."},
			Option{Letter: "B", Text: "Doubling origin CPU"},
			Option{Letter: "C", Text: "Read replicas near users", Correct: true},
			Option{Letter: "D", Text: "A bigger TCP buffer on clients"}),
		q("Ports", 4, 29, "Which ports are well known?\n\n- pick all that apply",
			Option{Letter: "A", Text: "22 (SSH)", Correct: true},
			Option{Letter: "B", Text: "443 (HTTPS)", Correct: true},
			Option{Letter: "C", Text: "65000"}),
		q("TLS", 5, 36, "TLS 1.3 removed RSA key exchange.",
			Option{Letter: "A", Text: "True", Correct: true, Rationale: "Yes: only (EC)DHE remains."},
			Option{Letter: "B", Text: "False", Rationale: "It did remove it."}),
		q("Moodle format", 11, 63, "Which layer does IP work at?\nPick one.",
			Option{Letter: "A", Text: "Network", Correct: true},
			Option{Letter: "B", Text: "Transport"}),
	}}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}
}

func TestHTMLToMarkdown(t *testing.T) {
	tests := []struct {
		name, in string
		moodle   bool
		want     string
	}{
		{"paragraphs", "<p>One.</p><p>Two.</p>", false, "One.\n\nTwo."},
		{"inline", "<b>bold</b>, <strong>strong</strong>, <i>it</i>, <em>em</em>, <u>u</u>, <s>s</s>, <code>x := 1</code>", false, "**bold**, **strong**, *it*, *em*, __u__, ~~s~~, `x := 1`"},
		{"line breaks and white space", "a<br>b<br/>c<BR />  d\n  e", false, "a\nb\nc\nd e"},
		{"entities", "&lt;div&gt; &amp;&amp; &quot;q&quot; &#39;s&#39; caf&eacute; a&nbsp;b &#x2014;", false, "<div> && \"q\" 's' café a b —"},
		{"pre keeps indentation", "<p>Run:</p><pre><code class=\"py\">if x:\n    y()\n\n        z()</code></pre><p>after</p>", false, "Run:\n\n```\nif x:\n    y()\n\n        z()\n```\n\nafter"},
		{"lists", "<ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul>", false, "- one\n- two\n  1. a\n  2. b"},
		{"other tags dropped", "<span style=\"x\">a</span> <a href=\"https://x\">link</a> <img src=x> <script>alert(1)</script><style>p{}</style>b", false, "a link b"},
		{"not a tag", "a < b and c<d", false, "a < b and c<d"},
		{"comment", "a<!-- hidden -->b", false, "ab"},
		{"moodle line breaks", "one\ntwo <b>x</b>", true, "one\ntwo **x**"},
		{"heading", "<h3>Title</h3>text", false, "**Title**\n\ntext"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := htmlToMarkdown(tt.in, tt.moodle); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseGIFTSeparation(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		wantIDs []string
		want    []want
	}{
		{
			name:    "a titled question right after a closed block",
			data:    lines("::a::One? {=x ~y}", "::b::Two? {", "=x", "~y", "}", "::c::Three? {=x ~y}"),
			wantIDs: []string{"t#a", "t#b", "t#c"},
		},
		{
			name: "untitled questions without a blank line",
			data: lines("::a::One? {=x ~y}", "", "Two? {=x ~y}", "Three? {=x ~y}"),
			want: []want{{4, "a second answer block {…} in one question: GIFT questions are separated by a blank line; add one before the question starting here"}},
			// The first question still loads; the file has an error.
			wantIDs: []string{"t#a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseGIFT("t.gift", tt.data)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
			if got := ids(banks); !reflect.DeepEqual(got, tt.wantIDs) {
				t.Errorf("got %q, want %q", got, tt.wantIDs)
			}
		})
	}
}

// Plain and markdown GIFT text keeps the indentation of fenced code.
func TestParseGIFTCodeIndentation(t *testing.T) {
	data := lines(
		"::code::[markdown]What does this print?",
		"```",
		"for i in range(2):",
		"    print(i)",
		"```",
		"{=0 and 1 ~2}",
		"",
		"::esc::Escaped\\n```\\nif x\\:\\n    y\\n```{=a ~b}",
	)
	banks, ps := ParseGIFT("t.gift", data)
	checkProblems(t, ps, nil)
	if got, want := banks[0].Questions[0].Stem, "What does this print?\n```\nfor i in range(2):\n    print(i)\n```"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := banks[0].Questions[1].Stem, "Escaped\n```\nif x:\n    y\n```"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Skipped question types are warnings: the rest of the file loads.
func TestParseGIFTUnsupportedAreWarnings(t *testing.T) {
	banks, ps := ParseGIFT("t.gift", lines("::e::Essay {}", "", "::ok::Fine {=a ~b}"))
	if len(ps) != 1 || !ps[0].Warning || ps.Err() != nil {
		t.Errorf("got %v (warning %v), want one warning and no error", ps, len(ps) == 1 && ps[0].Warning)
	}
	if got := ids(banks); !reflect.DeepEqual(got, []string{"t#ok"}) {
		t.Errorf("got %q, want [t#ok]", got)
	}
}
