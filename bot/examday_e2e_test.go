package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestEarlyCloseBringsMissesBack: a miss of a question an admin closes
// early comes due a minute after that close, not a minute after the
// question's scheduled close, and /quiz review offers it then.
func TestEarlyCloseBringsMissesBack(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, start)
	e.start()
	post, _ := e.ask(alice, str("bank", "Test Bank"), integer("minutes", 10))
	e.choose(bob, post, wrongOf(post)...)
	e.advance(time.Minute)
	e.settled(func() {
		if got := e.admin(alice, sub("close")); !strings.Contains(got, "Closed 1 question") {
			t.Fatalf("close: %q", got)
		}
	})
	closed := e.revealed(post.ID)
	if !closed.Closed || !closed.ClosedAt.Before(closed.ClosesAt) {
		t.Fatalf("post closed %v at %v, want closed before %v", closed.Closed, closed.ClosedAt, closed.ClosesAt)
	}
	if due, want := e.memory(7002, post.QuestionID).Due, closed.ClosedAt.Add(time.Minute); !due.Equal(want) {
		t.Errorf("the miss is due %v, want a minute after the close, %v", due, want)
	}
	e.advance(time.Minute)
	r, _ := e.startReview(bob)
	if !strings.Contains(r.Content, "1 question due") || !strings.Contains(r.Content, "you missed this one last time") {
		t.Errorf("review a minute after the early close: %q, want the miss (due %s)", r.Content,
			fmt.Sprintf("<t:%d:R>", e.memory(7002, post.QuestionID).Due.Unix()))
	}
	e.checkWire()
}
