package storage

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// The reshard tests build and read servers' state through DB's public
// methods only here, so that a change of their signatures touches this file.

// shardGuild is a server ID whose shard among N shards is k % N for every N
// dividing the tests' counts (1, 2, 3): (id >> 22) = k.
func shardGuild(k int) questions.GuildID { return questions.GuildID(k)<<22 | 12345 }

// populate gives the server every kind of state: settings with a time zone
// and a daily schedule, an imported bank, a queued suggestion, asked
// history, posts open, closed and unrevealed, closed and revealed, answers
// of several members over several days (so every period has rows), and a
// member reset. salt varies the answers between servers and rounds.
func populate(t testing.TB, db *DB, g questions.GuildID, salt int) []questions.Post {
	t.Helper()
	if salt == 0 {
		s := questions.Settings{GuildID: g, TimeZone: "Europe/Berlin", AskMinutes: 15, RevealOnAnswer: salt%2 == 0,
			Daily: &questions.Daily{ChannelID: 77, Time: "09:30", Count: 2, Next: t0.Add(time.Hour)}}
		if err := db.SaveSettings(t.Context(), s); err != nil {
			t.Fatalf("SaveSettings: %v", err)
		}
		if err := db.SaveBank(t.Context(), g, questions.BankFile{Name: "Bio", Format: "yaml", Data: []byte("questions: []\n"),
			ImportedAt: t0, ImportedBy: 5}); err != nil {
			t.Fatalf("SaveBank: %v", err)
		}
		if _, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: g, UserID: 6, Kind: questions.DraftSuggestion,
			Text: "Q: 1+1?\nA) 2", Queued: true}); err != nil {
			t.Fatalf("SaveDraft: %v", err)
		}
	}
	var posts []questions.Post
	for i := range 4 {
		p := mustPost(t, db, questions.Post{GuildID: g, ChannelID: 70 + questions.ChannelID(i%2),
			QuestionID: fmt.Sprintf("bio#%d-%d", salt, i), Tags: []string{"cells"}, OpenedAt: t0.AddDate(0, 0, -i-salt)})
		for u := questions.UserID(1); u <= questions.UserID(3+i+salt%3); u++ {
			choice := "B"
			if (uint64(u)+uint64(i+salt))%3 == 0 {
				choice = "A"
			}
			answer(t, db, p, u, t0.AddDate(0, 0, -i-salt).Add(time.Duration(u)*time.Minute), choice)
		}
		posts = append(posts, p)
	}
	if _, _, err := db.ClosePost(t.Context(), posts[0].ID, t0); err != nil { // closed, reveal pending
		t.Fatalf("ClosePost: %v", err)
	}
	if _, _, err := db.ClosePost(t.Context(), posts[1].ID, t0); err != nil {
		t.Fatalf("ClosePost: %v", err)
	}
	if err := db.MarkRevealed(t.Context(), posts[1].ID); err != nil {
		t.Fatalf("MarkRevealed: %v", err)
	}
	if salt == 0 {
		if err := db.ResetMember(t.Context(), g, 2); err != nil { // answers stay, no longer count
			t.Fatalf("ResetMember: %v", err)
		}
		m := newMock(4) // an open mock exam: in mockdue/ until its deadline
		m.GuildID = g
		if _, err := db.StartMock(t.Context(), m); err != nil {
			t.Fatalf("StartMock: %v", err)
		}
	}
	return posts
}

// view is everything the public methods show of a server, as text: what
// must read the same before and after a reshard.
func view(t testing.TB, db *DB, g questions.GuildID) string {
	t.Helper()
	var b strings.Builder
	check := func(what string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s(%d): %v", what, g, err)
		}
		fmt.Fprintf(&b, "%s: %+v\n", what, v)
	}
	s, err := db.Settings(g)
	if s.Daily != nil {
		check("daily", *s.Daily, nil)
		s.Daily = nil
	}
	check("settings", s, err)
	banks, err := db.Banks(g)
	check("banks", banks, err)
	sugg, err := db.Suggestions(g)
	check("suggestions", sugg, err)
	asked, err := db.Asked(g)
	check("asked", asked, err)
	open, err := db.OpenPostsIn(g, 0)
	check("open", open, err)
	unrev, err := db.UnrevealedPosts()
	unrev = slices.DeleteFunc(unrev, func(p questions.Post) bool { return p.GuildID != g })
	check("unrevealed", unrev, err)
	for _, p := range append(open, unrev...) {
		as, err := db.Answers(p.ID)
		check(fmt.Sprintf("answers of post %d", p.ID), as, err)
	}
	for _, per := range []questions.Period{questions.PeriodAll, questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth} {
		for _, r := range []questions.Ranking{questions.ByPoints, questions.ByAccuracy} {
			for _, at := range []time.Time{t0, t0.AddDate(0, 0, -3)} {
				lb, err := db.Leaderboard(g, per, r, at, 0, 100)
				check(fmt.Sprintf("leaderboard %s %s %s", per, r, at.Format(dateLayout)), lb, err)
			}
		}
	}
	for u := questions.UserID(1); u <= 6; u++ {
		ms, err := db.MemberStats(g, u, t0)
		check(fmt.Sprintf("member %d", u), ms, err)
	}
	streaks, err := db.ActiveStreaks(g, t0, 0)
	check("streaks", streaks, err)
	due, err := db.MocksDue()
	due = slices.DeleteFunc(due, func(d questions.MockDue) bool { return d.GuildID != g })
	check("mocks due", due, err)
	for _, d := range due {
		m, err := db.LatestMock(g, d.UserID)
		check(fmt.Sprintf("mock of member %d", d.UserID), m, err)
	}
	return b.String()
}

// postIn returns the post with that ID, to show it is in the file.
func postIn(db *DB, id questions.PostID) (questions.Post, error) { return db.Post(id) }

// answerNew records an answer to an open post of the server.
func answerNew(t testing.TB, db *DB, p questions.Post, user questions.UserID) {
	t.Helper()
	answer(t, db, p, user, t0.Add(time.Minute), "B")
}

// newPost creates an open post in the server and returns it.
func newPost(t testing.TB, db *DB, g questions.GuildID, qid string) questions.Post {
	t.Helper()
	return mustPost(t, db, questions.Post{GuildID: g, ChannelID: 70, QuestionID: qid, OpenedAt: t0})
}
