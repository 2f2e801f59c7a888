package storage

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// askPost is a member's post of question qid in channel ch at `at`.
func askPost(ch questions.ChannelID, qid string, at time.Time) questions.Post {
	return questions.Post{GuildID: guild, ChannelID: ch, QuestionID: qid, Correct: []string{"A"},
		OptionCount: 4, SelectCount: 1, OpenedAt: at, ClosesAt: at.Add(time.Hour)}
}

func TestCreateAskRules(t *testing.T) {
	t.Parallel()
	lim := questions.AskLimits{Member: 7, Cooldown: time.Minute, MaxOpen: 2}
	tests := []struct {
		name   string
		before []priorAsk // made first
		post   questions.Post
		want   error
	}{
		{name: "first ask", post: askPost(1, "q1", t0)},
		{name: "within the cooldown", before: asks(7, askPost(1, "q1", t0)),
			post: askPost(2, "q2", t0.Add(59*time.Second)), want: questions.ErrCooldown},
		{name: "once the cooldown is over", before: asks(7, askPost(1, "q1", t0)),
			post: askPost(2, "q2", t0.Add(time.Minute))},
		{name: "another member's cooldown", before: asks(8, askPost(1, "q1", t0)),
			post: askPost(2, "q2", t0.Add(time.Second))},
		{name: "channel full of admins' questions", before: asks(0, askPost(1, "q1", t0), askPost(1, "q2", t0)),
			post: askPost(1, "q3", t0), want: questions.ErrChannelFull},
		{name: "another channel", before: asks(0, askPost(1, "q1", t0), askPost(1, "q2", t0)),
			post: askPost(2, "q3", t0)},
		{name: "a question asked in this round", before: asks(0, askPost(1, "q1", t0)),
			post: askPost(2, "q1", t0), want: questions.ErrAlreadyAsked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := newDB(t)
			for _, b := range tt.before {
				var err error
				if b.member == 0 {
					_, err = db.CreatePost(t.Context(), b.post)
				} else {
					_, err = db.CreateAsk(t.Context(), b.post, questions.AskLimits{Member: b.member})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			openBefore, _ := db.OpenPosts()
			p, err := db.CreateAsk(t.Context(), tt.post, lim)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("CreateAsk: got %v, want %v", err, tt.want)
			}
			open, _ := db.OpenPosts()
			last, _ := db.LastAsk(guild, 7)
			if tt.want != nil {
				if len(open) != len(openBefore) {
					t.Errorf("a refused ask left %d open posts, want %d", len(open), len(openBefore))
				}
				return
			}
			if p.ID == 0 || len(open) != len(openBefore)+1 || !last.Equal(tt.post.OpenedAt) {
				t.Errorf("after the ask: post %d, %d open (want %d), last ask %v (want %v)", p.ID, len(open), len(openBefore)+1, last, tt.post.OpenedAt)
			}
		})
	}
}

// priorAsk is a post made before the one tested: member 0 is an admin's
// (CreatePost).
type priorAsk struct {
	member questions.UserID
	post   questions.Post
}

func asks(member questions.UserID, posts ...questions.Post) []priorAsk {
	var out []priorAsk
	for _, p := range posts {
		out = append(out, priorAsk{member, p})
	}
	return out
}

// TestCreateAskConcurrent: asks made at once are decided one transaction
// at a time: one member's 20 asks post once, and 20 members asking in one
// channel fill it to the cap and no further.
func TestCreateAskConcurrent(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	race := func(n int, ask func(i int) error) (ok int, refused map[error]int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		refused = map[error]int{}
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				err := ask(i)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, questions.ErrCooldown):
					refused[questions.ErrCooldown]++
				case errors.Is(err, questions.ErrChannelFull):
					refused[questions.ErrChannelFull]++
				default:
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		return ok, refused
	}
	ok, refused := race(20, func(i int) error {
		_, err := db.CreateAsk(t.Context(), askPost(1, fmt.Sprint("a", i), t0), questions.AskLimits{Member: 7, Cooldown: time.Minute, MaxOpen: 100})
		return err
	})
	if ok != 1 || refused[questions.ErrCooldown] != 19 {
		t.Errorf("one member's 20 asks at once: %d posted, refused %v; want 1 posted, 19 on cooldown", ok, refused)
	}
	ok, refused = race(20, func(i int) error {
		_, err := db.CreateAsk(t.Context(), askPost(2, fmt.Sprint("b", i), t0), questions.AskLimits{Member: questions.UserID(100 + i), Cooldown: time.Minute, MaxOpen: 3})
		return err
	})
	if ok != 3 || refused[questions.ErrChannelFull] != 17 {
		t.Errorf("20 members asking at once into one channel: %d posted, refused %v; want 3 posted, 17 channel full", ok, refused)
	}
	if open, _ := db.OpenPostsIn(guild, 2); len(open) != 3 {
		t.Errorf("open in the channel: %d, want 3", len(open))
	}
}

// TestDeletePostForgetsAsk: a member's ask whose message could not be sent
// (DeletePost) does not hold their cooldown; another member's stands.
func TestDeletePostForgetsAsk(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	lim := questions.AskLimits{Member: 7, Cooldown: time.Minute}
	other, err := db.CreateAsk(t.Context(), askPost(1, "q0", t0), questions.AskLimits{Member: 8})
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreateAsk(t.Context(), askPost(1, "q1", t0), lim)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeletePost(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	if last, _ := db.LastAsk(guild, 7); !last.IsZero() {
		t.Errorf("LastAsk after the post was deleted: %v, want none", last)
	}
	if last, _ := db.LastAsk(guild, 8); !last.Equal(other.OpenedAt) {
		t.Errorf("the other member's LastAsk: %v, want %v", last, other.OpenedAt)
	}
	if _, err := db.CreateAsk(t.Context(), askPost(1, "q1", t0.Add(time.Second)), lim); err != nil {
		t.Errorf("asking again after the failed post: %v", err)
	}
	if _, err := db.CreateAsk(t.Context(), askPost(1, "q2", t0), questions.AskLimits{}); err == nil {
		t.Error("CreateAsk without a member: got nil error")
	}
}
