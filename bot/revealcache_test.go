package bot

import (
	"testing"

	"github.com/quizhost/quizhost/questions"
)

// TestRevealCache: a post's reveal is rendered once and shared while its
// question and correct letters stay; a regrade (other letters), a changed
// bank (another question) or a close renders it again.
func TestRevealCache(t *testing.T) {
	t.Parallel()
	q, p := bigQuestion(4)
	var c revealCache
	first := c.get(p, q)
	if want := answerReveal(q, p); len(first) != len(want) || first[0][0].Title != want[0][0].Title || first[0][0].Description != want[0][0].Description ||
		len(first[0][0].Fields) != len(want[0][0].Fields) {
		t.Fatalf("got reveal %+v, want answerReveal's %+v", first[0][0], want[0][0])
	}
	if again := c.get(p, q); again[0][0] != first[0][0] {
		t.Error("second answer rendered the reveal again, want the first one shared")
	}

	regraded := p
	regraded.Correct = []string{"B"}
	if got := c.get(regraded, q); got[0][0] == first[0][0] || got[0][0].Title != "Answer: B" {
		t.Errorf("after a regrade got title %q (shared %v), want a new render titled %q", got[0][0].Title, got[0][0] == first[0][0], "Answer: B")
	}

	edited := *q
	edited.Explanation = "Edited."
	if got := c.get(regraded, &edited); got[0][0].Description != "Edited." {
		t.Errorf("after a bank change got description %q, want %q", got[0][0].Description, "Edited.")
	}

	c.forget(p.ID)
	if _, ok := c.posts[p.ID]; ok {
		t.Error("closed post's reveal still kept")
	}
}

func TestRevealCacheBounded(t *testing.T) {
	t.Parallel()
	// A small question: the bound is on posts, whatever their reveals hold
	// (4106 renders of the largest question took 0.2 s of CPU).
	q := &questions.Question{ID: "Small#1", Bank: "Small", Number: 1, Stem: "Which?", Explanation: "Because.",
		Options: []questions.Option{{Letter: "A", Text: "Yes", Correct: true}, {Letter: "B", Text: "No"}}}
	p := questions.Post{GuildID: 1, ChannelID: 2, MessageID: 3, QuestionID: q.ID, Correct: q.Correct(),
		OptionCount: 2, SelectCount: 1, Tallies: make([]int, 2)}
	var c revealCache
	for i := range revealCacheSize + 10 {
		p.ID = questions.PostID(i + 1)
		c.get(p, q)
	}
	if got := len(c.posts); got != revealCacheSize {
		t.Errorf("got %d posts kept, want %d", got, revealCacheSize)
	}
	if _, ok := c.posts[p.ID]; !ok {
		t.Error("the newest post's reveal is not kept")
	}
}
