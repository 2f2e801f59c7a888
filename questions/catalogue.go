package questions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
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
// slice per file, as Parse returns them, in the order the files should be
// read). A bank is its name: the banks of every file that names the same
// bank, matched case-insensitively, make one bank, holding their questions
// in the order given and spelled as the first file spells it (a later
// spelling that differs in case is a warning, and its questions' Bank and
// name-derived IDs take the first spelling). A bank's Path is its first
// file; each question's Path is its bank's Path unless already set.
//
// Question IDs are unique across all banks: a second question of the same
// ID is left out and reported as an error naming both places, "path:line"
// (or the built-in bank, for banks with no Path). A bank left with no
// question is left out. The catalogue holds everything else, so a caller
// may choose to go on; Loader's callers refuse instead. A bank gets the
// exam settings of the first of its parts that has some; a second part
// with settings is an error, and so is a domain of the settings that none
// of the merged bank's questions is tagged with (CheckExamDomains).
// NewCatalogue does not run Validate, and copies the questions, so later
// changes to the arguments do not show.
func NewCatalogue(banks ...[]Bank) (*Catalogue, Problems) {
	c := &Catalogue{byName: map[string]*Bank{}, byID: map[string]*Question{}}
	var ps Problems
	where := map[string]string{} // question ID → "at path:line" or "in the built-in bank"
	var all []*Bank
	for _, file := range banks {
		for _, b := range file {
			key := strings.ToLower(b.Name)
			nb, ok := c.byName[key]
			if !ok {
				nb = &Bank{Name: b.Name, Path: b.Path}
				c.byName[key] = nb
				all = append(all, nb)
			} else if nb.Name != b.Name {
				ps.warn(b.Path, firstLine(&b), "bank %q is spelled %q in %s; its questions join that bank under that name",
					clip(b.Name), clip(nb.Name), describe(nb))
			}
			switch {
			case b.Exam == nil:
			case nb.Exam != nil:
				ps.add(b.Exam.Path, b.Exam.Line, "bank %q has exam settings already, at %s:%d; give them once", clip(nb.Name), nb.Exam.Path, nb.Exam.Line)
			default:
				e := *b.Exam
				e.Domains = slices.Clone(e.Domains)
				nb.Exam = &e
			}
			for _, q := range b.Questions {
				if q.Path == "" {
					q.Path = b.Path
				}
				if nb.Name != b.Name {
					q.Bank = nb.Name
					if rest, ok := strings.CutPrefix(q.ID, b.Name+"#"); ok {
						q.ID = nb.Name + "#" + rest
					}
				}
				if prev, dup := where[q.ID]; dup {
					ps.add(q.Path, q.Line, "question %q is also defined %s", clip(q.ID), prev)
					continue
				}
				where[q.ID] = describeQuestion(nb, &q)
				nb.Questions = append(nb.Questions, q)
			}
		}
	}
	for _, nb := range all {
		if len(nb.Questions) == 0 {
			delete(c.byName, strings.ToLower(nb.Name))
			continue
		}
		checkDomains(nb, &ps)
		for i := range nb.Questions {
			c.byID[nb.Questions[i].ID] = &nb.Questions[i]
		}
		c.count += len(nb.Questions)
		c.banks = append(c.banks, nb)
	}
	slices.SortFunc(c.banks, func(a, b *Bank) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.Name, b.Name))
	})
	return c, ps
}

func describe(b *Bank) string {
	if b.Path == "" {
		return "the built-in bank"
	}
	return b.Path
}

func describeQuestion(b *Bank, q *Question) string {
	if q.Path == "" {
		return fmt.Sprintf("in the built-in bank %q", clip(b.Name))
	}
	return fmt.Sprintf("at %s:%d", q.Path, q.Line)
}

// Files returns the files b's questions came from, each once, in the order
// of the questions; built-in and imported questions have none.
func (b *Bank) Files() []string {
	var files []string
	seen := map[string]bool{}
	for _, q := range b.Questions {
		if q.Path != "" && !seen[q.Path] {
			seen[q.Path] = true
			files = append(files, q.Path)
		}
	}
	return files
}

// CheckBankName refuses a bank name that a built-in bank has, matched
// case-insensitively and ignoring surrounding white space: a bank is its
// name, so a file or an import naming the built-in bank would change what
// every server has. The error reads `bank "quizhost Sample" is the built-in
// bank's name; give your bank another name` and wraps ErrBuiltinName. It is
// the one rule the loader (start-up and "quizhost validate") and imports
// apply. Safe for concurrent use.
func CheckBankName(name string) error {
	builtin, err := builtinNames()
	if err != nil {
		return fmt.Errorf("check bank name: %w", err)
	}
	return checkBankName(builtin, name)
}

// builtinNames is the built-in banks, parsed once (they are compiled in)
// and kept for their names only: an import checks each of its banks.
var builtinNames = sync.OnceValues(func() ([]Bank, error) {
	banks, err := Builtin()
	names := make([]Bank, len(banks))
	for i, b := range banks {
		names[i] = Bank{Name: b.Name}
	}
	return names, err
})

func checkBankName(builtin []Bank, name string) error {
	for _, b := range builtin {
		if strings.EqualFold(strings.TrimSpace(name), b.Name) {
			return fmt.Errorf("bank %q is %w; give your bank another name", clip(name), ErrBuiltinName)
		}
	}
	return nil
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
