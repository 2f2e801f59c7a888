package storage

import (
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// richScenario is a history of two guilds for the migration tests: posts
// over seven weeks (in Europe/Paris across the change to summer time, and
// in UTC), with banks, tags, two correct letters, close times, one without
// a question ID; members answering at random times, some answers delivered
// late, many members past the accuracy threshold; reviews answered, one
// waiting and one expired; a member reset half-way; old periods pruned
// half-way.
type richScenario struct {
	guilds    []questions.GuildID
	posts     []questions.Post
	reviews   []questions.ReviewID
	members   []questions.UserID
	questions []string // the question IDs asked
	times     []time.Time
}

// firstPost returns the scenario's first post of question qid in the
// guild; false when it has none.
func (sc richScenario) firstPost(guildID questions.GuildID, qid string) (questions.Post, bool) {
	for _, p := range sc.posts {
		if p.QuestionID == qid && p.GuildID == guildID {
			return p, true
		}
	}
	return questions.Post{}, false
}

// scenarioWriter records the scenario's answers (through this build's API:
// apiWriter; testdata/v7/generate_test.go has the schema 7 build's).
// answers records the answers to one post, in order, in one transaction
// (one commit for a post's answers rather than one each: the file holds
// the same), where a refused answer (a second answer of a member) writes
// nothing.
type scenarioWriter struct {
	answers     func(as []questions.Answer)
	startReview func(r questions.Review) questions.Review
	review      func(r questions.Review, at time.Time, choice []string)
	resetMember func(g questions.GuildID, user questions.UserID)
}

func apiWriter(t *testing.T, db *DB) scenarioWriter {
	return scenarioWriter{
		answers: func(as []questions.Answer) { recordTogether(t, db, as) },
		startReview: func(r questions.Review) questions.Review {
			rv, err := db.StartReview(t.Context(), r)
			if err != nil {
				t.Fatal(err)
			}
			return rv
		},
		review: func(r questions.Review, at time.Time, choice []string) {
			if _, err := db.RecordReview(t.Context(), questions.Answer{PostID: r.ID.Post(), GuildID: r.GuildID, UserID: r.UserID,
				InteractionID: uint64(r.ID) * 7, Choice: choice, At: at}); err != nil {
				t.Fatal(err)
			}
		},
		resetMember: func(g questions.GuildID, user questions.UserID) {
			if err := db.ResetMember(t.Context(), g, user); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// richFile is the scenario played through this build's API into a new
// file, written once per test binary (see fileFixture): TestMigrateV7,
// TestRebuildAside and TestMigrateV7File start from it rather than each
// playing the scenario again.
var richFile = fileFixture[richScenario]{build: func(t *testing.T, path string) richScenario {
	db := openPath(t, path)
	sc := playRich(t, db, apiWriter(t, db))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return sc
}}

// newRichDB opens a copy of the rich fixture in t.TempDir(): the scenario
// written through this build's API.
func newRichDB(t *testing.T) (*DB, string, richScenario) {
	t.Helper()
	path, sc := richFile.copy(t)
	return openPath(t, path), path, sc
}

// playRich plays the scenario into db with w; the same seed gives the same
// history, posts and IDs.
func playRich(t *testing.T, db *DB, w scenarioWriter) richScenario {
	t.Helper()
	const other questions.GuildID = 3000
	sc := richScenario{guilds: []questions.GuildID{guild, other}}
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "Europe/Paris"}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 23))
	for u := questions.UserID(1); u <= 24; u++ {
		sc.members = append(sc.members, u)
	}
	start := time.Date(2025, 2, 1, 8, 0, 0, 0, time.UTC) // seven weeks to 2025-03-22, across the change to summer time
	for i := range 40 {
		g := questions.GuildID(guild)
		if i%5 == 4 {
			g = other
		}
		opened := start.Add(time.Duration(i) * 30 * time.Hour)
		p := questions.Post{GuildID: g, ChannelID: 7, QuestionID: fmt.Sprintf("Net Basics#%d", i%30), Bank: []string{"Net Basics", "Sec", ""}[i%3],
			Tags: [][]string{nil, {"ip"}, {"ip", "dns", "ip", ""}}[i%3], Correct: []string{"B"}, OptionCount: 4, SelectCount: 1, OpenedAt: opened}
		switch i % 4 {
		case 1:
			p.Correct, p.OptionCount, p.SelectCount = []string{"A", "C"}, 5, 2
		case 2:
			p.ClosesAt = opened.Add(20 * time.Hour)
		}
		if i == 13 {
			p.QuestionID = ""
		}
		var err error
		if p, err = db.CreatePost(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		sc.posts = append(sc.posts, p)
		if p.QuestionID != "" && !slices.Contains(sc.questions, p.QuestionID) {
			sc.questions = append(sc.questions, p.QuestionID)
		}
		var as []questions.Answer
		for _, u := range r.Perm(len(sc.members)) {
			if r.IntN(5) == 0 {
				continue
			}
			user := sc.members[u]
			at := opened.Add(time.Duration(r.IntN(19*60)) * time.Minute)
			if r.IntN(12) == 0 {
				at = at.Add(-50 * time.Hour) // delivered late
			}
			choice := slices.Clone(p.Correct)
			if r.IntN(3) == 0 {
				choice = []string{questions.Letter(r.IntN(p.OptionCount))}
				if p.SelectCount == 2 {
					choice = []string{"A", "B"}
				}
			}
			a := questions.Answer{PostID: p.ID, GuildID: p.GuildID, UserID: user, InteractionID: uint64(user)<<20 + uint64(p.ID), Choice: choice, At: at}
			as = append(as, a)
			if r.IntN(15) == 0 {
				as = append(as, a) // refused: answered
			}
		}
		w.answers(as)
		if p.ClosesAt.IsZero() || i%3 == 0 {
			closeAt := opened.Add(21 * time.Hour)
			if _, _, err := db.ClosePost(t.Context(), p.ID, closeAt); err != nil {
				t.Fatal(err)
			}
		}
		// Reviews of the question once closed, by a few members.
		if p.QuestionID != "" && i%3 == 0 {
			for _, u := range []questions.UserID{sc.members[i%24], sc.members[(i+7)%24]} {
				rv := w.startReview(questions.Review{GuildID: g, UserID: u, QuestionID: p.QuestionID, Bank: p.Bank, Tags: p.Tags,
					Correct: p.Correct, OptionCount: p.OptionCount, SelectCount: p.SelectCount, OpenedAt: opened.Add(22 * time.Hour)})
				sc.reviews = append(sc.reviews, rv.ID)
				choice := slices.Clone(p.Correct)
				if u%2 == 0 {
					choice = []string{questions.Letter((questions.LetterIndex(p.Correct[0]) + 1) % p.OptionCount)}
					if p.SelectCount == 2 {
						choice = []string{"A", "B"}
					}
				}
				w.review(rv, opened.Add(22*time.Hour+time.Minute), choice)
			}
		}
		switch i {
		case 20:
			w.resetMember(guild, 3)
		case 25:
			// Day, week and month scores that ended more than a day before.
			if _, err := db.PruneScores(t.Context(), opened, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	last := sc.posts[len(sc.posts)-1]
	// Two reviews waiting for their answer, one expired.
	for _, at := range []time.Time{last.OpenedAt.Add(-3 * time.Hour), last.OpenedAt.Add(30 * time.Hour)} {
		rv := w.startReview(questions.Review{GuildID: guild, UserID: 5, QuestionID: sc.posts[0].QuestionID, Correct: []string{"B"},
			OptionCount: 4, SelectCount: 1, OpenedAt: at})
		sc.reviews = append(sc.reviews, rv.ID)
	}
	end := last.OpenedAt.Add(30*time.Hour + 30*time.Minute)
	for _, d := range []int{0, 1, 8, 45} {
		sc.times = append(sc.times, end.AddDate(0, 0, -d))
	}
	return sc
}

// reading is one thing a reader returned for the scenario.
type reading struct {
	what string
	v    any
	err  error
}

func (r reading) String() string {
	if r.err != nil {
		return fmt.Sprintf("%s: error %v", r.what, r.err)
	}
	return fmt.Sprintf("%s: %+v", r.what, r.v)
}

// same reports whether r and o are the same reading: the same error, or
// values deeply equal (so they print the same).
func (r reading) same(o reading) bool {
	if r.what != o.what || (r.err == nil) != (o.err == nil) {
		return false
	}
	if r.err != nil {
		return r.err.Error() == o.err.Error()
	}
	return reflect.DeepEqual(r.v, o.v)
}

// readings returns what every reader returns for the scenario: every
// leaderboard (whole, and pages), every standing and member's stats at
// several times, active streaks, players, memories and review queues,
// posts, answers and reviews.
func readings(t *testing.T, db *DB, sc richScenario) []reading {
	t.Helper()
	return readingsOf(t, db, sc, true)
}

// readingsOf is readings, without the score readers' (leaderboards,
// standings, stats, streaks, players: what reads a guild's derived data
// and its time zone) unless scores is set.
func readingsOf(t *testing.T, db *DB, sc richScenario, scores bool) []reading {
	t.Helper()
	var out []reading
	put := func(what string, v any, err error) { out = append(out, reading{what, v, err}) }
	for _, g := range sc.guilds {
		for _, at := range sc.times {
			when := fmt.Sprintf("guild %d at %s", g, at.Format(time.RFC3339))
			for _, per := range []questions.Period{questions.PeriodAll, questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth} {
				if !scores {
					break
				}
				for _, rk := range []questions.Ranking{questions.ByPoints, questions.ByAccuracy} {
					lb, err := db.Leaderboard(g, per, rk, at, 0, 1000)
					put(fmt.Sprintf("%s: %s by %s", when, per, rk), lb, err)
					for _, off := range []int{1, 5, 17} {
						lb, err := db.Leaderboard(g, per, rk, at, off, 4)
						put(fmt.Sprintf("%s: %s by %s from %d", when, per, rk, off), lb, err)
					}
					for _, u := range sc.members {
						st, err := db.Standing(g, u, per, rk, at)
						put(fmt.Sprintf("%s: standing of %d, %s by %s", when, u, per, rk), st, err)
					}
				}
			}
			for _, u := range sc.members {
				if scores {
					ms, err := db.MemberStats(g, u, at)
					put(fmt.Sprintf("%s: stats of %d", when, u), ms, err)
				}
				q, err := db.ReviewQueue(g, u, at, nil, questions.ExamPlan{})
				put(fmt.Sprintf("%s: review queue of %d", when, u), q, err)
			}
			if scores {
				st, err := db.ActiveStreaks(g, at, 0)
				put(when+": streaks", st, err)
				pl, err := db.Players(g, at)
				put(when+": players", pl, err)
			}
		}
		for _, u := range sc.members {
			mems, err := db.Memories(g, u)
			put(fmt.Sprintf("guild %d: memories of %d", g, u), mems, err)
		}
		for _, id := range sc.reviews {
			rv, err := db.Review(g, id)
			put(fmt.Sprintf("guild %d: review %d", g, id), rv, err)
		}
	}
	for _, p := range sc.posts {
		got, err := db.Post(p.ID)
		put(fmt.Sprintf("post %d", p.ID), got, err)
		as, err := db.Answers(p.ID)
		put(fmt.Sprintf("answers to %d", p.ID), as, err)
		for _, u := range sc.members {
			a, err := db.Answer(p.ID, u)
			put(fmt.Sprintf("answer of %d to %d", u, p.ID), a, err)
		}
	}
	return out
}

// results is readings as text, a line each, as the schema-7 build's
// testdata/v7 files hold them.
func results(t *testing.T, db *DB, sc richScenario) string {
	t.Helper()
	var b strings.Builder
	b.Grow(2 << 20) // the scenario's are 1.3 MB
	for _, r := range readings(t, db, sc) {
		if r.err != nil {
			fmt.Fprintf(&b, "%s: error %v\n", r.what, r.err)
		} else {
			fmt.Fprintf(&b, "%s: %+v\n", r.what, r.v)
		}
	}
	return b.String()
}

// diffFiles reads the scenario from got and want side by side and
// describes the first reading that differs ("" when none).
func diffFiles(t *testing.T, got, want *DB, sc richScenario) string {
	t.Helper()
	var w []reading
	done := make(chan struct{})
	go func() {
		defer close(done)
		w = readings(t, want, sc)
	}()
	g := readings(t, got, sc)
	<-done
	return diffReadings(g, w)
}

// diffStored describes the first difference between got and want
// ("" when none) where the readings would differ, reading less than
// diffFiles: the readers of records (memories, review queues, reviews,
// posts, answers) as diffFiles does, and in place of the score readers
// what they read: each guild's time zone and derived data, every key and
// value but the block cuts (dumpDerived, which checks the blocks count
// their keys exactly, so that ranks and pages come out the same whatever
// the cut). Its answer records are compared too (dumpMemory).
func diffStored(t *testing.T, got, want *DB, sc richScenario) string {
	t.Helper()
	for _, g := range sc.guilds {
		gs, gerr := got.Settings(g)
		ws, werr := want.Settings(g)
		if gs.TimeZone != ws.TimeZone || (gerr == nil) != (werr == nil) {
			return fmt.Sprintf("guild %d: time zone %q (%v), want %q (%v)", g, gs.TimeZone, gerr, ws.TimeZone, werr)
		}
		if d := diffMaps(dumpDerived(t, got, g), dumpDerived(t, want, g)); d != "" {
			return fmt.Sprintf("guild %d: derived data:\n%s", g, d)
		}
		if d := diffMaps(dumpMemory(t, got, g), dumpMemory(t, want, g)); d != "" {
			return fmt.Sprintf("guild %d: answer records:\n%s", g, d)
		}
	}
	var w []reading
	done := make(chan struct{})
	go func() {
		defer close(done)
		w = readingsOf(t, want, sc, false)
	}()
	g := readingsOf(t, got, sc, false)
	<-done
	return diffReadings(g, w)
}

// diffReadings describes the first reading where got and want differ.
func diffReadings(got, want []reading) string {
	return firstDiffOf(got, want, reading.same, "reading")
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	return firstDiffOf(strings.Split(got, "\n"), strings.Split(want, "\n"), func(g, w string) bool { return g == w }, "line")
}

// firstDiffOf describes the first item (numbered from 1, called what)
// where got and want differ by same; a missing item is the zero value.
func firstDiffOf[T any](got, want []T, same func(T, T) bool, what string) string {
	for i := range max(len(got), len(want)) {
		var g, w T
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !same(g, w) {
			return fmt.Sprintf("%s %d:\ngot:  %v\nwant: %v", what, i+1, g, w)
		}
	}
	return ""
}

// TestMigrateV7: a file of schema version 7 with a rich history, written
// by the build before version 8 (testdata/v7/rich.db.gz, the scenario of
// playRich: see TestMigrateV7File), migrates in place to what the same
// history written by this build holds: every reader returns the same
// (leaderboards, standings, stats, streaks, players, memories, review
// queues, posts, answers, reviews), the derived data and answer records
// are the same (but how rankings are cut into blocks), and so are a
// backup, regrades, a rebuild and a reshard of either.
func TestMigrateV7(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	oldPath := filepath.Join(dir, "v7.db")
	if err := os.WriteFile(oldPath, []byte(readGz(t, "testdata/v7/rich.db.gz")), 0o600); err != nil {
		t.Fatal(err)
	}
	if v := fileSchema(t, oldPath); v != 7 {
		t.Fatalf("testdata/v7/rich.db is at schema version %d, want 7", v)
	}
	migrated := openPath(t, oldPath)
	// The same history written by this build (with the same IDs: the
	// goldens of TestMigrateV7File name them).
	fresh, freshPath, sc := newRichDB(t)
	var schema uint64
	migrated.bolt.View(func(tx *bbolt.Tx) error { schema = getU64(tx.Bucket(bMeta).Get(kSchema)); return nil })
	if schema != SchemaVersion() {
		t.Fatalf("schema after migration: %d, want %d", schema, SchemaVersion())
	}

	if d := diffFiles(t, migrated, fresh, sc); d != "" {
		t.Fatalf("migrated file reads differently from the same history written fresh: %s", d)
	}
	for _, g := range sc.guilds {
		if d := diffMaps(dumpDerived(t, migrated, g), dumpDerived(t, fresh, g)); d != "" {
			t.Errorf("guild %d: derived data of the migrated file:\n%s", g, d)
		}
		if d := diffMaps(dumpMemory(t, migrated, g), dumpMemory(t, fresh, g)); d != "" {
			t.Errorf("guild %d: answer records of the migrated file:\n%s", g, d)
		}
	}
	if lb, _ := migrated.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, sc.times[0], 0, 100); lb.Total < 5 {
		t.Errorf("the scenario puts %d members on the accuracy board, want several", lb.Total)
	}

	// A backup of the migrated file holds the same (every bucket,
	// sequence, key and value), so it reads the same.
	if err := migrated.BackupFile(oldPath + ".bak"); err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(dumpFile(t, oldPath+".bak"), dumpDB(migrated)); d != "" {
		t.Errorf("backup of the migrated file: %s", d)
	}
	checkFile(t, oldPath+".bak")

	// Regrades change both alike (or refuse alike); a rebuild changes
	// nothing.
	changed := 0
	for i, qid := range sc.questions[:8] {
		first, ok := sc.firstPost(guild, qid)
		if !ok {
			continue
		}
		key := []string{questions.Letter(i % first.OptionCount)}
		rm, em := migrated.Regrade(t.Context(), guild, qid, key, first.OptionCount)
		rf, ef := fresh.Regrade(t.Context(), guild, qid, key, first.OptionCount)
		if rm != rf || fmt.Sprint(em) != fmt.Sprint(ef) {
			t.Fatalf("regrade of %q: migrated %+v, %v; fresh %+v, %v", qid, rm, em, rf, ef)
		}
		changed += rm.Changed
	}
	if changed == 0 {
		t.Fatal("the regrades changed no answer")
	}
	// From here on the two files' scores are compared as stored (see
	// diffStored), which the score readers read alone: the readings above
	// showed them reading alike.
	if d := diffStored(t, migrated, fresh, sc); d != "" {
		t.Fatalf("after the regrades: %s", d)
	}
	// (A rebuild brings back the pruned periods: of both.)
	for _, db := range []*DB{migrated, fresh} {
		for _, g := range sc.guilds {
			if err := db.RebuildScores(t.Context(), g); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := diffStored(t, migrated, fresh, sc); d != "" {
		t.Fatalf("after a rebuild of each: %s", d)
	}

	// A reshard of each in two: every server reads the same in its file.
	migrated.Close()
	fresh.Close()
	for _, path := range []string{oldPath, freshPath} {
		out := filepath.Join(dir, filepath.Base(path)+".shards")
		if _, err := Reshard(t.Context(), 2, out, []string{path}); err != nil {
			t.Fatalf("reshard %s: %v", path, err)
		}
	}
	for i := range 2 {
		m := openPath(t, outputs(filepath.Join(dir, "v7.db.shards"), 2)[i])
		f := openPath(t, outputs(filepath.Join(dir, filepath.Base(freshPath)+".shards"), 2)[i])
		if d := diffStored(t, m, f, sc); d != "" {
			t.Errorf("shard %d of 2: %s", i, d)
		}
		m.Close()
		f.Close()
	}
}

// TestMigrateV7File: a file of schema version 7 that the build before
// version 8 wrote through its own API (testdata/v7/rich.db.gz: the
// scenario above, written by main at f356d6e with
// testdata/v7/generate_test.go) migrates in place, and every reader (every
// leaderboard, page, standing, stats, streaks, players, memories, review
// queue, post, answer and review), a reshard in two, the regrades and a
// rebuild give what that build gave on the same file; a backup holds what
// the migrated file holds.
func TestMigrateV7File(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "rich.db")
	if err := os.WriteFile(path, []byte(readGz(t, "testdata/v7/rich.db.gz")), 0o600); err != nil {
		t.Fatal(err)
	}
	if v := fileSchema(t, path); v != 7 {
		t.Fatalf("testdata/v7/rich.db is at schema version %d, want 7", v)
	}
	// The scenario's posts, members, reviews and times, as playRich gives
	// them to a new file: the same IDs as in the old build's file.
	_, sc := richFile.get(t)

	db := openPath(t, path)
	if v := dbSchema(db); v != SchemaVersion() {
		t.Fatalf("schema after migration: %d, want %d", v, SchemaVersion())
	}
	same := func(what, got, file string) {
		t.Helper()
		if d := firstDiff(got, readGz(t, filepath.Join("testdata/v7", file))); d != "" {
			t.Errorf("%s reads differently from the schema 7 build's %s: %s", what, file, d)
		}
	}
	same("the migrated file", results(t, db, sc), "results.txt.gz")

	// A backup holds the same (every bucket, sequence, key and value), so
	// it reads the same.
	if err := db.BackupFile(path + ".bak"); err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(dumpFile(t, path+".bak"), dumpDB(db)); d != "" {
		t.Errorf("a backup of the migrated file holds other data: %s", d)
	}
	checkFile(t, path+".bak")

	db.Close()
	shards := filepath.Join(dir, "shards")
	if _, err := Reshard(t.Context(), 2, shards, []string{path}); err != nil {
		t.Fatalf("reshard: %v", err)
	}
	for i, p := range outputs(shards, 2) {
		s := openPath(t, p)
		same(fmt.Sprintf("shard %d of 2", i), results(t, s, sc), fmt.Sprintf("shard-%d.txt.gz", i))
		s.Close()
	}

	db = openPath(t, path)
	var regrades strings.Builder
	for i, qid := range sc.questions[:8] {
		first, ok := sc.firstPost(guild, qid)
		if !ok {
			continue
		}
		key := []string{questions.Letter(i % first.OptionCount)}
		r, err := db.Regrade(t.Context(), guild, qid, key, first.OptionCount)
		fmt.Fprintf(&regrades, "regrade of %q to %v: %+v, %v\n", qid, key, r, err)
	}
	same("the regrades of the migrated file", regrades.String()+results(t, db, sc), "regraded.txt.gz")
	for _, g := range sc.guilds {
		if err := db.RebuildScores(t.Context(), g); err != nil {
			t.Fatal(err)
		}
	}
	same("a rebuild of the migrated file", results(t, db, sc), "rebuilt.txt.gz")
}

// readGz returns the text of the gzipped file at path.
func readGz(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(data)
}

// fileSchema returns the schema version of the closed database at path.
func fileSchema(t *testing.T, path string) uint64 {
	t.Helper()
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var v uint64
	b.View(func(tx *bbolt.Tx) error { v = getU64(tx.Bucket(bMeta).Get(kSchema)); return nil })
	return v
}

// dbSchema returns the schema version db's file records.
func dbSchema(db *DB) uint64 {
	var v uint64
	db.bolt.View(func(tx *bbolt.Tx) error { v = getU64(tx.Bucket(bMeta).Get(kSchema)); return nil })
	return v
}
