package storage

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// dumpGuild returns every key and value of the guild's bucket, for
// checking that a refusal wrote nothing.
func dumpGuild(t testing.TB, db *DB, guildID questions.GuildID) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		if g := guildRO(tx, guildID); g != nil {
			return walk(g, "", out)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("dump guild %d: %v", guildID, err)
	}
	return out
}

// TestRecordReviewWhileOpen: a review answer is refused while a post of its
// question is open in the review's guild, whether the post was created
// before RecordReview or between its read-only check and its write
// transaction (the race the bot's own check could not close); nothing is
// written, and the review takes the answer once the post closes. A post
// of the question in another guild, or of another question, does not
// stop it.
func TestRecordReviewWhileOpen(t *testing.T) {
	t.Parallel()
	const qid = "net#1"
	tests := []struct {
		name string
		post questions.Post // the post open when the answer comes
		// between: the post is created after RecordReview's read-only
		// check, before its write transaction.
		between bool
		want    error // nil: recorded
	}{
		{"open in the guild", questions.Post{GuildID: guild, QuestionID: qid}, false, questions.ErrQuestionOpen},
		{"opened in the guild during the answer", questions.Post{GuildID: guild, QuestionID: qid}, true, questions.ErrQuestionOpen},
		{"open in another guild", questions.Post{GuildID: guild + 1, QuestionID: qid}, false, nil},
		{"opened in another guild during the answer", questions.Post{GuildID: guild + 1, QuestionID: qid}, true, nil},
		{"another question open in the guild", questions.Post{GuildID: guild, QuestionID: "net#2"}, false, nil},
		{"another question opened during the answer", questions.Post{GuildID: guild, QuestionID: "net#2"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := newDB(t)
			r, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: 1, QuestionID: qid,
				Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: t0})
			if err != nil {
				t.Fatal(err)
			}
			// before is the guild as the answer's write transaction finds it.
			var p questions.Post
			var before map[string]string
			if tt.between {
				write := db.write
				db.write = func(ctx context.Context, fn func(*bbolt.Tx, *deltas) error) error {
					if p.ID == 0 {
						p = mustPost(t, db, tt.post)
						before = dumpGuild(t, db, guild)
					}
					return write(ctx, fn)
				}
			} else {
				p = mustPost(t, db, tt.post)
				before = dumpGuild(t, db, guild)
			}
			a := questions.Answer{PostID: r.ID.Post(), GuildID: guild, UserID: 1, InteractionID: 5, Choice: []string{"B"}, At: t0.Add(time.Minute)}
			got, err := db.RecordReview(t.Context(), a)
			if tt.between && p.ID == 0 {
				t.Fatalf("RecordReview = %v without a write transaction; the test needs one", err)
			}
			if tt.want == nil {
				if err != nil || !got.Right {
					t.Fatalf("RecordReview: got %+v, %v; want recorded, right", got, err)
				}
				if m, _ := memoryOf(t, db, guild, 1, qid); m.Reps != 1 {
					t.Errorf("reps after the review: got %d, want 1", m.Reps)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("RecordReview: got %+v, %v; want %v", got, err, tt.want)
			}
			if d := diffMaps(dumpGuild(t, db, guild), before); d != "" {
				t.Errorf("a refused review answer wrote:\n%s", d)
			}
			if mems, _ := db.Memories(guild, 1); len(mems) != 0 {
				t.Errorf("memories after the refusal: got %+v, want none", mems)
			}

			// Closed: the same review takes the answer.
			if _, _, err := db.ClosePost(t.Context(), p.ID, t0.Add(2*time.Minute)); err != nil {
				t.Fatal(err)
			}
			a.At = t0.Add(3 * time.Minute)
			got, err = db.RecordReview(t.Context(), a)
			if err != nil || !got.Right || got.InteractionID != 5 {
				t.Fatalf("RecordReview after the close: got %+v, %v; want recorded, right", got, err)
			}
			if m, _ := memoryOf(t, db, guild, 1, qid); m.Reps != 1 {
				t.Errorf("reps after the review: got %d, want 1", m.Reps)
			}
		})
	}
}
