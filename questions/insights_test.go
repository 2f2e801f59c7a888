package questions

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// discOf sums observations (right, y) as storage counts answers.
func discOf(obs ...struct {
	right bool
	y     float64
}) DiscSums {
	var d DiscSums
	for _, o := range obs {
		d = d.Add(o.right, o.y)
	}
	return d
}

type obs = struct {
	right bool
	y     float64
}

// repeat is n observations (right, y).
func repeat(n int, right bool, y float64) []obs {
	out := make([]obs, n)
	for i := range out {
		out[i] = obs{right, y}
	}
	return out
}

// TestDiscriminationHandWorked checks the index against Pearson's r
// worked by hand, from means and deviations, and the cases where it is
// not defined.
func TestDiscriminationHandWorked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		obs    []obs
		want   float64
		wantOK bool
	}{
		// Four members whose accuracy on the rest of the bank is 1, 0.8,
		// 0.4 and 0.2; all but the third get the question right. Means:
		// x̄ = 0.75, ȳ = 0.6. Deviations: x 0.25, 0.25, −0.75, 0.25; y 0.4,
		// 0.2, −0.2, −0.4. Σdx·dy = 0.1 + 0.05 + 0.15 − 0.1 = 0.2; Σdx² =
		// 0.75; Σdy² = 0.4. r = 0.2 / √(0.75 · 0.4) = 0.2 / √0.3 = 0.365148.
		{"four members, the weakest right by luck", []obs{{true, 1}, {true, 0.8}, {false, 0.4}, {true, 0.2}}, 0.365148, true},
		// The strong get it wrong, the weak right: x̄ = 0.5, ȳ = 0.5;
		// deviations x −0.5, −0.5, 0.5, 0.5; y 0.5, 0.5, −0.5, −0.5:
		// Σdx·dy = 4 · (−0.25) = −1; Σdx² = 1, Σdy² = 1: r = −1.
		{"a wrong key: strong wrong, weak right", []obs{{false, 1}, {false, 1}, {true, 0}, {true, 0}}, -1, true},
		// Half right at every accuracy: Σdx·dy = 0.
		{"no relation", []obs{{true, 0.25}, {false, 0.25}, {true, 0.75}, {false, 0.75}}, 0, true},
		{"one answer", []obs{{true, 1}}, 0, false},
		{"every answer right", []obs{{true, 1}, {true, 0.5}, {true, 0}}, 0, false},
		{"every answer wrong", []obs{{false, 1}, {false, 0.5}}, 0, false},
		{"every member of one accuracy", []obs{{true, 0.6}, {false, 0.6}, {true, 0.6}}, 0, false},
		{"none", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := discOf(tt.obs...).Index()
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("got %.6f, %v; want %.6f, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// picks is OptionPicks of total (right, wrong) picks, strong of them by
// strong members.
func picks(right, wrong, strong int) OptionPicks {
	return OptionPicks{Right: right, Wrong: wrong, Strong: strong}
}

// TestFlags checks each reason on both sides of its threshold: at least
// MinAnswersForFlag answers; facility under LowFacility with a wrong
// option picked more than an option of the key; a negative
// discrimination over at least MinAnswersForFlag counted answers; the
// source site's most voted answer not the key; an open report.
func TestFlags(t *testing.T) {
	t.Parallel()
	q := func(key string, community ...CommunityVote) *Question {
		qq := &Question{ID: "b#1", Bank: "b", Community: community}
		for i := range 4 {
			qq.Options = append(qq.Options, Option{Letter: Letter(i), Text: Letter(i), Correct: strings.Contains(key, Letter(i))})
		}
		return qq
	}
	// single is the statistics of a question of key B whose answers are
	// right right times and pick C wrongC times and D the rest.
	single := func(answers, right, wrongC int) QuestionStats {
		wrongD := answers - right - wrongC
		s := QuestionStats{QuestionID: "b#1", Key: []string{"B"}, Answers: answers, Right: right,
			Options: []OptionPicks{{}, picks(right, 0, 0), picks(0, wrongC, 0), picks(0, wrongD, 0)}}
		for _, c := range []ComboCount{{[]string{"C"}, wrongC}, {[]string{"D"}, wrongD}} {
			if c.Count > 0 {
				s.WrongCombos = append(s.WrongCombos, c)
			}
		}
		slices.SortStableFunc(s.WrongCombos, func(a, b ComboCount) int { return b.Count - a.Count })
		return s
	}
	sound := discOf(append(repeat(5, true, 0.75), repeat(5, false, 0.25)...)...) // r = 1
	negative := func(n int) DiscSums {
		return discOf(append(repeat(n/2, false, 0.75), repeat(n-n/2, true, 0.25)...)...) // r = −1
	}
	withDisc := func(s QuestionStats, d DiscSums) QuestionStats { s.Disc = d; return s }
	strongly := func(s QuestionStats, strong, strongB, strongC int) QuestionStats {
		s.Strong = strong
		s.Options[1].Strong, s.Options[2].Strong = strongB, strongC
		return s
	}
	tests := []struct {
		name    string
		st      QuestionStats
		q       *Question
		reports int
		want    []FlagKind
		reason  string   // a reason's words, when flagged
		suggest []string // the first flag's suggested key
	}{
		{"10 answers, facility 10%, C picked 8 times over the key's once", single(10, 1, 8), q("B"), 0,
			[]FlagKind{FlagWrongPick}, "members pick C over the key B: 80% vs 10%", []string{"C"}},
		{"9 answers: too few", single(9, 1, 7), q("B"), 0, nil, "", nil},
		{"facility exactly 20%: not under", single(10, 2, 7), q("B"), 0, nil, "", nil},
		{"facility 19%", single(100, 19, 60), q("B"), 0, []FlagKind{FlagWrongPick}, "members pick C over the key B: 60% vs 19%", []string{"C"}},
		{"facility 10%, but no wrong option picked more than the key", QuestionStats{Key: []string{"A", "B"}, Answers: 10, Right: 1,
			Options: []OptionPicks{picks(1, 8, 0), picks(1, 0, 0), picks(0, 1, 0), {}}}, q("AB"), 0, nil, "", nil},
		{"facility 10%, C picked once more than B of the key AB", QuestionStats{Key: []string{"A", "B"}, Answers: 10, Right: 1,
			Options: []OptionPicks{picks(1, 8, 0), picks(1, 0, 0), picks(0, 2, 0), {}}}, q("AB"), 0,
			[]FlagKind{FlagWrongPick}, "members pick C over B of the key AB: 20% vs 10%", []string{"A", "C"}},
		{"five strong members' answers: the reason speaks of them", strongly(single(20, 2, 16), 5, 0, 5), q("B"), 0,
			[]FlagKind{FlagWrongPick}, "strong members pick C over the key B: 100% vs 0%", []string{"C"}},
		{"four strong members' answers: too few to speak of", strongly(single(20, 2, 16), 4, 0, 4), q("B"), 0,
			[]FlagKind{FlagWrongPick}, "members pick C over the key B: 80% vs 10%", []string{"C"}},
		{"negative discrimination over 10 answers", withDisc(single(10, 5, 3), negative(10)), q("B"), 0,
			[]FlagKind{FlagNegative}, "get it wrong more often than the others (discrimination −1.00)", []string{"C"}},
		{"negative discrimination over 9 answers: too few", withDisc(single(20, 10, 5), negative(9)), q("B"), 0, nil, "", nil},
		{"discrimination exactly 0", withDisc(single(10, 5, 3), discOf(append(repeat(5, true, 0.5), obs{true, 0.25}, obs{false, 0.25},
			obs{true, 0.75}, obs{false, 0.75}, obs{false, 0.5})...)), q("B"), 0, nil, "", nil},
		{"positive discrimination", withDisc(single(10, 5, 3), sound), q("B"), 0, nil, "", nil},
		{"the source site votes C, the key is B", single(0, 0, 0), q("B", CommunityVote{[]string{"C"}, 64}, CommunityVote{[]string{"B"}, 36}), 0,
			[]FlagKind{FlagCommunity}, "the source site's members chose C (64%), the key is B", []string{"C"}},
		{"the source site votes the key", single(0, 0, 0), q("B", CommunityVote{[]string{"B"}, 90}, CommunityVote{[]string{"C"}, 10}), 0, nil, "", nil},
		{"no answers: the bank's key is compared", QuestionStats{}, q("C", CommunityVote{[]string{"C"}, 90}), 0, nil, "", nil},
		{"answers graded against B, the bank now says C, the site C", single(3, 1, 1), q("C", CommunityVote{[]string{"C"}, 90}), 0,
			[]FlagKind{FlagCommunity}, "the key is B", []string{"C"}},
		{"the question gone from the bank: no vote to compare", single(3, 1, 1), nil, 0, nil, "", nil},
		{"one open report", single(3, 1, 1), q("B"), 1, []FlagKind{FlagReport}, "1 open report (see /quizadmin reports)", nil},
		{"two open reports", single(3, 1, 1), q("B"), 2, []FlagKind{FlagReport}, "2 open reports", nil},
		{"no open report", single(3, 1, 1), q("B"), 0, nil, "", nil},
		{"every reason, in order", withDisc(single(10, 1, 8), negative(10)), q("B", CommunityVote{[]string{"C"}, 70}), 1,
			[]FlagKind{FlagWrongPick, FlagNegative, FlagCommunity, FlagReport}, "members pick C over the key B", []string{"C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fl := Flags(tt.st, tt.q, tt.reports)
			var kinds []FlagKind
			var reasons []string
			for _, f := range fl {
				kinds = append(kinds, f.Kind)
				reasons = append(reasons, f.Reason)
			}
			if !slices.Equal(kinds, tt.want) {
				t.Fatalf("got flags %v (%q), want %v", kinds, reasons, tt.want)
			}
			if len(fl) == 0 {
				return
			}
			if !strings.Contains(strings.Join(reasons, "\n"), tt.reason) {
				t.Errorf("got reasons %q, want one containing %q", reasons, tt.reason)
			}
			if !slices.Equal(fl[0].Suggest, tt.suggest) {
				t.Errorf("got suggested key %v, want %v", fl[0].Suggest, tt.suggest)
			}
			// Dismissed, none of them shows.
			tt.st.Dismissed = true
			if got := Flags(tt.st, tt.q, tt.reports); got != nil {
				t.Errorf("dismissed: got %v, want none", got)
			}
		})
	}
}
