package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// The replies of /quiz ask, /quizadmin import, question remove and reset,
// pastes and the suggestion review, rendered from domain values without a
// server. The end-to-end tests check the same messages as sent.

// checkMessage compares m's privacy and content with the wanted ones.
func checkMessage(t *testing.T, m message, ephemeral bool, content string) {
	t.Helper()
	if m.ephemeral != ephemeral {
		t.Errorf("ephemeral: got %v, want %v", m.ephemeral, ephemeral)
	}
	if m.content != content {
		t.Errorf("content:\ngot  %q\nwant %q", m.content, content)
	}
}

func TestAskedMessage(t *testing.T) {
	t.Parallel()
	closes := time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		q    questions.Question
		want string
	}{
		{"a bank", questions.Question{Bank: "Cloud Basics", Number: 3},
			"Posted question 3 of **Cloud Basics**. It closes <t:1796031000:R>."},
		{"first question", questions.Question{Bank: "B", Number: 1},
			"Posted question 1 of **B**. It closes <t:1796031000:R>."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := askedMessage(&tt.q, questions.Post{ClosesAt: closes})
			checkMessage(t, m, true, tt.want)
			if len(m.embeds)+len(m.components) != 0 {
				t.Errorf("got %d embeds and %d components, want none", len(m.embeds), len(m.components))
			}
		})
	}
}

func TestQuestionRemovedMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		left int
		want string
	}{
		{"the bank's last", 0, "🗑️ Removed `q#7`. It was the last question of **Cloud**, so the bank is gone too. Scores earned on it stay."},
		{"one left", 1, "🗑️ Removed `q#7` from **Cloud** (1 question left). Scores earned on it stay."},
		{"several left", 12, "🗑️ Removed `q#7` from **Cloud** (12 questions left). Scores earned on it stay."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkMessage(t, questionRemovedMessage("q#7", "Cloud", tt.left), true, tt.want)
		})
	}
}

func TestResetMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		member questions.UserID
		prompt string
		done   string
	}{
		{"everyone", 0,
			"⚠️ This resets every member's scores, streaks and leaderboard places on this server, and which questions were asked. It can't be undone. Reset?",
			"✅ Reset done: every score, streak and leaderboard starts again from zero. Good luck this term!"},
		{"one member", 7002,
			"⚠️ This resets <@7002>'s scores, streaks and leaderboard places on this server. It can't be undone. Reset?",
			"✅ Reset done for <@7002>."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resetPrompt(tt.member); got != tt.prompt {
				t.Errorf("prompt:\ngot  %q\nwant %q", got, tt.prompt)
			}
			checkMessage(t, resetDoneMessage(tt.member), false, tt.done)
		})
	}
}

// TestConfirmMessage: every prompt is private, with the danger button and
// Cancel carrying the confirmation's ID through the one codec.
func TestConfirmMessage(t *testing.T) {
	t.Parallel()
	m := confirmMessage("Sure?", "Confirm", 42)
	checkMessage(t, m, true, "Sure?")
	if len(m.components) != 1 {
		t.Fatalf("got %d component rows, want 1", len(m.components))
	}
	row := m.components[0].(discordgo.ActionsRow).Components
	if len(row) != 2 {
		t.Fatalf("got %d buttons, want Confirm and Cancel", len(row))
	}
	tb := productionTable(t)
	for i, want := range []componentID{{kind: kindConfirm, action: "confirm", confirmation: 42}, {kind: kindConfirm, action: "cancel", confirmation: 42}} {
		btn := row[i].(discordgo.Button)
		got, err := tb.parseCustomID(btn.CustomID)
		if err != nil || got != want {
			t.Errorf("button %q: got %+v (%v), want %+v", btn.Label, got, err, want)
		}
	}
	if l0, l1 := row[0].(discordgo.Button), row[1].(discordgo.Button); l0.Label != "Confirm" || l0.Style != discordgo.DangerButton ||
		l1.Label != "Cancel" || l1.Style != discordgo.SecondaryButton {
		t.Errorf("buttons: got %q (style %d) and %q (style %d), want Confirm (danger) and Cancel (secondary)", l0.Label, l0.Style, l1.Label, l1.Style)
	}
}

func TestUndoPrompts(t *testing.T) {
	t.Parallel()
	const tail = " Answers already given keep counting on the leaderboards and in `/quiz stats`. You can undo this for 7 days with `/quizadmin bank undo`."
	q := &questions.Question{ID: "Cloud#3", Bank: "Cloud", Number: 3, Stem: "Which\n  port?"}
	tests := []struct {
		name, got, want string
	}{
		{"bank remove", bankRemovePrompt("Cloud", 12), "⚠️ This removes the bank **Cloud** and its 12 questions." + tail + " Remove it?"},
		{"bank remove, one question", bankRemovePrompt("Cloud", 1), "⚠️ This removes the bank **Cloud** and its 1 question." + tail + " Remove it?"},
		{"bank remove, unreadable", bankRemovePrompt("Cloud", -1),
			"⚠️ This removes the bank **Cloud** and all its questions (this quizhost can no longer read them)." + tail + " Remove it?"},
		{"question remove", questionRemovePrompt(q, "Cloud", 11),
			"⚠️ This removes question `Cloud#3` (Cloud · Question 3 · Which port?) from **Cloud**, leaving 11 questions." + tail + " Remove it?"},
		{"question remove, the last", questionRemovePrompt(q, "Cloud", 0),
			"⚠️ This removes question `Cloud#3` (Cloud · Question 3 · Which port?), the last of **Cloud**: the bank goes with it." + tail + " Remove it?"},
		{"import replace", importReplacePrompt([]bankResult{
			{name: "Cloud", replaced: true, total: 15}, {name: "Net", isNew: true, total: 3}}, map[string]int{"Cloud": 12}),
			"⚠️ This import replaces whole banks:\n• **Cloud**: its 12 questions are replaced by the 15 questions of the import\n" +
				"• **Net** (a new bank): 3 questions after the import\n" + tail[1:] + " Replace?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got  %q\nwant %q", tt.got, tt.want)
			}
		})
	}
}

func TestUndoneMessage(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	now := at.Add(time.Hour)
	v := questions.BankVersion{File: questions.BankFile{Name: "Cloud"}, Change: questions.ChangeRemoved, By: 7001, At: at}
	older := &questions.BankVersion{File: questions.BankFile{Name: "Cloud"}, Change: questions.ChangeQuestionRemoved, At: at.Add(-time.Hour)}
	const restored = "↩️ Restored **Cloud** as it was before it was removed <t:1796029200:f> (by <@7001>): 12 questions. Answers to its questions count as before."
	checkMessage(t, undoneMessage(v, 12, false, nil, now), true, restored)
	checkMessage(t, undoneMessage(v, 12, false, older, now), true, restored+
		"\nAn earlier version is kept too, from before a question was removed from it <t:1796025600:f>: undo again to go back further.")
	checkMessage(t, undoneMessage(v, 12, true, older, now), true, restored+
		"\nThe bank had changed since; as it was just now, it is kept: `/quizadmin bank undo name:Cloud` again puts it back (until <t:1796637600:f>).")
}

func TestImportMessages(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 120) + ".txt"
	subjects := []struct {
		name  string
		files []string
		want  string
	}{
		{"one file", []string{"cloud.yaml"}, "cloud.yaml"},
		{"a long name", []string{long}, strings.Repeat("n", 99) + "…"},
		{"several files", []string{"a.txt", "b.gift", "c.json"}, "The 3 files"},
	}
	for _, tt := range subjects {
		t.Run(tt.name, func(t *testing.T) {
			if got := importSubject(tt.files); got != tt.want {
				t.Errorf("importSubject(%q): got %q, want %q", tt.files, got, tt.want)
			}
		})
	}

	results := []bankResult{
		{name: "Cloud", isNew: true, count: questions.MergeCount{Added: 2}, total: 2},
		{name: "Nets", count: questions.MergeCount{Added: 1, Updated: 2, Unchanged: 4}, total: 7},
	}
	content := "📚 Imported **Cloud** (new bank): added 2, updated 0, unchanged 0 · 2 questions in the bank now\n" +
		"📚 Imported **Nets**: added 1, updated 2, unchanged 4 · 7 questions in the bank now"
	tests := []struct {
		name     string
		warnings questions.Problems
		want     string // the Warnings embed's description; "" for no embed
	}{
		{"no warnings", nil, ""},
		{"warnings with their file and line", questions.Problems{
			{Path: "cloud.gift", Line: 4, Msg: "essay question skipped", Warning: true},
			{Path: "nets.txt", Msg: "no explanation", Warning: true},
		}, "• cloud.gift:4: warning: essay question skipped\n• nets.txt: warning: no explanation\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := importedMessage(results, tt.warnings)
			checkMessage(t, m, true, content)
			switch {
			case tt.want == "" && len(m.embeds) != 0:
				t.Errorf("got %d embeds, want none", len(m.embeds))
			case tt.want != "" && (len(m.embeds) != 1 || m.embeds[0].Title != "Warnings" || m.embeds[0].Description != tt.want):
				t.Errorf("embeds: got %+v, want one titled Warnings reading %q", m.embeds, tt.want)
			}
		})
	}
}

func TestPasteOutcomeMessages(t *testing.T) {
	t.Parallel()
	results := []bankResult{{name: "Pasted", count: questions.MergeCount{Added: 1, Unchanged: 3}, total: 4}}
	checkMessage(t, pasteAddedMessage(results), false,
		"📚 Added to **Pasted**: added 1, updated 0, unchanged 3 · 4 questions in the bank now")
	checkMessage(t, draftCancelledMessage(), false, "Cancelled. Nothing was added.")
}

func TestReviewOutcomeTexts(t *testing.T) {
	t.Parallel()
	d := questions.Draft{ID: 5, UserID: 7002}
	t.Run("rejected", func(t *testing.T) {
		note, dm := rejectedTexts(d, "**Cloud**", "Study Group")
		if want := "🗑️ Rejected <@7002>'s suggestion for **Cloud**."; note != want {
			t.Errorf("note: got %q, want %q", note, want)
		}
		if want := "Your suggestion for **Cloud** on **Study Group** was not added this time. Thank you for contributing!"; dm != want {
			t.Errorf("direct message: got %q, want %q", dm, want)
		}
	})
	tests := []struct {
		name    string
		results []bankResult
		note    string
		dm      string
	}{
		{"approved, added", []bankResult{{name: "Cloud", count: questions.MergeCount{Added: 2}, total: 9}},
			"✅ Approved <@7002>'s suggestion.\n📚 Added to **Cloud**: added 2, updated 0, unchanged 0 · 9 questions in the bank now",
			"✅ Your suggestion for **Cloud** on **Study Group** was approved: 2 questions added. Thank you!"},
		{"approved, one added and one updated", []bankResult{{name: "Cloud", isNew: true, count: questions.MergeCount{Added: 1, Updated: 1}, total: 2}},
			"✅ Approved <@7002>'s suggestion.\n📚 Added to **Cloud** (new bank): added 1, updated 1, unchanged 0 · 2 questions in the bank now",
			"✅ Your suggestion for **Cloud** on **Study Group** was approved: 1 question added, 1 updated. Thank you!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			note, dm := approvedTexts(d, "**Cloud**", "Study Group", tt.results)
			if note != tt.note {
				t.Errorf("note:\ngot  %q\nwant %q", note, tt.note)
			}
			if dm != tt.dm {
				t.Errorf("direct message:\ngot  %q\nwant %q", dm, tt.dm)
			}
		})
	}
	for _, tt := range []struct{ note, want string }{
		{"", "📭 No suggestions are waiting."},
		{"🗑️ Rejected <@7002>'s suggestion for **Cloud**.", "🗑️ Rejected <@7002>'s suggestion for **Cloud**.\n📭 No suggestions are waiting."},
	} {
		m := noSuggestionsMessage(tt.note)
		checkMessage(t, m, false, tt.want)
		if len(m.components) != 0 {
			t.Errorf("empty queue after %q: got %d component rows, want none", tt.note, len(m.components))
		}
	}
}

func TestStudyReplies(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	next := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		m    message
		want string
	}{
		{"exam date, every bank, with a forecast",
			examSetMessage(questions.ExamDate{Date: "2026-12-20"}, berlin, 72),
			"📅 Your exam date is set: **Sunday 20 December 2026**, on every bank this server draws from. `/quiz stats` now shows how ready you are for it, and your reviews now end on exam day: none of its questions comes back after it.\nToday's forecast: **72%** of the questions recalled on the exam date."},
		{"exam date of a bank, no forecast yet",
			examSetMessage(questions.ExamDate{Date: "2026-12-20", Bank: "Cloud"}, berlin, -1),
			"📅 Your exam date is set: **Sunday 20 December 2026**, on **Cloud**. `/quiz stats` now shows how ready you are for it, and your reviews now end on exam day: none of its questions comes back after it."},
		{"review stopped with questions due",
			reviewStoppedMessage(questions.ReviewQueue{Due: []questions.Memory{{}, {}}}),
			"⏸️ Review stopped. 2 questions are still due: `/quiz review` picks up where you left off."},
		{"review stopped with one due",
			reviewStoppedMessage(questions.ReviewQueue{Due: []questions.Memory{{}}}),
			"⏸️ Review stopped. 1 question is still due: `/quiz review` picks up where you left off."},
		{"review stopped, the next one later",
			reviewStoppedMessage(questions.ReviewQueue{Next: next}),
			"⏸️ Review stopped. Your next review is due <t:1796198400:R>."},
		{"review stopped, nothing ever due", reviewStoppedMessage(questions.ReviewQueue{}), "⏸️ Review stopped."},
		{"review stopped in the final pass",
			reviewStoppedMessage(questions.ReviewQueue{Final: []questions.Memory{{}, {}, {}}, Next: next}),
			"⏸️ Review stopped. 3 questions are left in your final pass before the exam: `/quiz review` picks up where you left off."},
		{"drill stopped early",
			drillStoppedMessage(questions.Drill{Topic: "net", Questions: make([]string, 10), Shown: 4}, 4, 3),
			"⏸️ Drill of **net** stopped: 3 of 4 right. 6 questions were not shown. `/quiz drill` plans a new drill."},
		{"drill of every bank stopped at its last question",
			drillStoppedMessage(questions.Drill{Questions: make([]string, 2), Shown: 2}, 1, 0),
			"⏸️ Drill of every bank stopped: 0 of 1 right."},
		{"report thanks", reportThanksMessage(),
			"📨 Thanks: the admins will see your report in `/quizadmin reports`. If the key was wrong, they can fix the bank and re-grade everyone's answers."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkMessage(t, tt.m, true, tt.want) })
	}
	texts := []struct{ name, got, want string }{
		{"drill plan of the weakest topic",
			drillPlanText(questions.Drill{Topic: "net", Questions: []string{"m", "n1", "n2", "k"}},
				map[string]questions.Memory{"m": {State: questions.StateLearning, History: []questions.Attempt{{}}},
					"k": {State: questions.StateReview, History: []questions.Attempt{{Right: true}}}},
				"your weakest topic: you would likely get 34% of its questions right now"),
			"🎯 **Drill** of **net** (your weakest topic: you would likely get 34% of its questions right now): 4 questions, 1 you missed last time, 2 new to you, 1 you know, in that order."},
		{"drill done", drillDoneText(questions.Drill{Topic: "sec"}, 5, 4),
			"🏁 Drill of **sec** done: **4 of 5 right** the first time. The ones you missed come back in `/quiz review` within minutes; `/quiz drill` plans a new drill."},
		{"pace with unseen questions", paceText(questions.Pace{Answers: 58, Unseen: 20, Days: 5, PerDay: 12}),
			"**On track: 12 answers a day** until the exam: 58 answers over 5 days, each question reviewed whenever it comes due (`/quiz review`), after a first answer to the 20 questions you have not seen yet (`/quiz drill`)."},
		{"pace, all seen", paceText(questions.Pace{Answers: 1, Days: 1, PerDay: 1}),
			"**On track: 1 answer a day** until the exam: 1 answer over 1 day, each question reviewed whenever it comes due (`/quiz review`)."},
		{"pace, nothing left", paceText(questions.Pace{Days: 3}), "**On track:** nothing more is due before the exam."},
	}
	for _, tt := range texts {
		if tt.got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestChartTitle(t *testing.T) {
	t.Parallel()
	command := func(users map[string]*discordgo.User) *call {
		return &call{user: 7001, i: &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand,
			Data: discordgo.ApplicationCommandInteractionData{Name: "quiz",
				Resolved: &discordgo.ApplicationCommandInteractionDataResolved{Users: users}}}}
	}
	tests := []struct {
		name string
		c    *call
		who  questions.UserID
		want string
	}{
		{"one's own", command(nil), 7001, "Your study"},
		{"another member, by display name", command(map[string]*discordgo.User{"7002": {ID: "7002", Username: "bob", GlobalName: "Bob B."}}), 7002, "Bob B.'s study"},
		{"another member, by user name", command(map[string]*discordgo.User{"7002": {ID: "7002", Username: "bob"}}), 7002, "bob's study"},
		{"another member, not resolved", command(nil), 7002, "A member's study"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chartTitle(tt.c, tt.who); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
