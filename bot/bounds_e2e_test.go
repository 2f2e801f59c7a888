package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// hostileJSON is a bank of n questions that each hold only an unknown
// field: three problems each (the field, no text, no options).
func hostileJSON(n int) string {
	return `{"bank":"X","questions":[` + strings.TrimSuffix(strings.Repeat(`{"zz":1},`, n), ",") + `]}`
}

// An import of files built to cost memory (many mistakes, a huge tree, not
// an object at all) is refused whole, each file's problems counted but
// listed only in part, and nothing is stored.
func TestHostileImportRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const items = 60 // 180 problems a file: past the cap of 100 (bench/imports measures the 1 MiB files)
	var files []discordtest.Option
	for i := range 8 {
		files = append(files, fileOpt(fmt.Sprintf("file%d", i+1), fmt.Sprintf("h%d.json", i+1), hostileJSON(items)))
	}
	files[0].Name = "file"
	files = append(files,
		fileOpt("file9", "dense.json", `{"bank":"X","questions":[`+strings.Repeat("1,", 110_000)+`1]}`),
		fileOpt("file10", "list.json", "\n[1, 2]"))
	got := e.admin(alice, sub("import", files...))
	for _, want := range []string{
		fmt.Sprintf("**The 10 files** were not imported: %d problems. Nothing was stored.", 8*3*items+2),
		`h1.json:1: unknown field "zz" in a question (want id, number, select, question, options, explanation, tags, source, community)`,
		"h1.json:1: the question has no text",
		fmt.Sprintf("h1.json: …and %d more problems, not listed", 3*items-4),
		fmt.Sprintf("h8.json: …and %d more problems, not listed", 3*items-4),
		"dense.json:1: more than 100000 values (strings, numbers, lists, fields): a bank file holds fewer; split the bank into several files",
		"list.json:2: the bank must be a mapping of fields (bank, source, questions, exam); this file is a list",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reply lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n• "); n != 8*5+2 {
		t.Errorf("reply lists %d lines, want each file's first 4 problems and how many more, and the other two files' one (42)", n)
	}
	if got := e.bankQuestions("X"); got != 0 {
		t.Errorf("bank X has %d questions after a refused import, want none", got)
	}

	// The same files one at a time: each names its own problem.
	for _, tt := range []struct{ file, data, want string }{
		{"h.json", hostileJSON(items), fmt.Sprintf("**h.json** was not imported: %d problems.", 3*items)},
		{"dense.json", `{"bank":"X","questions":[` + strings.Repeat("1,", 110_000) + `1]}`, "dense.json:1: more than 100000 values (strings, numbers, lists, fields): a bank file holds fewer; split the bank into several files"},
		{"list.json", "\n[1, 2]", "list.json:2: the bank must be a mapping of fields (bank, source, questions, exam); this file is a list"},
		{"dense.yaml", "bank: X\nquestions: [" + strings.Repeat("1,", 110_000) + "1]\n", "dense.yaml:2: more than 200000 marks that start a value"},
	} {
		got := e.admin(alice, sub("import", fileOpt("file", tt.file, tt.data)))
		if !strings.Contains(got, tt.want) || !strings.Contains(got, "Nothing was stored") {
			t.Errorf("import of %s: reply lacks %q:\n%s", tt.file, tt.want, got)
		}
	}
	e.checkWire()
}

// Each server's banks stay within the operator's quota: a change past a
// bound stores nothing and says which bound, and how to make room.
func TestQuotaRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.quota = questions.Quota{Banks: 2, Questions: 3, Bytes: 4 << 10}
	e.start()
	for _, bank := range []string{"One", "Two"} {
		if got := e.admin(alice, sub("import", fileOpt("file", "b.yaml", oneQuestionBank(bank)))); !strings.Contains(got, "(new bank)") {
			t.Fatalf("import of %s: %q", bank, got)
		}
	}
	twoMore := "bank: One\nquestions:\n" + strings.Repeat("", 0)
	for i := 2; i <= 4; i++ {
		twoMore += fmt.Sprintf("- id: one-%d\n  question: Q%d?\n  options: [{text: a, correct: true}, {text: b}]\n", i, i)
	}
	long := fmt.Sprintf("bank: Two\nquestions:\n- id: two-1\n  question: Long?\n  options: [{text: a, correct: true}, {text: b}]\n  explanation: %s\n", strings.Repeat("word ", 800))
	for _, tt := range []struct{ name, data, want string }{
		{"a third bank", oneQuestionBank("Three"), "would have 3 banks, and may have at most 2 (a limit of this bot, QUIZHOST_QUOTA_BANKS)"},
		{"three more questions", twoMore, "would hold 5 questions, and may hold at most 3 (a limit of this bot, QUIZHOST_QUOTA_QUESTIONS)"},
		{"a long explanation", long, "and may take at most 4.0 KiB (a limit of this bot, QUIZHOST_QUOTA_BANK_BYTES)"},
	} {
		got := e.admin(alice, sub("import", fileOpt("file", "b.yaml", tt.data)))
		if !strings.Contains(got, "❌ Nothing was stored: this server's banks "+strings.SplitN(tt.want, ",", 2)[0]) && !strings.Contains(got, tt.want) {
			t.Errorf("%s: reply %q, want %q", tt.name, got, tt.want)
		}
		if !strings.Contains(got, "/quizadmin bank remove") {
			t.Errorf("%s: reply %q does not say how to make room", tt.name, got)
		}
	}
	if one, two, three := e.bankQuestions("One"), e.bankQuestions("Two"), e.bankQuestions("Three"); one != 1 || two != 1 || three != 0 {
		t.Errorf("after the refusals: One %d, Two %d, Three %d questions; want 1, 1, 0", one, two, three)
	}
	if got := e.confirmed(alice, group("bank", sub("remove", str("name", "Two")))); !strings.Contains(got, "Removed **Two**") {
		t.Fatalf("remove: %q", got)
	}
	if got := e.admin(alice, sub("import", fileOpt("file", "b.yaml", oneQuestionBank("Three")))); !strings.Contains(got, "**Three** (new bank)") {
		t.Errorf("import once a bank was removed: %q", got)
	}
	// An undo is held to the quota too: Two back next to One and Three
	// would be 3 banks. Its kept version stays for when there is room.
	got := e.undo("Two")
	wants(t, "undo past the quota", got, "❌ Nothing was stored: this server's banks would have 3 banks, and may have at most 2 (a limit of this bot, QUIZHOST_QUOTA_BANKS)",
		"The kept version of **Two** stays")
	if two := e.bankQuestions("Two"); two != 0 {
		t.Errorf("after the refused undo: Two has %d questions, want none", two)
	}
	if got := e.confirmed(alice, group("bank", sub("remove", str("name", "Three")))); !strings.Contains(got, "Removed **Three**") {
		t.Fatalf("remove: %q", got)
	}
	wants(t, "undo once there is room", e.undo("Two"), "Restored **Two**")
	if one, two, three := e.bankQuestions("One"), e.bankQuestions("Two"), e.bankQuestions("Three"); one != 1 || two != 1 || three != 0 {
		t.Errorf("after the undo: One %d, Two %d, Three %d questions; want 1, 1, 0", one, two, three)
	}
	e.checkWire()
}

// A file of more warnings than an import lists loads all the same, as it
// would with fewer: a CSV of 150 questions that each hold indented code
// without fences is imported, its first warnings listed and the rest
// counted; the one that also has an error is refused.
func TestImportManyWarnings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	var csv strings.Builder
	csv.WriteString("question,A,B,answer\n")
	for i := range 150 {
		fmt.Fprintf(&csv, "\"Code %d:\nif x:\n    y()\",a,b,A\n", i)
	}
	got := e.admin(alice, sub("import", fileOpt("file", "code.csv", csv.String())))
	wants(t, "import of 150 warnings", got, "**code** (new bank): added 150", "code.csv:3: warning: 2 lines of code", "…and 127 more")
	if n := e.bankQuestions("code"); n != 150 {
		t.Errorf("code has %d questions, want 150", n)
	}
	got = e.admin(alice, sub("import", fileOpt("file", "more.csv", csv.String()+"\"Last?\",a,b,Z\n")))
	wants(t, "import of 150 warnings and an error", got, "**more.csv** was not imported", "Nothing was stored")
	if n := e.bankQuestions("more"); n != 0 {
		t.Errorf("more has %d questions, want none", n)
	}
	e.checkWire()
}
