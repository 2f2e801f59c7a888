package bot

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// Handlers racing each other, with the other side's commit placed in the
// gap by a store that runs a hook inside a read.

// hookStore is a real database whose Draft and EditBanks run a hook.
type hookStore struct {
	*storage.DB
	afterDraft func() // after Draft read the draft (once)
	beforeEdit func() // before EditBanks writes
}

func (s *hookStore) Draft(guild questions.GuildID, id questions.DraftID) (questions.Draft, error) {
	d, err := s.DB.Draft(guild, id)
	if f := s.afterDraft; f != nil {
		s.afterDraft = nil
		f()
	}
	return d, err
}

func (s *hookStore) EditBanks(ctx context.Context, guild questions.GuildID, e questions.BankEdit) error {
	if s.beforeEdit != nil {
		s.beforeEdit()
	}
	return s.DB.EditBanks(ctx, guild, e)
}

const raceGuild, raceAdmin, raceMember = questions.GuildID(8001), questions.UserID(7001), questions.UserID(7002)

// raceBot is a bot on a fresh database, not connected: its handlers are
// called directly.
func raceBot(t *testing.T) (*Bot, *hookStore) {
	t.Helper()
	db, err := storage.Open(t.Context(), filepath.Join(t.TempDir(), "race.db"), storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	builtin, err := questions.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := questions.NewCatalogue(builtin)
	st := &hookStore{DB: db}
	b, err := New(Config{Token: "x", Store: st, Catalogue: cat, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return b, st
}

func adminCall(t *testing.T) *call {
	return &call{ctx: t.Context(), guild: raceGuild, user: raceAdmin,
		member: &discordgo.Member{Permissions: discordgo.PermissionManageGuild}, i: &discordgo.Interaction{ID: "1"}}
}

// TestRejectAfterAnotherAdminHandledIt: an admin presses Reject on a
// suggestion that another admin approved (or rejected) after this one's
// read of it. Nothing is rejected, so the member must not be told it was,
// and the admin is told it was handled already.
func TestRejectAfterAnotherAdminHandledIt(t *testing.T) {
	t.Parallel()
	b, st := raceBot(t)
	d, err := st.SaveDraft(t.Context(), questions.Draft{GuildID: raceGuild, UserID: raceMember, Kind: questions.DraftSuggestion,
		Queued: true, Text: "Mine Question 1\nSelect 1A?\n- A\nx\n- B\ny\nShow answer and explanation\nCorrect answer: A"})
	if err != nil {
		t.Fatal(err)
	}
	st.afterDraft = func() { // the other admin's Approve commits here, consuming the draft
		if err := st.DB.DeleteDraft(context.Background(), raceGuild, d.ID); err != nil {
			t.Error(err)
		}
	}
	r, err := b.suggestionButton(adminCall(t), componentID{kind: kindSuggestion, action: "reject", draft: d.ID})
	if err != nil {
		t.Fatalf("suggestionButton: %v", err)
	}
	if r.after != nil {
		t.Error("the member is sent a DM saying the suggestion was rejected; want none: it was handled by another admin")
	}
	if got := r.msg.content; strings.Contains(got, "Rejected") || !strings.Contains(got, "handled already") {
		t.Errorf("review page says %q, want that the suggestion was handled already", got)
	}
}

// TestBankRemoveWaitsForBankEdits: a confirmed /quizadmin bank remove is
// one of the changes to imported banks that go one at a time (the guild's
// edit lock): an import planned from the bank as it was must not store it
// again after the
// remove.
func TestBankRemoveWaitsForBankEdits(t *testing.T) {
	t.Parallel()
	b, st := raceBot(t)
	bk := questions.Bank{Name: "Mine", Questions: []questions.Question{{ID: "Mine#1", Bank: "Mine", Number: 1, Stem: "A?",
		Options: []questions.Option{{Letter: "A", Text: "x", Correct: true}, {Letter: "B", Text: "y"}}}}}
	data, err := questions.MarshalYAML(bk)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveBanks(t.Context(), raceGuild, []questions.BankFile{{Name: "Mine", Format: questions.FormatYAML, Data: data}}, 0); err != nil {
		t.Fatal(err)
	}
	st.beforeEdit = func() {
		if s := b.slot(raceGuild); s.edit.TryLock() {
			s.edit.Unlock()
			t.Error("the bank is deleted while another bank edit may be between its plan and its save (the guild's edit lock not held)")
		}
	}
	c := adminCall(t)
	m, err := b.bankRemoveConfirmed(c, questions.Confirmation{GuildID: raceGuild, UserID: raceAdmin, Action: questions.ConfirmBankRemove,
		Bank: "Mine", Stamp: questions.Digest(data)})
	if err != nil || !strings.Contains(m.content, "Removed **Mine**") {
		t.Fatalf("bank remove: %q, %v", m.content, err)
	}
	if files, err := st.Banks(raceGuild); err != nil || len(files) != 0 {
		t.Errorf("after remove: %d banks (err %v), want 0", len(files), err)
	}
}
