package storage

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in storage/testdata")

// TestRecordsUnchanged writes one of every record through the public API
// and compares every key and value in the file with a dump written by the
// code before IDs were typed (testdata/records.golden): the typed IDs keep
// the 8-byte big-endian keys and the JSON numbers byte for byte.
func TestRecordsUnchanged(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	const user, channel, message = 123456789012345678, 223456789012345678, 323456789012345678
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "Europe/Paris", RevealOnAnswer: true, AskMinutes: 5,
		Banks: []string{"b"}, LastDaily: "2025-03-13",
		Daily: &questions.Daily{ChannelID: channel, Time: "09:00", Bank: "b", Count: 2, CloseAfterHours: 3,
			Next: t0.Add(time.Hour), LastPosted: "2025-03-13", LastError: "x"}}); err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePost(t.Context(), questions.Post{GuildID: guild, ChannelID: channel, QuestionID: "b#1", Bank: "b", Tags: []string{"t"},
		Correct: []string{"A"}, OptionCount: 4, SelectCount: 1, Daily: true, OpenedAt: t0, ClosesAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetPostMessage(t.Context(), p.ID, message); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: user, InteractionID: 42,
		Choice: []string{"A"}, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ClosePost(t.Context(), p.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveDraft(t.Context(), questions.Draft{GuildID: guild, UserID: user, Kind: questions.DraftSuggestion, Bank: "b",
		Text: "Q?", Queued: true, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveBank(t.Context(), guild, questions.BankFile{Name: "b", Format: questions.FormatYAML, Data: []byte("x"),
		ImportedAt: t0, ImportedBy: user}); err != nil {
		t.Fatal(err)
	}
	rv, err := db.StartReview(t.Context(), questions.Review{GuildID: guild, UserID: user, QuestionID: "b#1", Bank: "b",
		Tags: []string{"t"}, Correct: []string{"A"}, OptionCount: 4, SelectCount: 1, OpenedAt: t0.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: rv.ID.Post(), GuildID: guild, UserID: user, InteractionID: 43,
		Choice: []string{"A"}, At: t0.Add(2*time.Hour + time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetExamDate(t.Context(), questions.ExamDate{GuildID: guild, UserID: user, Date: "2025-04-01", Bank: "b"}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, db, "records.golden")
}

// checkGolden compares every key and value in db with testdata/name
// (rewritten first with -update), and reports the first line that differs.
func checkGolden(t *testing.T, db *DB, name string) {
	t.Helper()
	var dump bytes.Buffer
	if err := db.bolt.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error { return dumpBucket(&dump, hex.EncodeToString(name), b) })
	}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(golden, dump.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := bytes.Split(dump.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gl), len(wl)) {
		if i >= len(gl) || i >= len(wl) || !bytes.Equal(gl[i], wl[i]) {
			var g, w []byte
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			t.Fatalf("%s: file contents changed; first difference at line %d:\ngot:  %s\nwant: %s", name, i+1, g, w)
		}
	}
}

// dumpBucket writes every key and value under b, one per line, as
// path/key=value (keys in hex, values quoted).
func dumpBucket(w *bytes.Buffer, path string, b *bbolt.Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			return dumpBucket(w, path+"/"+hex.EncodeToString(k), b.Bucket(k))
		}
		fmt.Fprintf(w, "%s/%s=%q\n", path, hex.EncodeToString(k), v)
		return nil
	})
}
