package questions

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Text encodings. Every bank file is read as UTF-8, which is what Discord
// takes. Editors save other encodings too: Windows Notepad's "Unicode" is
// UTF-16 (little-endian, with a byte-order mark), older editors and Excel
// write the Windows code page (Windows-1252 in Western Europe and the
// Americas, whose curly quotes are the bytes 0x91 to 0x94). A UTF-16 file
// with a byte-order mark is decoded; any other encoding is refused with the
// one it most likely is named, so that its author knows what to change.

// maxEncodingLines is how many lines with bytes that are not UTF-8 are
// reported one by one; the first problem counts them all.
const maxEncodingLines = 5

// maxEncodingSample is how many bytes that are not UTF-8 the guess of a
// file's encoding looks at (the first of the file): enough to tell a
// code page, and a bound on what a file of nothing else costs.
const maxEncodingSample = 4096

// decodeText returns data as UTF-8 without a byte-order mark when it is
// UTF-16 with one, and data unchanged otherwise; problems say why a file
// cannot be read as text at all: UTF-32, UTF-16 without a byte-order mark
// (NUL bytes every other byte), or UTF-16 that ends in the middle of a
// character or holds a lone surrogate.
func decodeText(path string, data []byte) ([]byte, Problems) {
	var ps Problems
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		ps.add(path, 0, "this file is UTF-32; save it as UTF-8")
		return nil, ps
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(path, data[2:], false)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(path, data[2:], true)
	}
	if order := utf16Sniff(data); order != "" {
		ps.add(path, 0, "this looks like UTF-16 (%s) without a byte-order mark: every other byte is 0; save it as UTF-8", order)
		return nil, ps
	}
	return data, nil
}

// decodeUTF16 decodes UTF-16 text (after its byte-order mark) to UTF-8.
func decodeUTF16(path string, data []byte, bigEndian bool) ([]byte, Problems) {
	var ps Problems
	units := make([]uint16, len(data)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			units[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	line := 1
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case u == '\n':
			line++
		case utf16.IsSurrogate(rune(u)):
			if u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF {
				i++
				continue
			}
			ps.add(path, line, "not valid UTF-16: a lone surrogate (0x%04X); save the file as UTF-8", u)
			return nil, ps
		}
	}
	if len(data)%2 != 0 {
		ps.add(path, line, "not valid UTF-16: the file ends in the middle of a character (an odd number of bytes); save it as UTF-8")
		return nil, ps
	}
	out := []byte(string(utf16.Decode(units)))
	return out, nil
}

// utf16Sniff reports the byte order of UTF-16 text without a byte-order
// mark ("little-endian" or "big-endian"), recognised by its NUL bytes: in
// text mostly of ASCII characters, one byte of each pair is 0. It returns
// "" for anything else.
func utf16Sniff(data []byte) string {
	if bytes.IndexByte(data, 0) < 0 {
		return ""
	}
	sample := data[:min(len(data), 4096)]
	pairs := len(sample) / 2
	if pairs == 0 {
		return ""
	}
	var even, odd int // NUL bytes at even and odd offsets
	for i := 0; i+1 < len(sample); i += 2 {
		if sample[i] == 0 {
			even++
		}
		if sample[i+1] == 0 {
			odd++
		}
	}
	switch {
	case odd*10 >= pairs*4 && even*10 < pairs:
		return "little-endian"
	case even*10 >= pairs*4 && odd*10 < pairs:
		return "big-endian"
	}
	return ""
}

// checkUTF8 reports the lines of data that are not valid UTF-8: the first
// with the encoding the file most likely is and how many lines are
// affected, then a few more, each at its line, but not thousands. With max
// (ParseOptions.MaxProblems; 0: no bound) below that few, the first max
// are listed and a summary counts the others. What it keeps of the file
// is bounded too: the lines it lists, and the offsets of the first
// maxEncodingSample bytes that are not UTF-8, from which it guesses the
// encoding.
func checkUTF8(path string, data []byte, max int) Problems {
	if utf8.Valid(data) {
		return nil
	}
	type badLine struct {
		line int
		b    byte // its first byte that is not UTF-8
	}
	var bad []badLine // the first maxEncodingLines
	badLines := 0
	var invalid []int // the offsets of the first bytes that are not UTF-8
	line := 1
	lineBad := false
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == '\n':
			line++
			lineBad = false
		case r == utf8.RuneError && size == 1:
			if len(invalid) < maxEncodingSample {
				invalid = append(invalid, i)
			}
			if !lineBad {
				if badLines++; len(bad) < maxEncodingLines {
					bad = append(bad, badLine{line, data[i]})
				}
				lineBad = true
			}
		}
		i += size
	}
	enc := guessEncoding(data, invalid)
	var ps Problems
	var omitted omission
	count := "1 line has such bytes"
	if badLines > 1 {
		count = fmt.Sprintf("%d lines have such bytes", badLines)
	}
	ps.addMax(max, &omitted, path, bad[0].line, "not valid UTF-8: this looks like %s (%s); save the file as UTF-8 (%s)", enc.name, enc.example, count)
	for _, l := range bad[1:] {
		ps.addMax(max, &omitted, path, l.line, "not valid UTF-8 (byte 0x%02X%s)", l.b, enc.describe(l.b))
	}
	ps.omitted(path, omitted)
	return ps
}

// encodingGuess is the encoding a file that is not UTF-8 most likely is.
type encodingGuess struct {
	name    string // "Windows-1252"
	example string // "bytes such as 0x92 are its ’ curly quotes"
	single  bool   // a single-byte code page, whose characters describe names
}

// describe names the character byte b is in the guessed encoding, for a
// single-byte code page: ", ’ in Windows-1252".
func (g encodingGuess) describe(b byte) string {
	if !g.single {
		return ""
	}
	if r := cp1252(b); r != 0 {
		return fmt.Sprintf(", %c in %s", r, g.name)
	}
	return ""
}

// guessEncoding names the likely encoding of data from the offsets of its
// bytes that are not UTF-8: a double-byte code page of East Asia
// (Shift-JIS, GBK, Big5, EUC-KR) when most of them come in runs, two or
// more per character; else Windows-1252 when some are in 0x80–0x9F (its
// curly quotes, dashes, € and ™, control characters in Latin-1); else
// Latin-1 (ISO-8859-1), which is Windows-1252 above 0x9F.
func guessEncoding(data []byte, invalid []int) encodingGuess {
	if doubleByte(invalid) {
		return encodingGuess{name: "a double-byte code page (Shift-JIS, GBK, Big5 or EUC-KR)",
			example: fmt.Sprintf("bytes such as 0x%02X 0x%02X", data[invalid[0]], data[invalid[0]+1])}
	}
	ex := -1 // a byte 0x80–0x9F that Windows-1252 defines, a curly quote if any
	for _, off := range invalid {
		b := data[off]
		if b < 0xA0 && cp1252(b) != 0 && (ex < 0 || b >= 0x91 && b <= 0x94) {
			ex = int(b)
			if b >= 0x91 && b <= 0x94 {
				break
			}
		}
	}
	if ex >= 0 {
		b := byte(ex)
		what := fmt.Sprintf("its %c", cp1252(b))
		if b >= 0x91 && b <= 0x94 {
			what = fmt.Sprintf("its curly quote %c", cp1252(b))
		}
		return encodingGuess{name: "Windows-1252", example: fmt.Sprintf("bytes such as 0x%02X are %s", b, what), single: true}
	}
	b := data[invalid[0]]
	return encodingGuess{name: "Latin-1 (ISO-8859-1)", example: fmt.Sprintf("bytes such as 0x%02X are its %c", b, rune(b)), single: true}
}

// doubleByte reports whether the bytes at the offsets invalid (sorted),
// those of a text that are not UTF-8, look like a double-byte code page:
// eight or more, at least two thirds of them next to another. A CJK text
// is runs of two-byte characters, nearly every byte of them high; in
// Latin-1 or Windows-1252 an accented letter or a curly quote is one high
// byte among ASCII letters.
func doubleByte(invalid []int) bool {
	if len(invalid) < 8 {
		return false
	}
	paired := 0
	for i, off := range invalid {
		if i > 0 && invalid[i-1] == off-1 || i+1 < len(invalid) && invalid[i+1] == off+1 {
			paired++
		}
	}
	return paired*3 >= len(invalid)*2
}

// cp1252 returns the character byte b is in Windows-1252, 0 for the five
// bytes it leaves undefined and for ASCII.
func cp1252(b byte) rune {
	switch {
	case b < 0x80:
		return 0
	case b >= 0xA0:
		return rune(b)
	}
	return []rune(cp1252High)[b-0x80]
}

// cp1252High is Windows-1252 from 0x80 to 0x9F, with NUL where it defines
// nothing.
const cp1252High = "€\x00‚ƒ„…†‡ˆ‰Š‹Œ\x00Ž\x00" + "\x00‘’“”•–—˜™š›œ\x00žŸ"
