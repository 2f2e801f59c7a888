package bot_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// slowCommits is the database with answers that wait, before they are
// recorded, until the test releases them.
type slowCommits struct {
	*storage.DB
	once    sync.Once
	entered chan struct{} // closed when the first answer starts recording
	release chan struct{} // close to let answers record
}

func (s *slowCommits) RecordAnswer(ctx context.Context, a questions.Answer) (questions.Answer, error) {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.DB.RecordAnswer(ctx, a)
}

// TestSlowCommitDefersThenGrades: an answer whose commit is still running
// near Discord's 3 s deadline gets a private deferral in time (not an
// acknowledgement: nothing is stored yet), and the graded reply, the
// reveal included, as the edit of it once the commit is done.
func TestSlowCommitDefersThenGrades(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	sc := &slowCommits{entered: make(chan struct{}), release: make(chan struct{})}
	e.store = func(db *storage.DB) bot.Store { sc.DB = db; return sc }
	e.ackWait = 300 * time.Millisecond // 2 s in production
	released := false
	t.Cleanup(func() {
		if !released {
			close(sc.release)
		}
	})
	e.start()
	post, _ := e.ask(alice)

	p := e.srv.Component(guildID, channelID, bob, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), post.Correct...)
	select {
	case <-sc.entered:
	case <-time.After(wait):
		t.Fatal("the answer did not reach the store")
	}
	r := p.WaitResponse(t, wait)
	if r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("initial response type %d flags %d, want a private deferral (type 5, ephemeral)", r.Type, r.Flags)
	}
	if r.Latency < e.ackWait || r.Latency >= 3*time.Second {
		t.Errorf("deferral after %v, want it after %v: after waiting for the commit, within Discord's 3 s", r.Latency, e.ackWait)
	}
	if _, err := e.db.Answer(post.ID, 7002); !errors.Is(err, questions.ErrNotFound) {
		t.Fatalf("answer before its commit: err %v, want ErrNotFound", err)
	}

	released = true
	close(sc.release)
	m := p.WaitOriginal(t, wait, nil)
	text := m.Content + "\n" + embedsText(m.Embeds)
	if !strings.Contains(text, "✅ **Right!** You chose **"+strings.Join(post.Correct, ", ")+"**") ||
		!strings.Contains(text, "Answer: "+strings.Join(post.Correct, ", ")) {
		t.Errorf("graded edit:\n%s\nwant the grade and the reveal", text)
	}
	if a, err := e.db.Answer(post.ID, 7002); err != nil || !a.Right {
		t.Errorf("stored answer %+v, %v; want bob's right answer", a, err)
	}
	e.checkWire()
}
