package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// startReview shows question qid to user at `at`.
func startReview(t *testing.T, db *DB, user questions.UserID, qid string, at time.Time) questions.Review {
	t.Helper()
	r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: user, QuestionID: qid,
		Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// reviewsStored counts the guild's review records and shown keys.
func reviewsStored(t *testing.T, db *DB) (records, shown int) {
	t.Helper()
	db.bolt.View(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guild)
		records, shown = g.Bucket(bReviews).Stats().KeyN, g.Bucket(bShown).Stats().KeyN
		return nil
	})
	return records, shown
}

// TestReviewsKept is issue 19's "300 review records which nothing ever
// deletes": a member keeps at most questions.MaxOpenReviews unanswered
// reviews (starting another deletes the oldest), those that expired
// unanswered are deleted when the member starts another or by
// PruneExpired, and answered reviews stay.
func TestReviewsKept(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	var shown []questions.Review
	for i := range 7 {
		shown = append(shown, startReview(t, db, 1, "net#1", t0.Add(time.Duration(i)*time.Second)))
	}
	for i, r := range shown {
		_, err := db.Review(guild, r.ID)
		if kept := i >= 2; kept != (err == nil) {
			t.Errorf("review %d of 7: Review = %v, want kept %v", i+1, err, kept)
		}
	}
	if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: shown[0].ID.Post(), GuildID: guild, UserID: 1, Choice: []string{"B"}, At: t0.Add(time.Minute)}); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("answering a deleted review: got %v, want ErrNotFound", err)
	}
	answered := shown[6]
	if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: answered.ID.Post(), GuildID: guild, UserID: 1, Choice: []string{"B"}, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	other := startReview(t, db, 2, "net#1", t0)
	if rec, keys := reviewsStored(t, db); rec != 6 || keys != 5 {
		t.Errorf("stored: %d reviews, %d shown keys; want 6 (5 of member 1, one answered, and 1 of member 2) and 5", rec, keys)
	}

	// An hour on, the unanswered ones expired: member 1's next review
	// deletes theirs, PruneExpired member 2's.
	later := t0.Add(questions.ReviewExpiry + 10*time.Second)
	next := startReview(t, db, 1, "net#2", later)
	if rec, keys := reviewsStored(t, db); rec != 3 || keys != 2 {
		t.Errorf("after member 1's next review: %d reviews, %d shown keys; want 3 (answered, next, member 2's) and 2", rec, keys)
	}
	res, err := db.PruneExpired(t.Context(), later)
	if err != nil || res.Reviews != 1 {
		t.Errorf("PruneExpired: %+v, %v; want 1 review", res, err)
	}
	for _, r := range []questions.Review{answered, next} {
		if _, err := db.Review(guild, r.ID); err != nil {
			t.Errorf("review %d: %v, want kept", r.ID, err)
		}
	}
	if _, err := db.Review(guild, other.ID); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("member 2's expired review: got %v, want deleted", err)
	}
	// The answered review still counts: a rebuild finds its source.
	before, _ := memoryOf(t, db, guild, 1, "net#1")
	if err := db.RebuildMemory(t.Context(), guild, nil); err != nil {
		t.Fatal(err)
	}
	if after, ok := memoryOf(t, db, guild, 1, "net#1"); !ok || !sameMemory(after, before) || after.Reps == 0 {
		t.Errorf("memory after a rebuild: %+v, want %+v", after, before)
	}
}

// TestPruneExpiredDrafts: drafts past their expiry go, queued suggestions
// and live drafts stay.
func TestPruneExpiredDrafts(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	var ids []questions.DraftID
	for _, d := range []questions.Draft{
		{UserID: 1, ExpiresAt: t0.Add(time.Hour)},
		{UserID: 2, ExpiresAt: t0.Add(3 * time.Hour)},
		{UserID: 3, Queued: true},
	} {
		d.GuildID, d.Kind, d.Text = guild, questions.DraftSuggestion, "x"
		saved, err := db.SaveDraft(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, saved.ID)
	}
	res, err := db.PruneExpired(t.Context(), t0.Add(2*time.Hour))
	if err != nil || res.Drafts != 1 || res.Reviews != 0 {
		t.Errorf("PruneExpired: %+v, %v; want 1 draft", res, err)
	}
	// A second run finds nothing and writes nothing.
	txid := func() (id int) { db.bolt.View(func(tx *bbolt.Tx) error { id = tx.ID(); return nil }); return id }
	before := txid()
	if res, err := db.PruneExpired(t.Context(), t0.Add(2*time.Hour)); err != nil || res != (ExpiredResult{}) || txid() != before {
		t.Errorf("PruneExpired with nothing expired: %+v, %v, transaction %d → %d; want nothing and no write", res, err, before, txid())
	}
	db.bolt.View(func(tx *bbolt.Tx) error {
		b := guildRO(tx, guild).Bucket(bDrafts)
		for i, id := range ids {
			if kept := i > 0; kept != (b.Get(u64(id)) != nil) {
				t.Errorf("draft %d: stored %v, want %v", id, !kept, kept)
			}
		}
		return nil
	})
}

// TestMigrateV5 builds a version-5 file (no shown index) with reviews
// answered, unanswered and expired, opens it with this build and checks
// that the unanswered ones are indexed: the expired one is pruned, the
// live one counts toward the cap, the answered one stays.
func TestMigrateV5(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	v5 := openV7(t, path, 5)
	// Write the reviews as a version-5 build did: the record only.
	var recs []questions.Review
	err := v5.bolt.Update(func(tx *bbolt.Tx) error {
		g, err := v7Guild(tx, guild)
		if err != nil {
			return err
		}
		if err := g.DeleteBucket(bShown); err != nil {
			return err
		}
		for i, at := range []time.Time{t0.Add(-2 * time.Hour), t0.Add(-2 * time.Hour), t0.Add(-time.Minute)} {
			id, _ := tx.Bucket(bPosts).NextSequence()
			r := reviewRec{UserID: 1, QuestionID: "net#1", Correct: []string{"B"}, OptionCount: 4, SelectCount: 1,
				OpenedAt: at, ExpiresAt: at.Add(questions.ReviewExpiry)}
			v, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := g.Bucket(bReviews).Put(u64(id), v); err != nil {
				return err
			}
			recs = append(recs, questions.Review{ID: questions.ReviewID(id)})
			if i == 0 { // answered, as RecordReview stores it
				a := questions.Answer{PostID: questions.PostID(id), GuildID: guild, UserID: 1, Choice: []string{"B"}, At: at.Add(time.Minute),
					Grade: questions.GradeChoice([]string{"B"}, []string{"B"})}
				seq, _ := g.Bucket(bAnswersV7).NextSequence()
				if err := g.Bucket(bAnswersV7).Put(cat(u64(id), u64(uint64(1))), encodeAnswerV7(seq, a)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v5.Close()

	db := openPath(t, path)
	var keys []string
	db.bolt.View(func(tx *bbolt.Tx) error {
		if getU64(tx.Bucket(bMeta).Get(kSchema)) != SchemaVersion() {
			t.Errorf("schema after migration: got %d, want %d", getU64(tx.Bucket(bMeta).Get(kSchema)), SchemaVersion())
		}
		return guildRO(tx, guild).Bucket(bShown).ForEach(func(k, _ []byte) error {
			keys = append(keys, fmtShown(k))
			return nil
		})
	})
	if want := []string{fmtShown(cat(u64(uint64(1)), u64(recs[1].ID))), fmtShown(cat(u64(uint64(1)), u64(recs[2].ID)))}; !slices.Equal(keys, want) {
		t.Errorf("shown after migration: %v, want %v (the two unanswered reviews)", keys, want)
	}
	if res, err := db.PruneExpired(t.Context(), t0); err != nil || res.Reviews != 1 {
		t.Errorf("PruneExpired after migration: %+v, %v; want the expired unanswered review", res, err)
	}
	for i, want := range []bool{true, false, true} {
		if _, err := db.Review(guild, recs[i].ID); (err == nil) != want {
			t.Errorf("review %d after the prune: %v, want kept %v", i, err, want)
		}
	}
}

func fmtShown(k []byte) string { return fmt.Sprintf("%d/%d", getU64(k[:8]), getU64(k[8:])) }
