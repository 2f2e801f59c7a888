package storage

import (
	"errors"
	"slices"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// TestDecodeCacheNeverServesStaleRecords reads posts and settings through
// the hot path's decode cache after changes the cache was not told about
// (other methods' writes, a rolled-back write, a caller changing what it
// was given): each read must return what the file holds.
func TestDecodeCacheNeverServesStaleRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// change alters p (read once through the cache before) and returns
		// what a read of it must give now.
		change func(t *testing.T, db *DB, p questions.Post) questions.Post
	}{
		{"another method's write", func(t *testing.T, db *DB, p questions.Post) questions.Post {
			if err := db.SetPostMessage(t.Context(), p.ID, 4242); err != nil {
				t.Fatal(err)
			}
			p.MessageID = 4242
			return p
		}},
		{"a write rolled back", func(t *testing.T, db *DB, p questions.Post) questions.Post {
			changed := p
			changed.Tallies = []int{9, 9, 9, 9}
			boom := errors.New("boom")
			err := db.bolt.Update(func(tx *bbolt.Tx) error {
				if err := db.putPost(tx, changed); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("update: got %v, want boom", err)
			}
			return p
		}},
		{"the caller changing its copy", func(t *testing.T, db *DB, p questions.Post) questions.Post {
			got, err := db.Post(p.ID)
			if err != nil {
				t.Fatal(err)
			}
			got.Tallies[0], got.Tags[0], got.Correct[0] = 77, "changed", "D"
			return p
		}},
		{"answers recorded", func(t *testing.T, db *DB, p questions.Post) questions.Post {
			answer(t, db, p, 1, t0, "B")
			answer(t, db, p, 2, t0, "A")
			p.Tallies = []int{1, 1, 0, 0}
			p.Answers, p.Right = 2, 1
			return p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := newDB(t)
			p := mustPost(t, db, questions.Post{OpenedAt: t0, Tags: []string{"tag"}})
			if _, err := db.Post(p.ID); err != nil { // now in the cache
				t.Fatal(err)
			}
			want := tt.change(t, db, p)
			got, err := db.Post(p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.MessageID != want.MessageID || !slices.Equal(got.Tallies, want.Tallies) || got.Answers != want.Answers ||
				got.Right != want.Right || !slices.Equal(got.Tags, want.Tags) || !slices.Equal(got.Correct, want.Correct) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}

	t.Run("settings", func(t *testing.T) {
		db, _ := newDB(t)
		s := questions.DefaultSettings(guild)
		s.Banks = []string{"one"}
		if err := db.SaveSettings(t.Context(), s); err != nil {
			t.Fatal(err)
		}
		got, err := db.Settings(guild)
		if err != nil {
			t.Fatal(err)
		}
		got.Banks[0] = "changed by the caller"
		s.TimeZone, s.AskMinutes = "Europe/Paris", 25
		if err := db.SaveSettings(t.Context(), s); err != nil {
			t.Fatal(err)
		}
		if got, err = db.Settings(guild); err != nil {
			t.Fatal(err)
		}
		if got.TimeZone != s.TimeZone || got.AskMinutes != s.AskMinutes || !slices.Equal(got.Banks, s.Banks) {
			t.Errorf("got %+v, want %+v", got, s)
		}
	})
}

// TestDecodeCacheStaysBounded reads more posts than the cache keeps.
func TestDecodeCacheStaysBounded(t *testing.T) {
	t.Parallel()
	var m decodeCache[int, int]
	m.clone = func(v int) int { return v }
	for i := range 3 * decodeCacheSize {
		v, err := m.get(i, []byte{byte(i)}, func([]byte) (int, error) { return i, nil })
		if err != nil || v != i {
			t.Fatalf("get(%d): got %d, %v; want %d", i, v, err, i)
		}
	}
	if n := len(m.m); n > decodeCacheSize {
		t.Errorf("cache holds %d records, want at most %d", n, decodeCacheSize)
	}
}
