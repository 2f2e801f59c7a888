package storage

import (
	"errors"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestExamDate(t *testing.T) {
	db, _ := newDB(t)
	if _, err := db.ExamDate(guild, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("before any: got %v, want ErrNotFound", err)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: 1, Date: "2025-06-30", Bank: "Net"}); err != nil {
		t.Fatal(err)
	}
	e, err := db.ExamDate(guild, 1)
	if err != nil || e.Date != "2025-06-30" || e.Bank != "Net" || e.UserID != 1 || e.GuildID != guild {
		t.Errorf("ExamDate: got %+v, %v; want 2025-06-30, Net", e, err)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: 1, Date: "30/06/2025"}); err == nil {
		t.Error("bad date: got nil error")
	}
	if e2, _ := db.ExamDate(guild, 1); e2 != e {
		t.Errorf("after a refused date: got %+v, want %+v unchanged", e2, e)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExamDate(guild, 1); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("after clearing: got %v, want ErrNotFound", err)
	}
}
