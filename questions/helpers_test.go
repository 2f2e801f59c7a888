package questions

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// lines joins its arguments with "\n": argument i is line i+1, which keeps
// the expected line numbers of a test readable.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

// want is an expected problem: its line and a part of its message.
type want struct {
	line int
	msg  string
}

// checkProblems compares problems with the expected ones, in order.
func checkProblems(t *testing.T, got Problems, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d problems:\n%v\nwant %d: %v", len(got), got, len(wants), wants)
	}
	for i, w := range wants {
		if got[i].Line != w.line || !strings.Contains(got[i].Msg, w.msg) {
			t.Errorf("problem %d: got line %d %q, want line %d containing %q", i, got[i].Line, got[i].Msg, w.line, w.msg)
		}
	}
}

// dump renders banks for failure messages.
func dump(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// checkInvariants asserts what every parser promises about the banks it
// returns, problems or not.
func checkInvariants(t *testing.T, banks []Bank, ps Problems) {
	t.Helper()
	for _, b := range banks {
		if len(b.Questions) == 0 {
			t.Errorf("bank %q returned with no questions", b.Name)
		}
		for _, q := range b.Questions {
			if len(q.Options) < 2 || len(q.Options) > MaxOptions {
				t.Errorf("question %q has %d options", q.ID, len(q.Options))
			}
			for i, o := range q.Options {
				if o.Letter != Letter(i) {
					t.Errorf("question %q option %d has letter %q", q.ID, i, o.Letter)
				}
				if o.Text == "" {
					t.Errorf("question %q option %s has no text", q.ID, o.Letter)
				}
			}
			if len(q.Correct()) == 0 {
				t.Errorf("question %q has no correct option", q.ID)
			}
			if q.ID == "" || q.Stem == "" || q.Bank != b.Name {
				t.Errorf("question %+v: empty ID or stem, or wrong bank", q)
			}
		}
	}
	for _, p := range ps {
		if p.Msg == "" || p.Line < 0 {
			t.Errorf("bad problem %#v", p)
		}
	}
}

// ids lists "<bank>#<number>" of every question, in order.
func ids(banks []Bank) []string {
	var out []string
	for _, b := range banks {
		for _, q := range b.Questions {
			out = append(out, q.ID)
		}
	}
	return out
}
