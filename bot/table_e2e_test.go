package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// sheetsCSV is a bank as Google Sheets downloads it: CRLF between rows, a
// quoted cell spanning lines (code, indented), no final newline.
const sheetsCSV = "Question,Option A,Option B,Option C,Answer,Explanation,Topic\r\n" +
	"\"What does this print?\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n\nprint(g(3))\",1,3,6,C,\"g(3) = 3 * 2 * 1 * g(0) = 6.\",Python\r\n" +
	"\"Which keyword defines a function, \"\"def\"\" or \"\"fn\"\"?\",def,fn,func,A,Python has no fn.,Python"

// A CSV uploaded to /quizadmin import loads: its bank is named after the
// file, its code keeps its indentation as a code block (with a warning
// suggesting fences), and its questions are asked like any other.
func TestImportCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	got := e.admin(alice, sub("import", fileOpt("file", "python.csv", sheetsCSV)))
	for _, want := range []string{"**python** (new bank): added 2, updated 0, unchanged 0 · 2 questions in the bank now",
		"python.csv:3: warning: 4 lines of code written without a ``` fence are posted as a code block"} {
		if !strings.Contains(got, want) {
			t.Errorf("import reply lacks %q:\n%s", want, got)
		}
	}
	if n := e.bankQuestions("python"); n != 2 {
		t.Fatalf("/quiz banks shows %d questions in python, want 2", n)
	}
	id := questions.ContentID("python", "What does this print?\n```\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n```\n\nprint(g(3))")
	shown := e.admin(alice, group("question", sub("show", str("id", id))))
	if !strings.Contains(shown, "```\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n```") {
		t.Errorf("question show of the code question:\n%s", shown)
	}
	post, msg := e.ask(bob, str("bank", "python"))
	if !strings.HasPrefix(post.QuestionID, "python#") || !strings.Contains(embedsText(msg.Embeds), "**A.**") {
		t.Errorf("asked %q: %s", post.QuestionID, embedsText(msg.Embeds))
	}
	// A semicolon CSV from European Excel, with its byte-order mark, into
	// the same bank by the bank option.
	euro := "\uFEFFQuestion;A;B;Answer\r\nWelches Protokoll löst Namen auf?;DNS;ARP;A\r\n"
	if got := e.admin(alice, sub("import", fileOpt("file", "netz.csv", euro), str("bank", "python"))); !strings.Contains(got, "**python**: added 1, updated 0, unchanged 0 · 3 questions") {
		t.Errorf("import of a semicolon CSV: %q", got)
	}
	e.checkWire()
}

// Cells copied from a spreadsheet and pasted into /quizadmin add are read
// as a table: tab-separated, a header row, a cell spanning lines quoted.
func TestPasteSpreadsheetCells(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "Sheet Practice"
	cells := "Question\tA\tB\tC\tD\tCorrect\tExplanation\n" +
		"Which S3 storage class is cheapest for data read once a year?\tS3 Standard\tS3 Standard-IA\tS3 Glacier Deep Archive\tS3 One Zone-IA\tC\tDeep Archive costs least to store.\n" +
		"\"Which of these are true of an IAM role?\nPick two.\"\tIt has long-term access keys\tIt can be assumed by an EC2 instance\tIt gives temporary credentials\tIt belongs to one user\tB C\tA role hands out temporary credentials."
	id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add", str("bank", bank))))
	m := e.submit(alice, "", id, cells)
	text := m.Content + "\n" + embedsText(m.Embeds)
	for _, want := range []string{"Preview** of 2 questions", "a new bank **Sheet Practice**: add 2, update 0, leave 0 unchanged",
		"Which of these are true of an IAM role?\nPick two.", "**C.** S3 Glacier Deep Archive", "Pick **2** answers", "Answer: B, C"} {
		if !strings.Contains(text, want) {
			t.Errorf("preview lacks %q:\n%s", want, text)
		}
	}
	add := buttons(m.Components)["Add"]
	if add == nil {
		t.Fatalf("no Add button on %q", m.Content)
	}
	if _, after := e.click(alice, m, add.CustomID); !strings.Contains(after.Content, "**Sheet Practice** (new bank): added 2, updated 0, unchanged 0") {
		t.Errorf("after Add: %q", after.Content)
	}
	if n := e.bankQuestions(bank); n != 2 {
		t.Errorf("after Add, %s has %d questions, want 2", bank, n)
	}
	e.checkWire()
}
