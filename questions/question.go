// Package questions is quizhost's domain: question banks, questions and
// their options, grading, and the quiz state (posts, answers, scores,
// settings) that storage keeps and the bot shows. It uses the standard
// library, go.yaml.in/yaml/v3 (for YAML banks) and go-fsrs (the members'
// memory of questions) only; no Discord or database code belongs here.
// Its failures are the sentinel errors of errors.go. The bank formats are
// documented in README.md, "Question bank formats".
package questions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// MaxOptions is the most options a question may have: Discord's limit on a
// string select menu.
const MaxOptions = 25

// Letters lists the option letters in order; option i has letter Letters[i].
const Letters = "ABCDEFGHIJKLMNOPQRSTUVWXY"

// Letter returns the letter of the option at index i (0 → "A").
// It panics if i is outside [0, MaxOptions).
func Letter(i int) string { return Letters[i : i+1] }

// LetterIndex returns the index of an option letter ("A" → 0), or -1 if s is
// not one of Letters.
func LetterIndex(s string) int {
	if len(s) != 1 {
		return -1
	}
	return strings.IndexByte(Letters, s[0])
}

// Bank is a named collection of questions. A parser returns one Bank per
// bank a file names; a Catalogue merges the banks of every file that names
// the same bank (case-insensitively) into one.
type Bank struct {
	// Name names the bank, as its file names it ("Cloud Networking Practice").
	Name string
	// Path is the file the bank was read from, or, in a Catalogue, the first
	// of its files ("" for built-in or imported banks that have no file on
	// disk). Question.Path names the file of each question.
	Path string
	// Questions are in file order.
	Questions []Question
	// Exam is the bank's exam settings as its files give them (a
	// structured bank's exam block, an exam.yaml beside its files); nil
	// when they give none.
	Exam *Exam `json:",omitempty"`
}

// Question is one multiple-choice question.
type Question struct {
	// ID is the stable identity: it survives reloading the file and
	// reordering the questions in it. Exam text: "<bank>#<number>".
	// Structured banks and tables: the question's id, else
	// "<bank>#<number>" for an explicit number, else ContentID(bank,
	// stem). GIFT: "<bank>#<title>" for a titled question
	// ("<bank>#<sub-category>/<title>" in a sub-category of the bank),
	// else ContentID(bank, stem).
	ID string
	// Bank is the name of the bank the question belongs to.
	Bank string
	// Number is the question's number inside its bank (1-based), for
	// display: the exam text's number, a structured bank's explicit number,
	// or else the question's position in its bank.
	Number int
	// Stem is the question text, without the "Select N" prefix.
	Stem string
	// Options are in letter order: Options[i].Letter == Letter(i).
	Options []Option
	// Explanation is the general explanation shown at the reveal; may be "".
	Explanation string
	// Tags are exam domains or topics; may be empty.
	Tags []string
	// Source is an optional link to where the question came from.
	Source string
	// Line is the line the question starts on in its file (0 if unknown).
	Line int
	// Path is the file the question was read from: set by NewCatalogue
	// from its bank's Path when empty ("" for built-in or imported
	// questions).
	Path string
	// Community is how the visitors of the site the question was copied
	// from voted (a practice site's "Community vote distribution"), most
	// voted first; empty when the file gives none. It may disagree with the
	// key: see CommunityDisagrees.
	Community []CommunityVote
}

// CommunityVote is one line of a community vote distribution: a set of
// letters voted for together, and the share of the votes it got.
type CommunityVote struct {
	// Letters are the option letters voted for, in letter order.
	Letters []string
	// Percent is the share of the votes, 0 to 100.
	Percent int
}

// CommunityDisagrees returns the community's most voted answer and true
// when it is not the question's key; false when the question has no
// community vote or the community agrees with the key.
func (q *Question) CommunityDisagrees() (CommunityVote, bool) {
	if len(q.Community) == 0 {
		return CommunityVote{}, false
	}
	top := q.Community[0]
	if slices.Equal(top.Letters, q.Correct()) {
		return CommunityVote{}, false
	}
	return top, true
}

// ContentID returns the default ID of a question that its file does not
// identify otherwise (a structured question with no id or number, an
// untitled GIFT question): "<bank>#" and the first 8 hex digits of the
// SHA-256 of the stem with its white space normalised (trimmed, each run
// made one space). It survives reordering the questions and reformatting
// the stem; editing the stem's words makes it a new question.
func ContentID(bank, stem string) string {
	sum := sha256.Sum256([]byte(strings.Join(strings.Fields(stem), " ")))
	return bank + "#" + hex.EncodeToString(sum[:4])
}

// Option is one lettered choice of a question.
type Option struct {
	Letter    string
	Text      string
	Correct   bool
	Rationale string // why the option is right or wrong; may be ""
}

// Correct returns the letters of the correct options, in letter order.
func (q *Question) Correct() []string {
	var out []string
	for _, o := range q.Options {
		if o.Correct {
			out = append(out, o.Letter)
		}
	}
	return out
}

// SelectCount is how many options a member must pick: the number of
// correct options.
func (q *Question) SelectCount() int { return len(q.Correct()) }

// Grade is the outcome of one member's choice.
type Grade struct {
	// Right is true when the chosen set equals the correct set exactly.
	Right bool
	// RightPicks counts the chosen letters that are correct.
	RightPicks int
	// Points gained: the number of correct letters when Right, else 0.
	Points int
}

// GradeChoice grades chosen against the correct letters. Both are sets of
// letters; order does not matter. Duplicates in chosen count once.
func GradeChoice(correct, chosen []string) Grade {
	want := map[string]bool{}
	for _, l := range correct {
		want[l] = true
	}
	seen := map[string]bool{}
	var g Grade
	for _, l := range chosen {
		if seen[l] {
			continue
		}
		seen[l] = true
		if want[l] {
			g.RightPicks++
		}
	}
	g.Right = len(seen) == len(want) && g.RightPicks == len(want)
	if g.Right {
		g.Points = len(want)
	}
	return g
}

// NormalizeChoice validates a member's chosen letters against a question
// with optionCount options that asks for exactly selectCount picks, and
// returns them sorted. It refuses unknown letters, duplicates and the wrong
// number of picks with ErrBadChoice.
func NormalizeChoice(chosen []string, optionCount, selectCount int) ([]string, error) {
	if len(chosen) != selectCount {
		return nil, fmt.Errorf("%w: got %d picks, want %d", ErrBadChoice, len(chosen), selectCount)
	}
	out := make([]string, 0, len(chosen))
	for _, l := range chosen {
		i := LetterIndex(l)
		if i < 0 || i >= optionCount {
			return nil, fmt.Errorf("%w: %q is not an option", ErrBadChoice, l)
		}
		if slices.Contains(out, l) {
			return nil, fmt.Errorf("%w: %q picked twice", ErrBadChoice, l)
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out, nil
}
