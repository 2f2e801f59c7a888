package storage

import (
	"slices"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestBanks(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	save := func(name, data string) {
		t.Helper()
		if err := db.SaveBank(t.Context(), guild, questions.BankFile{Name: name, Format: questions.FormatText, Data: []byte(data),
			ImportedAt: t0, ImportedBy: 5}); err != nil {
			t.Fatal(err)
		}
	}
	save("zeta", "1")
	save("Alpha", "2")
	save("ALPHA", "3") // replaces Alpha
	banks, err := db.Banks(guild)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range banks {
		names = append(names, b.Name+"="+string(b.Data))
	}
	if want := []string{"ALPHA=3", "zeta=1"}; !slices.Equal(names, want) {
		t.Errorf("Banks: got %v, want %v", names, want)
	}
	if !banks[0].ImportedAt.Equal(t0) || banks[0].ImportedBy != 5 || banks[0].Format != questions.FormatText {
		t.Errorf("bank fields: got %+v", banks[0])
	}
	if err := db.DeleteBank(t.Context(), guild, "alpha"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, db.DeleteBank(t.Context(), guild, "alpha"), questions.ErrNotFound)
	wantErr(t, db.DeleteBank(t.Context(), 99, "x"), questions.ErrNotFound)
	if banks, _ := db.Banks(guild); len(banks) != 1 {
		t.Errorf("after delete: got %d banks, want 1", len(banks))
	}
	if err := db.SaveBank(t.Context(), guild, questions.BankFile{}); err == nil {
		t.Error("SaveBank without name: got nil error")
	}
}
