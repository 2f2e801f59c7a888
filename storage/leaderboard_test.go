package storage

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// TestRankIndex checks rank and nth against a sorted list, through random
// inserts, moves and removals with many ties, written at once and through
// a transaction's deltas (blocks settled at the flush), across block
// splits and merges.
func TestRankIndex(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"at once", "deltas"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			db, _ := newDB(t)
			r := rand.New(rand.NewPCG(1, 2))
			randKey := func(user questions.UserID) []byte {
				s := questions.Score{UserID: user, Points: r.IntN(5), Answered: 1 + r.IntN(4),
					ReachedAt: t0.Add(time.Duration(r.IntN(3)) * 24 * time.Hour * 4).Add(time.Duration(r.IntN(3)) * time.Second)}
				s.Correct = r.IntN(s.Answered + 1)
				return pointsKey(s)
			}
			keys := map[questions.UserID][]byte{}
			check := func(ri rankIndex, step int) {
				var sorted [][]byte
				for _, k := range keys {
					sorted = append(sorted, k)
				}
				slices.SortFunc(sorted, bytes.Compare)
				for i, k := range sorted {
					if i%13 != 0 && i != len(sorted)-1 {
						continue
					}
					if got := ri.rank(k); got != i+1 {
						t.Fatalf("step %d: rank of position %d: got %d, want %d", step, i, got, i+1)
					}
					if _, got, _ := ri.nth(i); !bytes.Equal(got, k) {
						t.Fatalf("step %d: nth(%d): got %x, want %x", step, i, got, k)
					}
				}
				if _, got, _ := ri.nth(len(sorted)); got != nil {
					t.Fatalf("nth past the end: got %x, want nil", got)
				}
				checkRanking(t, mode, ri)
			}
			for round := range 8 {
				err := db.bolt.Update(func(tx *bbolt.Tx) error {
					b, err := tx.CreateBucketIfNotExists([]byte("test"))
					if err != nil {
						return err
					}
					bb, _ := b.CreateBucketIfNotExists(bPtsBlocks)
					ri := rankIndex{groups: b, tag: tagPts, blocks: bb}
					var d *deltas
					if mode == "deltas" {
						d = newDeltas()
						ri.d, ri.pend = d, d.of(bb, ri)
					}
					// Grow to 3,000 members, then shrink to a few.
					users := 3000
					if round >= 5 {
						users = 3000 >> (2 * (round - 4))
					}
					const steps = 1500
					for step := range steps {
						user := questions.UserID(r.IntN(3000))
						old := keys[user]
						var nk []byte
						if int(user) < users && r.IntN(10) > 0 {
							nk = randKey(user)
						}
						if err := ri.move(old, nk, []byte{1, 0}); err != nil {
							return err
						}
						if nk == nil {
							delete(keys, user)
						} else {
							keys[user] = nk
						}
						if d == nil && step%500 == 499 && step < steps-1 { // the last step's state is checked below
							check(ri, step)
						}
					}
					if err := d.flush(); err != nil {
						return err
					}
					check(ri, round)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// play records, for each member, answers to fresh posts at the given times;
// right[i] says whether answer i is right (1 point each).
func play(t *testing.T, db *DB, user questions.UserID, at []time.Time, right []bool) {
	t.Helper()
	for i := range at {
		p := mustPost(t, db, questions.Post{})
		c := "A"
		if right[i] {
			c = "B"
		}
		answer(t, db, p, user, at[i], c)
	}
}

func times(start time.Time, n int, step time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = start.Add(time.Duration(i) * step)
	}
	return out
}

func bools(n, trues int) []bool {
	out := make([]bool, n)
	for i := range trues {
		out[i] = true
	}
	return out
}

func TestLeaderboardOrder(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	// 1 and 3: 3 points, accuracy 1, 1 got there first; 2: 3 points, accuracy 0.75;
	// 4: nothing right. 5 (9 of 10) and 6 (9 of 12): 9 points, on the
	// accuracy board.
	play(t, db, 3, times(t0.Add(10*time.Second), 3, time.Second), bools(3, 3))
	play(t, db, 1, times(t0, 3, time.Second), bools(3, 3))
	play(t, db, 2, times(t0, 4, time.Second), []bool{true, false, true, true})
	play(t, db, 4, times(t0, 1, time.Second), bools(1, 0))
	play(t, db, 5, times(t0, 10, time.Second), bools(10, 9))
	play(t, db, 6, times(t0, 12, time.Second), bools(12, 9))

	users := func(lb questions.Leaderboard) []questions.UserID {
		var out []questions.UserID
		for i, e := range lb.Entries {
			if e.Rank != i+1 {
				t.Errorf("entry %d: got rank %d", i, e.Rank)
			}
			out = append(out, e.UserID)
		}
		return out
	}
	lb, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := users(lb), []questions.UserID{5, 6, 1, 3, 2, 4}; !slices.Equal(got, want) || lb.Total != 6 {
		t.Errorf("by points: got %v (total %d), want %v (6)", got, lb.Total, want)
	}
	lb, _ = db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, t0, 0, 10)
	if got, want := users(lb), []questions.UserID{5, 6}; !slices.Equal(got, want) || lb.Total != 2 {
		t.Errorf("by accuracy: got %v (total %d), want %v (2)", got, lb.Total, want)
	}
	// Pages.
	lb, _ = db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 2, 2)
	if got, want := users2(lb), []questions.UserID{1, 3}; !slices.Equal(got, want) || lb.Entries[0].Rank != 3 {
		t.Errorf("page at offset 2: got %v ranks from %d, want %v from 3", got, lb.Entries[0].Rank, want)
	}
	lb, _ = db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 6, 2)
	if len(lb.Entries) != 0 || lb.Total != 6 {
		t.Errorf("page past the end: got %v, total %d", lb.Entries, lb.Total)
	}
	for _, tc := range []struct {
		user questions.UserID
		r    questions.Ranking
		want int
	}{
		{5, questions.ByPoints, 1}, {6, questions.ByPoints, 2}, {1, questions.ByPoints, 3}, {3, questions.ByPoints, 4}, {4, questions.ByPoints, 6},
		{5, questions.ByAccuracy, 1}, {6, questions.ByAccuracy, 2},
	} {
		st, err := db.Standing(guild, tc.user, questions.PeriodAll, tc.r, t0)
		if err != nil || st.Rank != tc.want {
			t.Errorf("Standing(%d, %s): got %d, %v; want %d", tc.user, tc.r, st.Rank, err, tc.want)
		}
	}
	_, err = db.Standing(guild, 1, questions.PeriodAll, questions.ByAccuracy, t0)
	wantErr(t, err, questions.ErrNotFound)
	_, err = db.Standing(guild, 99, questions.PeriodAll, questions.ByPoints, t0)
	wantErr(t, err, questions.ErrNotFound)
	if _, err := db.Leaderboard(guild, "year", questions.ByPoints, t0, 0, 1); err == nil {
		t.Error("unknown period: got nil error")
	}
	if _, err := db.Leaderboard(guild, questions.PeriodAll, "speed", t0, 0, 1); err == nil {
		t.Error("unknown ranking: got nil error")
	}
	// Empty guild.
	lb, err = db.Leaderboard(guild+5, questions.PeriodWeek, questions.ByPoints, t0, 0, 10)
	if err != nil || lb.Total != 0 || len(lb.Entries) != 0 {
		t.Errorf("empty guild: got %+v, %v", lb, err)
	}
	assertRebuildEqual(t, db, guild)
}

func users2(lb questions.Leaderboard) []questions.UserID {
	var out []questions.UserID
	for _, e := range lb.Entries {
		out = append(out, e.UserID)
	}
	return out
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestPeriodKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, zone       string
		at               time.Time
		day, week, month string
		weekStartUTC     time.Time
	}{
		{"UTC Sunday night", "UTC", time.Date(2025, 3, 16, 23, 59, 0, 0, time.UTC), "2025-03-16", "2025-03-10", "2025-03", time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)},
		{"UTC Monday midnight", "UTC", time.Date(2025, 3, 17, 0, 0, 0, 0, time.UTC), "2025-03-17", "2025-03-17", "2025-03", time.Date(2025, 3, 17, 0, 0, 0, 0, time.UTC)},
		{"New York still Sunday", "America/New_York", time.Date(2025, 3, 17, 3, 30, 0, 0, time.UTC), "2025-03-16", "2025-03-10", "2025-03", time.Date(2025, 3, 10, 4, 0, 0, 0, time.UTC)},
		{"Tokyo already Monday", "Asia/Tokyo", time.Date(2025, 3, 16, 15, 30, 0, 0, time.UTC), "2025-03-17", "2025-03-17", "2025-03", time.Date(2025, 3, 16, 15, 0, 0, 0, time.UTC)},
		{"New York spring forward, 23:59 of a 23-hour day", "America/New_York", time.Date(2025, 3, 10, 3, 59, 0, 0, time.UTC), "2025-03-09", "2025-03-03", "2025-03", time.Date(2025, 3, 3, 5, 0, 0, 0, time.UTC)},
		{"New York day after spring forward", "America/New_York", time.Date(2025, 3, 10, 4, 0, 0, 0, time.UTC), "2025-03-10", "2025-03-10", "2025-03", time.Date(2025, 3, 10, 4, 0, 0, 0, time.UTC)},
		{"Berlin fall back, 23:59 of a 25-hour day", "Europe/Berlin", time.Date(2025, 10, 26, 22, 59, 0, 0, time.UTC), "2025-10-26", "2025-10-20", "2025-10", time.Date(2025, 10, 19, 22, 0, 0, 0, time.UTC)},
		{"Berlin Monday after fall back", "Europe/Berlin", time.Date(2025, 10, 26, 23, 0, 0, 0, time.UTC), "2025-10-27", "2025-10-27", "2025-10", time.Date(2025, 10, 26, 23, 0, 0, 0, time.UTC)},
		{"Auckland new month", "Pacific/Auckland", time.Date(2025, 3, 31, 11, 30, 0, 0, time.UTC), "2025-04-01", "2025-03-31", "2025-04", time.Date(2025, 3, 30, 11, 0, 0, 0, time.UTC)},
		{"Kolkata half-hour offset, new year", "Asia/Kolkata", time.Date(2024, 12, 31, 18, 30, 0, 0, time.UTC), "2025-01-01", "2024-12-30", "2025-01", time.Date(2024, 12, 29, 18, 30, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := mustLoc(t, tc.zone)
			keys, day := periodKeys(tc.at, loc)
			if day != tc.day || string(keys[1]) != "d"+tc.day || string(keys[2]) != "w"+tc.week || string(keys[3]) != "m"+tc.month {
				t.Errorf("got %s %s %s (day %s), want d%s w%s m%s", keys[1], keys[2], keys[3], day, tc.day, tc.week, tc.month)
			}
			name, start, _ := periodOfAt(questions.PeriodWeek, tc.at, loc)
			if string(name) != string(keys[2]) || !start.Equal(tc.weekStartUTC) {
				t.Errorf("week start: got %s at %v, want %s at %v", name, start.UTC(), keys[2], tc.weekStartUTC)
			}
		})
	}
}

// TestPeriodsInGuildZone: the same instants fall in different periods in
// different guild time zones.
func TestPeriodsInGuildZone(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	ny := mustLoc(t, "America/New_York")
	sunday := time.Date(2025, 3, 16, 23, 30, 0, 0, ny) // 03:30 UTC Monday
	monday := time.Date(2025, 3, 17, 0, 30, 0, 0, ny)
	play(t, db, 1, []time.Time{sunday}, []bool{true})
	play(t, db, 2, []time.Time{monday}, []bool{true})
	for _, tc := range []struct {
		p    questions.Period
		at   time.Time
		want []questions.UserID
	}{
		{questions.PeriodDay, sunday, []questions.UserID{1}},
		{questions.PeriodDay, monday, []questions.UserID{2}},
		{questions.PeriodWeek, sunday, []questions.UserID{1}},
		{questions.PeriodWeek, monday.Add(6 * 24 * time.Hour), []questions.UserID{2}},
		{questions.PeriodWeek, monday.Add(7 * 24 * time.Hour), nil},
		{questions.PeriodMonth, monday, []questions.UserID{1, 2}},
		{questions.PeriodAll, time.Time{}, []questions.UserID{1, 2}},
	} {
		lb, err := db.Leaderboard(guild, tc.p, questions.ByPoints, tc.at, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := users2(lb); !slices.Equal(got, tc.want) {
			t.Errorf("%s at %v: got %v, want %v", tc.p, tc.at, got, tc.want)
		}
	}
	lb, _ := db.Leaderboard(guild, questions.PeriodDay, questions.ByPoints, monday, 0, 1)
	if want := time.Date(2025, 3, 17, 0, 0, 0, 0, ny); !lb.Start.Equal(want) {
		t.Errorf("day start: got %v, want %v", lb.Start, want)
	}
}

func TestStreaks(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if err := db.SaveSettings(t.Context(), questions.Settings{GuildID: guild, TimeZone: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	ny := mustLoc(t, "America/New_York")
	local := func(d, h int) time.Time { return time.Date(2025, 3, d, h, 30, 0, 0, ny) }
	// Member 1 studies across the spring-forward night (8 → 9 → 10 March),
	// twice on the 10th, then a late answer for the 7th arrives.
	for _, at := range []time.Time{local(8, 23), local(9, 23), local(10, 0), local(10, 22), local(7, 12)} {
		play(t, db, 1, []time.Time{at}, []bool{false})
	}
	// Member 2: 5, 6, then a gap, then 9 and 10.
	for _, d := range []int{5, 6, 9, 10} {
		play(t, db, 2, []time.Time{local(d, 12)}, []bool{true})
	}
	// Member 3: long streak 1..6, broken since.
	for d := 1; d <= 6; d++ {
		play(t, db, 3, []time.Time{local(d, 12)}, []bool{true})
	}
	// Member 4: one day, yesterday of the 11th.
	play(t, db, 4, []time.Time{local(10, 1)}, []bool{true})

	for _, tc := range []struct {
		user      questions.UserID
		at        time.Time
		cur, best int
		last      string
	}{
		{1, local(10, 23), 3, 3, "2025-03-10"},
		{1, local(11, 23), 3, 3, "2025-03-10"},
		{1, local(12, 0), 0, 3, "2025-03-10"},
		{2, local(10, 23), 2, 2, "2025-03-10"},
		{3, local(10, 23), 0, 6, "2025-03-06"},
		{3, local(7, 23), 6, 6, "2025-03-06"},
	} {
		ms, err := db.MemberStats(guild, tc.user, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if ms.All.CurrentStreak != tc.cur || ms.All.BestStreak != tc.best || ms.All.LastStudyDay != tc.last {
			t.Errorf("member %d at %v: got current %d, best %d, last %q; want %d, %d, %q",
				tc.user, tc.at, ms.All.CurrentStreak, ms.All.BestStreak, ms.All.LastStudyDay, tc.cur, tc.best, tc.last)
		}
	}
	// Leaderboard rows show live streaks too.
	lb, _ := db.Leaderboard(guild, questions.PeriodDay, questions.ByPoints, local(10, 23), 0, 10)
	for _, e := range lb.Entries {
		if e.UserID == 1 && e.CurrentStreak != 3 {
			t.Errorf("day board streak of member 1: got %d, want 3", e.CurrentStreak)
		}
	}
	for _, tc := range []struct {
		at    time.Time
		limit int
		want  []questions.UserID
	}{
		{local(10, 23), 10, []questions.UserID{1, 2, 4}},
		{local(10, 23), 2, []questions.UserID{1, 2}},
		{local(11, 23), 0, []questions.UserID{1, 2, 4}},
		{local(12, 1), 10, nil},
		{local(6, 23), 10, []questions.UserID{3}}, // member 2 has studied since: only current state is indexed
	} {
		got, err := db.ActiveStreaks(guild, tc.at, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []questions.UserID
		for _, s := range got {
			ids = append(ids, s.UserID)
			if s.CurrentStreak == 0 {
				t.Errorf("ActiveStreaks at %v: member %d with streak 0", tc.at, s.UserID)
			}
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("ActiveStreaks at %v limit %d: got %v, want %v", tc.at, tc.limit, ids, tc.want)
		}
	}
	assertRebuildEqual(t, db, guild)
}

func TestMemberStats(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p1 := mustPost(t, db, questions.Post{Bank: "Net", Tags: []string{"dns", "tcp", "dns"}})
	p2 := mustPost(t, db, questions.Post{Bank: "Net", Tags: []string{"tcp"}})
	p3 := mustPost(t, db, questions.Post{Bank: "Sec"})
	answer(t, db, p1, 1, t0, "B")
	answer(t, db, p2, 1, t0, "A")
	answer(t, db, p3, 1, t0, "B")
	answer(t, db, p3, 2, t0.Add(-time.Hour), "B")
	ms, err := db.MemberStats(guild, 1, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []questions.TopicStats{
		{Topic: "bank:Net", Answered: 2, Correct: 1},
		{Topic: "bank:Sec", Answered: 1, Correct: 1},
		{Topic: "tag:dns", Answered: 1, Correct: 1},
		{Topic: "tag:tcp", Answered: 2, Correct: 1},
	}
	if !slices.Equal(ms.Topics, want) {
		t.Errorf("topics: got %+v, want %+v", ms.Topics, want)
	}
	if ms.All.Points != 2 || ms.All.Answered != 3 || ms.All.Correct != 2 || ms.Rank != 1 {
		t.Errorf("stats: got %+v rank %d, want 2 points, 3 answered, 2 correct, rank 1", ms.All, ms.Rank)
	}
	ms, _ = db.MemberStats(guild, 9, t0)
	if ms.Rank != 0 || ms.All.UserID != 9 || ms.All.Answered != 0 || len(ms.Topics) != 0 {
		t.Errorf("stats of a stranger: got %+v", ms)
	}
}

// TestStreaksOnlyInAllTimeRow: the member record keeps the streaks with
// the all-time score only, yet every board shows them.
func TestStreaksOnlyInAllTimeRow(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	play(t, db, 1, times(t0.AddDate(0, 0, -2), 3, 24*time.Hour), bools(3, 3))
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		m, ok, err := getMember(guildRO(tx, guild).Bucket(bMembers), nil, 1)
		if err != nil || !ok || m.all.CurrentStreak != 3 {
			t.Errorf("member record: got %+v, %v, %v; want a streak of 3", m, ok, err)
		}
		for kind, r := range m.cur {
			if !r.ok || r.score.CurrentStreak != 0 || r.score.BestStreak != 0 || r.score.LastStudyDay != "" {
				t.Errorf("row of kind %d: got %+v, want one without streaks", kind, r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []questions.Period{questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth, questions.PeriodAll} {
		lb, err := db.Leaderboard(guild, p, questions.ByPoints, t0, 0, 1)
		if err != nil || len(lb.Entries) != 1 || lb.Entries[0].CurrentStreak != 3 || lb.Entries[0].BestStreak != 3 {
			t.Errorf("%s board: got %+v, %v; want member 1 with streak 3", p, lb.Entries, err)
		}
	}
}

// TestAccuracyBoardThreshold: a member joins the accuracy board with their
// 10th answer in the period.
func TestAccuracyBoardThreshold(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	for i := range questions.MinAnswersForAccuracy {
		lb, _ := db.Leaderboard(guild, questions.PeriodAll, questions.ByAccuracy, t0, 0, 10)
		if lb.Total != 0 {
			t.Fatalf("after %d answers: got total %d, want 0", i, lb.Total)
		}
		play(t, db, 1, []time.Time{t0.Add(time.Duration(i) * time.Second)}, []bool{i%2 == 0})
	}
	st, err := db.Standing(guild, 1, questions.PeriodAll, questions.ByAccuracy, t0)
	if err != nil || st.Rank != 1 || st.Accuracy() != 0.5 {
		t.Errorf("Standing: got %+v, %v; want rank 1 at 0.5", st, err)
	}
}
