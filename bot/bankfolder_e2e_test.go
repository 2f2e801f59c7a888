package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// TestFolderOfOneQuestionFilesIsOneBank loads a bank folder as study
// groups keep it (testdata/folder: one file per question for the same exam,
// titles pasted as "<Exam> Question 12", "<Exam> - Question 40 of 65" and a
// bare "Question 7", files without a final newline, one with CRLF, and a
// stray notes.txt) through the same Loader as start-up, and serves it with
// the real bot: one bank of three questions, each asked and answered.
func TestFolderOfOneQuestionFilesIsOneBank(t *testing.T) {
	t.Parallel()
	cat, ps := questions.Loader{Paths: []string{"testdata/folder"}}.Load()
	if err := ps.Err(); err != nil {
		t.Fatalf("loading the folder: %v", err)
	}
	if w := ps.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), "notes.txt: warning: not a question bank") {
		t.Errorf("warnings %v, want one for notes.txt", w)
	}
	const bank = "AWS Cloud Practitioner"
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.cat = cat
	e.start()

	banks := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks")))
	if !strings.Contains(banks, "**"+bank+"** · 3 questions · 3 not yet asked") {
		t.Errorf("/quiz banks:\n%s\nwant %s with 3 questions", banks, bank)
	}
	seen := map[int]bool{}
	for range 3 {
		post, msg := e.ask(alice, str("bank", bank), integer("minutes", 5))
		q, ok := cat.Question(post.QuestionID)
		if !ok || q.Bank != bank {
			t.Fatalf("asked %q, want a question of %s", post.QuestionID, bank)
		}
		seen[q.Number] = true
		if text := embedsText(msg.Embeds); !strings.Contains(text, q.Stem) {
			t.Errorf("post of question %d lacks its stem %q:\n%s", q.Number, q.Stem, text)
		}
		if got := e.choose(bob, post, post.Correct...); !strings.Contains(got, "Right!") {
			t.Errorf("right answer to question %d: %q", q.Number, got)
		}
	}
	if !seen[7] || !seen[12] || !seen[40] {
		t.Errorf("asked questions %v, want 7, 12 and 40", seen)
	}
	e.checkWire()
}
