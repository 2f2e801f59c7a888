package questions

import (
	"strconv"
	"strings"
	"unicode"
)

// The columns of a table, as its header row names them.

// tableKind is what a column holds.
type tableKind int

const (
	tcUnknown     tableKind = iota // a name quizhost does not read
	tcEmpty                        // no name
	tcIgnored                      // a name read and left alone (a note type's title)
	tcQuestion                     // the stem
	tcOption                       // one option, by index
	tcOptions                      // every option, in one cell
	tcAnswer                       // the correct options
	tcExplanation                  // the explanation
	tcRationale                    // one option's rationale, by index
	tcTopic                        // tags, separated by , ; or lines
	tcTags                         // Anki's tags column: separated by spaces
	tcID                           // the question's ID
	tcBank                         // the bank (an Anki deck)
	tcNumber                       // the question's number
	tcSource                       // a link
)

// tableColumn is a column of a table: what it holds and, for an option or
// a rationale, the option's index.
type tableColumn struct {
	kind   tableKind
	option int
	name   string // as the header writes it
}

// tableNames maps normalised column names (see headerKey) to what they
// hold. Option and rationale columns are recognised by optionRef.
var tableNames = map[string]tableKind{
	"question": tcQuestion, "questions": tcQuestion, "questiontext": tcQuestion, "questionstem": tcQuestion,
	"stem": tcQuestion, "prompt": tcQuestion,
	"options": tcOptions, "choices": tcOptions, "alternatives": tcOptions, "answeroptions": tcOptions, "answerchoices": tcOptions,
	"answer": tcAnswer, "answers": tcAnswer, "correct": tcAnswer, "correctanswer": tcAnswer, "correctanswers": tcAnswer,
	"correctoption": tcAnswer, "correctoptions": tcAnswer, "correctchoice": tcAnswer, "correctchoices": tcAnswer,
	"correctletter": tcAnswer, "correctletters": tcAnswer, "key": tcAnswer, "answerkey": tcAnswer,
	"rightanswer": tcAnswer, "solution": tcAnswer,
	"explanation": tcExplanation, "explanations": tcExplanation, "feedback": tcExplanation, "generalfeedback": tcExplanation,
	"rationale": tcExplanation, "why": tcExplanation, "extra": tcExplanation, "extra1": tcExplanation,
	"topic": tcTopic, "topics": tcTopic, "category": tcTopic, "domain": tcTopic, "subject": tcTopic,
	"section": tcTopic, "chapter": tcTopic, "tag": tcTopic, "tags": tcTopic,
	"id": tcID, "questionid": tcID, "qid": tcID, "guid": tcID,
	"bank": tcBank, "deck": tcBank, "exam": tcBank, "quiz": tcBank,
	"number": tcNumber, "no": tcNumber, "num": tcNumber, "nr": tcNumber, "questionnumber": tcNumber, "questionno": tcNumber,
	"source": tcSource, "sources": tcSource, "url": tcSource, "link": tcSource, "reference": tcSource, "ref": tcSource,
	"title": tcIgnored, "qtype": tcIgnored, "notetype": tcIgnored,
}

// optionPrefixes may stand before an option's letter or number in a
// column name ("Option A", "option_a", "Choice 1", "Answer 1", Anki's
// multiple-choice add-on's "Q_1").
var optionPrefixes = []string{"option", "choice", "answer", "alternative", "opt"}

// numberPrefixes may stand before an option's number only.
var numberPrefixes = []string{"q", "mc"}

// rationaleWords name an option's rationale before or after its letter
// ("Explanation A", "Option A rationale", "Feedback 1").
var rationaleWords = []string{"explanation", "rationale", "feedback", "why", "reason"}

// headerKey normalises a column name: lower case, cut at " - " or "("
// (Kahoot's "Question - max 120 characters", "Correct answer(s) - choose
// at least one"), letters and digits only. "#" is the number column.
func headerKey(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if h == "#" || h == "no." {
		return "number"
	}
	for _, sep := range []string{" - ", " – ", " — ", "("} {
		if i := strings.Index(h, sep); i > 0 {
			h = h[:i]
		}
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, h)
}

// classifyColumn reads a header cell.
func classifyColumn(name string) tableColumn {
	c := tableColumn{name: strings.TrimSpace(name), option: -1}
	key := headerKey(name)
	switch {
	case key == "":
		c.kind = tcEmpty
		return c
	case strings.EqualFold(c.name, "q"): // not "Q?", a question in a row
		c.kind = tcQuestion
		return c
	}
	if k, ok := tableNames[key]; ok {
		c.kind = k
		return c
	}
	if i, ok := optionRef(key, false); ok {
		c.kind, c.option = tcOption, i
		return c
	}
	for _, w := range rationaleWords {
		if rest, ok := strings.CutPrefix(key, w); ok {
			if i, ok := optionRef(rest, true); ok {
				c.kind, c.option = tcRationale, i
				return c
			}
		}
		if rest, ok := strings.CutSuffix(key, w); ok {
			if i, ok := optionRef(rest, true); ok {
				c.kind, c.option = tcRationale, i
				return c
			}
		}
	}
	c.kind = tcUnknown
	return c
}

// optionRef reads an option named by a column: a letter a–y, or a prefix
// (optionPrefixes) and a letter or a number 1–25, or numberPrefixes and a
// number, or with bareNumber a number alone ("Feedback 2").
func optionRef(key string, bareNumber bool) (int, bool) {
	letter := func(s string) (int, bool) {
		if len(s) == 1 && s[0] >= 'a' && s[0] < 'a'+MaxOptions {
			return int(s[0] - 'a'), true
		}
		return 0, false
	}
	number := func(s string) (int, bool) {
		if !allDigits(s) { // first: Atoi's error for a name allocates
			return 0, false
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxOptions {
			return 0, false
		}
		return n - 1, true
	}
	if i, ok := letter(key); ok {
		return i, true
	}
	if i, ok := number(key); ok && bareNumber {
		return i, true
	}
	for _, p := range optionPrefixes {
		if rest, ok := strings.CutPrefix(key, p); ok {
			if i, ok := letter(rest); ok {
				return i, true
			}
			if i, ok := number(rest); ok {
				return i, true
			}
		}
	}
	for _, p := range numberPrefixes {
		if rest, ok := strings.CutPrefix(key, p); ok {
			if i, ok := number(rest); ok {
				return i, true
			}
		}
	}
	return 0, false
}

// knownNotetypes are note types of Anki's multiple-choice add-ons, by
// name, with their fields in order: an Anki export writes no header, and
// its notetype column names the note type of each row.
var knownNotetypes = map[string][]string{
	// "Multiple Choice for Anki" (AnkiWeb 1566095810): Answers is one 0 or
	// 1 per option, QType 0 kprim, 1 multiple choice, 2 single choice.
	"AllInOne (kprim, mc, sc)": {"Question", "Title", "QType (0=kprim,1=mc,2=sc)", "Q_1", "Q_2", "Q_3", "Q_4", "Q_5", "Answers", "Sources", "Extra 1"},
}
