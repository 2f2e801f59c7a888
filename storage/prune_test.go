package storage

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// periodNames lists the guild's period buckets, sorted.
func periodNames(t testing.TB, db *DB, guildID questions.GuildID) []string {
	t.Helper()
	var names []string
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		return sub(guildRO(tx, guildID), bPeriods).ForEachBucket(func(k []byte) error {
			names = append(names, string(k))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// everyReading is everything a member can see of the guild's scores at
// `at`, encoded: every period's whole leaderboard by points and by
// accuracy, every member's standing in each, their stats and the live
// streaks.
func everyReading(t testing.TB, db *DB, guildID questions.GuildID, members int, at time.Time) []byte {
	t.Helper()
	var out []any
	for _, p := range []questions.Period{questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth, questions.PeriodAll} {
		for _, r := range []questions.Ranking{questions.ByPoints, questions.ByAccuracy} {
			lb, err := db.Leaderboard(guildID, p, r, at, 0, members+1)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, lb)
			for u := questions.UserID(1); u <= questions.UserID(members); u++ {
				st, err := db.Standing(guildID, u, p, r, at)
				out = append(out, st, fmt.Sprint(err))
			}
		}
	}
	for u := questions.UserID(1); u <= questions.UserID(members); u++ {
		ms, err := db.MemberStats(guildID, u, at)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ms)
	}
	streaks, err := db.ActiveStreaks(guildID, at, 0)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, streaks)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// days lists "d<date>" for every date from first to last.
func days(first, last string) []string {
	var out []string
	d, _ := time.Parse(dateLayout, first)
	for end, _ := time.Parse(dateLayout, last); !d.After(end); d = d.AddDate(0, 0, 1) {
		out = append(out, "d"+d.Format(dateLayout))
	}
	return out
}

// TestPruneScores: 120 days of answers in New York (across the change to
// summer time), pruned at t0 (Friday 14 March 2025, 08:00 local) with
// several retentions. Exactly the periods that ended `keep` before t0 go;
// what members read at t0 is byte-for-byte the same, and so is every key
// of the data that stays.
func TestPruneScores(t *testing.T) {
	t.Parallel() // builds fixtures: beside the tests that wait
	const members = 60
	tests := []struct {
		name string
		keep time.Duration
		want []string
	}{
		// Day periods stay questions.PlayerWindow (30 days) whatever the keep:
		// t0 - 30 days is 12 February 07:00 EST, 11 February ended before.
		{"as soon as a period ends", 0, append(append([]string{"all"}, days("2025-02-12", "2025-03-14")...), "m2025-03", "w2025-03-10")},
		{"negative is zero", -time.Hour, append(append([]string{"all"}, days("2025-02-12", "2025-03-14")...), "m2025-03", "w2025-03-10")},
		{"three days", 72 * time.Hour, append(append([]string{"all"}, days("2025-02-12", "2025-03-14")...),
			"m2025-03", "w2025-03-10")},
		{"thirty days", 30 * 24 * time.Hour, append(append([]string{"all"}, days("2025-02-12", "2025-03-14")...),
			"m2025-02", "m2025-03", "w2025-02-10", "w2025-02-17", "w2025-02-24", "w2025-03-03", "w2025-03-10")},
	}
	// The fixture is built once; each case prunes a copy of its file.
	fx, fxPath := newDB(t)
	if err := fx.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	buildFixture(t, fx, fixture{guild: guild, members: members, answers: 2400, posts: 50,
		end: t0, span: 120 * 24 * time.Hour, seed: 7})
	// A second guild in UTC, all of whose periods are old.
	buildFixture(t, fx, fixture{guild: guild + 1, members: 5, answers: 50, posts: 10,
		end: t0.AddDate(0, -2, 0), span: 10 * 24 * time.Hour, seed: 8})
	// What the fixture holds and reads before any prune, the same for
	// every case (each prunes a byte-for-byte copy).
	before, otherBefore := periodNames(t, fx, guild), periodNames(t, fx, guild+1)
	if len(before) < 120+17+4 {
		t.Fatalf("fixture has %d periods, want every day, week and month of 120 days", len(before))
	}
	readBefore := everyReading(t, fx, guild, members, t0)
	dumpBefore := dumpDerived(t, fx, guild)
	if err := fx.Close(); err != nil {
		t.Fatal(err)
	}
	fxData, err := os.ReadFile(fxPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "quiz.db")
			if err := os.WriteFile(path, fxData, 0o600); err != nil {
				t.Fatal(err)
			}
			db := openPath(t, path)
			res, err := db.PruneScores(t.Context(), t0, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			after := periodNames(t, db, guild)
			if !slices.Equal(after, tt.want) {
				t.Errorf("periods after pruning:\ngot  %v\nwant %v", after, tt.want)
			}
			if other := periodNames(t, db, guild+1); !slices.Equal(other, []string{"all"}) {
				t.Errorf("the other guild's periods after pruning: got %v, want [all]", other)
			}
			if want := (PruneResult{Guilds: 2, Periods: len(before) - len(after) + len(otherBefore) - 1}); res != want {
				t.Errorf("result: got %+v, want %+v", res, want)
			}
			if got := everyReading(t, db, guild, members, t0); string(got) != string(readBefore) {
				t.Errorf("what members read changed by pruning (%d bytes before, %d after)", len(readBefore), len(got))
			}
			// Every key outside the pruned periods is unchanged.
			want := map[string]string{}
			for k, v := range dumpBefore {
				if name, ok := strings.CutPrefix(k, "periods/"); ok {
					b, _ := hex.DecodeString(strings.SplitN(name, "/", 2)[0])
					if !slices.Contains(tt.want, string(b)) {
						continue
					}
				}
				want[k] = v
			}
			if d := diffMaps(dumpDerived(t, db, guild), want); d != "" {
				t.Errorf("data that stays changed:\n%s", d)
			}
			// A second prune finds nothing more.
			if res, err := db.PruneScores(t.Context(), t0, tt.keep); err != nil || res != (PruneResult{}) {
				t.Errorf("second prune: got %+v, %v, want nothing removed", res, err)
			}
		})
	}
}

// TestPruneThenRebuild: a rebuild recounts pruned periods from the answers
// (they are derived data) and the next prune removes them again.
func TestPruneThenRebuild(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	buildFixture(t, db, fixture{guild: guild, members: 20, answers: 400, posts: 30, end: t0, span: 40 * 24 * time.Hour, seed: 3})
	full := dumpDerived(t, db, guild)
	if _, err := db.PruneScores(t.Context(), t0, 0); err != nil {
		t.Fatal(err)
	}
	pruned := dumpDerived(t, db, guild)
	if err := db.RebuildScores(t.Context(), guild); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpDerived(t, db, guild), full); d != "" {
		t.Errorf("rebuild after pruning differs from the data before:\n%s", d)
	}
	if _, err := db.PruneScores(t.Context(), t0, 0); err != nil {
		t.Fatal(err)
	}
	if d := diffMaps(dumpDerived(t, db, guild), pruned); d != "" {
		t.Errorf("second prune differs from the first:\n%s", d)
	}
}

func TestPeriodEnd(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want time.Time
		ok   bool
	}{
		{"d2025-03-08", time.Date(2025, 3, 9, 0, 0, 0, 0, ny), true},
		{"d2025-03-09", time.Date(2025, 3, 10, 0, 0, 0, 0, ny), true}, // 23 hours long
		{"d2024-12-31", time.Date(2025, 1, 1, 0, 0, 0, 0, ny), true},
		{"w2025-03-03", time.Date(2025, 3, 10, 0, 0, 0, 0, ny), true},
		{"w2024-12-30", time.Date(2025, 1, 6, 0, 0, 0, 0, ny), true},
		{"m2025-02", time.Date(2025, 3, 1, 0, 0, 0, 0, ny), true},
		{"m2024-12", time.Date(2025, 1, 1, 0, 0, 0, 0, ny), true},
		{"all", time.Time{}, false},
		{"d2025-02-30", time.Time{}, false},
		{"x2025-01-01", time.Time{}, false},
		{"m", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := periodEnd(tt.name, ny)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("periodEnd(%q) = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPruneBoundsGrowth records half a year of daily quizzes (5 members, one
// question a day, the day's answers in one transaction as the group commit
// records them), once pruning daily (keeping 7 days) and once not, and
// compares the space the period data takes. The answers themselves are
// history and stay in both.
func TestPruneBoundsGrowth(t *testing.T) {
	t.Parallel() // builds fixtures: beside the tests that wait
	if testing.Short() {
		t.Skip("records 1,800 answers")
	}
	const members, days = 5, 180
	measure := func(prune bool) (periodsBytes, fileBytes int64, periods int) {
		db, path := newDB(t)
		db.bolt.NoSync = true // the measure is of space, not durability
		start := t0.AddDate(0, 0, -days)
		for d := range days {
			at := start.AddDate(0, 0, d)
			p := mustPost(t, db, questions.Post{QuestionID: fmt.Sprintf("q%d", d), OpenedAt: at})
			var as []questions.Answer
			for u := questions.UserID(1); u <= members; u++ {
				choice := "B"
				if (uint64(u)+uint64(d))%3 == 0 {
					choice = "A"
				}
				as = append(as, questions.Answer{PostID: p.ID, GuildID: guild, UserID: u, InteractionID: uint64(u)*1000 + uint64(p.ID),
					Choice: []string{choice}, At: at.Add(time.Duration(u) * time.Minute)})
			}
			answerTogether(t, db, as)
			if prune {
				if _, err := db.PruneScores(t.Context(), at, 7*24*time.Hour); err != nil {
					t.Fatal(err)
				}
			}
		}
		err := db.bolt.View(func(tx *bbolt.Tx) error {
			ps := sub(guildRO(tx, guild), bPeriods)
			s := ps.Stats()
			periodsBytes = int64(s.BranchAlloc + s.LeafAlloc)
			return ps.ForEachBucket(func([]byte) error { periods++; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return periodsBytes, st.Size(), periods
	}
	keptBytes, keptFile, keptN := measure(false)
	prunedBytes, prunedFile, prunedN := measure(true)
	t.Logf("%d days of daily quizzes, %d members: periods take %d KB in %d buckets unpruned (file %d KB); "+
		"%d KB in %d buckets pruned daily keeping 7 days (file %d KB)",
		days, members, keptBytes/1024, keptN, keptFile/1024, prunedBytes/1024, prunedN, prunedFile/1024)
	// Day periods stay questions.PlayerWindow (31 of them), weeks and months 7 days.
	if prunedN > 1+31+2+2 {
		t.Errorf("pruned daily keeping 7 days: got %d period buckets, want at most 36", prunedN)
	}
	if prunedBytes*5 > keptBytes {
		t.Errorf("periods take %d bytes pruned, %d unpruned: want pruning to save at least four fifths", prunedBytes, keptBytes)
	}
}

// TestPruneKeepsWhoPlays: pruning, however short the keep, leaves Players
// (the members who answered a posted question within
// questions.PlayerWindow, read from the day periods) as it was.
func TestPruneKeepsWhoPlays(t *testing.T) {
	t.Parallel()
	for _, keep := range []time.Duration{0, 7 * 24 * time.Hour} {
		t.Run(keep.String(), func(t *testing.T) {
			db, _ := newDB(t)
			p := mustPost(t, db, questions.Post{})
			answer(t, db, p, 1, t0, "B")
			answer(t, db, p, 2, t0.Add(10*24*time.Hour), "A")
			answer(t, db, p, 3, t0.Add(20*24*time.Hour), "B")
			now := t0.Add(25 * 24 * time.Hour)
			want := []questions.UserID{1, 2, 3}
			if got, err := db.Players(guild, now); err != nil || !slices.Equal(got, want) {
				t.Fatalf("Players before the prune: got %v, %v; want %v", got, err, want)
			}
			if _, err := db.PruneScores(t.Context(), now, keep); err != nil {
				t.Fatal(err)
			}
			if got, err := db.Players(guild, now); err != nil || !slices.Equal(got, want) {
				t.Errorf("Players after a prune keeping %v: got %v, %v; want %v", keep, got, err, want)
			}
			// Day periods older than the window still go.
			later := t0.Add(questions.PlayerWindow + 30*24*time.Hour)
			if _, err := db.PruneScores(t.Context(), later, keep); err != nil {
				t.Fatal(err)
			}
			for _, n := range periodNames(t, db, guild) {
				if n[0] == 'd' {
					t.Errorf("day period %s kept at %v, past the player window", n, later)
				}
			}
		})
	}
}
