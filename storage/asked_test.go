package storage

import (
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestAsked(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	for _, id := range []string{"a#1", "a#2", "b#1"} {
		mustPost(t, db, questions.Post{QuestionID: id})
	}
	mustPost(t, db, questions.Post{GuildID: guild + 1, QuestionID: "a#3"})
	if err := db.ForgetAsked(t.Context(), guild, []string{"a#1", "a#2", "zz", ""}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Asked(guild)
	if err != nil || len(got) != 1 || !got["b#1"] {
		t.Errorf("Asked after forgetting: got %v, %v; want only b#1", got, err)
	}
	if got, _ := db.Asked(guild + 1); !got["a#3"] {
		t.Errorf("other guild: got %v, want a#3", got)
	}
	if got, _ := db.Asked(77); len(got) != 0 {
		t.Errorf("unknown guild: got %v", got)
	}
	if err := db.ForgetAsked(t.Context(), 77, []string{"x"}); err != nil {
		t.Errorf("ForgetAsked of an unknown guild: %v", err)
	}
}
