package benchbanks

import (
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestRealisticParses(t *testing.T) {
	data := Realistic("Bench 1", 1, 1<<20)
	if len(data) > 1<<20 || len(data) < 1<<20-1000 {
		t.Errorf("got %d bytes, want just under 1 MiB", len(data))
	}
	banks, err := questions.Parse("b.yaml", data)
	if err != nil || len(banks) != 1 || banks[0].Name != "Bench 1" || len(banks[0].Questions) < 1500 {
		t.Fatalf("got %d banks, %v", len(banks), err)
	}
}

func TestHostileIsIssue19s(t *testing.T) {
	data := Hostile(64 << 10)
	if len(data) > 64<<10 || len(data) < 64<<10-20 {
		t.Errorf("got %d bytes, want just under 64 KiB", len(data))
	}
	_, ps := questions.ParseFile("h.json", data, questions.ParseOptions{MaxProblems: 10})
	if want := 3 * ((64<<10-35)/9 + 1); ps.Count() != want {
		t.Errorf("got %d problems, want three a question (%d)", ps.Count(), want)
	}
}
