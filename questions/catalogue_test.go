package questions

import (
	"fmt"
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

func TestCatalogueMerge(t *testing.T) {
	type bankWant struct {
		name  string
		ids   []string
		files []string
	}
	txt, yml, gift := bank("AWS", "aws/q1.txt", "AWS#1"), bank("AWS", "aws/more.yaml", "s3", "ec2"), bank("aws", "aws/x.gift", "aws#t")
	tests := []struct {
		name  string
		files [][]Bank
		banks []bankWant
		want  []want
	}{
		{
			name:  "same bank in three files of mixed formats",
			files: [][]Bank{{txt}, {yml}, {bank("AWS", "aws/x.gift", "AWS#t")}},
			banks: []bankWant{{"AWS", []string{"AWS#1", "s3", "ec2", "AWS#t"}, []string{"aws/q1.txt", "aws/more.yaml", "aws/x.gift"}}},
		},
		{
			name:  "another spelling joins the first, IDs renamed",
			files: [][]Bank{{txt}, {gift}},
			banks: []bankWant{{"AWS", []string{"AWS#1", "AWS#t"}, []string{"aws/q1.txt", "aws/x.gift"}}},
			want:  []want{{10, `bank "aws" is spelled "AWS" in aws/q1.txt; its questions join that bank under that name`}},
		},
		{
			name:  "a question defined in two files",
			files: [][]Bank{{txt}, {bank("AWS", "dup/q1.txt", "AWS#1", "AWS#2")}},
			banks: []bankWant{{"AWS", []string{"AWS#1", "AWS#2"}, []string{"aws/q1.txt", "dup/q1.txt"}}},
			want:  []want{{10, `question "AWS#1" is also defined at aws/q1.txt:10`}},
		},
		{
			name:  "a question id in two banks",
			files: [][]Bank{{bank("A", "a.yaml", "q", "r")}, {bank("B", "b.yaml", "s", "q")}},
			banks: []bankWant{{"A", []string{"q", "r"}, []string{"a.yaml"}}, {"B", []string{"s"}, []string{"b.yaml"}}},
			want:  []want{{20, `question "q" is also defined at a.yaml:10`}},
		},
		{
			name:  "an id of the built-in bank",
			files: [][]Bank{{bank("Sample", "", "s#1")}, {bank("Mine", "mine.txt", "s#1", "m#2")}},
			banks: []bankWant{{"Mine", []string{"m#2"}, []string{"mine.txt"}}, {"Sample", []string{"s#1"}, nil}},
			want:  []want{{10, `question "s#1" is also defined in the built-in bank "Sample"`}},
		},
		{
			name:  "a bank left with no question is left out",
			files: [][]Bank{{txt}, {bank("Copy", "copy.txt", "AWS#1")}},
			banks: []bankWant{{"AWS", []string{"AWS#1"}, []string{"aws/q1.txt"}}},
			want:  []want{{10, `question "AWS#1" is also defined at aws/q1.txt:10`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ps := NewCatalogue(tt.files...)
			checkProblems(t, ps, tt.want)
			var got []bankWant
			n := 0
			for _, b := range c.Banks() {
				bw := bankWant{name: b.Name, files: b.Files()}
				for _, q := range b.Questions {
					bw.ids = append(bw.ids, q.ID)
					if q.Bank != b.Name {
						t.Errorf("question %q has Bank %q, want %q", q.ID, q.Bank, b.Name)
					}
					if got, ok := c.Question(q.ID); !ok || got.Bank != b.Name {
						t.Errorf("Question(%q) = %+v, %v, want it in bank %q", q.ID, got, ok, b.Name)
					}
				}
				n += len(b.Questions)
				got = append(got, bw)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.banks) {
				t.Errorf("got banks %v, want %v", got, tt.banks)
			}
			if c.Len() != n {
				t.Errorf("got Len %d, want %d", c.Len(), n)
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
