package questions

import (
	"reflect"
	"testing"
)

func TestParseGIFTDocExample(t *testing.T) {
	data := lines(
		"// cloud basics, exported from Moodle", // 1
		"::Latency 1::Which of these reduce latency for distant users? {",
		"  ~%50%Serving static assets from a CDN #Edge caches answer from near the user.",
		"  ~%-100%Doubling origin CPU #CPU does not shorten a round trip.",
		"  ~%50%Read replicas near users #Local reads replace cross-region ones.", // 5
		"  ####Moving data closer to users shortens the network path.",
		"}",
		"",
		"::DNS::Which protocol resolves a host name? {=DNS ~ARP ~SMTP}",
	)
	banks, ps := ParseGIFT("dir/cloud-basics.gift", data)
	checkProblems(t, ps, nil)
	want := []Bank{{Name: "cloud-basics", Path: "dir/cloud-basics.gift", Questions: []Question{{
		ID: "cloud-basics#Latency 1", Bank: "cloud-basics", Number: 1,
		Stem: "Which of these reduce latency for distant users?",
		Options: []Option{
			{Letter: "A", Text: "Serving static assets from a CDN", Correct: true, Rationale: "Edge caches answer from near the user."},
			{Letter: "B", Text: "Doubling origin CPU", Rationale: "CPU does not shorten a round trip."},
			{Letter: "C", Text: "Read replicas near users", Correct: true, Rationale: "Local reads replace cross-region ones."},
		},
		Explanation: "Moving data closer to users shortens the network path.",
		Line:        2,
	}, {
		ID: "cloud-basics#DNS", Bank: "cloud-basics", Number: 2,
		Stem:    "Which protocol resolves a host name?",
		Options: []Option{{Letter: "A", Text: "DNS", Correct: true}, {Letter: "B", Text: "ARP"}, {Letter: "C", Text: "SMTP"}},
		Line:    9,
	}}}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}
}

func TestParseGIFTFeatures(t *testing.T) {
	tests := []struct {
		name  string
		data  []byte
		check func(t *testing.T, b []Bank)
	}{
		{
			name: "true/false",
			data: lines("Is DNS a protocol?{T}", "", "::tf2::Is ARP routed?{FALSE#It is, sometimes.#Right: link-local only.}", "", "Third{TRUE}", "", "Fourth {F}"),
			check: func(t *testing.T, b []Bank) {
				qs := b[0].Questions
				if len(qs) != 4 {
					t.Fatalf("got %d questions, want 4", len(qs))
				}
				wantOpts := []Option{{Letter: "A", Text: "True", Rationale: "It is, sometimes."}, {Letter: "B", Text: "False", Correct: true, Rationale: "Right: link-local only."}}
				if !reflect.DeepEqual(qs[1].Options, wantOpts) {
					t.Errorf("got %s, want %s", dump(qs[1].Options), dump(wantOpts))
				}
				if !qs[0].Options[0].Correct || !qs[2].Options[0].Correct || !qs[3].Options[1].Correct {
					t.Errorf("got %s, want T, TRUE, F", dump(qs))
				}
				if qs[0].ID != "t#9b1c26aa" || qs[1].ID != "t#tf2" || qs[3].Number != 4 {
					t.Errorf("got IDs %q %q, want t#9b1c26aa t#tf2", qs[0].ID, qs[1].ID)
				}
			},
		},
		{
			name: "categories name the banks",
			data: lines("Before {=a ~b}", "", "$CATEGORY: $course$/top/Networking", "", "One {=a ~b}", "", "$CATEGORY: Security", "Two {=a ~b}", "", "Three {=a ~b}"),
			check: func(t *testing.T, b []Bank) {
				if len(b) != 3 || b[0].Name != "t" || b[1].Name != "Networking" || b[2].Name != "Security" {
					t.Fatalf("got %s, want banks t, Networking, Security", dump(b))
				}
				if q := b[2].Questions[1]; q.ID != "Security#926f52d1" || q.Number != 2 || q.Line != 10 {
					t.Errorf("got %s number %d line %d, want Security#926f52d1 number 2 line 10", q.ID, q.Number, q.Line)
				}
			},
		},
		{
			name: "escapes, comments, format marker, multi-line block",
			data: lines(
				"// a comment",
				"::a\\:b::[markdown]What is 1\\=1 \\{really\\}?{",
				"// a comment inside the block",
				"",
				"=yes \\~ sure #because 1\\#1",
				"~no",
				"}",
			),
			check: func(t *testing.T, b []Bank) {
				q := b[0].Questions[0]
				if q.ID != "t#a:b" || q.Stem != "What is 1=1 {really}?" || q.Options[0].Text != "yes ~ sure" || q.Options[0].Rationale != "because 1#1" || q.Line != 2 {
					t.Errorf("got %s", dump(q))
				}
			},
		},
		{
			name: "weights with decimals",
			data: lines("Q{~%33.33333%a ~%33.33333%b ~%33.33334%c ~%-100%d ~e}"),
			check: func(t *testing.T, b []Bank) {
				if got := b[0].Questions[0].Correct(); !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
					t.Errorf("got %v, want [A B C]", got)
				}
			},
		},
		{
			name: "CRLF and a byte-order mark",
			data: []byte("\uFEFF::x::Q?{=a ~b}\r\n\r\n::y::R?{\r\n=a\r\n~b\r\n}"),
			check: func(t *testing.T, b []Bank) {
				if len(b[0].Questions) != 2 || b[0].Questions[1].Line != 3 || b[0].Questions[1].Options[1].Text != "b" {
					t.Errorf("got %s", dump(b))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseGIFT("t.gift", tt.data)
			checkProblems(t, ps, nil)
			checkInvariants(t, banks, ps)
			if len(banks) == 0 {
				t.Fatal("got no banks")
			}
			tt.check(t, banks)
		})
	}
}

func TestParseGIFTProblems(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []want
	}{
		{
			name: "unsupported types, each at its line",
			data: lines(
				"::sa::Capital of France? {=Paris =paris}", // 1
				"",
				"::num::2+2? {#4:0}",
				"",
				"::match::Pair them {", // 5
				"=a -> 1",
				"=b -> 2",
				"}",
				"",
				"::essay::Write about DNS {}", // 10
				"",
				"::mw::DNS is {=a ~b} protocol.",
				"",
				"Just a description",
				"", // 15
				"::ok::Fine {=a ~b}",
			),
			want: []want{
				{1, "skipped: unsupported GIFT question type (short answer)"},
				{3, "skipped: unsupported GIFT question type (numerical)"},
				{5, "skipped: unsupported GIFT question type (matching)"},
				{10, "skipped: unsupported GIFT question type (essay)"},
				{12, "skipped: unsupported GIFT question type (missing word"},
				{14, "skipped: unsupported GIFT question type (description"},
			},
		},
		{
			name: "broken multiple choice",
			data: lines(
				"::one::Only one? {=a}", // 1: short answer (no ~)
				"",
				"::none::No right? {~a ~b}",
				"",
				"::empty::Empty answer? {=a ~ ~c}", // 5
				"",
				"::w::Bad weight {~%abc%a =b}",
				"",
				"::two::Two equals, a multiple-answer question {=a =b ~c}",
				"", // 10
				"{=a ~b}",
				"",
				"::lead::Text first {a =b ~c}",
			),
			want: []want{
				{1, "short answer"},
				{3, "no right answer"},
				{5, "answer B has no text"},
				{7, "weight %abc% is not a percentage"},
				{11, "the question has no text"},
				{13, "text before the first answer"},
			},
		},
		{
			name: "multi-line answer block reports the answer's line",
			data: lines("::m::Many lines {", "~%50%a", "~%50%", "~%-100%c", "}"),
			want: []want{{3, "answer B has no text"}},
		},
		{
			name: "unclosed blocks do not swallow the next question",
			data: lines("::a::Open {=a ~b", "", "::b::Fine {=a ~b}", "", "::c:: Unclosed title {=a ~b}"),
			want: []want{{1, "unclosed answer block {"}},
		},
		{
			name: "unclosed title",
			data: lines("::a:Fine {=a ~b}"),
			want: []want{{1, "unclosed ::title::"}},
		},
		{
			name: "duplicate titles",
			data: lines("::a::Fine {=a ~b}", "", "::a::Again {=a ~b}"),
			want: []want{{3, `question id "t#a" used twice (first at line 1)`}},
		},
		{
			name: "more than 25 answers",
			data: lines("Many {=a ~b ~c ~d ~e ~f ~g ~h ~i ~j ~k ~l ~m ~n ~o ~p ~q ~r ~s ~t ~u ~v ~w ~x ~y", "~z}"),
			want: []want{{2, "more than 25 answers"}},
		},
		{
			name: "empty category, empty file",
			data: lines("$CATEGORY: ", "// nothing"),
			want: []want{{1, "$CATEGORY has no name"}},
		},
		{
			name: "nothing at all",
			data: lines("// only a comment"),
			want: []want{{0, "no questions found"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseGIFT("t.gift", tt.data)
			checkProblems(t, ps, tt.want)
			checkInvariants(t, banks, ps)
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
