package bot

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quizhost/quizhost/questions"
)

// Custom IDs travel through Discord's clients and come back as untrusted
// data. They all go through this one codec: a kind with a version ("a1"),
// then colon-separated typed fields, at most 100 characters, parsed
// strictly (one spelling per value) and never panicking. The kinds are
// declared in routes.go, each as its pattern, and each is answered by the
// route that declares it.

// idKind is a custom-ID kind, written as its pattern: the prefix on the
// wire (a kind and a version), then a placeholder per field:
//
//	<post> <review> <draft> <report> <confirmation> <mock>
//	            an ID: a decimal above zero with no leading zeros
//	<period>    day, week, month or all
//	<ranking>   p (points) or a (accuracy)
//	<page>      a page number, 0 to maxPage
//	<question>  a guild's question number (storage's): a decimal from 1 to 2³²−1
//	<sort>      f (by facility) or d (by discrimination): an insights list's order
//	<bank>      a bank: bankRef's 8 hex digits, or - for every bank
//	<a|b|c>     one of the words listed, two or more (the action)
//
// A prefix, once sent to Discord, keeps its shape: a new shape is a new
// version ("a2"), and the old one stays routed while its messages live.
type idKind string

// componentID is a parsed custom ID: its kind and the fields its pattern
// names (the others are zero).
type componentID struct {
	kind         idKind
	post         questions.PostID
	review       questions.ReviewID
	draft        questions.DraftID
	report       questions.ReportID
	confirmation questions.ConfirmationID
	mock         questions.MockID
	period       questions.Period
	ranking      questions.Ranking
	page         int    // 0-based
	action       string // the word an <a|b|c> field holds
	num          uint32 // <question>
	sortBy       string // <sort>: sortFacility or sortDiscrimination
	ref          string // <bank>: bankRef's, or "-"
}

// maxCustomID is Discord's limit on a custom ID's length.
const maxCustomID = 100

// maxPage is the highest page a custom ID may name.
const maxPage = 100000

var errBadCustomID = errors.New("unknown or malformed custom id")

// prefix is the kind's prefix on the wire: "a1".
func (k idKind) prefix() string {
	p, _, _ := strings.Cut(string(k), ":")
	return p
}

// placeholders are the kind's field placeholders, in order, without their
// angle brackets: "post", "add|cancel|fix".
func (k idKind) placeholders() []string {
	f := strings.Split(string(k), ":")[1:]
	for i, p := range f {
		f[i] = strings.TrimSuffix(strings.TrimPrefix(p, "<"), ">")
	}
	return f
}

// id is the custom ID of kind k carrying the fields of f that k names.
func (k idKind) id(f componentID) string {
	var b strings.Builder
	b.WriteString(k.prefix())
	for _, p := range k.placeholders() {
		b.WriteByte(':')
		if fd, ok := idFields[p]; ok {
			b.WriteString(fd.format(f))
		} else {
			b.WriteString(f.action)
		}
	}
	return b.String()
}

// parse reads the fields after the prefix of a custom ID of kind k, whose
// placeholders are ps (strictly: each value in its one spelling).
func (k idKind) parse(ps, fields []string) (componentID, bool) {
	if len(fields) != len(ps) {
		return componentID{}, false
	}
	id := componentID{kind: k}
	for i, p := range ps {
		if fd, ok := idFields[p]; ok {
			if !fd.parse(fields[i], &id) {
				return componentID{}, false
			}
			continue
		}
		if !slices.Contains(strings.Split(p, "|"), fields[i]) {
			return componentID{}, false
		}
		id.action = fields[i]
	}
	return id, true
}

// check reports what is wrong with k's pattern, or nil: a prefix of
// letters and digits, and known placeholders.
func (k idKind) check() error {
	p := k.prefix()
	if p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return errors.New("prefix must be lower-case letters and digits")
	}
	for _, f := range strings.Split(string(k), ":")[1:] {
		name, open := strings.CutPrefix(f, "<")
		name, closed := strings.CutSuffix(name, ">")
		if !open || !closed || name == "" {
			return errors.New("field " + f + " is not a <placeholder>")
		}
		if _, known := idFields[name]; known {
			continue
		}
		words := strings.Split(name, "|")
		for _, w := range words {
			if len(words) < 2 || w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
				return errors.New("field " + f + " is neither a known field nor a list of lower-case words")
			}
		}
	}
	return nil
}

// sample is a componentID of kind k with the fields k names set: IDs to
// id, the first word of a list, a day's period and points' ranking, page
// 0, question number id (within 1 to 2³²−1), facility's order and a
// bank's reference (ffffffff). Tests use it to make a custom ID of every
// kind.
func (k idKind) sample(id uint64) componentID {
	all := componentID{post: questions.PostID(id), review: questions.ReviewID(id), draft: questions.DraftID(id),
		report: questions.ReportID(id), confirmation: questions.ConfirmationID(id), mock: questions.MockID(id),
		period: questions.PeriodDay, ranking: questions.ByPoints, num: uint32(max(min(id, math.MaxUint32), 1)),
		sortBy: sortFacility, ref: "ffffffff"}
	f := componentID{kind: k}
	for _, p := range k.placeholders() {
		if fd, ok := idFields[p]; ok {
			fd.parse(fd.format(all), &f)
		} else {
			f.action, _, _ = strings.Cut(p, "|")
		}
	}
	return f
}

// idField is how one placeholder's value is written and read.
type idField struct {
	format func(componentID) string
	parse  func(string, *componentID) bool
}

// idFields are the placeholders a pattern may use, by name.
var idFields = map[string]idField{
	"post":         idOf(func(c *componentID) *questions.PostID { return &c.post }),
	"review":       idOf(func(c *componentID) *questions.ReviewID { return &c.review }),
	"draft":        idOf(func(c *componentID) *questions.DraftID { return &c.draft }),
	"report":       idOf(func(c *componentID) *questions.ReportID { return &c.report }),
	"confirmation": idOf(func(c *componentID) *questions.ConfirmationID { return &c.confirmation }),
	"mock":         idOf(func(c *componentID) *questions.MockID { return &c.mock }),
	"period": {
		format: func(c componentID) string { return string(c.period) },
		parse: func(s string, c *componentID) bool {
			c.period = questions.Period(s)
			return validPeriod(c.period)
		},
	},
	"ranking": {
		format: func(c componentID) string {
			if c.ranking == questions.ByAccuracy {
				return "a"
			}
			return "p"
		},
		parse: func(s string, c *componentID) bool {
			switch s {
			case "p":
				c.ranking = questions.ByPoints
			case "a":
				c.ranking = questions.ByAccuracy
			default:
				return false
			}
			return true
		},
	},
	"question": {
		format: func(c componentID) string { return strconv.FormatUint(uint64(c.num), 10) },
		parse: func(s string, c *componentID) bool {
			n, err := strconv.ParseUint(s, 10, 32)
			c.num = uint32(n)
			return err == nil && n > 0 && strconv.FormatUint(n, 10) == s
		},
	},
	"sort": {
		format: func(c componentID) string {
			if c.sortBy == sortDiscrimination {
				return "d"
			}
			return "f"
		},
		parse: func(s string, c *componentID) bool {
			switch s {
			case "f":
				c.sortBy = sortFacility
			case "d":
				c.sortBy = sortDiscrimination
			default:
				return false
			}
			return true
		},
	},
	"bank": {
		format: func(c componentID) string { return c.ref },
		parse: func(s string, c *componentID) bool {
			c.ref = s
			return s == "-" || len(s) == 8 && strings.Trim(s, "0123456789abcdef") == ""
		},
	},
	"page": {
		format: func(c componentID) string { return strconv.Itoa(c.page) },
		parse: func(s string, c *componentID) bool {
			page, err := strconv.Atoi(s)
			c.page = page
			return err == nil && page >= 0 && page <= maxPage && strconv.Itoa(page) == s
		},
	},
}

// idOf is the field of an ID of type T, which at finds in a componentID.
func idOf[T ~uint64](at func(*componentID) *T) idField {
	return idField{
		format: func(c componentID) string { return formatID(*at(&c)) },
		parse: func(s string, c *componentID) bool {
			id, ok := parseID[T](s)
			*at(c) = id
			return ok
		},
	}
}

// splitCustomID splits a custom ID into its prefix and fields, or fails
// for one that is empty or longer than Discord allows.
func splitCustomID(s string) (prefix string, fields []string, ok bool) {
	if len(s) == 0 || len(s) > maxCustomID {
		return "", nil, false
	}
	f := strings.Split(s, ":")
	return f[0], f[1:], true
}

func validPeriod(p questions.Period) bool {
	switch p {
	case questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth, questions.PeriodAll:
		return true
	}
	return false
}

// parseID parses a snowflake or post ID: a canonical decimal above zero
// (questions.ParseID).
func parseID[T ~uint64](s string) (T, bool) {
	id, err := questions.ParseID[T](s)
	return id, err == nil
}
