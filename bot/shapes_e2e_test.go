package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// practicePage is two questions copied from a practice-exam site, as the
// copy comes (CRLF, the page's leftovers, a community vote), with a Bank:
// line naming their bank.
var practicePage = strings.Join([]string{
	"Bank: AWS CLF",
	"Question #12 Topic 1",
	"A company wants to store session state for a web application in memory. Which AWS service is the MOST suitable?",
	"A. Amazon S3 Glacier",
	"B. Amazon ElastiCache Most Voted",
	"C. Amazon EC2 instance store",
	"D. AWS Snowball",
	"Reveal Solution Hide Solution   Discussion   17",
	"Suggested Answer: B 🗳️",
	"",
	"Question #13 Topic 1",
	"Which TWO of the following are benefits of the AWS Cloud? (Choose two.)",
	"A. Fixed hardware costs",
	"B. Global reach in minutes",
	"C. Pay only for what you use",
	"D. Unlimited free support",
	"Suggested Answer: BC",
	"Community vote distribution",
	"BC (71%)",
	"CD (29%)",
}, "\r\n")

// A practice-site paste previews and adds; the bank's export keeps the
// community vote.
func TestPastePracticeSite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "AWS CLF"
	id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add")))
	m := e.submit(alice, "", id, practicePage)
	text := m.Content + "\n" + embedsText(m.Embeds)
	for _, want := range []string{"Preview** of 2 questions", "a new bank **AWS CLF**: add 2, update 0, leave 0 unchanged",
		"AWS CLF · Question 12", "**B.** Amazon ElastiCache\n", "Pick **1** answer", "AWS CLF · Question 13", "Pick **2** answers"} {
		if !strings.Contains(text, want) {
			t.Errorf("preview lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Most Voted") || strings.Contains(text, "Reveal Solution") {
		t.Errorf("preview shows the page's leftovers:\n%s", text)
	}
	add := buttons(m.Components)["Add"]
	if add == nil {
		t.Fatalf("no Add button on\n%s", text)
	}
	if _, after := e.click(alice, m, add.CustomID); !strings.Contains(after.Content, "**AWS CLF** (new bank): added 2") {
		t.Errorf("after Add: %q", after.Content)
	}
	if got := e.bankQuestions(bank); got != 2 {
		t.Fatalf("after Add, %s has %d questions, want 2", bank, got)
	}
	r := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("bank", sub("export", str("name", bank)))).WaitResponse(t, wait)
	if len(r.Files) != 1 || !strings.Contains(string(r.Files[0].Data), "community: [{answer: BC, percent: 71}, {answer: CD, percent: 29}]") {
		t.Errorf("export: %+v, want the community vote kept", r.Files)
	}
	e.checkWire()
}

// aikenFile is a Moodle Aiken export.
const aikenFile = "What does len([1, 2, 3]) return in Python?\nA. 2\nB. 3\nC. 4\nANSWER: B\n\n" +
	"Which keyword defines a function in Python?\nA) func\nB) def\nC) lambda\nANSWER: B\n\n" +
	"Which of these are immutable?\nA. tuple\nB. list\nC. str\nANSWER: A, C\n"

// An Aiken file imports (its bank from the bank option); re-imported in
// another order, its questions keep their identity. Without a bank, the
// import says how to name one.
func TestImportAiken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const bank = "Python Basics"
	if got := e.admin(alice, sub("import", fileOpt("file", "python.aiken", aikenFile))); !strings.Contains(got, `python.aiken:1: the file names no bank for its questions, which have no titles: write a first line "Bank: <name>", or, for an import, give the bank option`) ||
		!strings.Contains(got, "Nothing was stored") {
		t.Errorf("import without a bank: %q", got)
	}
	got := e.admin(alice, sub("import", fileOpt("file", "python.aiken", aikenFile), str("bank", bank)))
	if !strings.Contains(got, "**Python Basics** (new bank): added 3, updated 0, unchanged 0 · 3 questions in the bank now") {
		t.Errorf("import: %q", got)
	}
	parts := strings.SplitAfter(aikenFile, "\n\n")
	reordered := parts[2] + "\n\n" + parts[0] + parts[1]
	if got := e.admin(alice, sub("import", fileOpt("file", "python.txt", reordered), str("bank", bank))); !strings.Contains(got, "added 0,") || !strings.Contains(got, "· 3 questions in the bank now") {
		t.Errorf("re-import in another order: %q, want no question added", got)
	}
	if got := e.bankQuestions(bank); got != 3 {
		t.Errorf("%s has %d questions, want 3", bank, got)
	}
	e.checkWire()
}

// A file or paste holding an answer line but no question quizhost can read
// is refused with the closest format and an example, never taken for an
// empty bank; nothing is stored.
func TestImportAndPasteRefuseUnreadableQuestions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	const lost = "Which service caches session state?\nAmazon S3 Glacier\nAmazon ElastiCache\nSuggested Answer: B\n"
	const want = `"Suggested Answer: B" is part of a question, but no question can be read in this file. Closest format: practice-site, a title then one-line options: "Question #12 Topic 1" / "A. Amazon S3 Glacier"`
	got := e.admin(alice, sub("import", fileOpt("file", "lost.txt", lost), str("bank", "AWS")))
	if !strings.Contains(got, "lost.txt:4: "+want) || !strings.Contains(got, "Nothing was stored") {
		t.Errorf("import: %q, want the refusal at line 4", got)
	}
	id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add", str("bank", "AWS"))))
	m := e.submit(alice, "", id, lost)
	text := m.Content + "\n" + embedsText(m.Embeds)
	if !strings.Contains(text, want) || !strings.Contains(m.Content, "1 problem") {
		t.Errorf("paste: got\n%s\nwant 1 problem: %s", text, want)
	}
	if b := buttons(m.Components); b["Fix it"] == nil || b["Add"] != nil {
		t.Errorf("got buttons %v, want Fix it and no Add", b)
	}
	if stored, err := e.db.Banks(8001); err != nil || len(stored) != 0 {
		t.Errorf("got stored banks %+v, %v, want none", stored, err)
	}
	e.checkWire()
}

// disputedPage is a practice-site question whose visitors voted against
// its key, as the site shows it under the suggested answer.
const disputedPage = "Question #12 Topic 1\r\n" +
	"A company wants to store session state for a web application in memory. Which AWS service is the MOST suitable?\r\n" +
	"A. Amazon S3 Glacier\r\nB. Amazon ElastiCache\r\nC. Amazon EC2 instance store\r\nD. AWS Snowball\r\n" +
	"Suggested Answer: B 🗳️\r\n\r\nCommunity vote distribution\r\nC (71%)\r\nB (29%)"

// A practice-site file imported with a community vote that disagrees with
// its key: the reveal in the channel says so, in one line, beside the key.
func TestImportedCommunityVoteAtReveal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	if got := e.admin(alice, sub("import", fileOpt("file", "q12.txt", disputedPage), str("bank", "AWS CLF"))); !strings.Contains(got, "added 1") {
		t.Fatalf("import: %q", got)
	}
	post, _ := e.ask(alice, str("bank", "AWS CLF"), integer("minutes", 5))
	e.choose(bob, post, "C")
	e.advance(6 * time.Minute)
	closed, _ := e.srv.Message(channelID, fmt.Sprint(post.MessageID))
	text := closed.Content + "\n" + embedsText(closed.Embeds)
	for _, want := range []string{"Answer: B", "Key: B · most members of the source site chose C (71%)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the reveal lacks %q:\n%s", want, text)
		}
	}
	e.checkWire()
}

// An Aiken export pasted in /quizadmin add previews and adds, its bank
// from the bank option.
func TestPasteAiken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	id, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add", str("bank", "Python Basics"))))
	m := e.submit(alice, "", id, aikenFile)
	text := m.Content + "\n" + embedsText(m.Embeds)
	for _, want := range []string{"Preview** of 3 questions", "**B.** def", "Pick **2** answers"} {
		if !strings.Contains(text, want) {
			t.Errorf("preview lacks %q:\n%s", want, text)
		}
	}
	add := buttons(m.Components)["Add"]
	if add == nil {
		t.Fatalf("no Add button on\n%s", text)
	}
	e.click(alice, m, add.CustomID)
	if got := e.bankQuestions("Python Basics"); got != 3 {
		t.Fatalf("after Add, the bank has %d questions, want 3", got)
	}
	e.checkWire()
}
