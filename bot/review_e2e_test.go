package bot_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// postsBeforeRecord is a real database that runs post once, in the
// handler's goroutine, when the first review answer reaches RecordReview:
// after every check the bot makes of its own, before storage decides.
type postsBeforeRecord struct {
	*storage.DB
	once sync.Once
	post func()
}

func (s *postsBeforeRecord) RecordReview(ctx context.Context, a questions.Answer) (questions.Answer, error) {
	s.once.Do(s.post)
	return s.DB.RecordReview(ctx, a)
}

// TestReviewAnswerRacesAPost: a question shown in a review and posted in
// the server while the member's answer is on its way (after the handler
// looked the review up, before the answer is recorded) is not graded: the
// refusal gives nothing away and nothing is recorded. Once the post
// closes, the same review question takes the answer.
func TestReviewAnswerRacesAPost(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := newEnv(t, start)
	type opened struct {
		p   questions.Post
		err error
	}
	posted := make(chan opened, 1)
	st := &postsBeforeRecord{}
	st.post = func() {
		p, err := st.DB.CreatePost(context.Background(), questions.Post{GuildID: 8001, ChannelID: 6001, QuestionID: "s1", Bank: "Study",
			Correct: []string{"A"}, OptionCount: 3, SelectCount: 1, ClosesAt: start.Add(time.Hour)})
		posted <- opened{p, err}
	}
	e.store = func(db *storage.DB) bot.Store { st.DB = db; return st }
	e.start()
	if got := e.admin(alice, sub("import", attachment("study.yaml", studyBank))); !strings.Contains(got, "**Study** (new bank): added 3") {
		t.Fatalf("import reply %q", got)
	}
	e.played("s1", []string{"net"}, start.Add(-time.Hour), map[questions.UserID]string{7002: "B"})
	r, msg := e.startReview(bob)
	if !strings.Contains(embedsText(r.Embeds), "port does HTTPS") {
		t.Fatalf("review: %q %s, want s1", r.Content, embedsText(r.Embeds))
	}
	sel := reviewSelect(t, r)
	before := e.memory(7002, "s1")

	got := e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, "A").WaitResponse(t, wait)
	var open opened
	select {
	case open = <-posted:
	default:
		t.Fatal("the review answer was not recorded through RecordReview")
	}
	if open.err != nil {
		t.Fatalf("posting s1 during the answer: %v", open.err)
	}
	text := got.Content + "\n" + embedsText(got.Embeds)
	if strings.Contains(text, "Right") || strings.Contains(text, "443") || !strings.Contains(text, "open in the server right now") {
		t.Errorf("review answer while s1 was posted: %q, want a refusal that gives nothing away", text)
	}
	if after := e.memory(7002, "s1"); after.Reps != before.Reps || !after.Due.Equal(before.Due) {
		t.Errorf("refused review answer changed the memory: %+v, want %+v", after, before)
	}

	e.closeInServer(open.p)
	got = e.srv.Component(guildID, channelID, bob, msg.ID, sel.CustomID, "A").WaitResponse(t, wait)
	if !strings.Contains(got.Content, "Right") {
		t.Errorf("review answer after the close: %q, want it graded", got.Content)
	}
	if after := e.memory(7002, "s1"); after.Reps != before.Reps+1 {
		t.Errorf("reps after the graded review: got %d, want %d", after.Reps, before.Reps+1)
	}
	e.checkWire()
}
