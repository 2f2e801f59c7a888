package questions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with a bank file, at a line of it.
type Problem struct {
	// Path is the file, as the caller named it ("builtin/sample.txt" for the
	// built-in bank).
	Path string
	// Line is 1-based; 0 when the problem concerns the file as a whole.
	Line int
	// Msg says what is wrong, in lower case, without the position.
	Msg string
	// Warning marks a problem that does not stop the file from loading:
	// something skipped (a GIFT essay question, say) that its author should
	// know about. A file with only warnings loads.
	Warning bool
	// Omitted, when not 0, marks the summary that ends a list cut short
	// (see ParseOptions.MaxProblems): that many more problems were found
	// and are not listed. Msg says so; the summary is not one of them.
	Omitted int
}

// Error returns "path:line: message", or "path: message" when Line is 0;
// a warning's message starts with "warning: ".
func (p Problem) Error() string {
	msg := p.Msg
	if p.Warning {
		msg = "warning: " + msg
	}
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", p.Path, msg)
	}
	return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, msg)
}

// Problems is every problem found in one or more files. It is an error so
// that parsers can return it as one; use Err to turn an empty list into a
// nil error.
type Problems []Problem

// Error returns one problem per line.
func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// Err returns the errors of ps (its problems that are not warnings) as an
// error, or nil when there are none. Returning a nil Problems as an error
// directly would give a non-nil error.
func (ps Problems) Err() error {
	errs := ps.Errors()
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// Count returns how many problems ps stands for: those it lists, and
// those a summary says were left out (see Problem.Omitted).
func (ps Problems) Count() int {
	n := 0
	for _, p := range ps {
		if p.Omitted > 0 {
			n += p.Omitted
		} else {
			n++
		}
	}
	return n
}

// Errors returns the problems of ps that are not warnings, in order.
func (ps Problems) Errors() Problems { return ps.filter(false) }

// Warnings returns the problems of ps that are warnings, in order.
func (ps Problems) Warnings() Problems { return ps.filter(true) }

func (ps Problems) filter(warning bool) Problems {
	var out Problems
	for _, p := range ps {
		if p.Warning == warning {
			out = append(out, p)
		}
	}
	return out
}

// add appends a problem at a line.
func (ps *Problems) add(path string, line int, format string, args ...any) {
	*ps = append(*ps, Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// omission counts the problems left out of a list cut at a bound (see
// addMax): how many, and how many of them are errors. A list cut of
// warnings alone still loads its file.
type omission struct{ n, errors int }

// count counts one problem left out.
func (o *omission) count(warning bool) {
	o.n++
	if !warning {
		o.errors++
	}
}

// addMax is add for a list that holds at most max problems (0: no
// limit): past max the problem is only counted in *omitted, so that a
// hostile file costs a counter, not a Problem, per mistake.
func (ps *Problems) addMax(max int, omitted *omission, path string, line int, format string, args ...any) {
	if !ps.full(max, omitted, false) {
		ps.add(path, line, format, args...)
	}
}

// warnMax is warn for a list of at most max problems (see addMax).
func (ps *Problems) warnMax(max int, omitted *omission, path string, line int, format string, args ...any) {
	if !ps.full(max, omitted, true) {
		ps.warn(path, line, format, args...)
	}
}

// keepMax appends p to a list of at most max problems (see addMax).
func (ps *Problems) keepMax(max int, omitted *omission, p Problem) {
	if !ps.full(max, omitted, p.Warning) {
		*ps = append(*ps, p)
	}
}

// full reports whether ps holds max problems already (never when max is
// 0), counting the one that would have been added (a warning or not) in
// *omitted.
func (ps Problems) full(max int, omitted *omission, warning bool) bool {
	if max > 0 && len(ps) >= max {
		omitted.count(warning)
		return true
	}
	return false
}

// omitted appends the summary of the problems o counts, left out of a
// list of path's (nothing when there are none): a warning when they all
// are, so that a file whose list is cut loads unless an error was cut.
func (ps *Problems) omitted(path string, o omission) {
	what := "problem"
	if o.errors == 0 {
		what = "warning"
	}
	switch {
	case o.n == 1:
		*ps = append(*ps, Problem{Path: path, Msg: "…and 1 more " + what + ", not listed", Omitted: 1, Warning: o.errors == 0})
	case o.n > 1:
		*ps = append(*ps, Problem{Path: path, Msg: fmt.Sprintf("…and %d more %ss, not listed", o.n, what), Omitted: o.n, Warning: o.errors == 0})
	}
}

// Limit cuts ps (one file's problems, sorted) to its first max (0: no
// limit), then ends it with one summary (Problem.Omitted) of everything
// left out: the problems cut here and those earlier summaries stood for;
// the summary is a warning when all of them are. Errors are kept before
// warnings, so that a cut list still says why a file fails. ps is not
// modified.
func (ps Problems) Limit(max int) Problems { return ps.limit(max) }

func (ps Problems) limit(max int) Problems {
	var listed Problems
	var omitted omission
	path := ""
	for _, p := range ps {
		path = p.Path
		if p.Omitted > 0 {
			omitted.n += p.Omitted
			if !p.Warning {
				omitted.errors++ // at least one
			}
		} else {
			listed = append(listed, p)
		}
	}
	if max > 0 && len(listed) > max {
		slices.SortStableFunc(listed, func(a, b Problem) int {
			switch {
			case a.Warning == b.Warning:
				return 0
			case b.Warning:
				return -1
			}
			return 1
		})
		for _, p := range listed[max:] {
			omitted.count(p.Warning)
		}
		listed = listed[:max:max]
		listed.sortByLine()
	}
	listed.omitted(path, omitted)
	return listed
}

// warn appends a warning at a line.
func (ps *Problems) warn(path string, line int, format string, args ...any) {
	*ps = append(*ps, Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, args...), Warning: true})
}

// sortByLine orders problems by path, then line, keeping the order of
// problems on the same line.
func (ps Problems) sortByLine() {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
}
