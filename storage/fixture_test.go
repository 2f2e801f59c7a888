package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// fixture describes a guild built directly in the file, bypassing
// RecordAnswer: members answer `answers` questions in total, spread evenly
// over `span` before `end`, round-robin over `posts` posts (so no member
// answers a post twice while answers <= members*posts).
type fixture struct {
	guild   questions.GuildID
	members int
	answers int
	posts   int
	end     time.Time
	span    time.Duration
	seed    uint64
}

// buildFixture writes the fixture with a few large transactions: it
// computes every score row in memory with the same rules as countAnswer
// (addGrade, study) and writes sorted keys, which bbolt
// appends quickly. The result is what RecordAnswer would have written for
// the same answers in the same order (TestFixtureMatchesRebuild checks).
func buildFixture(tb testing.TB, db *DB, fx fixture) {
	tb.Helper()
	r := rand.New(rand.NewPCG(fx.seed, 99))
	loc := time.UTC
	if s, err := db.Settings(fx.guild); err == nil {
		loc = db.location(s.TimeZone)
	}

	// Posts: a mix of one- and two-answer questions.
	posts := make([]questions.Post, fx.posts)
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		for i := range posts {
			id, err := tx.Bucket(bPosts).NextSequence()
			if err != nil {
				return err
			}
			p := questions.Post{ID: questions.PostID(id), GuildID: fx.guild, ChannelID: 1, QuestionID: fmt.Sprintf("fx#%d", i), Bank: "fx",
				Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: fx.end.Add(-fx.span),
				Closed: true, ClosedAt: fx.end, Revealed: true, Tallies: make([]int, 4)}
			if i%3 == 0 {
				p.Correct, p.SelectCount, p.Tags = []string{"A", "C"}, 2, []string{"pairs"}
			}
			posts[i] = p
		}
		_, err := guildRW(tx, fx.guild)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}

	type answerRec struct {
		key, val []byte
	}
	answers := make([]answerRec, 0, fx.answers)
	periods := map[string]map[questions.UserID]*questions.Score{}
	allRows := make(map[questions.UserID]*questions.Score, fx.members)
	topics := map[string][2]int{} // user|topic → answered, correct
	step := fx.span / time.Duration(max(fx.answers, 1))
	start := fx.end.Add(-fx.span)
	for i := range fx.answers {
		user := questions.UserID(1 + i%fx.members)
		round := i / fx.members
		pi := (round*97 + int(user)*13) % fx.posts
		p := &posts[pi]
		at := start.Add(time.Duration(i) * step)
		var choice []string
		if r.IntN(10) < 6 {
			choice = slices.Clone(p.Correct)
		} else if p.SelectCount == 1 {
			choice = []string{questions.Letter(r.IntN(4))}
		} else {
			choice = []string{"A", "B"}
		}
		a := questions.Answer{PostID: p.ID, GuildID: fx.guild, UserID: user, InteractionID: uint64(i + 1), Choice: choice, At: at.UTC()}
		a.Grade = questions.GradeChoice(p.Correct, choice)
		answers = append(answers, answerRec{cat(u64(p.ID), u64(user)), encodeAnswer(uint64(i+1), a)})
		for _, l := range choice {
			p.Tallies[questions.LetterIndex(l)]++
		}
		p.Answers++
		if a.Right {
			p.Right++
		}

		keys, day := periodKeys(a.At, loc)
		s := allRows[user]
		if s == nil {
			s = &questions.Score{UserID: user}
			allRows[user] = s
		}
		addGrade(s, a.Grade, a.At)
		study(s, day)
		for _, k := range keys[1:] {
			m := periods[string(k)]
			if m == nil {
				m = map[questions.UserID]*questions.Score{}
				periods[string(k)] = m
			}
			ps := m[user]
			if ps == nil {
				ps = &questions.Score{UserID: user}
				m[user] = ps
			}
			addGrade(ps, a.Grade, a.At)
		}
		for _, topic := range topicsOf(*p) {
			k := string(u64(user)) + topic
			c := topics[k]
			c[0]++
			if a.Right {
				c[1]++
			}
			topics[k] = c
		}
	}
	periods[periodAll] = allRows

	// Write in key order, in transactions of bounded size.
	slices.SortFunc(answers, func(x, y answerRec) int { return bytes.Compare(x.key, y.key) })
	const chunk = 200_000
	for lo := 0; lo < len(answers) || lo == 0; lo += chunk {
		hi := min(lo+chunk, len(answers))
		err := db.bolt.Update(func(tx *bbolt.Tx) error {
			b := guildRO(tx, fx.guild).Bucket(bAnswers)
			b.FillPercent = 1
			for _, a := range answers[lo:hi] {
				if err := b.Put(a.key, a.val); err != nil {
					return err
				}
			}
			if hi == len(answers) {
				if err := b.SetSequence(uint64(len(answers))); err != nil {
					return err
				}
				for _, p := range posts {
					if err := putPost(tx, p); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		if hi == len(answers) {
			break
		}
	}

	for name, rows := range periods {
		if err := writePeriod(db, fx.guild, name, rows); err != nil {
			tb.Fatal(err)
		}
	}
	err = db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, fx.guild)
		st := g.Bucket(bStreaks)
		for _, s := range allRows {
			if err := st.Put(streakKey(*s), nil); err != nil {
				return err
			}
		}
		tb := g.Bucket(bTopics)
		keys := make([]string, 0, len(topics))
		for k := range topics {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		tb.FillPercent = 1
		for _, k := range keys {
			c := topics[k]
			if err := tb.Put([]byte(k), cat(u64(uint64(c[0])), u64(uint64(c[1])))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// writePeriod writes one period's rows, rankings, histograms and counters
// from final scores, in key order.
func writePeriod(db *DB, guildID questions.GuildID, name string, rows map[questions.UserID]*questions.Score) error {
	var users []questions.UserID
	for u := range rows {
		users = append(users, u)
	}
	slices.Sort(users)
	var pts, acc [][]byte
	for _, u := range users {
		pts = append(pts, pointsKey(*rows[u]))
		if onAccuracyBoard(*rows[u]) {
			acc = append(acc, accKey(*rows[u]))
		}
	}
	return db.bolt.Update(func(tx *bbolt.Tx) error {
		p, err := periodRW(guildRO(tx, guildID), []byte(name), nil)
		if err != nil {
			return err
		}
		p.rows.FillPercent = 1
		for _, u := range users {
			if err := p.rows.Put(u64(u), encodeScore(*rows[u])); err != nil {
				return err
			}
		}
		for _, ix := range []struct {
			ri   rankIndex
			keys [][]byte
		}{{p.pts, pts}, {p.acc, acc}} {
			slices.SortFunc(ix.keys, bytes.Compare)
			ix.ri.keys.FillPercent = 1
			hist := map[string]uint64{}
			for _, k := range ix.keys {
				if err := ix.ri.keys.Put(k, nil); err != nil {
					return err
				}
				for level := range rankLevels {
					hist[string(histKey(level, k))]++
				}
			}
			var hk []string
			for k := range hist {
				hk = append(hk, k)
			}
			slices.Sort(hk)
			for _, k := range hk {
				if err := ix.ri.hist.Put([]byte(k), u64(hist[k])); err != nil {
					return err
				}
			}
		}
		if err := p.b.Put(kMembers, u64(uint64(len(pts)))); err != nil {
			return err
		}
		if len(acc) == 0 {
			return nil // live writes create the counter with the first member
		}
		return p.b.Put(kAccMembers, u64(uint64(len(acc))))
	})
}

// TestFixtureMatchesRebuild: the benchmark fixture is what recording the
// same answers would have written (the rebuild oracle agrees), so the
// leaderboard benchmark measures a realistic file.
func TestFixtureMatchesRebuild(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "Europe/Berlin"}); err != nil {
		t.Fatal(err)
	}
	fx := fixture{guild: guild, members: 300, answers: 3000, posts: 40, end: t0, span: 20 * 24 * time.Hour, seed: 1}
	buildFixture(t, db, fx)
	assertRebuildEqual(t, db, guild)
	lb, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 3)
	if err != nil || lb.Total != fx.members || len(lb.Entries) != 3 {
		t.Errorf("fixture board: got %+v, %v", lb, err)
	}
	for _, u := range []questions.UserID{1, 150, 300} {
		st, err := db.Standing(guild, u, questions.PeriodAll, questions.ByPoints, t0)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, st.Rank-1, 1)
		if len(page.Entries) != 1 || page.Entries[0].UserID != u {
			t.Errorf("member %d at rank %d: board has %+v there", u, st.Rank, page.Entries)
		}
	}
}
