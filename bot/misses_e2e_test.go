package bot_test

import (
	"bytes"
	"encoding/csv"
	"html"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// TestMissesExport: /quiz misses export sends the member, privately, the
// questions they have missed as a file Anki's text import reads: its
// header lines, then one note per question with the documented columns
// (Front: the question and options; Back: the key, explanation and
// rationales; Tags: bank and topic). A missed question open in the server
// is left out; a member with no misses is told so.
func TestMissesExport(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := studyEnv(t, start)
	// Bob missed s1 and s2 (s2 right since), got s3 right; s2 is open now.
	e.played("s1", []string{"net"}, start.Add(-3*time.Hour), map[questions.UserID]string{7002: "B"})
	e.played("s2", []string{"net", "sec"}, start.Add(-3*time.Hour), map[questions.UserID]string{7002: "C"})
	e.played("s2", []string{"net", "sec"}, start.Add(-2*time.Hour), map[questions.UserID]string{7002: "A"})
	e.played("s3", []string{"sec"}, start.Add(-time.Hour), map[questions.UserID]string{7002: "A", 7003: "A"})
	open := e.openInServer("s2", start.Add(time.Hour))

	p := e.srv.SlashCommand(guildID, channelID, bob, "quiz", group("misses", sub("export")))
	if r := p.WaitResponse(t, wait); r.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("export answered type %d flags %d, want a private deferred reply", r.Type, r.Flags)
	}
	req := e.srv.WaitRequest(t, func(r discordtest.Request) bool {
		return r.Method == "PATCH" && strings.Contains(r.Route, p.Token()) && len(r.Files) > 0
	}, wait)
	msg := p.WaitOriginal(t, wait, func(m discordtest.Message) bool { return len(m.Attachments) == 1 })
	if !strings.Contains(msg.Content, "**1 question you missed**") || !strings.Contains(msg.Content, "in the deck `quizhost::Misses` if you have one") || !strings.Contains(msg.Content, "1 question open in the server right now is left out") || !msg.Ephemeral() {
		t.Errorf("export reply %q (ephemeral %v), want 1 question and s2 left out", msg.Content, msg.Ephemeral())
	}
	f := req.Files[0]
	if len(req.Files) != 1 || f.Name != "quizhost-misses.txt" {
		t.Fatalf("attached %d files, first %q; want quizhost-misses.txt", len(req.Files), f.Name)
	}
	checkAnkiFile(t, f.Data, []ankiWant{{
		front: []string{"Study · Question 1", "Which port does HTTPS use by default?", "A. 443", "B. 80", "C. 25"},
		back:  []string{"Answer: A", "HTTPS is HTTP over TLS on port 443.", "✓ A. HTTPS listens on 443.", "✗ B. 80 is plain HTTP.", "✗ C. 25 is SMTP."},
		tags:  "Study net",
	}})

	// Once s2 closes, it is in the file too.
	e.closeInServer(open)
	p = e.srv.SlashCommand(guildID, channelID, bob, "quiz", group("misses", sub("export")))
	req = e.srv.WaitRequest(t, func(r discordtest.Request) bool {
		return r.Method == "PATCH" && strings.Contains(r.Route, p.Token()) && len(r.Files) > 0
	}, wait)
	checkAnkiFile(t, req.Files[0].Data, []ankiWant{
		{front: []string{"Which port does HTTPS use by default?"}, tags: "Study net"},
		{front: []string{"Study · Question 2", "Which protocol encrypts HTTPS traffic?", "A. TLS"}, back: []string{"Answer: A"}, tags: "Study net sec"},
	})

	// Carol missed nothing.
	if got := e.replyText(e.srv.SlashCommand(guildID, channelID, carol, "quiz", group("misses", sub("export")))); !strings.Contains(got, "You have no missed questions to export") {
		t.Errorf("export with no misses: %q", got)
	}
	e.checkWire()
}

type ankiWant struct {
	front, back []string
	tags        string
}

// checkAnkiFile reads data as Anki's text import does (its documented
// header lines, then tab-separated notes with the named columns) and
// checks each note's fields.
func checkAnkiFile(t *testing.T, data []byte, want []ankiWant) {
	t.Helper()
	headers := []string{"#separator:tab", "#html:true", "#notetype:Basic", "#deck:quizhost::Misses", "#tags column:3", "#columns:Front\tBack\tTags"}
	if lines := strings.SplitN(string(data), "\n", len(headers)+1); len(lines) <= len(headers) || strings.Join(lines[:len(headers)], "\n") != strings.Join(headers, "\n") {
		t.Errorf("header lines of the file:\n%s\nwant\n%s", data, strings.Join(headers, "\n"))
	}
	// The header as Anki's manual documents it (Importing › Text Files ›
	// File Headers): "#key:value" lines at the top; separator Tab (or the
	// character); html true; columns named with that separator; the tags
	// column a column number; the remaining columns named after the fields
	// of the Basic note type, Front and Back, in order.
	meta := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "#"), ":")
		if !strings.HasPrefix(l, "#") || !ok {
			break
		}
		meta[strings.ToLower(strings.TrimSpace(k))] = v
	}
	if sep := strings.ToLower(strings.TrimSpace(meta["separator"])); sep != "tab" && meta["separator"] != "\t" {
		t.Errorf("separator %q, want tab", meta["separator"])
	}
	if meta["html"] != "true" || meta["deck"] == "" || meta["notetype"] != "Basic" {
		t.Errorf("html %q, deck %q, notetype %q: want true, a deck, Basic", meta["html"], meta["deck"], meta["notetype"])
	}
	columns := strings.Split(meta["columns"], "\t")
	tagsCol, err := strconv.Atoi(strings.TrimSpace(meta["tags column"]))
	if err != nil || tagsCol < 1 || tagsCol > len(columns) || columns[tagsCol-1] != "Tags" {
		t.Fatalf("tags column %q of columns %q: want the number of the Tags column", meta["tags column"], columns)
	}
	if fields := slices.Delete(slices.Clone(columns), tagsCol-1, tagsCol); !slices.Equal(fields, []string{"Front", "Back"}) {
		t.Errorf("note columns %q, want Basic's fields Front and Back", fields)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.Comment, r.FieldsPerRecord = '\t', '#', len(columns)
	notes, err := r.ReadAll()
	if err != nil || len(notes) != len(want) {
		t.Fatalf("the file as tab-separated notes: %d, %v; want %d:\n%s", len(notes), err, len(want), data)
	}
	plain := func(s string) string {
		return html.UnescapeString(strings.NewReplacer("<br>", "\n", "<b>", "", "</b>", "", "<i>", "", "</i>", "").Replace(s))
	}
	for i, w := range want {
		for _, s := range w.front {
			if !strings.Contains(plain(notes[i][0]), s) {
				t.Errorf("note %d front lacks %q:\n%s", i+1, s, plain(notes[i][0]))
			}
		}
		for _, s := range w.back {
			if !strings.Contains(plain(notes[i][1]), s) {
				t.Errorf("note %d back lacks %q:\n%s", i+1, s, plain(notes[i][1]))
			}
		}
		if notes[i][2] != w.tags {
			t.Errorf("note %d tags %q, want %q", i+1, notes[i][2], w.tags)
		}
	}
}
