package questions

// Item analysis: what the answers a server gave say about its questions
// (facility, discrimination, the options picked), and the questions whose
// key looks wrong (Flags). Storage keeps the statistics current as answers
// arrive (QuestionStats); this file only reads them.

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Thresholds of the item analysis.
const (
	// MinAnswersForFlag is how many answers a question needs before its
	// facility or discrimination can flag it.
	MinAnswersForFlag = 10
	// LowFacility: a question answered right less often than this, whose
	// members pick a wrong option more than an option of the key, is flagged.
	LowFacility = 0.2
	// MinRestAnswers is how many answers to the rest of the bank a member
	// needs before their answer to a question counts toward its
	// discrimination (their accuracy on fewer says little about them).
	MinRestAnswers = 5
	// StrongAccuracy: an answer is a strong member's when its member had
	// at least this accuracy on the rest of the bank (and MinRestAnswers
	// answers there) when they gave it.
	StrongAccuracy = 0.75
	// minStrongForReason is how many strong members' answers a flag needs
	// to speak of "strong members" rather than of all members.
	minStrongForReason = 5
)

// OptionPicks counts how often one option was picked: in answers graded
// right, in answers graded wrong, and in strong members' answers.
type OptionPicks struct {
	Right, Wrong, Strong int
}

// Total is how often the option was picked.
func (p OptionPicks) Total() int { return p.Right + p.Wrong }

// ComboCount is a combination of letters chosen together and how many
// answers chose it.
type ComboCount struct {
	Letters []string
	Count   int
}

// DiscSums are the running sums of the discrimination index of one
// question: over the answers counted (N), x is 1 for an answer graded right
// and 0 else, y the member's accuracy on the rest of the bank when they
// answered (see QuestionStats).
type DiscSums struct {
	N, SumX            int
	SumY, SumYY, SumXY float64
}

// Add counts one answer: right or not, its member's rest-of-bank accuracy y.
func (d DiscSums) Add(right bool, y float64) DiscSums {
	d.N++
	d.SumY += y
	d.SumYY += y * y
	if right {
		d.SumX++
		d.SumXY += y
	}
	return d
}

// Index is the Pearson correlation of x and y,
//
//	r = (N·Σxy − Σx·Σy) / √((N·Σx² − (Σx)²) · (N·Σy² − (Σy)²))
//
// (Σx² = Σx, x being 0 or 1), in [−1, 1]; false when it is not defined:
// fewer than two answers, or all of them right, or all wrong, or all from
// members of one accuracy.
func (d DiscSums) Index() (float64, bool) {
	if d.N < 2 {
		return 0, false
	}
	n, sx := float64(d.N), float64(d.SumX)
	vx := n*sx - sx*sx
	vy := n*d.SumYY - d.SumY*d.SumY
	// Rounding leaves a tiny positive vy where every y is equal.
	if vx <= 0 || vy <= 1e-9*n*n {
		return 0, false
	}
	r := (n*d.SumXY - sx*d.SumY) / math.Sqrt(vx*vy)
	return max(-1, min(1, r)), true
}

// QuestionStats are the statistics of one question of a server: of every
// answer to its posts (not /quiz review's), whatever the resets of the
// scores, graded as stored (a regrade changes them).
//
// The discrimination index is Moodle's idea measured as answers arrive:
// the correlation between getting this question right and the member's
// accuracy on the rest of the bank (their answers to its other questions)
// at the time of the answer, over the answers whose member had at least
// MinRestAnswers answers there. A good question is answered right more
// often by the members who do well elsewhere: its index is positive. A
// negative one means the members who know the bank get it wrong: usually a
// wrong key.
type QuestionStats struct {
	QuestionID string
	// Number is the server's number for the question (stable, never
	// reused): a short handle for buttons.
	Number uint32
	Bank   string
	// Key is the key the answers are graded against (of the posts answered
	// last, or of the last regrade).
	Key []string
	// Answers counts the answers, Right those graded right.
	Answers, Right int
	// Options holds each option's picks, in letter order.
	Options []OptionPicks
	// WrongCombos are the combinations of letters of the answers graded
	// wrong, most chosen first (then in letter order).
	WrongCombos []ComboCount
	// Strong counts the strong members' answers (see StrongAccuracy).
	Strong int
	Disc   DiscSums
	// Dismissed: an admin dismissed the question's flags and the
	// statistics have not changed since.
	Dismissed bool
}

// Facility is the share of answers graded right, in [0, 1]; 0 without
// answers.
func (s QuestionStats) Facility() float64 {
	if s.Answers == 0 {
		return 0
	}
	return float64(s.Right) / float64(s.Answers)
}

// Discrimination is s.Disc.Index().
func (s QuestionStats) Discrimination() (float64, bool) { return s.Disc.Index() }

// MostPickedWrong is the combination chosen most often by wrong answers;
// false when no answer was wrong.
func (s QuestionStats) MostPickedWrong() (ComboCount, bool) {
	if len(s.WrongCombos) == 0 {
		return ComboCount{}, false
	}
	return s.WrongCombos[0], true
}

// FlagKind says why a question is suspect.
type FlagKind int

// The reasons a question is flagged, in the order Flags lists them.
const (
	// FlagWrongPick: with at least MinAnswersForFlag answers, facility
	// under LowFacility and a wrong option picked more than an option of
	// the key.
	FlagWrongPick FlagKind = iota + 1
	// FlagNegative: with at least MinAnswersForFlag answers counted, a
	// negative discrimination index.
	FlagNegative
	// FlagCommunity: the source site's most voted answer is not the key.
	FlagCommunity
	// FlagReport: a member reported the question and the report is open.
	FlagReport
)

// Flag is one reason a question is suspect, in words, with the key it
// suggests (nil when it suggests none).
type Flag struct {
	Kind    FlagKind
	Reason  string
	Suggest []string
}

// Flags returns why the question of s is suspect; none when it is not or
// its flags were dismissed (s.Dismissed). q is the question as the bank has
// it (nil when it is gone: no community vote), openReports the number of
// its open reports. The key compared is s.Key, the one its answers are
// graded against; without answers, q's.
func Flags(s QuestionStats, q *Question, openReports int) []Flag {
	if s.Dismissed {
		return nil
	}
	key := s.Key
	if len(key) == 0 && q != nil {
		key = q.Correct()
	}
	var out []Flag
	wrong, _ := s.MostPickedWrong()
	if s.Answers >= MinAnswersForFlag && s.Facility() < LowFacility {
		if f, ok := wrongPickFlag(s, key); ok {
			out = append(out, f)
		}
	}
	if s.Disc.N >= MinAnswersForFlag {
		if r, ok := s.Discrimination(); ok && r < 0 {
			out = append(out, Flag{Kind: FlagNegative, Suggest: wrong.Letters,
				Reason: fmt.Sprintf("members who do well on the rest of the bank get it wrong more often than the others (discrimination %s)", signed(r))})
		}
	}
	if q != nil && len(q.Community) > 0 && !slices.Equal(q.Community[0].Letters, key) {
		top := q.Community[0]
		out = append(out, Flag{Kind: FlagCommunity, Suggest: top.Letters,
			Reason: fmt.Sprintf("the source site's members chose %s (%d%%), the key is %s", strings.Join(top.Letters, ""), top.Percent, strings.Join(key, ""))})
	}
	if openReports > 0 {
		s := "s"
		if openReports == 1 {
			s = ""
		}
		out = append(out, Flag{Kind: FlagReport, Reason: fmt.Sprintf("%d open report%s (see /quizadmin reports)", openReports, s)})
	}
	return out
}

// wrongPickFlag finds the wrong option picked most and the key's option
// picked least; a flag when the first is picked more. It speaks of strong
// members when enough of their answers say the same.
func wrongPickFlag(s QuestionStats, key []string) (Flag, bool) {
	inKey := func(i int) bool { return slices.Contains(key, Letter(i)) }
	w, k := -1, -1
	for i, o := range s.Options {
		if inKey(i) {
			if k < 0 || o.Total() < s.Options[k].Total() {
				k = i
			}
		} else if w < 0 || o.Total() > s.Options[w].Total() {
			w = i
		}
	}
	if w < 0 || k < 0 || s.Options[w].Total() <= s.Options[k].Total() {
		return Flag{}, false
	}
	who, pw, pk, of := "members", s.Options[w].Total(), s.Options[k].Total(), s.Answers
	if s.Strong >= minStrongForReason && s.Options[w].Strong > s.Options[k].Strong {
		who, pw, pk, of = "strong members", s.Options[w].Strong, s.Options[k].Strong, s.Strong
	}
	keyName := "the key " + Letter(k)
	if len(key) > 1 {
		keyName = fmt.Sprintf("%s of the key %s", Letter(k), strings.Join(key, ""))
	}
	suggest := []string{Letter(w)}
	if len(key) > 1 {
		suggest = slices.DeleteFunc(slices.Clone(key), func(l string) bool { return l == Letter(k) })
		suggest = append(suggest, Letter(w))
		slices.SortFunc(suggest, func(a, b string) int { return LetterIndex(a) - LetterIndex(b) })
	}
	return Flag{Kind: FlagWrongPick, Suggest: suggest,
		Reason: fmt.Sprintf("%s pick %s over %s: %d%% vs %d%%", who, Letter(w), keyName, pct(pw, of), pct(pk, of))}, true
}

// pct is 100·n/of rounded, 0 when of is 0.
func pct(n, of int) int {
	if of == 0 {
		return 0
	}
	return int(math.Round(100 * float64(n) / float64(of)))
}

// signed formats r with two decimals and a real minus sign.
func signed(r float64) string {
	s := fmt.Sprintf("%.2f", r)
	return strings.Replace(s, "-", "−", 1)
}
