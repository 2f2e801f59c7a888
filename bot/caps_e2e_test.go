package bot_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// queueBarrier holds every SaveDraft that queues a suggestion until n of
// them have arrived, then lets them all through together: the bot's own
// checks have all been made by then, so only a check inside the write can
// keep the cap.
type queueBarrier struct {
	*storage.DB
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func (s *queueBarrier) SaveDraft(ctx context.Context, d questions.Draft) (questions.Draft, error) {
	if d.Queued {
		s.mu.Lock()
		if s.arrived++; s.arrived == s.n {
			close(s.all)
		}
		s.mu.Unlock()
		<-s.all
	}
	return s.DB.SaveDraft(ctx, d)
}

// TestSuggestionCapAtOnce is issue 19's "40 submits at once queued 32":
// a member with 9 suggestions waiting sends 5 more at once; exactly one
// is queued, the others are told the queue is full.
func TestSuggestionCapAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	st := &queueBarrier{n: 5, all: make(chan struct{})}
	e.store = func(db *storage.DB) bot.Store { st.DB = db; return st }
	e.start()
	for range questions.MaxQueuedSuggestions - 1 {
		if _, err := e.db.SaveDraft(t.Context(), questions.Draft{GuildID: 8001, UserID: 7002, Kind: questions.DraftSuggestion,
			Text: "waiting", Queued: true}); err != nil {
			t.Fatal(err)
		}
	}
	var forms []string
	for range st.n {
		id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest")))
		forms = append(forms, id)
	}
	var sent []*discordtest.Pending
	for i, id := range forms {
		sent = append(sent, e.srv.ModalSubmit(guildID, channelID, bob, "", id,
			map[string]string{"text": examQuestion("AWS Practice", i+1, fmt.Sprintf("Suggestion %d?", i))}))
	}
	queued, full := 0, 0
	for _, p := range sent {
		content, _, _ := e.reply(p)
		switch {
		case strings.Contains(content, "waiting for an admin's review"):
			queued++
		case strings.Contains(content, "You have 10 suggestions waiting for review already"):
			full++
		default:
			t.Errorf("submit reply %q", content)
		}
	}
	q, err := e.db.Suggestions(8001)
	if err != nil || len(q) != questions.MaxQueuedSuggestions || queued != 1 || full != st.n-1 {
		t.Errorf("5 suggestions sent at once on top of 9: %d queued (%v), replies: %d queued, %d full; want 10, 1 and 4", len(q), err, queued, full)
	}
	e.checkWire()
}

// TestDraftsReplaced is issue 19's "151 drafts": a member keeps their 5
// latest unsent drafts; a form of an older one is answered as gone.
func TestDraftsReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	var forms []string
	for range 7 {
		id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest")))
		forms = append(forms, id)
	}
	for i, id := range forms {
		var draft questions.DraftID
		if _, err := fmt.Sscanf(id, "pm1:%d", &draft); err != nil {
			t.Fatalf("form custom ID %q: %v", id, err)
		}
		_, err := e.db.Draft(8001, draft)
		if kept := i >= len(forms)-questions.MaxUnsentDrafts; kept != (err == nil) {
			t.Errorf("draft of form %d of 7: %v, want kept %v", i+1, err, kept)
		}
	}
	m := e.submit(bob, "", forms[0], examQuestion("AWS Practice", 1, "Too late?"))
	if !strings.Contains(m.Content, "was replaced by a newer one") {
		t.Errorf("submitting a replaced draft: %q", m.Content)
	}
	m = e.submit(bob, "", forms[6], examQuestion("AWS Practice", 1, "In time?"))
	if !strings.Contains(m.Content, "waiting for an admin's review") {
		t.Errorf("submitting the latest draft: %q", m.Content)
	}
	e.checkWire()
}

// TestSuggestRateLimit: a member's suggestion steps (opening the form,
// sending it) are limited to a burst of 10, then one every 6 s.
func TestSuggestRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	for range 10 {
		e.openModal(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest")))
	}
	want := fmt.Sprintf("Try again <t:%d:R>", e.clk.Now().Add(6*time.Second).Unix())
	if got := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest"))); !strings.Contains(got, "Slow down") || !strings.Contains(got, want) {
		t.Errorf("11th suggestion step: %q, want a refusal saying %q", got, want)
	}
	// Another member is not held to bob's limit.
	e.openModal(e.srv.SlashCommand(guildID, channelID, carol, "quiz", sub("suggest")))
	e.advance(6 * time.Second)
	e.openModal(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("suggest")))
	e.checkWire()
}

// TestReviewsBounded is issue 19's "300 review records, which nothing
// ever deletes": a member keeps at most 5 review questions shown and not
// answered (an older one is answered as gone), those that expired are
// deleted, and review steps are limited to 30, then one every 2 s.
func TestReviewsBounded(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	e.played("s1", []string{"net"}, start.Add(-2*time.Hour), map[questions.UserID]string{7002: "B"}) // a miss: due
	var shown []discordtest.Response
	var msgs []discordtest.Message
	for range 7 {
		r, m := e.startReview(bob)
		shown, msgs = append(shown, r), append(msgs, m)
	}
	ids := make([]questions.ReviewID, len(shown))
	for i, r := range shown {
		sel := reviewSelect(t, r)
		if _, err := fmt.Sscanf(sel.CustomID, "rv1:%d", &ids[i]); err != nil {
			t.Fatalf("review select %q: %v", sel.CustomID, err)
		}
		_, err := e.db.Review(8001, ids[i])
		if kept := i >= len(shown)-questions.MaxOpenReviews; kept != (err == nil) {
			t.Errorf("review question %d of 7: %v, want kept %v", i+1, err, kept)
		}
	}
	got := e.srv.Component(guildID, channelID, bob, msgs[0].ID, reviewSelect(t, shown[0]).CustomID, "A").WaitResponse(t, wait)
	if !strings.Contains(got.Content, "This review question is gone") {
		t.Errorf("answering a deleted review question: %q", got.Content)
	}
	// An hour on, the questions shown expired: the next review deletes them.
	e.advance(questions.ReviewExpiry)
	e.startReview(bob)
	for i, id := range ids {
		if _, err := e.db.Review(8001, id); err == nil {
			t.Errorf("review question %d of 7 kept after it expired", i+1)
		}
	}
	// The hour refilled bob's review steps: 30 at once, then a refusal.
	for range 29 {
		e.startReview(bob)
	}
	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("review"))
	if got := e.replyText(p); !strings.Contains(got, "Slow down") || !strings.Contains(got, "then one every 2 seconds") {
		t.Errorf("31st review step: %q, want a refusal", got)
	}
	e.checkWire()
}
