package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

func channelOpt(id string) discordtest.Option {
	return discordtest.Option{Name: "channel", Type: discordgo.ApplicationCommandOptionChannel, Value: id}
}

// dailyPosts lists the daily questions posted in a channel.
func (e *env) dailyPosts(channel string) []discordtest.Message {
	var out []discordtest.Message
	for _, m := range e.srv.Messages(channel) {
		if strings.Contains(m.Content, "Daily question") || strings.HasPrefix(m.Content, "📅 **Closed**") {
			out = append(out, m)
		}
	}
	return out
}

// wantDailyPosts checks that a channel holds n daily posts. Call it once
// the scheduler is asleep (after start, advance, setClock or settled):
// then every post it was going to make is made, and a duplicate would be
// there already.
func (e *env) wantDailyPosts(channel string, n int) []discordtest.Message {
	e.t.Helper()
	got := e.dailyPosts(channel)
	if len(got) != n {
		e.t.Fatalf("%d daily posts in channel %s, want %d", len(got), channel, n)
	}
	return got
}

// dailySet runs /quizadmin daily set and, when it was accepted (which
// wakes the scheduler), waits for the scheduler to act on it.
func (e *env) dailySet(by discordtest.Member, opts ...discordtest.Option) string {
	e.t.Helper()
	armed := e.clk.Armed()
	got := e.replyText(e.srv.SlashCommand(guildID, channelID, by, "quizadmin", group("daily", sub("set", opts...))))
	if strings.Contains(got, "Daily quiz on") {
		e.waitScheduler(armed)
	}
	return got
}

func TestDailySchedule(t *testing.T) {
	t.Parallel()
	berlin, _ := time.LoadLocation("Europe/Berlin")
	// 07:00 in Berlin on Monday 30 November 2026.
	e := newEnv(t, time.Date(2026, 11, 30, 7, 0, 0, 0, berlin))
	e.start()

	// Refusals: no permission, a bad time, a bad zone. Nothing is stored.
	for _, tc := range []struct {
		name string
		by   discordtest.Member
		opts []discordtest.Option
		want string
	}{
		{"member", bob, []discordtest.Option{channelOpt(otherChan), str("time", "08:00"), str("timezone", "Europe/Berlin")}, "Manage Server"},
		{"bad time", alice, []discordtest.Option{channelOpt(otherChan), str("time", "25:00"), str("timezone", "Europe/Berlin")}, `"25:00" is not a time of day`},
		{"bad zone", alice, []discordtest.Option{channelOpt(otherChan), str("time", "08:00"), str("timezone", "Mars/Olympus")}, `"Mars/Olympus" is not an IANA time zone`},
		{"bad bank", alice, []discordtest.Option{channelOpt(otherChan), str("time", "08:00"), str("timezone", "UTC"), str("bank", "Nope")}, "no bank named"},
	} {
		if got := e.dailySet(tc.by, tc.opts...); !strings.Contains(got, tc.want) {
			t.Errorf("%s: reply %q, want %q", tc.name, got, tc.want)
		}
	}
	if s, _ := e.db.Settings(8001); s.Daily != nil {
		t.Fatalf("a refused daily set stored %+v", s.Daily)
	}

	got := e.dailySet(alice, channelOpt(otherChan), str("time", "08:00"), str("timezone", "Europe/Berlin"),
		str("bank", "test bank"), integer("count", 2))
	if !strings.Contains(got, "Daily quiz on") || !strings.Contains(got, "08:00") || !strings.Contains(got, "<t:") {
		t.Errorf("daily set reply %q", got)
	}
	status := e.replyText(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("daily", sub("status"))))
	next := time.Date(2026, 11, 30, 8, 0, 0, 0, berlin)
	for _, want := range []string{"<#6002>", "08:00", "Europe/Berlin", "Test Bank", fmt.Sprintf("<t:%d:R>", next.Unix()), "Mon 30 Nov 2026 08:00 CET"} {
		if !strings.Contains(status, want) {
			t.Errorf("daily status lacks %q:\n%s", want, status)
		}
	}
	tz := e.srv.Autocomplete(guildID, channelID, alice, "quizadmin", group("daily", sub("set", str("timezone", "berl"))))
	if ch := tz.WaitResponse(t, wait).Choices; len(ch) == 0 || ch[0].Value != "Europe/Berlin" {
		t.Errorf("time zone autocomplete %v, want Europe/Berlin first", ch)
	}

	// Nothing before the time; two questions at 08:00 local.
	e.advance(59 * time.Minute)
	e.wantDailyPosts(otherChan, 0)
	e.advance(time.Minute)
	day1 := e.wantDailyPosts(otherChan, 2)

	// Bob answers a daily question: day 1 of his streak.
	posts, _ := e.db.OpenPostsIn(8001, 6002)
	if len(posts) != 2 || !posts[0].Daily || !posts[0].ClosesAt.IsZero() {
		t.Fatalf("open daily posts %+v, want 2 daily posts with no close time", posts)
	}
	p := e.srv.Component(guildID, otherChan, bob, fmt.Sprint(posts[0].MessageID), fmt.Sprintf("a1:%d", posts[0].ID), posts[0].Correct...)
	if c, _, _ := e.reply(p); !strings.Contains(c, "Right!") {
		t.Errorf("daily answer reply %q", c)
	}

	// Restart after the post time, same day: no duplicate.
	e.stop()
	e.clk.Advance(2 * time.Hour)
	e.start()
	e.wantDailyPosts(otherChan, 2)

	// Down across the next day's time: posted once at start, and the
	// previous day's questions close with their reveal.
	e.stop()
	e.clk.Set(time.Date(2026, 12, 1, 9, 30, 0, 0, berlin))
	e.start()
	e.wantDailyPosts(otherChan, 4)
	for _, m := range day1 {
		m, _ := e.srv.Message(otherChan, m.ID)
		if !strings.Contains(m.Content, "Closed") {
			t.Errorf("day 1 question %s not closed by day 2's post: %q", m.ID, m.Content)
		}
	}
	// Day 2's first question shows the active streaks.
	day2 := e.dailyPosts(otherChan)[2]
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool {
		return m.ID == day2.ID && strings.Contains(embedsText(m.Embeds), "Active study streaks") && strings.Contains(embedsText(m.Embeds), "<@7002> · 🔥 1 day")
	})
	e.stop()
	e.start()
	e.wantDailyPosts(otherChan, 4)

	// Down the whole of day 3's post time until the next day: day 3 is
	// missed (not posted late on day 4), day 4 posts at its time.
	e.stop()
	e.clk.Set(time.Date(2026, 12, 3, 7, 30, 0, 0, berlin).AddDate(0, 0, 0).Add(24 * time.Hour))
	e.start()
	e.wantDailyPosts(otherChan, 4)
	e.advance(30 * time.Minute)
	e.wantDailyPosts(otherChan, 6)

	// Off stops it.
	off := e.replyText(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("daily", sub("off"))))
	if !strings.Contains(off, "Daily quiz off") {
		t.Errorf("daily off reply %q", off)
	}
	e.advance(24 * time.Hour)
	e.wantDailyPosts(otherChan, 6)
	e.checkWire()
}

func TestDailyAcrossDaylightSaving(t *testing.T) {
	t.Parallel()
	ny, _ := time.LoadLocation("America/New_York")
	// Saturday 31 October 2026, 07:00 EDT; clocks go back on Sunday at 02:00.
	e := newEnv(t, time.Date(2026, 10, 31, 7, 0, 0, 0, ny))
	e.start()
	e.dailySet(alice, channelOpt(otherChan), str("time", "08:00"), str("timezone", "America/New_York"))
	e.advance(time.Hour) // 08:00 EDT = 12:00 UTC
	e.wantDailyPosts(otherChan, 1)
	if now := e.clk.Now().UTC(); now.Hour() != 12 {
		t.Fatalf("clock at %v", now)
	}
	// Sunday 08:00 EST is 13:00 UTC: nothing at 12:00 UTC, one post at 13:00.
	e.advance(24 * time.Hour)
	e.wantDailyPosts(otherChan, 1)
	e.advance(time.Hour)
	posts := e.wantDailyPosts(otherChan, 2)
	if at := posts[1].CreatedAt; at.IsZero() {
		t.Error("no creation time on the post")
	}
	if got := e.clk.Now().In(ny).Format("15:04 MST"); got != "08:00 EST" {
		t.Errorf("second daily post at %s, want 08:00 EST", got)
	}
	// Daily questions can close after a set number of hours instead.
	e.settled(func() {
		if got := e.admin(alice, sub("settings", integer("daily_close_hours", 2))); !strings.Contains(got, "Settings saved") {
			t.Errorf("settings reply %q", got)
		}
	})
	e.advance(24 * time.Hour)
	third := e.wantDailyPosts(otherChan, 3)[2]
	e.advance(2 * time.Hour)
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool { return m.ID == third.ID && strings.Contains(m.Content, "Closed") })
	status := e.replyText(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("daily", sub("status"))))
	if !strings.Contains(status, "after 2 hours") {
		t.Errorf("daily status lacks the close rule:\n%s", status)
	}
	e.checkWire()
}

const importBank = `Cloud Networking Question 1
Select 1Which protocol resolves host names?
- A
DNS
- B
ARP
Show answer and explanation
Correct answer: A
Explanation
DNS maps names to addresses.
Cloud Networking Question 2
Select 1Which layer does a CDN cache at?
- A
The edge
- B
The origin only
Show answer and explanation
Correct answer: A
`

const importYAML = `bank: Data Basics
questions:
  - question: Which format is columnar?
    options:
      - text: Parquet
        correct: true
        why: Parquet stores columns together.
      - text: CSV
        why: CSV stores rows.
    tags: [formats]
`

func attachment(name string, data string) discordtest.Option {
	return discordtest.Option{Name: "file", Type: discordgo.ApplicationCommandOptionAttachment,
		Value: discordtest.Attachment{Filename: name, Data: []byte(data)}}
}

func (e *env) admin(by discordtest.Member, opts ...discordtest.Option) string {
	e.t.Helper()
	return e.replyText(e.srv.SlashCommand(guildID, channelID, by, "quizadmin", opts...))
}

func TestImportExportRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()

	if got := e.admin(bob, sub("import", attachment("net.txt", importBank))); !strings.Contains(got, "Manage Server") {
		t.Errorf("member import reply %q, want a refusal", got)
	}
	if got := e.admin(alice, sub("import", attachment("net.txt", importBank))); !strings.Contains(got, "**Cloud Networking** (new bank): added 2, updated 0, unchanged 0 · 2 questions") {
		t.Errorf("import reply %q", got)
	}
	if got := e.admin(alice, sub("import", attachment("data.yaml", importYAML))); !strings.Contains(got, "**Data Basics** (new bank): added 1, updated 0, unchanged 0 · 1 question") {
		t.Errorf("YAML import reply %q", got)
	}
	// A broken file: every problem with its line, and nothing stored.
	broken := strings.Replace(importBank, "Correct answer: A\nExplanation", "Correct answer: C\nExplanation", 1)
	broken = strings.Replace(broken, "- B\nThe origin only\n", "- B\n", 1)
	got := e.admin(alice, sub("import", attachment("net.txt", broken)))
	for _, want := range []string{"was not imported", "net.txt:8: answer letter C is not an option", "net.txt:15: option B has no text", "Nothing was stored"} {
		if !strings.Contains(got, want) {
			t.Errorf("broken import reply lacks %q:\n%s", want, got)
		}
	}
	files, _ := e.db.Banks(8001)
	if len(files) != 2 || files[0].Name != "Cloud Networking" || files[0].Format != questions.FormatYAML {
		t.Fatalf("stored banks after a broken import: %+v", files)
	}
	stored := files[0].Data
	if got := e.admin(alice, sub("import", attachment("notes.pdf", "x"))); !strings.Contains(got, "not a bank file") {
		t.Errorf("pdf import reply %q", got)
	}
	big := discordtest.Option{Name: "file", Type: discordgo.ApplicationCommandOptionAttachment,
		Value: discordtest.Attachment{Filename: "big.txt", Data: []byte("x"), Size: 2 << 20}}
	if got := e.admin(alice, sub("import", big)); !strings.Contains(got, "at most 1 MiB") {
		t.Errorf("oversized import reply %q", got)
	}
	// The built-in bank's name: the same rule, and words, as start-up and
	// "quizhost validate"; a bank from QUIZHOST_QUESTIONS can't be changed
	// here either.
	if got := e.admin(alice, sub("import", attachment("s.txt", strings.ReplaceAll(importBank, "Cloud Networking", "quizhost sample")))); !strings.Contains(got, `bank "quizhost sample" is the built-in bank's name; give your bank another name`) {
		t.Errorf("import over the built-in bank: %q", got)
	}
	if got := e.admin(alice, sub("import", attachment("t.txt", strings.ReplaceAll(importBank, "Cloud Networking", "Test Bank")))); !strings.Contains(got, "comes with this quizhost and can't be changed") {
		t.Errorf("import over a bank of QUIZHOST_QUESTIONS: %q", got)
	}

	// The imported bank is usable at once.
	banks := e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks")))
	if !strings.Contains(banks, "**Cloud Networking** · 2 questions · 2 not yet asked · imported") {
		t.Errorf("banks after import:\n%s", banks)
	}
	post, msg := e.ask(bob, str("bank", "cloud networking"))
	if !strings.HasPrefix(post.QuestionID, "Cloud Networking#") || !strings.Contains(msg.Embeds[0].Title, "Cloud Networking") {
		t.Errorf("asked %q from the imported bank", post.QuestionID)
	}
	if got := e.choose(carol, post, post.Correct...); !strings.Contains(got, "Right!") {
		t.Errorf("answer on imported question: %q", got)
	}

	// Export sends back the bank as it is, which parses to the same bank.
	p := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("bank", sub("export", str("name", "cloud networking"))))
	r := p.WaitResponse(t, wait)
	if len(r.Files) != 1 || string(r.Files[0].Data) != string(stored) || !strings.HasSuffix(r.Files[0].Name, ".yaml") {
		t.Fatalf("export sent %d files (%+v), want the stored bank as YAML", len(r.Files), r.Files)
	}
	again, err := questions.Parse(r.Files[0].Name, r.Files[0].Data)
	if err != nil || len(again) != 1 || again[0].Name != "Cloud Networking" || len(again[0].Questions) != 2 || again[0].Questions[0].ID != post.QuestionID && again[0].Questions[1].ID != post.QuestionID {
		t.Errorf("exported file parses to %+v, %v", again, err)
	}

	// Importing again updates what changed and keeps the history of
	// unchanged questions.
	changed := strings.Replace(importBank, "Which layer does a CDN cache at?", "Where does a CDN cache content?", 1)
	if got := e.admin(alice, sub("import", attachment("net.txt", changed))); !strings.Contains(got, "**Cloud Networking**: added 0, updated 1, unchanged 1 · 2 questions") {
		t.Errorf("re-import reply %q", got)
	}
	if st, _ := e.db.MemberStats(8001, 7003, e.clk.Now()); st.All.Correct != 1 {
		t.Errorf("carol's score after a re-import: %+v", st.All)
	}

	// Remove.
	if got := e.admin(alice, group("bank", sub("remove", str("name", "quizhost Sample")))); !strings.Contains(got, "not an imported bank") {
		t.Errorf("removing the built-in bank: %q", got)
	}
	if got := e.confirmed(alice, group("bank", sub("remove", str("name", "Cloud Networking")))); !strings.Contains(got, "Removed **Cloud Networking**") {
		t.Errorf("remove reply %q", got)
	}
	if files, _ := e.db.Banks(8001); len(files) != 1 || files[0].Name != "Data Basics" {
		t.Errorf("banks after remove: %+v", files)
	}
	// Imported banks survive a restart.
	e.stop()
	e.start()
	banks = e.replyText(e.srv.SlashCommand(guildID, channelID, bob, "quiz", sub("banks")))
	if !strings.Contains(banks, "**Data Basics** · 1 question") || strings.Contains(banks, "Cloud Networking") {
		t.Errorf("banks after restart:\n%s", banks)
	}
	e.checkWire()
}

func TestSettingsAndReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	if got := e.admin(bob, sub("settings", discordtest.Option{Name: "reveal_on_answer", Type: discordgo.ApplicationCommandOptionBoolean, Value: false})); !strings.Contains(got, "Manage Server") {
		t.Errorf("member settings reply %q", got)
	}
	got := e.admin(alice, sub("settings",
		discordtest.Option{Name: "reveal_on_answer", Type: discordgo.ApplicationCommandOptionBoolean, Value: false},
		integer("ask_minutes", 20), str("banks", "test bank")))
	for _, want := range []string{"Settings saved", "only when the question closes", "20 minutes", "Test Bank"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings reply lacks %q:\n%s", want, got)
		}
	}
	if got := e.admin(alice, sub("settings", str("banks", "Nope"))); !strings.Contains(got, "no bank named") {
		t.Errorf("settings with an unknown bank: %q", got)
	}
	post, _ := e.ask(alice) // from Test Bank only, open 20 minutes
	if !strings.HasPrefix(post.QuestionID, "Test Bank#") || post.ClosesAt.Sub(post.OpenedAt) != 20*time.Minute {
		t.Errorf("post %q open %v, want Test Bank for 20 minutes", post.QuestionID, post.ClosesAt.Sub(post.OpenedAt))
	}
	reply := e.choose(bob, post, post.Correct...)
	if strings.Contains(reply, "Answer:") || !strings.Contains(reply, "show when the question closes") {
		t.Errorf("answer reply with reveal off:\n%s", reply)
	}
	e.choose(carol, post, post.Correct...)

	// Reset one member, after confirmation by the admin who asked.
	p := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("reset", str("scope", "member"),
		discordtest.Option{Name: "member", Type: discordgo.ApplicationCommandOptionUser, Value: bob.ID}))
	r := p.WaitResponse(t, wait)
	if r.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Content, "<@7002>") || len(r.Components) != 1 {
		t.Fatalf("reset reply %+v", r)
	}
	confirm := r.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button).CustomID
	orig, _ := p.Original()
	if c, _, _ := e.reply(e.srv.Component(guildID, channelID, carol, orig.ID, confirm)); !strings.Contains(c, "Manage Server") {
		t.Errorf("a member confirming: %q", c)
	}
	dora := discordtest.Member{ID: "7004", Username: "dora", Permissions: discordtest.AdminPermissions}
	if c, _, _ := e.reply(e.srv.Component(guildID, channelID, dora, orig.ID, confirm)); !strings.Contains(c, "Only the admin who asked") {
		t.Errorf("another admin confirming: %q", c)
	}
	if st, _ := e.db.MemberStats(8001, 7002, e.clk.Now()); st.All.Answered != 1 {
		t.Fatal("reset happened before confirmation")
	}
	if c, _, _ := e.reply(e.srv.Component(guildID, channelID, alice, orig.ID, confirm)); !strings.Contains(c, "Reset done for <@7002>") {
		t.Errorf("confirm reply %q", c)
	}
	if st, _ := e.db.MemberStats(8001, 7002, e.clk.Now()); st.All.Answered != 0 {
		t.Errorf("bob after reset: %+v", st.All)
	}
	if st, _ := e.db.MemberStats(8001, 7003, e.clk.Now()); st.All.Answered != 1 {
		t.Errorf("carol after bob's reset: %+v", st.All)
	}
	// Reset everyone; cancel first.
	p = e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("reset", str("scope", "all")))
	r = p.WaitResponse(t, wait)
	orig, _ = p.Original()
	cancel := r.Components[0].(*discordgo.ActionsRow).Components[1].(*discordgo.Button).CustomID
	if c, _, _ := e.reply(e.srv.Component(guildID, channelID, alice, orig.ID, cancel)); !strings.Contains(c, "Cancelled") {
		t.Errorf("cancel reply %q", c)
	}
	// Cancelled prompts lose their buttons, and their Reset is spent; a
	// new prompt, confirmed.
	if m, ok := e.srv.Message(channelID, orig.ID); !ok || len(m.Components) != 0 || !strings.Contains(m.Content, "Cancelled") {
		t.Errorf("cancelled prompt (found %v): %q with %d component rows, want no buttons", ok, m.Content, len(m.Components))
	}
	if c, _, _ := e.reply(e.srv.Component(guildID, channelID, alice, orig.ID, r.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button).CustomID)); !strings.Contains(c, "already answered") {
		t.Errorf("Reset of a cancelled prompt: %q", c)
	}
	if lb, _ := e.db.Leaderboard(8001, questions.PeriodAll, questions.ByPoints, e.clk.Now(), 0, 10); lb.Total == 0 {
		t.Fatal("a cancelled prompt reset the server")
	}
	p = e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("reset", str("scope", "all")))
	r = p.WaitResponse(t, wait)
	orig, _ = p.Original()
	confirm = r.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.Button).CustomID
	if c, _, _ := e.reply(e.srv.Component(guildID, channelID, alice, orig.ID, confirm)); !strings.Contains(c, "Reset done") {
		t.Errorf("confirm reply %q", c)
	}
	lb, err := e.db.Leaderboard(8001, questions.PeriodAll, questions.ByPoints, e.clk.Now(), 0, 10)
	if err != nil || lb.Total != 0 {
		t.Errorf("leaderboard after reset all: %+v, %v", lb, err)
	}
	e.checkWire()
}

func TestTimeZoneChangeNeverPostsTwice(t *testing.T) {
	t.Parallel()
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	la, _ := time.LoadLocation("America/Los_Angeles")
	e := newEnv(t, time.Date(2026, 6, 11, 7, 0, 0, 0, tokyo))
	e.start()
	e.dailySet(alice, channelOpt(otherChan), str("time", "08:00"), str("timezone", "Asia/Tokyo"))
	e.advance(time.Hour)
	e.wantDailyPosts(otherChan, 1)
	// An hour later the server moves to Los Angeles, where it is still
	// 10 June, 17:00: past 08:00, but the 10th must not get a post now.
	e.advance(time.Hour)
	e.settled(func() {
		if got := e.admin(alice, sub("settings", str("timezone", "America/Los_Angeles"))); !strings.Contains(got, "Time zone: America/Los_Angeles") {
			t.Errorf("settings reply %q", got)
		}
	})
	e.advance(time.Minute)
	e.wantDailyPosts(otherChan, 1)
	status := e.replyText(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("daily", sub("status"))))
	if want := "Thu 11 Jun 2026 08:00 PDT"; !strings.Contains(status, want) {
		t.Errorf("daily status lacks %q:\n%s", want, status)
	}
	e.setClock(time.Date(2026, 6, 11, 7, 59, 0, 0, la))
	e.wantDailyPosts(otherChan, 1)
	e.advance(time.Minute)
	e.wantDailyPosts(otherChan, 2)
	e.checkWire()
}

func TestRevealRetriedAfterAFailedEdit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	post, _ := e.ask(alice, integer("minutes", 5))
	e.srv.FailNext("PATCH", fmt.Sprintf("/channels/%s/messages/%d", channelID, post.MessageID), 500, `{"message":"Internal Server Error","code":0}`)
	e.advance(6 * time.Minute)
	e.srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PATCH" && r.Injected }, wait)
	p, _ := e.db.Post(post.ID)
	if !p.Closed || p.Revealed {
		t.Fatalf("after a failed edit: closed %v revealed %v, want closed and not revealed", p.Closed, p.Revealed)
	}
	// Down and up again: the retry survives a restart.
	e.stop()
	e.start()
	e.srv.WaitMessage(t, wait, func(m discordtest.Message) bool {
		return m.ID == fmt.Sprint(post.MessageID) && strings.Contains(m.Content, "Closed")
	})
	if p = e.revealed(post.ID); !p.Revealed {
		t.Error("post not marked revealed after the retry")
	}
	e.checkWireExcept(1)
}

func TestImportRefusesAnotherBanksQuestionID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	clash := "bank: Mine\nquestions:\n  - id: \"Test Bank#1\"\n    question: Pick one\n    options:\n      - {text: yes, correct: true}\n      - {text: no}\n"
	got := e.admin(alice, sub("import", attachment("mine.yaml", clash)))
	if !strings.Contains(got, `mine.yaml:3: question id "Test Bank#1" is already used by bank "Test Bank"`) || !strings.Contains(got, "Nothing was stored") {
		t.Errorf("import with a clashing id: %q", got)
	}
	if files, _ := e.db.Banks(8001); len(files) != 0 {
		t.Errorf("%d banks stored", len(files))
	}
	// Imported under another name, the bank exports as a file that names it so.
	got = e.admin(alice, sub("import", attachment("net.txt", importBank), str("bank", "Networking Drill")))
	if !strings.Contains(got, "**Networking Drill** (new bank): added 2") {
		t.Fatalf("renamed import reply %q", got)
	}
	r := e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("bank", sub("export", str("name", "networking drill")))).WaitResponse(t, wait)
	if len(r.Files) != 1 {
		t.Fatalf("export sent %d files", len(r.Files))
	}
	again, err := questions.Parse(r.Files[0].Name, r.Files[0].Data)
	if err != nil || len(again) != 1 || again[0].Name != "Networking Drill" || again[0].Questions[0].ID != "Networking Drill#1" ||
		again[0].Questions[0].Explanation != "DNS maps names to addresses." {
		t.Errorf("export of a renamed bank (%s) parses to %+v, %v", r.Files[0].Name, again, err)
	}
	e.checkWire()
}

func TestDailyLateAcrossMidnight(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC))
	e.start()
	e.dailySet(alice, channelOpt(otherChan), str("time", "23:55"), str("timezone", "UTC"))
	// Down over the post time, back six minutes after midnight (within
	// ten): still posted, as the 30th's.
	e.stop()
	e.clk.Set(time.Date(2026, 12, 1, 0, 6, 0, 0, time.UTC))
	e.start()
	e.wantDailyPosts(otherChan, 1)
	if s, _ := e.db.Settings(8001); s.Daily.LastPosted != "2026-11-30" || !s.Daily.Next.Equal(time.Date(2026, 12, 1, 23, 55, 0, 0, time.UTC)) {
		t.Errorf("after a late post: last %q next %v, want 2026-11-30 and 1 Dec 23:55", s.Daily.LastPosted, s.Daily.Next)
	}
	// The 1st still gets its own post.
	e.advance(24 * time.Hour)
	e.wantDailyPosts(otherChan, 2)
	e.checkWire()
}

func TestDailyOffAndOnPostsOncePerDay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC))
	e.start()
	e.dailySet(alice, channelOpt(otherChan), str("time", "08:00"), str("timezone", "UTC"))
	e.advance(time.Hour)
	e.wantDailyPosts(otherChan, 1)
	e.admin(alice, group("daily", sub("off")))
	got := e.dailySet(alice, channelOpt(otherChan), str("time", "18:00"), str("timezone", "UTC"))
	if !strings.Contains(got, fmt.Sprintf("<t:%d:F>", time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC).Unix())) {
		t.Errorf("daily set after off/on the same day: %q, want the first post tomorrow at 18:00", got)
	}
	e.advance(11 * time.Hour) // 19:00
	e.wantDailyPosts(otherChan, 1)
	e.checkWire()
}

func TestDailyPostRetriedAfterAFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"server error", `{"message":"Internal Server Error","code":0}`, 500},
		{"rate limited", `{"message":"You are being rate limited.","retry_after":7,"global":false}`, 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC))
			e.start()
			e.dailySet(alice, channelOpt(otherChan), str("time", "08:00"), str("timezone", "UTC"))
			e.srv.FailNext("POST", "/channels/"+otherChan+"/messages", tc.status, tc.body)
			e.advance(time.Hour)
			e.srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "POST" && r.Injected }, wait)
			e.wantDailyPosts(otherChan, 0)
			status := e.replyText(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", group("daily", sub("status"))))
			if !strings.Contains(status, "The last post failed") || !strings.Contains(status, "trying again") {
				t.Errorf("daily status after a failed post:\n%s", status)
			}
			if posts, _ := e.db.OpenPosts(); len(posts) != 0 {
				t.Errorf("%d posts left open by the failed send", len(posts))
			}
			e.advance(time.Minute)
			e.wantDailyPosts(otherChan, 1)
			if s, _ := e.db.Settings(8001); s.Daily.LastError != "" || s.Daily.LastPosted != "2026-11-30" {
				t.Errorf("after the retry: last error %q, last posted %q", s.Daily.LastError, s.Daily.LastPosted)
			}
			e.advance(24 * time.Hour)
			e.wantDailyPosts(otherChan, 2)
			e.checkWireExcept(1)
		})
	}
}

func TestRevealGivenUpOnADeletedMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	post, _ := e.ask(alice, integer("minutes", 5))
	e.srv.FailNext("PATCH", fmt.Sprintf("/channels/%s/messages/%d", channelID, post.MessageID), 404, `{"message":"Unknown Message","code":10008}`)
	e.advance(6 * time.Minute)
	e.srv.WaitRequest(t, func(r discordtest.Request) bool { return r.Method == "PATCH" && r.Injected }, wait)
	if p := e.revealed(post.ID); !p.Closed || !p.Revealed {
		t.Fatalf("after a 404: closed %v revealed %v, want the reveal given up (marked revealed)", p.Closed, p.Revealed)
	}
	before := len(e.srv.Requests())
	e.advance(2 * time.Hour)
	for _, r := range e.srv.Requests()[before:] {
		if r.Method == "PATCH" && strings.HasSuffix(r.Route, fmt.Sprint(post.MessageID)) {
			t.Errorf("the bot edited the deleted message again: %s %s", r.Method, r.Route)
		}
	}
	e.checkWireExcept(1)
}

// revealed returns a post as stored. Call it when the scheduler is asleep
// (after start or advance): a reveal it was going to do, or give up, is
// done.
func (e *env) revealed(id questions.PostID) questions.Post {
	e.t.Helper()
	p, err := e.db.Post(id)
	if err != nil {
		e.t.Fatalf("post %d: %v", id, err)
	}
	return p
}
