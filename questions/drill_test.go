package questions

import (
	"slices"
	"testing"
	"time"
)

func drillBank() []Question {
	var qs []Question
	add := func(id string, tags ...string) { qs = append(qs, Question{ID: id, Bank: "b", Tags: tags}) }
	add("n1", "net")
	add("n2", "Net")
	add("n3", "net", "sec")
	add("n4", "net")
	add("n5", "net")
	add("n6", "net")
	add("n7", "net")
	add("s1", "sec")
	add("s2", "sec")
	add("x1")
	return qs
}

// drillMemories: n1 and n4 missed (n4 longer ago), n2, n3 and n7 known (n7
// answered longest ago), n5, n6 never answered; s1 right.
func drillMemories(now time.Time) map[string]Memory {
	mems := map[string]Memory{}
	put := func(id string, attempts ...Attempt) { mems[id] = Replay(1, id, attempts, nil) }
	put("n1", Attempt{At: now.Add(-time.Hour)})
	put("n4", Attempt{At: now.AddDate(0, 0, -9), Right: true}, Attempt{At: now.AddDate(0, 0, -3)})
	put("n2", Attempt{At: now.AddDate(0, 0, -1), Right: true})
	put("n3", Attempt{At: now.AddDate(0, 0, -2), Right: true})
	put("n7", Attempt{At: now.AddDate(0, 0, -20), Right: true})
	put("s1", Attempt{At: now.AddDate(0, 0, -1), Right: true})
	return mems
}

func TestPlanDrill(t *testing.T) {
	now := m0
	qs, mems := drillBank(), drillMemories(now)
	// The oracle's recall order among the misses and the known.
	if !(mems["n4"].Retrievability(now) < mems["n1"].Retrievability(now)) {
		t.Fatalf("constructed case: n4 should be less recalled than n1")
	}
	tests := []struct {
		name  string
		topic string
		count int
		skip  func(string) bool
		want  []string
	}{
		{"misses, then new, then a few known", "net", 10, nil, []string{"n4", "n1", "n5", "n6", "n7", "n3", "n2"}},
		{"a short drill keeps a fifth for the known", "NET", 5, nil, []string{"n4", "n1", "n5", "n6", "n7"}},
		{"a drill of two: one miss and one known", "net", 2, nil, []string{"n4", "n7"}},
		{"a drill of one: the weakest miss", "net", 1, nil, []string{"n4"}},
		{"open questions are left out", "net", 10, func(id string) bool { return id == "n4" || id == "n5" }, []string{"n1", "n6", "n7", "n3", "n2"}},
		{"another topic", "sec", 10, nil, []string{"s2", "n3", "s1"}},
		{"no topic: every question", "", 3, nil, []string{"n4", "n1", "n7"}},
	}
	for _, tt := range tests {
		if got := PlanDrill(qs, mems, tt.topic, tt.count, tt.skip, now); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWeakestTopic(t *testing.T) {
	now := m0
	qs := drillBank()
	if got := Topics(qs); !slices.Equal(got, []string{"net", "sec"}) {
		t.Errorf("Topics: got %v, want [net sec] (Net is net)", got)
	}
	// net: 5 of 7 seen, two of them missed; sec: 2 of 3 seen, both right.
	mems := drillMemories(now)
	r := ComputeReadiness(qs, mems, nil, now, now)
	var net, sec TopicReadiness
	for _, tr := range r.Topics {
		switch tr.Topic {
		case "net":
			net = tr
		case "sec":
			sec = tr
		}
	}
	want := "net"
	if sec.Recall < net.Recall {
		want = "sec"
	}
	if got, recall, ok := WeakestTopic(qs, mems, now); !ok || got != want || recall != min(net.Recall, sec.Recall) {
		t.Errorf("WeakestTopic: got %q %v %v, want %q (net %.3f, sec %.3f)", got, recall, ok, want, net.Recall, sec.Recall)
	}
	// sec made weak: its known question forgotten long ago, one missed.
	mems["s1"] = Replay(1, "s1", []Attempt{{At: now.AddDate(-1, 0, 0), Right: true}}, nil)
	mems["s2"] = Replay(1, "s2", []Attempt{{At: now.Add(-time.Minute)}}, nil)
	delete(mems, "n3")
	if got, _, _ := WeakestTopic(qs, mems, now); got != "sec" {
		t.Errorf("WeakestTopic with sec forgotten: got %q, want sec", got)
	}
	// Nothing answered: the topic with the most questions.
	if got, _, ok := WeakestTopic(qs, nil, now); !ok || got != "net" {
		t.Errorf("WeakestTopic of a new member: got %q %v, want net (7 questions)", got, ok)
	}
	if _, _, ok := WeakestTopic([]Question{{ID: "x"}}, nil, now); ok {
		t.Error("WeakestTopic of an untagged bank: got ok, want false")
	}
}

func TestDrillScore(t *testing.T) {
	start := m0
	d := Drill{Questions: []string{"a", "b", "c", "d"}, Shown: 3, StartedAt: start}
	mems := map[string]Memory{
		"a": {History: []Attempt{{At: start.Add(-time.Hour)}, {At: start.Add(time.Minute), Right: true}}}, // right in the drill
		"b": {History: []Attempt{{At: start.Add(2 * time.Minute)}, {At: start.Add(9 * time.Minute), Right: true}}},
		"c": {History: []Attempt{{At: start.Add(-time.Hour), Right: true}}}, // shown, not answered
		"d": {History: []Attempt{{At: start.Add(time.Hour), Right: true}}},  // not shown yet
	}
	if answered, right := d.Score(mems); answered != 2 || right != 1 {
		t.Errorf("Score: got %d answered, %d right; want 2, 1", answered, right)
	}
}

// TestDrillCurrent: a drill's latest question is the review it last
// showed; a drill stored before that was kept goes by the question last
// shown and the time it was shown.
func TestDrillCurrent(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	d := Drill{UserID: 7, Questions: []string{"q1", "q2", "q3"}, Shown: 2, StartedAt: start, Review: 12}
	legacy := d
	legacy.Review = 0
	tests := []struct {
		name  string
		d     Drill
		r     Review
		fresh bool
	}{
		{"the review last shown", d, Review{ID: 12, UserID: 7, QuestionID: "q2", OpenedAt: start}, true},
		{"an earlier review of the same question", d, Review{ID: 11, UserID: 7, QuestionID: "q2", OpenedAt: start}, false},
		{"before it was kept: the question last shown", legacy, Review{ID: 5, UserID: 7, QuestionID: "q2", OpenedAt: start.Add(time.Minute)}, true},
		{"before it was kept: a question shown earlier", legacy, Review{ID: 5, UserID: 7, QuestionID: "q1", OpenedAt: start}, false},
		{"before it was kept: shown before the drill started", legacy, Review{ID: 5, UserID: 7, QuestionID: "q2", OpenedAt: start.Add(-time.Minute)}, false},
		{"before it was kept: another member's", legacy, Review{ID: 5, UserID: 8, QuestionID: "q2", OpenedAt: start}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Current(tt.r); got != tt.fresh {
				t.Errorf("Current = %v, want %v", got, tt.fresh)
			}
		})
	}
}
