package storage

import (
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// TestRebuildRepairs: derived data lost or damaged is recounted from the
// answers.
func TestRebuildRepairs(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{Tags: []string{"a"}})
	for u := questions.UserID(1); u <= 20; u++ {
		answer(t, db, p, u, t0.Add(time.Duration(u)*time.Hour), questions.Letter(int(u%2)))
	}
	want := dumpDerived(t, db, guild)
	err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guild)
		if err := g.Bucket(bPeriods).DeleteBucket(kAllTime); err != nil {
			return err
		}
		m, _, err := getMember(g.Bucket(bMembers), nil, 1)
		if err != nil {
			return err
		}
		m.topics = []topicStat{{topic: "tag:a", answered: 99, correct: 99}}
		return putMember(g.Bucket(bMembers), nil, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildScores(t.Context(), guild); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpDerived(t, db, guild), want); d != "" {
		t.Errorf("after rebuild:\n%s", d)
	}
	if err := db.RebuildScores(t.Context(), 4242); err != nil {
		t.Errorf("rebuild of an unknown guild: %v", err)
	}
}
