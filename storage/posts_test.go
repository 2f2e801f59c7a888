package storage

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestCreatePost(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p1 := mustPost(t, db, questions.Post{QuestionID: "b#1", OptionCount: 5, Correct: []string{"A", "C"}})
	p2 := mustPost(t, db, questions.Post{QuestionID: "b#2"})
	if p1.ID == 0 || p2.ID != p1.ID+1 {
		t.Errorf("IDs: got %d, %d; want consecutive from 1", p1.ID, p2.ID)
	}
	if len(p1.Tallies) != 5 || !p1.OpenedAt.Equal(t0) {
		t.Errorf("new post: got tallies %v, opened %v; want 5 zeros, %v", p1.Tallies, p1.OpenedAt, t0)
	}
	got, err := db.Post(p1.ID)
	if err != nil || got.QuestionID != "b#1" || got.SelectCount != 2 || len(got.Correct) != 2 || got.GuildID != guild {
		t.Errorf("Post: got %+v, %v", got, err)
	}
	asked, _ := db.Asked(guild)
	if !asked["b#1"] || !asked["b#2"] || len(asked) != 2 {
		t.Errorf("Asked: got %v, want b#1 and b#2", asked)
	}
	_, err = db.Post(99)
	wantErr(t, err, questions.ErrNotFound)

	for _, bad := range []questions.Post{
		{ChannelID: 1, OptionCount: 4, SelectCount: 1},
		{GuildID: 1, OptionCount: 0, SelectCount: 1},
		{GuildID: 1, OptionCount: 26, SelectCount: 1},
		{GuildID: 1, OptionCount: 4, SelectCount: 5},
		{GuildID: 1, OptionCount: 4, SelectCount: 0},
	} {
		if _, err := db.CreatePost(t.Context(), bad); err == nil {
			t.Errorf("CreatePost(%+v): got nil error", bad)
		}
	}
}

func TestSetPostMessage(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{})
	if err := db.SetPostMessage(t.Context(), p.ID, 555); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Post(p.ID); got.MessageID != 555 {
		t.Errorf("MessageID: got %d, want 555", got.MessageID)
	}
	wantErr(t, db.SetPostMessage(t.Context(), 99, 1), questions.ErrNotFound)
}

func TestOpenAndClosePosts(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	a := mustPost(t, db, questions.Post{ChannelID: 1})
	b := mustPost(t, db, questions.Post{ChannelID: 2})
	c := mustPost(t, db, questions.Post{ChannelID: 1})
	other := mustPost(t, db, questions.Post{GuildID: guild + 1, ChannelID: 1})

	ids := func(ps []questions.Post, err error) []questions.PostID {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []questions.PostID
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	eq := func(name string, got, want []questions.PostID) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v, want %v", name, got, want)
				return
			}
		}
	}
	eq("OpenPosts", ids(db.OpenPosts()), []questions.PostID{a.ID, c.ID, b.ID, other.ID})
	eq("OpenPostsIn channel 1", ids(db.OpenPostsIn(guild, 1)), []questions.PostID{a.ID, c.ID})
	eq("OpenPostsIn guild", ids(db.OpenPostsIn(guild, 0)), []questions.PostID{a.ID, c.ID, b.ID})

	at := t0.Add(time.Minute)
	got, closed, err := db.ClosePost(t.Context(), a.ID, at)
	if err != nil || !closed || !got.Closed || !got.ClosedAt.Equal(at) {
		t.Fatalf("ClosePost: got %+v, %v, %v", got, closed, err)
	}
	got, closed, err = db.ClosePost(t.Context(), a.ID, at.Add(time.Hour))
	if err != nil || closed || !got.ClosedAt.Equal(at) {
		t.Errorf("second ClosePost: got closed=%v at %v, %v; want false, first close time", closed, got.ClosedAt, err)
	}
	eq("OpenPostsIn after close", ids(db.OpenPostsIn(guild, 1)), []questions.PostID{c.ID})
	_, _, err = db.ClosePost(t.Context(), 99, at)
	wantErr(t, err, questions.ErrNotFound)
	_, err = db.RecordAnswer(t.Context(), questions.Answer{PostID: a.ID, GuildID: guild, UserID: 1, Choice: []string{"B"}})
	wantErr(t, err, questions.ErrClosed)
}

func TestDeletePost(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	keep := mustPost(t, db, questions.Post{QuestionID: "q#1"})
	p := mustPost(t, db, questions.Post{QuestionID: "q#2"})
	answer(t, db, keep, 1, t0, "B")
	answer(t, db, p, 1, t0, "B")
	answer(t, db, p, 2, t0, "B")

	if err := db.DeletePost(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	_, err := db.Post(p.ID)
	wantErr(t, err, questions.ErrNotFound)
	asked, _ := db.Asked(guild)
	if asked["q#2"] || !asked["q#1"] {
		t.Errorf("Asked after delete: got %v, want only q#1", asked)
	}
	open, _ := db.OpenPostsIn(guild, 0)
	if len(open) != 1 || open[0].ID != keep.ID {
		t.Errorf("open posts after delete: got %v", open)
	}
	// Its answers no longer count.
	ms, _ := db.MemberStats(guild, 1, t0)
	if ms.All.Answered != 1 || ms.All.Points != 1 {
		t.Errorf("member 1 after delete: got %+v, want 1 answer, 1 point", ms.All)
	}
	if _, err := db.Standing(guild, 2, questions.PeriodAll, questions.ByPoints, t0); err == nil {
		t.Error("member 2 still ranked after their only post was deleted")
	}
	wantErr(t, db.DeletePost(t.Context(), p.ID), questions.ErrNotFound)
	assertRebuildEqual(t, db, guild)
}

func TestReveal(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	a := mustPost(t, db, questions.Post{})
	b := mustPost(t, db, questions.Post{})
	c := mustPost(t, db, questions.Post{})
	open := mustPost(t, db, questions.Post{})
	born := mustPost(t, db, questions.Post{Closed: true, ClosedAt: t0}) // created closed
	bornRevealed := mustPost(t, db, questions.Post{Closed: true, ClosedAt: t0, Revealed: true})
	for _, p := range []questions.Post{c, b, a} {
		if _, _, err := db.ClosePost(t.Context(), p.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
	unrevealed := func() []questions.PostID {
		t.Helper()
		ps, err := db.UnrevealedPosts()
		if err != nil {
			t.Fatal(err)
		}
		var ids []questions.PostID
		for _, p := range ps {
			if !p.Closed || p.Revealed {
				t.Errorf("UnrevealedPosts lists post %d: closed %v, revealed %v", p.ID, p.Closed, p.Revealed)
			}
			ids = append(ids, p.ID)
		}
		return ids
	}
	if got, want := unrevealed(), []questions.PostID{a.ID, b.ID, c.ID, born.ID}; !slices.Equal(got, want) {
		t.Fatalf("UnrevealedPosts after closing: got %v, want %v", got, want)
	}

	for _, tc := range []struct {
		name    string
		post    questions.PostID
		wantErr error // nil: success; errAny: some error
		want    []questions.PostID
	}{
		{"first", b.ID, nil, []questions.PostID{a.ID, c.ID, born.ID}},
		{"again", b.ID, nil, []questions.PostID{a.ID, c.ID, born.ID}},
		{"created closed", born.ID, nil, []questions.PostID{a.ID, c.ID}},
		{"created revealed", bornRevealed.ID, nil, []questions.PostID{a.ID, c.ID}},
		{"unknown", 99, questions.ErrNotFound, []questions.PostID{a.ID, c.ID}},
		{"open", open.ID, errAny, []questions.PostID{a.ID, c.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := db.MarkRevealed(t.Context(), tc.post)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("MarkRevealed: %v", err)
			case tc.wantErr == errAny && err == nil:
				t.Fatal("MarkRevealed: got nil error, want an error")
			case tc.wantErr != nil && tc.wantErr != errAny:
				wantErr(t, err, tc.wantErr)
			}
			if got := unrevealed(); !slices.Equal(got, tc.want) {
				t.Errorf("UnrevealedPosts: got %v, want %v", got, tc.want)
			}
		})
	}
	if p, _ := db.Post(b.ID); !p.Revealed {
		t.Errorf("post %d after MarkRevealed: Revealed false", b.ID)
	}
	if p, _ := db.Post(open.ID); p.Revealed {
		t.Errorf("open post %d: Revealed true after a refused MarkRevealed", open.ID)
	}
	// Deleting an unrevealed post takes it off the list.
	if err := db.DeletePost(t.Context(), c.ID); err != nil {
		t.Fatal(err)
	}
	if got := unrevealed(); !slices.Equal(got, []questions.PostID{a.ID}) {
		t.Errorf("UnrevealedPosts after delete: got %v, want [%d]", got, a.ID)
	}
	// It survives a reopen.
	db.Close()
	db = openPath(t, path)
	if got := unrevealed(); !slices.Equal(got, []questions.PostID{a.ID}) {
		t.Errorf("UnrevealedPosts after reopen: got %v, want [%d]", got, a.ID)
	}
}

// TestSetRevealSent: the progress of a long reveal is kept across a
// reopen, never goes back, stays off an open or revealed post, and leaves
// the post on UnrevealedPosts until MarkRevealed.
func TestSetRevealSent(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	p := mustPost(t, db, questions.Post{})
	open := mustPost(t, db, questions.Post{})
	if _, _, err := db.ClosePost(t.Context(), p.ID, t0); err != nil {
		t.Fatal(err)
	}
	sent := func(id questions.PostID) int {
		t.Helper()
		got, err := db.Post(id)
		if err != nil {
			t.Fatal(err)
		}
		return got.RevealSent
	}
	for _, tc := range []struct {
		name    string
		post    questions.PostID
		sent    int
		wantErr error
		want    int
	}{
		{"the edit", p.ID, 1, nil, 1},
		{"a continuation", p.ID, 2, nil, 2},
		{"never back", p.ID, 1, nil, 2},
		{"unknown", 99, 1, questions.ErrNotFound, 2},
		{"open", open.ID, 1, errAny, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := db.SetRevealSent(t.Context(), tc.post, tc.sent)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("SetRevealSent: %v", err)
			case tc.wantErr == errAny && err == nil:
				t.Fatal("SetRevealSent: got nil error, want an error")
			case tc.wantErr != nil && tc.wantErr != errAny:
				wantErr(t, err, tc.wantErr)
			}
			if got := sent(p.ID); got != tc.want {
				t.Errorf("RevealSent: got %d, want %d", got, tc.want)
			}
		})
	}
	if got := sent(open.ID); got != 0 {
		t.Errorf("open post's RevealSent %d, want 0", got)
	}
	if ps, err := db.UnrevealedPosts(); err != nil || len(ps) != 1 || ps[0].ID != p.ID || ps[0].RevealSent != 2 {
		t.Errorf("UnrevealedPosts: %+v, %v; want the post with 2 sent", ps, err)
	}
	db.Close()
	db = openPath(t, path)
	if got := sent(p.ID); got != 2 {
		t.Errorf("RevealSent after reopen: got %d, want 2", got)
	}
	if err := db.MarkRevealed(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.SetRevealSent(t.Context(), p.ID, 3); err != nil || sent(p.ID) != 2 {
		t.Errorf("SetRevealSent on a revealed post: %v, sent %d; want nil and 2 kept", err, sent(p.ID))
	}
}

// errAny in a table means "some error, whichever".
var errAny = errors.New("any error")

// TestDeletePostRecountsMembers: deleting an answered post recounts only
// its members, and the result is what a full rebuild gives: streaks that
// lose a study day, a day period left empty, a member who falls off the
// accuracy board, topic stats, and an answer that no longer counted after
// a ResetMember.
func TestDeletePostRecountsMembers(t *testing.T) {
	t.Parallel()
	d0, d1, d2 := t0, t0.AddDate(0, 0, 1), t0.AddDate(0, 0, 2)
	db, _ := newDB(t)
	a := mustPost(t, db, questions.Post{Tags: []string{"x"}})
	b := mustPost(t, db, questions.Post{Tags: []string{"y"}})
	c := mustPost(t, db, questions.Post{})
	for _, u := range []questions.UserID{1, 2, 3} {
		answer(t, db, a, u, d0, "B")
	}
	answer(t, db, b, 4, d0, "B")
	if err := db.ResetMember(t.Context(), guild, 4); err != nil {
		t.Fatal(err)
	}
	answer(t, db, a, 4, d0, "B") // counts: after the reset
	answer(t, db, b, 1, d1, "B")
	answer(t, db, b, 2, d1, "A")
	answer(t, db, c, 1, d2, "B")
	// Member 5 reaches the accuracy board with the answer to b.
	play(t, db, 5, times(d0, questions.MinAnswersForAccuracy-1, time.Second), bools(questions.MinAnswersForAccuracy-1, 4))
	answer(t, db, b, 5, d0.Add(time.Hour), "B")
	if lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, d0, 0, 5); lb.Total != 1 {
		t.Fatalf("accuracy board before delete: got %d members, want 1", lb.Total)
	}
	if ms, _ := db.MemberStats(guild, 1, d2); ms.All.CurrentStreak != 3 {
		t.Fatalf("member 1 before delete: got streak %d, want 3", ms.All.CurrentStreak)
	}

	if err := db.DeletePost(t.Context(), b.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user                      questions.UserID
		answered, points, current int
		best                      int
		topics                    int
	}{
		{1, 2, 2, 1, 1, 2}, // a and c: study days d0 and d2
		{2, 1, 1, 0, 1, 2}, // a only; streak broken by d2
		{3, 1, 1, 0, 1, 2},
		{4, 1, 1, 0, 1, 2}, // the reset answer to b did not count anyway
		{5, 9, 4, 0, 1, 1},
	} {
		ms, err := db.MemberStats(guild, tc.user, d2)
		if err != nil {
			t.Fatal(err)
		}
		got := []int{ms.All.Answered, ms.All.Points, ms.All.CurrentStreak, ms.All.BestStreak, len(ms.Topics)}
		if want := []int{tc.answered, tc.points, tc.current, tc.best, tc.topics}; !slices.Equal(got, want) {
			t.Errorf("member %d: got answered, points, streak, best, topics %v; want %v", tc.user, got, want)
		}
	}
	if lb, _ := db.Leaderboard(guild, questions.PeriodDay, questions.ByPoints, d1, 0, 5); lb.Total != 0 {
		t.Errorf("day board of d1: got %d members, want 0", lb.Total)
	}
	if lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, d0, 0, 5); lb.Total != 0 {
		t.Errorf("accuracy board after delete: got %d members, want 0", lb.Total)
	}
	assertRebuildEqual(t, db, guild)
}

// TestDeletePostOfManyMembers: deleting posts answered by enough members
// that their records span several pages recounts those members in one
// transaction, which first empties their records; it returns (bbolt's
// Cursor.Last never did on a bucket so emptied) and leaves the scores of
// the answers that remain.
func TestDeletePostOfManyMembers(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	var posts []questions.Post
	for i := range 3 {
		p := mustPost(t, db, questions.Post{QuestionID: fmt.Sprintf("bank#%d", i)})
		var as []questions.Answer
		for u := range questions.UserID(200) {
			as = append(as, questions.Answer{PostID: p.ID, GuildID: guild, UserID: u + 1, InteractionID: uint64(u+1)*1000 + uint64(p.ID), Choice: []string{"B"}, At: t0})
		}
		answerTogether(t, db, as)
		posts = append(posts, p)
	}
	for _, p := range posts[1:] {
		if err := db.DeletePost(t.Context(), p.ID); err != nil {
			t.Fatalf("DeletePost(%d): %v", p.ID, err)
		}
	}
	top, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 1)
	if err != nil || top.Total != 200 || len(top.Entries) != 1 || top.Entries[0].Answered != 1 {
		t.Errorf("after deleting two of three posts: %+v, %v; want 200 members of 1 answer each", top, err)
	}
}
