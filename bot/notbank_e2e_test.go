package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// An upload that is not a question bank at all is the member's mistake:
// the import is refused with "not a question bank" (not the bank folder's
// warning), all or nothing, and nothing is stored.
func TestImportNotABank(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const packageJSON = `{"name": "study", "version": "1.0.0", "scripts": {"fmt": "prettier -w ."}}`
	tests := []struct {
		name  string
		files [][2]string // attachment file name, content
		want  string
	}{
		{"package.json", [][2]string{{"package.json", packageJSON}},
			`package.json: not a question bank: no "bank" or "questions" field at its top level and no question (question: with options:) in it`},
		{"an empty .yaml", [][2]string{{"bank.yaml", ""}}, "bank.yaml: not a question bank: the file is empty"},
		{"notes.txt", [][2]string{{"notes.txt", "Revise IAM and S3.\n"}},
			`notes.txt: not a question bank: no line is a question title such as "<Exam> Question 12"`},
		{"a bank and a package.json", [][2]string{{"net.txt", importBank}, {"package.json", packageJSON}},
			`package.json: not a question bank: no "bank" or "questions" field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []discordtest.Option
			var files []string
			for i, f := range tt.files {
				name := "file"
				if i > 0 {
					name = fmt.Sprintf("file%d", i+1)
				}
				opts = append(opts, fileOpt(name, f[0], f[1]))
				files = append(files, f[0])
			}
			got := e.admin(alice, sub("import", opts...))
			for _, want := range []string{tt.want, "Nothing was stored"} {
				if !strings.Contains(got, want) {
					t.Errorf("got reply\n%s\nwant it to contain %q", got, want)
				}
			}
			for _, not := range []string{"warning", "bank folder", "Imported"} {
				if strings.Contains(got, not) {
					t.Errorf("got reply\n%s\nwant no %q", got, not)
				}
			}
			if stored, err := e.db.Banks(8001); err != nil || len(stored) != 0 {
				t.Errorf("got stored banks %+v, %v after importing %q, want none", stored, err, files)
			}
		})
	}
}

// A paste with no question title at all is refused the same way, with Fix
// it to try again, and no Add.
func TestPasteNotABank(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add")))
	m := e.submit(alice, "", id, "Which service stores objects?\nS3, I think.\n")
	text := m.Content + "\n" + embedsText(m.Embeds)
	if want := `not a question bank: no line is a question title such as "<Exam> Question 12"`; !strings.Contains(text, want) || !strings.Contains(m.Content, "1 problem") {
		t.Errorf("got reply\n%s\nwant 1 problem: %s", text, want)
	}
	if strings.Contains(text, "bank folder") {
		t.Errorf("got reply\n%s\nwant no advice about bank folders", text)
	}
	b := buttons(m.Components)
	if b["Fix it"] == nil || b["Add"] != nil {
		t.Errorf("got buttons %v, want Fix it and no Add", b)
	}
}
