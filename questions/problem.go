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
