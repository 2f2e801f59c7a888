package questions

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

// notepadUnicode encodes s as Windows Notepad's "Unicode" encoding writes
// it: UTF-16 little-endian with a byte-order mark and CRLF line endings.
func notepadUnicode(s string) []byte {
	s = strings.ReplaceAll(s, "\n", "\r\n")
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// utf16BE encodes s as UTF-16 big-endian with a byte-order mark.
func utf16BE(s string) []byte {
	out := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u>>8), byte(u))
	}
	return out
}

// A file saved as UTF-16 with a byte-order mark parses exactly as the same
// text saved as UTF-8, in every format: accents, a character outside the
// Basic Multilingual Plane (a surrogate pair) and CRLF included.
func TestUTF16WithBOMIsDecoded(t *testing.T) {
	tests := []struct{ path, text string }{
		{"b.txt", "Café Question 1\nSelect 1Which emoji is a rocket? 🚀\n- A\n🚀\n- B\n🚗\nCorrect answer: A\nExplanation\nIt’s the rocket.\n"},
		{"b.yaml", "bank: Café\nquestions:\n  - question: Which emoji is a rocket? 🚀\n    options:\n      - {text: \"🚀\", correct: true}\n      - {text: \"🚗\"}\n"},
		{"b.json", `{"bank": "Café", "questions": [{"question": "Which emoji is a rocket? 🚀", "options": [{"text": "🚀", "correct": true}, {"text": "🚗"}]}]}`},
		{"b.gift", "$CATEGORY: Café\n\n::Rocket::Which emoji is a rocket? 🚀 {=🚀 ~🚗}\n"},
		{"b.csv", "bank,question,A,B,answer\nCafé,\"Which emoji\nis a rocket? 🚀\",🚀,🚗,A\n"},
	}
	for _, tt := range tests {
		want, wps := ParseFile(tt.path, []byte(tt.text), ParseOptions{})
		if err := wps.Err(); err != nil || len(want) == 0 {
			t.Fatalf("%s as UTF-8: %v, %s", tt.path, err, dump(want))
		}
		for name, data := range map[string][]byte{"UTF-16LE with CRLF": notepadUnicode(tt.text), "UTF-16BE": utf16BE(tt.text)} {
			got, ps := ParseFile(tt.path, data, ParseOptions{})
			if len(ps) != len(wps) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s as %s: got %s and %v, want %s", tt.path, name, dump(got), ps, dump(want))
			}
		}
	}
}

func TestEncodingRefused(t *testing.T) {
	// Windows-1252, as Notepad's "ANSI" or Excel's "CSV" saves it: curly
	// quotes 0x92, 0x93, 0x94, é 0xE9, an en dash 0x96.
	cp1252 := []byte("Caf\xe9 Question 1\r\nSelect 1Which service is \x93serverless\x94?\r\n- A\r\nAWS Lambda \x96 functions\r\n- B\r\nAmazon EC2\r\nCorrect answer: A\r\nExplanation\r\nLambda\x92s functions run without servers.\r\n")
	// Latin-1 (ISO-8859-1): accents only.
	latin1 := []byte("Caf\xe9 Question 1\nSelect 1Qu'est-ce qu'un r\xe9seau ?\n- A\nUn \xe9change\n- B\nRien\nCorrect answer: A\n")
	// Shift-JIS: 日本語の質問です (Japanese).
	sjis := []byte("B Question 1\nSelect 1\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x8e\xbf\x96\xe2\x82\xc5\x82\xb7\n- A\na\n- B\nb\nCorrect answer: A\n")
	var many []byte
	for range 40 {
		many = append(many, "caf\xe9\n"...)
	}
	tests := []struct {
		name string
		path string
		data []byte
		want []want
	}{
		{"Windows-1252", "b.txt", cp1252, []want{
			{1, "not valid UTF-8: this looks like Windows-1252 (bytes such as 0x93 are its curly quote “); save the file as UTF-8 (4 lines have such bytes)"},
			{2, "not valid UTF-8 (byte 0x93, “ in Windows-1252)"},
			{4, "not valid UTF-8 (byte 0x96, – in Windows-1252)"},
			{9, "not valid UTF-8 (byte 0x92, ’ in Windows-1252)"},
		}},
		{"Latin-1", "b.txt", latin1, []want{
			{1, "not valid UTF-8: this looks like Latin-1 (ISO-8859-1) (bytes such as 0xE9 are its é); save the file as UTF-8 (3 lines have such bytes)"},
			{2, "not valid UTF-8 (byte 0xE9, é in Latin-1 (ISO-8859-1))"},
			{4, "not valid UTF-8 (byte 0xE9, é in Latin-1 (ISO-8859-1))"},
		}},
		{"Shift-JIS", "b.txt", sjis, []want{
			{2, "this looks like a double-byte code page (Shift-JIS, GBK, Big5 or EUC-KR) (bytes such as 0x93 0xFA)"},
		}},
		{"a few lines of many, all counted", "b.yaml", many, []want{
			{1, "(40 lines have such bytes)"}, {2, "byte 0xE9"}, {3, "byte 0xE9"}, {4, "byte 0xE9"}, {5, "byte 0xE9"},
		}},
		{"UTF-16LE without a byte-order mark", "b.txt", notepadUnicode("B Question 1\nSelect 1\n")[2:], []want{
			{0, "this looks like UTF-16 (little-endian) without a byte-order mark: every other byte is 0; save it as UTF-8"},
		}},
		{"UTF-16BE without a byte-order mark", "b.gift", utf16BE("::T::Q? {=a ~b}\n")[2:], []want{
			{0, "this looks like UTF-16 (big-endian) without a byte-order mark"},
		}},
		{"UTF-16 with an odd number of bytes", "b.txt", append(notepadUnicode("B Question 1\nSelect 1\n"), 'x'), []want{
			{3, "the file ends in the middle of a character"},
		}},
		{"UTF-16 with a lone surrogate", "b.txt", append(notepadUnicode("B Question 1\n"), 0x3D, 0xD8, 'x', 0), []want{
			{2, "a lone surrogate (0xD83D)"},
		}},
		{"UTF-32", "b.json", []byte{0xFF, 0xFE, 0, 0, '{', 0, 0, 0}, []want{{0, "this file is UTF-32; save it as UTF-8"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile(tt.path, tt.data, ParseOptions{})
			checkProblems(t, ps, tt.want)
			if len(banks) != 0 {
				t.Errorf("got banks %s, want none", dump(banks))
			}
		})
	}
}

// A text that is mostly ASCII with NUL bytes here and there is not taken
// for UTF-16.
func TestUTF16SniffNeedsPairs(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 100)
	data[10], data[500] = 0, 0
	if got := utf16Sniff(data); got != "" {
		t.Errorf("got %q, want no UTF-16", got)
	}
}
