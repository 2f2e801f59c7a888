package questions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Catalogue is an immutable set of banks with lookups by bank name and
// question ID. It is safe for concurrent use: nothing changes it after
// NewCatalogue. The *Bank and *Question it hands out are shared; callers
// must not modify them.
type Catalogue struct {
	banks  []*Bank // sorted by name
	byName map[string]*Bank
	byID   map[string]*Question
	count  int
}

// NewCatalogue builds a catalogue from the banks of one or more files (one
// slice per file, as Parse returns them). Bank names are unique regardless
// of case, and question IDs are unique across all banks: a second bank of
// the same name, or a second question of the same ID, is left out and
// reported as a problem naming both places. The catalogue holds everything
// else, so a caller may choose to go on; Loader refuses instead.
// NewCatalogue does not run Validate. It copies the banks' question slices,
// so later changes to the arguments do not show.
func NewCatalogue(banks ...[]Bank) (*Catalogue, Problems) {
	c := &Catalogue{byName: map[string]*Bank{}, byID: map[string]*Question{}}
	var ps Problems
	where := map[string]string{} // question ID → "path:line" or "bank "name""
	for _, file := range banks {
		for _, b := range file {
			key := strings.ToLower(b.Name)
			if prev, dup := c.byName[key]; dup {
				ps.add(b.Path, firstLine(&b), "bank %q is also defined %s", clip(b.Name), describe(prev))
				continue
			}
			nb := &Bank{Name: b.Name, Path: b.Path, Questions: make([]Question, 0, len(b.Questions))}
			for _, q := range b.Questions {
				if prev, dup := where[q.ID]; dup {
					ps.add(b.Path, q.Line, "question id %q is also used %s", clip(q.ID), prev)
					continue
				}
				where[q.ID] = describeQuestion(&b, &q)
				// The capacity is enough: the pointer stays valid.
				nb.Questions = append(nb.Questions, q)
				c.byID[q.ID] = &nb.Questions[len(nb.Questions)-1]
			}
			c.count += len(nb.Questions)
			c.byName[key] = nb
			c.banks = append(c.banks, nb)
		}
	}
	slices.SortFunc(c.banks, func(a, b *Bank) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.Name, b.Name))
	})
	return c, ps
}

func describe(b *Bank) string {
	if b.Path == "" {
		return "by the built-in bank"
	}
	return "in " + b.Path
}

func describeQuestion(b *Bank, q *Question) string {
	if b.Path == "" {
		return fmt.Sprintf("in the built-in bank %q", clip(b.Name))
	}
	return fmt.Sprintf("at %s:%d", b.Path, q.Line)
}

// Banks returns the banks sorted by name (case-insensitively). The slice is
// the caller's; the banks are shared and must not be modified.
func (c *Catalogue) Banks() []*Bank { return slices.Clone(c.banks) }

// Bank returns the bank named name, matched case-insensitively.
func (c *Catalogue) Bank(name string) (*Bank, bool) {
	b, ok := c.byName[strings.ToLower(name)]
	return b, ok
}

// Question returns the question with the given ID (matched exactly).
func (c *Catalogue) Question(id string) (*Question, bool) {
	q, ok := c.byID[id]
	return q, ok
}

// Len returns the number of questions in all banks.
func (c *Catalogue) Len() int { return c.count }
