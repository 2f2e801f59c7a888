package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// storedObs is an answer to a post as the oracle reads it from the answer
// records (not a review's or a drill's, not a mock answer).
type storedObs struct {
	seq    uint64
	user   questions.UserID
	qid    string
	bank   string
	key    []string
	choice []string
	right  bool
}

// scratchStats computes every question's statistics from the stored
// answers the slow, obvious way: each answer's rest-of-bank accuracy by
// walking every earlier answer of its member, the correlation by means and
// deviations (not running sums).
func scratchStats(t *testing.T, db *DB, guildID questions.GuildID) map[string]questions.QuestionStats {
	t.Helper()
	var obs []storedObs
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		names := namesOf(g)
		posts := map[questions.PostID]questions.Post{} // decoded once, not per answer
		return g.Bucket(bAnswers).ForEach(func(k, v []byte) error {
			qid, err := names.of(recordNum(k))
			if err != nil || qid == "" {
				return err
			}
			rec, err := decodeRecord(k, v, qid)
			if err != nil {
				return err
			}
			for _, ra := range rec.answers {
				if ra.review || ra.mock { // a mock answer's ID is a mock exam's
					continue
				}
				p, ok := posts[ra.id]
				if !ok {
					if p, err = getPost(tx, ra.id); err != nil {
						return err
					}
					posts[ra.id] = p
				}
				obs = append(obs, storedObs{seq: ra.seq, user: rec.user, qid: qid, bank: p.Bank, key: p.Correct, choice: ra.choice, right: ra.right})
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(obs, func(a, b storedObs) int { return int(a.seq) - int(b.seq) })
	type xy struct {
		x float64
		y float64
	}
	out := map[string]questions.QuestionStats{}
	samples := map[string][]xy{}
	combos := map[string]map[string]int{}
	for i, o := range obs {
		s := out[o.qid]
		s.QuestionID, s.Bank, s.Key = o.qid, o.bank, o.key
		restN, restC := 0, 0
		for _, e := range obs[:i] {
			if e.user == o.user && e.bank == o.bank && e.qid != o.qid {
				restN++
				if e.right {
					restC++
				}
			}
		}
		s.Answers++
		strong := false
		if o.right {
			s.Right++
		}
		if restN >= questions.MinRestAnswers {
			y := float64(restC) / float64(restN)
			x := 0.0
			if o.right {
				x = 1
			}
			samples[o.qid] = append(samples[o.qid], xy{x, y})
			strong = y >= questions.StrongAccuracy
		}
		if strong {
			s.Strong++
		}
		for len(s.Options) < 4 {
			s.Options = append(s.Options, questions.OptionPicks{})
		}
		for _, l := range o.choice {
			op := &s.Options[questions.LetterIndex(l)]
			if o.right {
				op.Right++
			} else {
				op.Wrong++
			}
			if strong {
				op.Strong++
			}
		}
		if !o.right {
			if combos[o.qid] == nil {
				combos[o.qid] = map[string]int{}
			}
			combos[o.qid][fmt.Sprint(o.choice)]++
		}
		out[o.qid] = s
	}
	for qid, s := range out {
		for c, n := range combos[qid] {
			s.WrongCombos = append(s.WrongCombos, questions.ComboCount{Letters: parseCombo(c), Count: n})
		}
		slices.SortFunc(s.WrongCombos, func(a, b questions.ComboCount) int {
			if a.Count != b.Count {
				return b.Count - a.Count
			}
			return slices.Compare(a.Letters, b.Letters)
		})
		xs := samples[qid]
		s.Disc.N = len(xs)
		var mx, my float64
		for _, p := range xs {
			mx += p.x
			my += p.y
			if p.x == 1 {
				s.Disc.SumX++
			}
		}
		if len(xs) > 0 {
			mx /= float64(len(xs))
			my /= float64(len(xs))
		}
		var sxy, sxx, syy float64
		for _, p := range xs {
			sxy += (p.x - mx) * (p.y - my)
			sxx += (p.x - mx) * (p.x - mx)
			syy += (p.y - my) * (p.y - my)
		}
		// The oracle's index goes in SumXY (compared with Index below).
		s.Disc.SumXY = math.NaN()
		if sxx > 0 && syy > 1e-12 {
			s.Disc.SumXY = sxy / math.Sqrt(sxx*syy)
		}
		out[qid] = s
	}
	return out
}

// parseCombo reads fmt.Sprint of a []string ("[A C]").
func parseCombo(s string) []string {
	var out []string
	for _, c := range s[1 : len(s)-1] {
		if c != ' ' {
			out = append(out, string(c))
		}
	}
	return out
}

// compareStats compares the stored statistics with the oracle's.
func compareStats(t *testing.T, got []questions.QuestionStats, want map[string]questions.QuestionStats) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got statistics of %d questions, want %d", len(got), len(want))
	}
	for _, g := range got {
		w, ok := want[g.QuestionID]
		if !ok {
			t.Errorf("%s: statistics of a question without answers", g.QuestionID)
			continue
		}
		if g.Answers != w.Answers || g.Right != w.Right || g.Strong != w.Strong || g.Bank != w.Bank || !slices.Equal(g.Key, w.Key) {
			t.Errorf("%s: got answers %d right %d strong %d bank %q key %v, want %d %d %d %q %v", g.QuestionID,
				g.Answers, g.Right, g.Strong, g.Bank, g.Key, w.Answers, w.Right, w.Strong, w.Bank, w.Key)
		}
		if !reflect.DeepEqual(g.Options, w.Options) {
			t.Errorf("%s: got picks %v, want %v", g.QuestionID, g.Options, w.Options)
		}
		if !reflect.DeepEqual(g.WrongCombos, w.WrongCombos) {
			t.Errorf("%s: got wrong combinations %v, want %v", g.QuestionID, g.WrongCombos, w.WrongCombos)
		}
		if g.Disc.N != w.Disc.N || g.Disc.SumX != w.Disc.SumX {
			t.Errorf("%s: got discrimination over %d answers (%d right), want %d (%d)", g.QuestionID, g.Disc.N, g.Disc.SumX, w.Disc.N, w.Disc.SumX)
		}
		r, ok := g.Discrimination()
		wr := w.Disc.SumXY
		if ok != !math.IsNaN(wr) || ok && math.Abs(r-wr) > 1e-9 {
			t.Errorf("%s: got discrimination %v (defined %v), want %v", g.QuestionID, r, ok, wr)
		}
	}
}

// TestStatsProperty records 1,000 random answers (of members of unequal
// skill; a tenth one at a time, a tenth at once through the group commit,
// the rest ten to a transaction) to several posts of the
// questions of two banks, single and multiple choice, and checks that the
// statistics kept by RecordAnswer equal a computation from scratch over
// the stored answers; then that a regrade and RebuildStats keep them so.
func TestStatsProperty(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	rng := rand.New(rand.NewPCG(22, 1))
	type qdef struct {
		id, bank string
		key      []string
	}
	var qs []qdef
	for b, bank := range []string{"Alpha", "Beta"} {
		for i := range 6 {
			key := []string{questions.Letter(rng.IntN(4))}
			if i == 5 {
				key = []string{"A", "C"}
			}
			qs = append(qs, qdef{id: fmt.Sprintf("%s#%d", bank, i+1), bank: []string{"Alpha", "Beta"}[b], key: key})
		}
	}
	var posts []questions.Post
	for _, q := range qs {
		for range 3 {
			posts = append(posts, mustPost(t, db, questions.Post{QuestionID: q.id, Bank: q.bank, Correct: q.key}))
		}
	}
	const members = 40
	skill := make([]float64, members+1)
	for m := 1; m <= members; m++ {
		skill[m] = rng.Float64()
	}
	answered := map[[2]uint64]bool{}
	pick := func() (questions.Post, questions.UserID, []string) {
		for {
			p := posts[rng.IntN(len(posts))]
			u := questions.UserID(1 + rng.IntN(members))
			if answered[[2]uint64{uint64(p.ID), uint64(u)}] {
				continue
			}
			answered[[2]uint64{uint64(p.ID), uint64(u)}] = true
			choice := p.Correct
			if rng.Float64() > skill[u] {
				choice = nil
				for len(choice) < len(p.Correct) {
					l := questions.Letter(rng.IntN(4))
					if !slices.Contains(choice, l) {
						choice = append(choice, l)
					}
				}
			}
			return p, u, choice
		}
	}
	at := t0
	next := func() questions.Answer {
		p, u, choice := pick()
		at = at.Add(time.Second)
		return questions.Answer{PostID: p.ID, GuildID: guild, UserID: u, InteractionID: uint64(u)*1000 + uint64(p.ID), Choice: choice, At: at}
	}
	for i := 0; i < 1000; i += 10 {
		var as []questions.Answer
		for range 10 {
			as = append(as, next())
		}
		switch i % 100 {
		case 0:
			// Ten one at a time: a commit each.
			for _, a := range as {
				if _, err := db.RecordAnswer(t.Context(), a); err != nil {
					t.Fatal(err)
				}
			}
		case 50:
			// Ten at once: the group commit has them share transactions.
			var wg sync.WaitGroup
			errs := make(chan error, len(as))
			for _, a := range as {
				wg.Go(func() {
					_, err := db.RecordAnswer(t.Context(), a)
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		default:
			// Ten in one transaction, as the group commit records a burst.
			answerTogether(t, db, as)
		}
	}
	got, err := db.QuestionStats(guild, "")
	if err != nil {
		t.Fatal(err)
	}
	compareStats(t, got, scratchStats(t, db, guild))
	alpha, err := db.QuestionStats(guild, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if len(alpha) != 6 {
		t.Errorf("bank alpha: got %d questions, want 6", len(alpha))
	}

	// Regrade one question: its posts must be closed first.
	for _, p := range posts {
		if p.QuestionID == qs[0].id {
			if _, _, err := db.ClosePost(t.Context(), p.ID, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	newKey := []string{"D"}
	if slices.Equal(qs[0].key, newKey) {
		newKey = []string{"A"}
	}
	if _, err := db.Regrade(t.Context(), guild, qs[0].id, newKey, 4); err != nil {
		t.Fatal(err)
	}
	afterRegrade, err := db.QuestionStats(guild, "")
	if err != nil {
		t.Fatal(err)
	}
	compareStats(t, afterRegrade, scratchStats(t, db, guild))
	if !slices.Equal(afterRegrade[0].Key, newKey) {
		t.Errorf("after the regrade the key is %v, want %v", afterRegrade[0].Key, newKey)
	}

	// RebuildStats changes nothing: the same additions in the same order.
	if err := db.RebuildStats(t.Context(), guild); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := db.QuestionStats(guild, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rebuilt, afterRegrade) {
		t.Errorf("RebuildStats changed the statistics:\n got %+v\nwant %+v", rebuilt, afterRegrade)
	}
}

// TestDismissFlags: a dismissal holds until the statistics change.
func TestDismissFlags(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "bank#1"})
	answer(t, db, p, 1, t0, "A")
	st, err := db.QuestionStats(guild, "bank")
	if err != nil || len(st) != 1 {
		t.Fatalf("QuestionStats: %v, %d questions", err, len(st))
	}
	if err := db.DismissFlags(t.Context(), guild, st[0].Number); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.QuestionStat(guild, st[0].Number); !got.Dismissed {
		t.Errorf("after DismissFlags: Dismissed false, want true")
	}
	answer(t, db, p, 2, t0, "B")
	if got, _ := db.QuestionStat(guild, st[0].Number); got.Dismissed || got.Answers != 2 {
		t.Errorf("after another answer: Dismissed %v, answers %d; want false, 2", got.Dismissed, got.Answers)
	}
	if err := db.DismissFlags(t.Context(), guild, 999); !errors.Is(err, questions.ErrNotFound) {
		t.Errorf("DismissFlags of an unknown number: %v, want ErrNotFound", err)
	}
	nums, err := db.QuestionNumbers(t.Context(), guild, []string{"bank#1", "bank#2"})
	if err != nil || nums["bank#1"] != st[0].Number || nums["bank#2"] == 0 || nums["bank#2"] == nums["bank#1"] {
		t.Errorf("QuestionNumbers: %v, %v", nums, err)
	}
	if got, err := db.QuestionStat(guild, nums["bank#2"]); err != nil || got.QuestionID != "bank#2" || got.Answers != 0 {
		t.Errorf("QuestionStat of a question without answers: %+v, %v", got, err)
	}
}

// TestMigrateStats: migration 9 counts the statistics of a file's
// answers as RecordAnswer would have.
func TestMigrateStats(t *testing.T) {
	t.Parallel()
	db, path := newDB(t)
	p := mustPost(t, db, questions.Post{QuestionID: "bank#1"})
	for u := range questions.UserID(12) {
		answer(t, db, p, u+1, t0, questions.Letter(int(u)%4))
	}
	want, err := db.QuestionStats(guild, "")
	if err != nil {
		t.Fatal(err)
	}
	backToSchema8(t, db, guild)
	db.Close()
	db = openPath(t, path)
	got, err := db.QuestionStats(guild, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) != 1 || got[0].Answers != 12 {
		t.Errorf("after migration 9: got %+v, want %+v", got, want)
	}
}

// BenchmarkQuestionStats reads the statistics of a bank of 10,000
// questions, as /quizadmin insights does, and reports the p99 of a call.
// Each question's record is what 100 answers of members of every skill
// leave (1,000,000 answers in all); QuestionStats reads one record per
// question, whatever the answers and members behind it.
func BenchmarkQuestionStats(b *testing.B) {
	db, _ := newDB(b)
	const n = 10_000
	rng := rand.New(rand.NewPCG(1, 2))
	if err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, guild)
		if err != nil {
			return err
		}
		for i := range n {
			qid := fmt.Sprintf("AWS Cloud Practitioner#%d", i+1)
			num, _, err := questionNum(g, nil, qid, true)
			if err != nil {
				return err
			}
			var s qstat
			for range 100 {
				right := rng.IntN(3) > 0
				choice := uint32(1)
				if !right {
					choice = 1 << (1 + rng.IntN(3))
				}
				s.add(statObs{bank: "AWS Cloud Practitioner", key: 1, choice: choice, options: 4, right: right,
					restN: 5 + rng.IntN(50), restC: rng.IntN(5)})
			}
			if err := g.Bucket(bQstats).Put(binary.BigEndian.AppendUint32(nil, num), encodeQstat(s)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		st, err := db.QuestionStats(guild, "AWS Cloud Practitioner")
		if err != nil || len(st) != n {
			b.Fatalf("QuestionStats: %d questions, %v", len(st), err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// TestDiscriminationWorked: four members answer five questions of a bank
// (5, 4, 2 and 1 of them right), then a sixth; the sixth's
// discrimination is over their accuracy on the other five, worked by
// hand: y = 1, 0.8, 0.4, 0.2 and x = 1, 1, 0, 1 give means 0.6 and 0.75,
// Σdx·dy = 0.2, Σdx² = 0.75, Σdy² = 0.4, r = 0.2 / √0.3 = 0.365148. The
// first five questions' answers count toward none (each member had at
// most 4 answers on the rest of the bank then, under
// questions.MinRestAnswers), and the strong members (75% or more
// elsewhere) are the first two.
func TestDiscriminationWorked(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	var posts []questions.Post
	for i := range 6 {
		posts = append(posts, mustPost(t, db, questions.Post{QuestionID: fmt.Sprintf("worked#%d", i+1), Bank: "Worked", Correct: []string{"A"}}))
	}
	rightOfFive := []int{5, 4, 2, 1}
	sixth := []string{"A", "A", "C", "A"}
	for m, n := range rightOfFive {
		user := questions.UserID(100 + m)
		for i := range 5 {
			choice := "A"
			if i >= n {
				choice = "B"
			}
			answer(t, db, posts[i], user, t0.Add(time.Duration(i)*time.Minute), choice)
		}
	}
	for m := range rightOfFive {
		answer(t, db, posts[5], questions.UserID(100+m), t0.Add(time.Hour), sixth[m])
	}
	st, err := db.QuestionStats(guild, "Worked")
	if err != nil || len(st) != 6 {
		t.Fatalf("QuestionStats: %v, %d questions; want 6", err, len(st))
	}
	for _, s := range st[:5] {
		if s.Disc.N != 0 {
			t.Errorf("%s: %d answers counted toward discrimination, want 0", s.QuestionID, s.Disc.N)
		}
	}
	s := st[5]
	r, ok := s.Discrimination()
	if s.QuestionID != "worked#6" || !ok || math.Abs(r-0.365148) > 1e-6 || s.Disc.N != 4 || s.Strong != 2 {
		t.Errorf("%s: discrimination %.6f (%v) over %d answers, %d strong; want 0.365148 over 4, 2 strong", s.QuestionID, r, ok, s.Disc.N, s.Strong)
	}
	if s.Answers != 4 || s.Right != 3 || s.Options[0].Strong != 2 || s.Options[2].Wrong != 1 {
		t.Errorf("%s: %+v", s.QuestionID, s)
	}
}

// TestStatsVersion: the version changes with each answer, a dismissal, a
// regrade and a rebuild, and never goes back.
func TestStatsVersion(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	if v, err := db.StatsVersion(guild); err != nil || v != 0 {
		t.Fatalf("a guild without statistics: %d, %v; want 0", v, err)
	}
	p := mustPost(t, db, questions.Post{QuestionID: "bank#1"})
	last := uint64(0)
	step := func(what string, f func()) {
		t.Helper()
		f()
		v, err := db.StatsVersion(guild)
		if err != nil || v <= last {
			t.Errorf("after %s: version %d, %v; want more than %d", what, v, err, last)
		}
		last = v
	}
	step("an answer", func() { answer(t, db, p, 1, t0, "A") })
	step("another answer", func() { answer(t, db, p, 2, t0, "B") })
	step("a dismissal", func() {
		if err := db.DismissFlags(t.Context(), guild, 1); err != nil {
			t.Fatal(err)
		}
	})
	step("a regrade", func() {
		if _, _, err := db.ClosePost(t.Context(), p.ID, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Regrade(t.Context(), guild, "bank#1", []string{"A"}, 4); err != nil {
			t.Fatal(err)
		}
	})
	step("a rebuild", func() {
		if err := db.RebuildStats(t.Context(), guild); err != nil {
			t.Fatal(err)
		}
	})
}

// backToSchema8 makes db's file what schema version 8 left of the guild's:
// no statistics buckets, the schema stamped 8 (reopened, migration 9 runs).
func backToSchema8(t *testing.T, db *DB, guildID questions.GuildID) {
	t.Helper()
	if err := db.bolt.Update(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		for _, name := range [][]byte{bQstats, bQbanks} {
			if err := g.DeleteBucket(name); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put(kSchema, u64(uint64(8)))
	}); err != nil {
		t.Fatal(err)
	}
}
