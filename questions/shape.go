package questions

import "strings"

// shape is how a text file or a paste is read, as textShape finds it.
type shape int

const (
	// shapeNone: no line is shaped like a part of a question (a notes.txt):
	// not a bank.
	shapeNone shape = iota
	// shapeTitled: a line is a question title. Exam text, the
	// practice-site shape ("Question #12 Topic 1") or both, question by
	// question: each question starts at its title.
	shapeTitled
	// shapeAiken: no title, but one-line options ("A. text") and an answer
	// line. Aiken, and practice-site questions copied without their
	// titles: a question ends at its answer line.
	shapeAiken
	// shapeUnrecognised: options, answer lines or "Select N" lines, but no
	// question quizhost can find in them: an error (see unrecognised),
	// never a file skipped.
	shapeUnrecognised
	// shapeTable: a header row naming a question column and an answer or
	// option column (see looksLikeTable): cells copied from a spreadsheet,
	// or a spreadsheet or Anki export saved as text, read as a table.
	shapeTable
)

// textShape decides how to read a text file or a paste from its lines
// (splitLines). It is the one place that tells the text shapes apart: a
// new shape is a new case here and in parseTextShape.
func textShape(lines []string) shape {
	if looksLikeTable(headLines(lines)) {
		return shapeTable
	}
	var answer, optionA, lineOptions, questionLike bool
	for _, l := range lines {
		n := normSpaces(strings.TrimSpace(l))
		if n == "" {
			continue
		}
		if _, ok := parseTitle(n); ok {
			return shapeTitled
		}
		if _, ok := parseAnswerLine(n); ok {
			answer = true
		}
		if letter, _, ok := parseLineOption(n); ok {
			switch {
			case letter == "A":
				optionA = true
			case letter == "B" && optionA:
				lineOptions = true
			}
		}
		if questionPart(n) {
			questionLike = true
		}
	}
	switch {
	case lineOptions && answer:
		return shapeAiken
	case questionLike || lineOptions:
		return shapeUnrecognised
	}
	return shapeNone
}

// questionPart recognises a line that only a question has: an answer
// line, a "Select N" line or an option header "- A". (A one-line option
// "A. text" counts only followed by a "B." one: a note may start a line
// so.)
func questionPart(n string) bool {
	if _, ok := parseAnswerLine(n); ok {
		return true
	}
	if _, _, ok := parseSelect(n); ok {
		return true
	}
	_, ok := parseOptionHeader(n)
	return ok
}

// unrecognised reports a file that textShape found question-like but
// without a question to read: one error, at its first question-like line,
// naming the format it is closest to with a two-line example (short
// enough for the bot's list of problems).
func unrecognised(path string, lines []string) Problems {
	first, what := 0, ""
	examText, lineOption := false, false
	for i, l := range lines {
		n := normSpaces(strings.TrimSpace(l))
		ok := questionPart(n)
		if !ok {
			if _, _, ok = parseLineOption(n); ok {
				lineOption = true
			}
		}
		if !ok {
			continue
		}
		if _, _, sel := parseSelect(n); sel {
			examText = true
		}
		if _, header := parseOptionHeader(n); header {
			examText = true
		}
		if first == 0 {
			first, what = i+1, clip(n)
		}
	}
	var closest string
	switch {
	case examText:
		closest = `exam text, a title then a Select line: "AWS Cloud Practitioner Question 12" / "Select 1Which service caches content?"`
	case lineOption:
		closest = `Aiken, options then an answer line: "B. Amazon ElastiCache" / "ANSWER: B"`
	default:
		closest = `practice-site, a title then one-line options: "Question #12 Topic 1" / "A. Amazon S3 Glacier"`
	}
	var ps Problems
	ps.add(path, first, "%q is part of a question, but no question can be read in this file. Closest format: %s", what, closest)
	return ps
}

// headLines joins lines up to the first that is neither blank nor a "#…"
// line (Anki's header lines), as looksLikeTable reads them.
func headLines(lines []string) []byte {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			break
		}
	}
	return b
}
