package questions

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Exam settings: what a bank's exam is (/quiz mock sits it). A bank file
// gives them (an "exam:" block in YAML and JSON, an exam.yaml beside the
// files of the other formats), and a server's admin can set them for the
// server (/quizadmin bank exam); without any, a mock uses the defaults
// below. README.md, "Exam settings", is the reference.

// The defaults of a bank without exam settings, and the bounds of the
// settings.
const (
	// DefaultExamQuestions is how many questions a mock has by default (or
	// the whole bank, when it has fewer).
	DefaultExamQuestions = 60
	// DefaultMinutesPerQuestion is a mock's time per question by default.
	DefaultMinutesPerQuestion = 2
	// DefaultPassPercent is the pass mark by default.
	DefaultPassPercent = 70
	// MaxExamQuestions is the most questions an exam may have.
	MaxExamQuestions = 250
	// MaxExamMinutes is the longest an exam may last (10 hours).
	MaxExamMinutes = 600
	// MaxDomains is the most domains an exam may list.
	MaxDomains = 25
	// MaxScale is the highest a scaled score's scale may reach.
	MaxScale = 100000
)

// Exam is a bank's exam: how many questions, how many minutes, the pass
// mark, and the domains its questions are drawn from, by weight. A zero
// field means the default: see Plan and PassMark.
type Exam struct {
	// Questions is how many questions an attempt has (1 to
	// MaxExamQuestions; 0: DefaultExamQuestions, or the whole bank when
	// it has fewer).
	Questions int
	// Minutes is the time an attempt of Questions questions has (1 to
	// MaxExamMinutes; 0: DefaultMinutesPerQuestion a question).
	Minutes int
	// Pass is the pass mark (zero: DefaultPassPercent).
	Pass PassMark
	// Domains are the exam's topics, each a tag of the bank's questions,
	// with the share of the questions drawn from it; empty: the questions
	// are drawn from the whole bank.
	Domains []Domain
	// Path and Line are where the settings were read ("" and 0 for an
	// admin's), for problems.
	Path string
	Line int
}

// Domain is one topic of an exam and its weight.
type Domain struct {
	// Name is a tag of the bank's questions, matched case-insensitively.
	Name string
	// Weight is the percentage of an attempt's questions drawn from the
	// domain, 1 to 100; an exam's weights sum to 100.
	Weight int
	// Line is where the domain was read (0 if unknown).
	Line int
}

// PassMark is an exam's pass mark: a percentage of the questions right, or
// a score on a scale (a scaled score such as 700 of 100-1000). The zero
// value is the default, DefaultPassPercent.
type PassMark struct {
	// Percent is the share of the questions right needed to pass, 1 to
	// 100, when the mark is a percentage (Max is 0).
	Percent int
	// Score is the scaled score needed to pass, on the scale Min to Max
	// (Max > 0): Min < Score <= Max.
	Score, Min, Max int
}

// IsZero reports whether the pass mark is the default.
func (p PassMark) IsZero() bool { return p == PassMark{} }

// Scaled reports whether the pass mark is a score on a scale.
func (p PassMark) Scaled() bool { return p.Max > 0 }

// orDefault is p, or the default pass mark when p is zero.
func (p PassMark) orDefault() PassMark {
	if p.IsZero() {
		return PassMark{Percent: DefaultPassPercent}
	}
	return p
}

// String writes the pass mark as ParsePassMark reads it: "70%", or
// "700 of 100-1000".
func (p PassMark) String() string {
	p = p.orDefault()
	if p.Scaled() {
		return fmt.Sprintf("%d of %d-%d", p.Score, p.Min, p.Max)
	}
	return fmt.Sprintf("%d%%", p.Percent)
}

// ScaledScore is the score of right answers out of total on the pass
// mark's scale: Min + (Max − Min) × right ÷ total, rounded to the nearest
// whole number (halves up). 0 when the mark is not scaled or total is 0.
func (p PassMark) ScaledScore(right, total int) int {
	if !p.Scaled() || total <= 0 {
		return 0
	}
	span := p.Max - p.Min
	return p.Min + (2*span*right+total)/(2*total)
}

// Passed reports whether right answers out of total pass: for a
// percentage, right ÷ total ≥ Percent ÷ 100, compared exactly; for a
// scaled mark, ScaledScore ≥ Score. No questions never pass.
func (p PassMark) Passed(right, total int) bool {
	p = p.orDefault()
	if total <= 0 {
		return false
	}
	if p.Scaled() {
		return p.ScaledScore(right, total) >= p.Score
	}
	return right*100 >= p.Percent*total
}

// PercentNeeded is the pass mark as a percentage of the questions right:
// Percent, or for a scaled mark the share at which the scaled score
// reaches Score.
func (p PassMark) PercentNeeded() float64 {
	p = p.orDefault()
	if p.Scaled() {
		return 100 * float64(p.Score-p.Min) / float64(p.Max-p.Min)
	}
	return float64(p.Percent)
}

// check says what is wrong with a pass mark that is not zero, or "".
func (p PassMark) check() string {
	switch {
	case p.IsZero():
		return ""
	case p.Scaled():
		if p.Min < 0 || p.Max > MaxScale || p.Min >= p.Max {
			return fmt.Sprintf("the scale %d-%d must run from a lower to a higher whole number, 0 to %d", p.Min, p.Max, MaxScale)
		}
		if p.Score <= p.Min || p.Score > p.Max {
			return fmt.Sprintf("the pass score %d must be above the scale's lowest (%d) and at most its highest (%d)", p.Score, p.Min, p.Max)
		}
	case p.Percent < 1 || p.Percent > 100:
		return fmt.Sprintf("the pass mark %d%% must be 1%% to 100%%", p.Percent)
	}
	return ""
}

// passSyntax says how a pass mark is written, for messages.
const passSyntax = "write a percentage (70%) or a score on a scale (700 of 100-1000, or 700/1000 for a scale from 0)"

var (
	passPercent = regexp.MustCompile(`^(\d{1,6})\s*%$`)
	passOver    = regexp.MustCompile(`^(\d{1,6})\s*/\s*(\d{1,6})$`)
	passOf      = regexp.MustCompile(`^(\d{1,6})\s+of\s+(\d{1,6})\s*(?:-|–|—|to)\s*(\d{1,6})$`)
	passBare    = regexp.MustCompile(`^\d{1,6}$`)
)

// ParsePassMark reads a pass mark:
//
//	70%               a percentage of the questions right, 1% to 100%
//	700 of 100-1000   a scaled score on the scale 100 to 1000 ("to" or a dash)
//	700/1000          a scaled score on the scale 0 to 1000
//	700               a score on scale's scale when scale is scaled; else a
//	                  percentage (1 to 100)
//
// scale is the pass mark the bank has (zero when none): a bare number
// keeps its scale. The error says how to write one.
func ParsePassMark(s string, scale PassMark) (PassMark, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	num := func(t string) int { n, _ := strconv.Atoi(t); return n }
	var p PassMark
	switch {
	case passPercent.MatchString(s):
		if p.Percent = num(passPercent.FindStringSubmatch(s)[1]); p.Percent == 0 {
			return PassMark{}, fmt.Errorf("pass mark %q: the pass mark must be 1%% to 100%%", clip(s))
		}
	case passOf.MatchString(s):
		m := passOf.FindStringSubmatch(s)
		p = PassMark{Score: num(m[1]), Min: num(m[2]), Max: num(m[3])}
	case passOver.MatchString(s):
		m := passOver.FindStringSubmatch(s)
		p = PassMark{Score: num(m[1]), Max: num(m[2])}
	case passBare.MatchString(s) && scale.Scaled():
		p = PassMark{Score: num(s), Min: scale.Min, Max: scale.Max}
	case passBare.MatchString(s):
		if p.Percent = num(s); p.Percent == 0 || p.Percent > 100 {
			return PassMark{}, fmt.Errorf("pass mark %q: %d is no percentage and the bank has no scale; %s", clip(s), p.Percent, passSyntax)
		}
	default:
		return PassMark{}, fmt.Errorf("pass mark %q: %s", clip(s), passSyntax)
	}
	if msg := p.check(); msg != "" {
		return PassMark{}, fmt.Errorf("pass mark %q: %s", clip(s), msg)
	}
	return p, nil
}

// Plan is an attempt's size and time under the exam settings e, for a bank
// of available questions: the questions asked for (questions > 0: a
// member's choice), else e.Questions, else DefaultExamQuestions, but never
// more than available; and the minutes asked for, else e.Minutes scaled to
// the attempt's share of e's full length (e.Questions, else the whole bank
// up to DefaultExamQuestions: an attempt of the full length gets exactly
// e.Minutes), else DefaultMinutesPerQuestion a question. At least 1
// minute.
func (e Exam) Plan(available, questions, minutes int) (n, mins int) {
	full := e.Questions
	if full <= 0 {
		// The default length is the whole bank up to
		// DefaultExamQuestions: what the settings' minutes are for.
		full = max(min(DefaultExamQuestions, available), 1)
	}
	n = full
	if questions > 0 {
		n = questions
	}
	n = min(n, available, MaxExamQuestions)
	switch {
	case minutes > 0:
		mins = minutes
	case e.Minutes > 0:
		mins = int(math.Round(float64(e.Minutes) * float64(n) / float64(full)))
	default:
		mins = DefaultMinutesPerQuestion * n
	}
	return n, min(max(mins, 1), MaxExamMinutes)
}

// Override is e with the settings o sets in place of e's: o's Questions,
// Minutes and Pass when not zero, its Domains when it lists any (an
// admin's settings over a bank file's). Where e was read stays.
func (e Exam) Override(o Exam) Exam {
	if o.Questions > 0 {
		e.Questions = o.Questions
	}
	if o.Minutes > 0 {
		e.Minutes = o.Minutes
	}
	if !o.Pass.IsZero() {
		e.Pass = o.Pass
	}
	if len(o.Domains) > 0 {
		e.Domains = o.Domains
	}
	return e
}

// PassMark is e's pass mark, or the default.
func (e Exam) PassMark() PassMark { return e.Pass.orDefault() }

// IsZero reports whether e sets nothing (every default applies).
func (e Exam) IsZero() bool {
	return e.Questions == 0 && e.Minutes == 0 && e.Pass.IsZero() && len(e.Domains) == 0
}

// Equal reports whether e and f are the same settings (where they were
// read aside).
func (e Exam) Equal(f Exam) bool {
	return e.Questions == f.Questions && e.Minutes == f.Minutes && e.Pass == f.Pass &&
		slices.EqualFunc(e.Domains, f.Domains, func(a, b Domain) bool { return a.Name == b.Name && a.Weight == b.Weight })
}

// Describe is the settings in one line for members: "65 questions · 90
// minutes · pass 700 of 100-1000 · 4 domains". Defaults are named as such
// for a bank of size questions.
func (e Exam) Describe(size int) string {
	n, mins := e.Plan(size, 0, 0)
	s := fmt.Sprintf("%s · %s · pass %s", counted(n, "question", "questions"), counted(mins, "minute", "minutes"), e.PassMark())
	if len(e.Domains) > 0 {
		parts := make([]string, len(e.Domains))
		for i, d := range e.Domains {
			parts[i] = fmt.Sprintf("%s %d%%", d.Name, d.Weight)
		}
		s += " · domains: " + strings.Join(parts, ", ")
	}
	return s
}

// counted counts n things in words: "1 question", "2 questions".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// checkExam reports what is wrong with e on its own (not against a bank's
// questions: see checkDomains): the bounds of Questions and Minutes, the
// pass mark, and the domains (named, each once, at most MaxDomains,
// weights 1 to 100 summing to 100). problem is called with the line of
// each problem.
func checkExam(e *Exam, problem func(line int, format string, args ...any)) {
	if e.Questions < 0 || e.Questions > MaxExamQuestions {
		problem(e.Line, "exam questions must be a whole number from 1 to %d", MaxExamQuestions)
	}
	if e.Minutes < 0 || e.Minutes > MaxExamMinutes {
		problem(e.Line, "exam minutes must be a whole number from 1 to %d", MaxExamMinutes)
	}
	if msg := e.Pass.check(); msg != "" {
		problem(e.Line, "exam pass: %s", msg)
	}
	if len(e.Domains) == 0 {
		return
	}
	if len(e.Domains) > MaxDomains {
		problem(e.Domains[MaxDomains].Line, "more than %d exam domains", MaxDomains)
	}
	sum := 0
	seen := map[string]int{}
	for _, d := range e.Domains {
		line := cmpLine(d.Line, e.Line)
		key := strings.ToLower(strings.TrimSpace(d.Name))
		switch n := len([]rune(d.Name)); {
		case key == "":
			problem(line, "an exam domain has no name")
		case n > MaxTagLength:
			problem(line, "exam domain %q is %d characters; a tag is at most %d", clip(d.Name), n, MaxTagLength)
		}
		if first, dup := seen[key]; dup && key != "" {
			problem(line, "exam domain %q listed twice (first at line %d)", clip(d.Name), first)
		}
		seen[key] = line
		if d.Weight < 1 || d.Weight > 100 {
			problem(line, "the weight of exam domain %q must be a whole percentage from 1 to 100 (e.g. %s: 30)", clip(d.Name), clip(d.Name))
			sum = -1
		} else if sum >= 0 {
			sum += d.Weight
		}
	}
	if sum >= 0 && sum != 100 {
		problem(cmpLine(e.Domains[0].Line, e.Line), "the exam domains' weights sum to %d%%; they must sum to 100%%", sum)
	}
}

func cmpLine(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// checkDomains reports each domain of b's exam settings that is not a tag
// of any of b's questions (case-insensitively): a domain nothing can be
// drawn from.
func checkDomains(b *Bank, ps *Problems) {
	if b.Exam == nil || len(b.Exam.Domains) == 0 {
		return
	}
	tags := map[string]bool{}
	for _, q := range b.Questions {
		for _, t := range q.Tags {
			tags[strings.ToLower(strings.TrimSpace(t))] = true
		}
	}
	for _, d := range b.Exam.Domains {
		if !tags[strings.ToLower(strings.TrimSpace(d.Name))] {
			ps.add(b.Exam.Path, cmpLine(d.Line, b.Exam.Line), "exam domain %q is not a tag of any question of bank %q", clip(d.Name), clip(b.Name))
		}
	}
}

// CheckExamDomains returns a problem for each domain of b's exam settings
// that no question of b is tagged with, at the settings' path and line.
// The loader runs it on each bank once its files are merged (a domain's
// questions may come from several files); an import, on the bank it
// stores.
func CheckExamDomains(b *Bank) Problems {
	var ps Problems
	checkDomains(b, &ps)
	return ps
}

// CheckExam returns what is wrong with settings an admin gives (no file:
// the problems have no path or line), or nil.
func CheckExam(e Exam) error {
	var msgs []string
	e.Line = 0
	checkExam(&e, func(_ int, format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) })
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// DomainOf is the domain of e a question belongs to: the first domain, in
// e's order, that is one of its tags (case-insensitively); "" when none is
// (or e has no domains).
func (e Exam) DomainOf(q *Question) string {
	for _, d := range e.Domains {
		for _, t := range q.Tags {
			if strings.EqualFold(strings.TrimSpace(t), strings.TrimSpace(d.Name)) {
				return d.Name
			}
		}
	}
	return ""
}
