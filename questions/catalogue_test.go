package questions

import (
	"sync"
	"testing"
)

func bank(name, path string, ids ...string) Bank {
	b := Bank{Name: name, Path: path}
	for i, id := range ids {
		b.Questions = append(b.Questions, Question{ID: id, Bank: name, Number: i + 1, Line: 10 * (i + 1)})
	}
	return b
}

func TestCatalogue(t *testing.T) {
	c, ps := NewCatalogue(
		[]Bank{bank("beta", "b.txt", "beta#1", "beta#2")},
		[]Bank{bank("Alpha", "a.yaml", "a1"), bank("gamma", "a.yaml", "g1")},
	)
	checkProblems(t, ps, nil)
	var names []string
	for _, b := range c.Banks() {
		names = append(names, b.Name)
	}
	if got := dump(names); got != dump([]string{"Alpha", "beta", "gamma"}) {
		t.Errorf("got banks %s, want Alpha, beta, gamma", got)
	}
	if c.Len() != 4 {
		t.Errorf("got Len %d, want 4", c.Len())
	}
	tests := []struct {
		name, bank string
		want       bool
	}{
		{"exact", "beta", true},
		{"other case", "ALPHA", true},
		{"missing", "delta", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := c.Bank(tt.bank); ok != tt.want {
				t.Errorf("got %v, want %v", ok, tt.want)
			}
		})
	}
	q, ok := c.Question("beta#2")
	if !ok || q.Bank != "beta" || q.Number != 2 {
		t.Errorf("got %+v %v, want beta#2", q, ok)
	}
	if _, ok := c.Question("BETA#2"); ok {
		t.Error("got a question for BETA#2, want IDs matched exactly")
	}
	// Concurrent readers (run with -race).
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c.Banks()
			c.Bank("gamma")
			c.Question("a1")
		})
	}
	wg.Wait()
}

func TestCatalogueConflicts(t *testing.T) {
	tests := []struct {
		name  string
		files [][]Bank
		want  []want
		len   int
	}{
		{
			name:  "same bank in two files",
			files: [][]Bank{{bank("Net", "a.txt", "Net#1")}, {bank("net", "b.txt", "x#1")}},
			want:  []want{{10, `bank "net" is also defined in a.txt`}},
			len:   1,
		},
		{
			name:  "a file bank named like the built-in one",
			files: [][]Bank{{bank("Sample", "", "s#1")}, {bank("Sample", "mine.txt", "m#1")}},
			want:  []want{{10, `bank "Sample" is also defined by the built-in bank`}},
			len:   1,
		},
		{
			name:  "same question id in two banks",
			files: [][]Bank{{bank("A", "a.yaml", "q", "r")}, {bank("B", "b.yaml", "s", "q")}},
			want:  []want{{20, `question id "q" is also used at a.yaml:10`}},
			len:   3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := NewCatalogue(tt.files...)
			checkProblems(t, ps, tt.want)
			if c.Len() != tt.len {
				t.Errorf("got Len %d, want %d", c.Len(), tt.len)
			}
		})
	}
}

// The catalogue does not see later changes to the banks it was built from.
func TestCatalogueCopies(t *testing.T) {
	b := []Bank{bank("A", "a.txt", "a1")}
	c, _ := NewCatalogue(b)
	b[0].Questions[0].ID = "changed"
	if _, ok := c.Question("a1"); !ok {
		t.Error("got no a1 after changing the argument, want the catalogue unchanged")
	}
	if q, _ := c.Question("a1"); q.ID != "a1" {
		t.Errorf("got ID %q, want a1", q.ID)
	}
}
