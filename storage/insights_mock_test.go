package storage

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// statsRows returns the guild's statistics records (qstats) and members'
// bank totals (qbanks), key to value.
func statsRows(t *testing.T, db *DB, guildID questions.GuildID) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := db.bolt.View(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		for _, name := range [][]byte{bQstats, bQbanks} {
			if err := sub(g, name).ForEach(func(k, v []byte) error {
				out[fmt.Sprintf("%s/%x", name, k)] = fmt.Sprintf("%x", v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMockLeavesStatsUnchanged: the answers of a finished mock exam join
// the members' answer records as mock answers (for their memory), whose ID
// is the attempt's and may be a post's too; the question statistics count
// answers to posts only. Two files get the same answers to posts, one of
// them with two finished mock exams of the same questions in between
// (attempt 1's ID is also post 1's): the statistics are the same after
// the attempts, after later answers (whose member's earlier answers to the
// question count for the discrimination), after RebuildStats, a regrade
// and migration 9, and equal to a computation from scratch.
func TestMockLeavesStatsUnchanged(t *testing.T) {
	t.Parallel()
	base := time.Date(2025, 4, 1, 9, 0, 0, 0, time.UTC)
	qids := []string{"Net#1", "Net#2", "Net#3", "Net#4", "Net#5", "Net#6"}
	const members = 8
	post := func(db *DB, qid string, at time.Time, users ...questions.UserID) questions.Post {
		t.Helper()
		p, err := db.CreatePost(t.Context(), questions.Post{GuildID: guild, ChannelID: 7, QuestionID: qid, Bank: "Net", Correct: []string{"B"},
			OptionCount: 4, SelectCount: 1, OpenedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			// Members of unequal skill: the low numbers mostly right.
			choice := "B"
			if (int(u)+len(qid)+int(p.ID))%members < int(u) {
				choice = questions.Letter((int(u) + int(p.ID)) % 4)
			}
			answer(t, db, p, u, at.Add(time.Duration(u)*time.Minute), choice)
		}
		if _, _, err := db.ClosePost(t.Context(), p.ID, at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	everyone := make([]questions.UserID, members)
	for i := range everyone {
		everyone[i] = questions.UserID(i + 1)
	}
	var shared int // mock exams whose ID is also a post's
	play := func(db *DB, mocks bool) {
		t.Helper()
		for i, qid := range qids {
			post(db, qid, base.Add(time.Duration(i)*2*time.Hour), everyone...)
		}
		if mocks {
			before, version := statsRows(t, db, guild), statsVersion(t, db)
			for _, u := range []questions.UserID{1, 2} {
				var items []questions.MockItem
				for _, qid := range qids[:4] {
					items = append(items, questions.MockItem{QuestionID: qid, Domain: "ip", Correct: []string{"B"}, OptionCount: 4})
				}
				at := base.Add(20 * time.Hour)
				m, err := db.StartMock(t.Context(), questions.Mock{GuildID: guild, UserID: u, Bank: "Net", Pass: questions.PassMark{Percent: 70},
					Domains: []string{"ip"}, StartedAt: at, Deadline: at.Add(time.Hour), Items: items})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Post(questions.PostID(m.ID)); err == nil {
					shared++
				}
				if _, err := db.UpdateMock(t.Context(), guild, u, m.ID, func(m *questions.Mock) error {
					for i := range m.Items {
						if err := m.Answer(i, []string{questions.Letter((i + int(u)) % 4)}, at.Add(time.Minute)); err != nil {
							return err
						}
					}
					m.Finish(at.Add(10 * time.Minute))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if after := statsRows(t, db, guild); !maps.Equal(after, before) {
				t.Errorf("two finished mock exams changed the statistics:\n%v\nwant\n%v", after, before)
			}
			if v := statsVersion(t, db); v != version {
				t.Errorf("StatsVersion after the mock exams: %d, want %d", v, version)
			}
			if n := len(mustAnswers(t, db, 1)); n != members {
				t.Errorf("post 1 has %d answers after the mock exams, want %d", n, members)
			}
		}
		// Later answers of the members who sat the attempts.
		post(db, "Net#2", base.Add(30*time.Hour), 1, 2, 3)
	}
	plain, _ := newDB(t)
	withMocks, path := newDB(t)
	play(plain, false)
	play(withMocks, true)
	if shared == 0 {
		t.Error("no mock exam shares its ID with a post")
	}
	same := func(when string) {
		t.Helper()
		if got, want := statsRows(t, withMocks, guild), statsRows(t, plain, guild); !maps.Equal(got, want) {
			t.Errorf("%s: statistics with mock exams\n%v\nwant those without\n%v", when, got, want)
		}
		got, err := withMocks.QuestionStats(guild, "")
		if err != nil {
			t.Fatal(err)
		}
		compareStats(t, got, scratchStats(t, withMocks, guild))
		disc := 0
		for _, st := range got {
			disc += st.Disc.N
		}
		if disc == 0 {
			t.Errorf("%s: no answer counts for a discrimination index; want the later answers to", when)
		}
	}
	same("after later answers")
	for _, db := range []*DB{plain, withMocks} {
		if err := db.RebuildStats(t.Context(), guild); err != nil {
			t.Fatal(err)
		}
	}
	same("after RebuildStats")
	for _, db := range []*DB{plain, withMocks} {
		if _, err := db.Regrade(t.Context(), guild, "Net#3", []string{"C"}, 4); err != nil {
			t.Fatal(err)
		}
	}
	same("after a regrade")
	// Back to version 8 (without the statistics), then opened: migration 9.
	backToSchema8(t, withMocks, guild)
	withMocks.Close()
	withMocks = openPath(t, path)
	same("after migration 9")
}

// TestMigrateV7MocksStats: on the schema 7 file of the mock exam scenario
// (testdata/v7/mocks.db.gz: ended attempts, whose answers migration 8 puts
// in the answer records as mock answers, and mock IDs that are also post
// IDs), migration 9 counts the answers to posts alone.
func TestMigrateV7MocksStats(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mocks.db")
	if err := os.WriteFile(path, []byte(readGz(t, "testdata/v7/mocks.db.gz")), 0o600); err != nil {
		t.Fatal(err)
	}
	if v := fileSchema(t, path); v != 7 {
		t.Fatalf("testdata/v7/mocks.db is at schema version %d, want 7", v)
	}
	db := openPath(t, path)
	got, err := db.QuestionStats(mockGuild, "")
	if err != nil {
		t.Fatal(err)
	}
	want := scratchStats(t, db, mockGuild)
	compareStats(t, got, want)
	n := 0
	for _, st := range got {
		n += st.Answers
	}
	if len(want) == 0 || n != 6 {
		t.Errorf("statistics of %d answers to posts, want the scenario's 6", n)
	}
}

func statsVersion(t *testing.T, db *DB) uint64 {
	t.Helper()
	v, err := db.StatsVersion(guild)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustAnswers(t *testing.T, db *DB, id questions.PostID) []questions.Answer {
	t.Helper()
	as, err := db.Answers(id)
	if err != nil {
		t.Fatal(err)
	}
	return as
}
