package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
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

	recs := map[string]*record{}
	nums := map[string]uint32{} // question ID → number
	periods := map[string]map[questions.UserID]*questions.Score{}
	allRows := make(map[questions.UserID]*questions.Score, fx.members)
	topics := map[questions.UserID][]topicStat{}
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
		num := nums[p.QuestionID]
		if num == 0 {
			num = uint32(len(nums) + 1)
			nums[p.QuestionID] = num
		}
		rk := string(recordKey(nil, user, num))
		rec := recs[rk]
		if rec == nil {
			rec = &record{user: user, num: num, qid: p.QuestionID, mem: questions.Memory{UserID: user, QuestionID: p.QuestionID}}
			recs[rk] = rec
		}
		rec.answers = append(rec.answers, recAnswer{id: p.ID, seq: uint64(i + 1), interaction: a.InteractionID, at: a.At,
			right: a.Right, picks: a.RightPicks, points: a.Points, choice: a.Choice})
		rec.mem = questions.Remember(rec.mem, questions.Attempt{At: a.At, Right: a.Right}, p.ClosesAt)
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
		mr := memberRec{topics: topics[user]}
		for _, topic := range topicsOf(*p) {
			mr.addTopic(topic, a.Right)
		}
		topics[user] = mr.topics
	}
	periods[periodAll] = allRows

	// Write in key order, in transactions of bounded size.
	keys := slices.Sorted(maps.Keys(recs))
	const chunk = 200_000
	for lo := 0; lo < len(keys) || lo == 0; lo += chunk {
		hi := min(lo+chunk, len(keys))
		err := db.bolt.Update(func(tx *bbolt.Tx) error {
			b := guildRO(tx, fx.guild).Bucket(bAnswers)
			b.FillPercent = 1
			for _, k := range keys[lo:hi] {
				if err := b.Put([]byte(k), encodeRecord(*recs[k])); err != nil {
					return err
				}
			}
			if hi == len(keys) {
				if err := b.SetSequence(uint64(fx.answers)); err != nil {
					return err
				}
				g := guildRO(tx, fx.guild)
				for qid, num := range nums {
					if err := g.Bucket(bQids).Put([]byte(qid), binary.BigEndian.AppendUint32(nil, num)); err != nil {
						return err
					}
					if err := g.Bucket(bQnames).Put(binary.BigEndian.AppendUint32(nil, num), []byte(qid)); err != nil {
						return err
					}
				}
				if err := g.Bucket(bQids).SetSequence(uint64(len(nums))); err != nil {
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
		if hi == len(keys) {
			break
		}
	}
	if err := writeScores(db, fx.guild, periods, topics); err != nil {
		tb.Fatal(err)
	}
}

// writeScores writes the guild's periods (name → each member's score
// there), member records (the all-time score, the latest row of each kind,
// topics) and streak index from final scores, in key order.
func writeScores(db *DB, guildID questions.GuildID, periods map[string]map[questions.UserID]*questions.Score, topics map[questions.UserID][]topicStat) error {
	members := map[questions.UserID]*memberRec{}
	for name, rows := range periods {
		kind, num, _ := periodNum(name)
		list := make([]questions.Score, 0, len(rows))
		acc := 0
		for u, s := range rows {
			list = append(list, *s)
			if onAccuracyBoard(*s) {
				acc++
			}
			m := members[u]
			if m == nil {
				m = &memberRec{all: questions.Score{UserID: u}, topics: topics[u]}
				members[u] = m
			}
			if kind < 0 {
				m.all = *s
			} else if r := &m.cur[kind]; !r.ok || r.num < num {
				*r = periodRow{ok: true, num: num, score: *s}
			}
		}
		err := db.bolt.Update(func(tx *bbolt.Tx) error {
			p, err := periodRW(guildRO(tx, guildID), []byte(name), nil)
			if err != nil {
				return err
			}
			if err := writeRankings(p.b, list); err != nil {
				return err
			}
			if err := p.b.Put(kMembers, u64(uint64(len(list)))); err != nil {
				return err
			}
			if acc == 0 {
				return nil // live writes create the counter with the first member
			}
			return p.b.Put(kAccMembers, u64(uint64(acc)))
		})
		if err != nil {
			return err
		}
	}
	return db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		mb, err := membersRW(g)
		if err != nil {
			return err
		}
		mb.FillPercent = 1
		var streaks [][]byte
		for _, u := range slices.Sorted(maps.Keys(members)) {
			if err := mb.Put(u64(u), appendMember(nil, *members[u])); err != nil {
				return err
			}
			if k := streakKey(members[u].all); k != nil {
				streaks = append(streaks, k)
			}
		}
		slices.SortFunc(streaks, bytes.Compare)
		st := g.Bucket(bStreaks)
		for _, k := range streaks {
			if err := st.Put(k, nil); err != nil {
				return err
			}
		}
		return nil
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
