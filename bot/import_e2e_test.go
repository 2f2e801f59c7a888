package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

// examQuestion is one question as copied from a practice page: CRLF line
// ends and no final newline.
func examQuestion(bank string, n int, stem string) string {
	return strings.Join([]string{
		fmt.Sprintf("%s Question %d", bank, n),
		"Select 1" + stem,
		"- A", "Right answer", "- B", "Wrong answer",
		"Show answer and explanation",
		"Correct answer: A",
		"Explanation",
		fmt.Sprintf("Question %d's explanation.", n),
	}, "\r\n")
}

func fileOpt(opt, name, data string) discordtest.Option {
	return discordtest.Option{Name: opt, Type: discordgo.ApplicationCommandOptionAttachment,
		Value: discordtest.Attachment{Filename: name, Data: []byte(data)}}
}

// bankQuestions is how many questions the guild's imported bank has, as
// stored.
func (e *env) bankQuestions(name string) int {
	e.t.Helper()
	banks := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks")))
	for _, l := range strings.Split(banks, "\n") {
		var n int
		if strings.HasPrefix(l, "**"+name+"** · ") {
			fmt.Sscanf(strings.TrimPrefix(l, "**"+name+"** · "), "%d", &n)
			return n
		}
	}
	return 0
}

func TestImportMerges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "AWS Practice"

	// Three one-question files, one at a time: each adds.
	for n := 1; n <= 3; n++ {
		got := e.admin(alice, sub("import", fileOpt("file", fmt.Sprintf("q%d.txt", n), examQuestion(bank, n, fmt.Sprintf("Stem %d?", n)))))
		want := fmt.Sprintf("**%s**: added 1, updated 0, unchanged 0 · %d questions in the bank now", bank, n)
		if n == 1 {
			want = fmt.Sprintf("**%s** (new bank): added 1, updated 0, unchanged 0 · 1 question in the bank now", bank)
		}
		if !strings.Contains(got, want) {
			t.Errorf("import %d: reply %q, want %q", n, got, want)
		}
	}
	if got := e.bankQuestions(bank); got != 3 {
		t.Fatalf("/quiz banks shows %d questions in %s, want 3", got, bank)
	}

	// A changed question counts as updated, an unchanged one as unchanged.
	both := examQuestion(bank, 2, "Stem 2, reworded?") + "\r\n" + examQuestion(bank, 3, "Stem 3?")
	if got := e.admin(alice, sub("import", fileOpt("file", "two.txt", both))); !strings.Contains(got, "added 0, updated 1, unchanged 1 · 3 questions") {
		t.Errorf("re-import reply %q, want 1 updated and 1 unchanged of 3", got)
	}
	if got := e.admin(alice, group("question", sub("show", str("id", bank+"#2")))); !strings.Contains(got, "Stem 2, reworded?") {
		t.Errorf("question 2 after the update:\n%s", got)
	}

	// Ten files at once; one bad file refuses them all.
	var ten, bad []discordtest.Option
	for n := 4; n <= 13; n++ {
		ten = append(ten, fileOpt(fmt.Sprintf("file%d", n-3), fmt.Sprintf("q%d.txt", n), examQuestion(bank, n, fmt.Sprintf("Stem %d?", n))))
		bad = append(bad, ten[len(ten)-1])
	}
	ten[0].Name, bad[0].Name = "file", "file"
	bad[6] = fileOpt("file7", "q10.txt", strings.Replace(examQuestion(bank, 10, "Stem 10?"), "Correct answer: A", "Correct answer: C", 1))
	bad[8] = fileOpt("file9", "q12.txt", strings.Replace(examQuestion(bank, 12, "Stem 12?"), "- B\r\nWrong answer", "- B", 1))
	got := e.admin(alice, sub("import", bad...))
	for _, want := range []string{"The 10 files** were not imported: 2 problems", "q10.txt:8: answer letter C is not an option", "q12.txt:5: option B has no text", "Nothing was stored"} {
		if !strings.Contains(got, want) {
			t.Errorf("import with a bad file: reply lacks %q:\n%s", want, got)
		}
	}
	if got := e.bankQuestions(bank); got != 3 {
		t.Fatalf("after a refused import of ten files: %d questions, want 3", got)
	}
	if got := e.admin(alice, sub("import", ten...)); !strings.Contains(got, "added 10, updated 0, unchanged 0 · 13 questions") {
		t.Errorf("import of ten files: reply %q", got)
	}

	// The same question twice in one import is refused.
	dup := e.admin(alice, sub("import", fileOpt("file", "a.txt", examQuestion(bank, 20, "X?")), fileOpt("file2", "b.txt", examQuestion(bank, 20, "Y?"))))
	if !strings.Contains(dup, `b.txt:1: question id "AWS Practice#20" is also brought in at a.txt:1`) {
		t.Errorf("import of one question twice: %q", dup)
	}

	// mode replace replaces the whole bank, once confirmed.
	got = e.confirmed(alice, sub("import", fileOpt("file", "one.txt", examQuestion(bank, 1, "Stem 1?")), str("mode", "replace")))
	if !strings.Contains(got, "**AWS Practice** (replaced): added 1, updated 0, unchanged 0 · 1 question in the bank now") {
		t.Errorf("replace reply %q", got)
	}
	if got := e.bankQuestions(bank); got != 1 {
		t.Errorf("after replace: %d questions, want 1", got)
	}

	// The bank option puts everything into that bank; export returns the
	// whole bank as it is now.
	got = e.admin(alice, sub("import", fileOpt("file", "x.txt", examQuestion("Elsewhere", 5, "Five?")), str("bank", "aws practice")))
	if !strings.Contains(got, "**AWS Practice**: added 1, updated 0, unchanged 0 · 2 questions") {
		t.Errorf("import with bank option: %q", got)
	}
	r := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("bank", sub("export", str("name", bank)))).WaitResponse(t, wait)
	if len(r.Files) != 1 || !strings.Contains(string(r.Files[0].Data), "AWS Practice#1") || !strings.Contains(string(r.Files[0].Data), "AWS Practice#5") {
		t.Errorf("export: %+v", r.Files)
	}

	// Members may not import.
	if got := e.admin(bob, sub("import", fileOpt("file", "q9.txt", examQuestion(bank, 9, "Nine?")))); !strings.Contains(got, "Manage Server") {
		t.Errorf("member import reply %q, want a refusal", got)
	}
	if got := e.admin(alice, sub("import", fileOpt("file", "q9.txt", examQuestion(bank, 9, "Nine?")), str("mode", "sideways"))); !strings.Contains(got, "mode must be merge or replace") {
		t.Errorf("bad mode reply %q", got)
	}
	if got := e.bankQuestions(bank); got != 2 {
		t.Errorf("after refusals: %d questions, want 2", got)
	}
	e.checkWire()
}

// TestImportMergesIntoAnOldRecord: a bank stored by an older version (the
// uploaded exam text as is) keeps loading, and an import merges into it.
func TestImportMergesIntoAnOldRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	e.stop()
	db, err := storage.Open(t.Context(), e.path, storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveBank(t.Context(), 8001, questions.BankFile{Name: "Cloud Networking", Format: questions.FormatText, Data: []byte(importBank)}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	e.start()
	if got := e.bankQuestions("Cloud Networking"); got != 2 {
		t.Fatalf("old record loads with %d questions, want 2", got)
	}
	got := e.admin(alice, sub("import", fileOpt("file", "q3.txt", examQuestion("Cloud Networking", 3, "Which port does HTTPS use?"))))
	if !strings.Contains(got, "**Cloud Networking**: added 1, updated 0, unchanged 0 · 3 questions") {
		t.Errorf("merge into an old record: %q", got)
	}
	r := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("bank", sub("export", str("name", "Cloud Networking")))).WaitResponse(t, wait)
	if len(r.Files) != 1 {
		t.Fatalf("export sent %d files", len(r.Files))
	}
	banks, err := questions.Parse(r.Files[0].Name, r.Files[0].Data)
	if err != nil || len(banks) != 1 || len(banks[0].Questions) != 3 || banks[0].Questions[0].ID != "Cloud Networking#1" ||
		banks[0].Questions[0].Explanation != "DNS maps names to addresses." || banks[0].Questions[2].ID != "Cloud Networking#3" {
		t.Errorf("export parses to %+v, %v", banks, err)
	}
	e.checkWire()
}
