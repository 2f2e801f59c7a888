package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// fsyncRate measures how many write+fdatasync pairs per second the disk
// under dir does right now: the ceiling for one-commit-per-answer.
func fsyncRate(tb testing.TB, dir string, d time.Duration) float64 {
	tb.Helper()
	f, err := os.CreateTemp(dir, "fsync")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		if _, err := f.WriteAt(buf, int64(n%64)*4096); err != nil {
			tb.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkRecordAnswer records b.N answers from 1, 64 and 1,000
// concurrent writers (distinct members, a few open posts) and reports
// answers/s, p99 latency, the raw fsync rate of the same disk measured in
// the same run, and answers per raw fsync (above 1 means commits are
// shared). "group" is RecordAnswer's group commit; "boltbatch" the same
// work through bbolt's DB.Batch, for comparison.
func BenchmarkRecordAnswer(b *testing.B) {
	for _, mode := range []string{"group", "boltbatch"} {
		for _, writers := range []int{1, 64, 1000} {
			benchRecord(b, mode, writers)
		}
	}
}

func benchRecord(b *testing.B, mode string, writers int) {
	b.Run(fmt.Sprintf("%s/writers=%d", mode, writers), func(b *testing.B) {
		db, path := newDB(b)
		if mode == "boltbatch" {
			db.write = func(_ context.Context, fn func(*bbolt.Tx, *deltas) error) error {
				return db.bolt.Batch(func(tx *bbolt.Tx) error {
					d := newDeltas()
					if err := fn(tx, d); err != nil {
						return err
					}
					return d.flush()
				})
			}
		}
		rate := fsyncRate(b, filepath.Dir(path), 300*time.Millisecond)
		var posts []questions.Post
		for i := range 4 {
			posts = append(posts, mustPost(b, db, questions.Post{QuestionID: fmt.Sprint("b#", i), Tags: []string{"t"}}))
		}
		lat := make([]time.Duration, b.N)
		var next atomic.Int64
		var commits atomic.Int64
		db.group.onCommit = func(int) { commits.Add(1) }
		before := db.bolt.Stats()
		var wg sync.WaitGroup
		b.ResetTimer()
		start := time.Now()
		for range writers {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= b.N {
						return
					}
					p := posts[i%len(posts)]
					t := time.Now()
					_, err := db.RecordAnswer(b.Context(), questions.Answer{PostID: p.ID, GuildID: guild, UserID: questions.UserID(i + 1),
						InteractionID: uint64(i + 1), Choice: []string{questions.Letter(i % 4)}, At: t0.Add(time.Duration(i) * time.Millisecond)})
					lat[i] = time.Since(t)
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.StopTimer()
		slices.Sort(lat)
		perSec := float64(b.N) / elapsed.Seconds()
		b.ReportMetric(perSec, "answers/s")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(rate, "fsync/s")
		b.ReportMetric(perSec/rate, "answers/fsync")
		// Pages written per commit, and per answer (bbolt counts the pages
		// of the commits, meta pages aside).
		after := db.bolt.Stats()
		st := after.Sub(&before)
		writes := float64(st.TxStats.GetWrite())
		b.ReportMetric(writes/float64(b.N), "pages/answer")
		if n := commits.Load(); n > 0 && mode == "group" {
			b.ReportMetric(writes/float64(n), "pages/commit")
			b.ReportMetric(float64(b.N)/float64(n), "answers/commit")
		}
	})
}

// BenchmarkLeaderboard: a guild of 100,000 members with 1,000,000
// answers; each op is a top-10 page plus one random member's standing, by
// points for the week and all time. Reports the median and p99 of an op.
func BenchmarkLeaderboard(b *testing.B) {
	db, _ := newDB(b)
	const members = 100_000
	fx := fixture{guild: guild, members: members, answers: 1_000_000, posts: 1000,
		end: t0, span: 3 * 24 * time.Hour, seed: 42}
	start := time.Now()
	buildFixture(b, db, fx)
	b.Logf("fixture of %d members, %d answers built in %v", fx.members, fx.answers, time.Since(start).Round(time.Millisecond))
	for _, tc := range []struct {
		p questions.Period
		r questions.Ranking
	}{
		{questions.PeriodWeek, questions.ByPoints},
		{questions.PeriodAll, questions.ByPoints},
		{questions.PeriodAll, questions.ByAccuracy},
		{questions.PeriodDay, questions.ByPoints},
	} {
		b.Run(fmt.Sprintf("%s-%s", tc.p, tc.r), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				user := questions.UserID(1 + r.IntN(members))
				t := time.Now()
				lb, err := db.Leaderboard(guild, tc.p, tc.r, t0, 0, 10)
				if err != nil || len(lb.Entries) != 10 {
					b.Fatalf("Leaderboard: %d entries, %v", len(lb.Entries), err)
				}
				if _, err := db.Standing(guild, user, tc.p, tc.r, t0); err != nil && !errorsIsNotFound(err) {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "median-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
		})
	}
}

// BenchmarkStandingTies is the worst case for the rank index: 100,000
// members tied on points and accuracy (one wrong answer each) who all
// answered within one minute; each op is one random member's standing.
func BenchmarkStandingTies(b *testing.B) {
	db, _ := newDB(b)
	const members = 100_000
	rows := make(map[questions.UserID]*questions.Score, members)
	for u := questions.UserID(1); u <= members; u++ {
		rows[u] = &questions.Score{UserID: u, Answered: 1, ReachedAt: t0.Add(time.Duration(u) * 600 * time.Microsecond),
			CurrentStreak: 1, BestStreak: 1, LastStudyDay: "2025-03-14"}
	}
	db.bolt.Update(func(tx *bbolt.Tx) error { _, err := guildRW(tx, guild); return err })
	if err := writeScores(db, guild, map[string]map[questions.UserID]*questions.Score{periodAll: rows}, nil); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		user := questions.UserID(1 + r.IntN(members))
		t := time.Now()
		st, err := db.Standing(guild, user, questions.PeriodAll, questions.ByPoints, t0)
		if err != nil || st.Rank != int(user) {
			b.Fatalf("Standing(%d): got rank %d, %v", user, st.Rank, err)
		}
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "median-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
}

// BenchmarkRecordAnswerWork is the CPU of RecordAnswer's write without
// the fsyncs: b.N answers (distinct members, then the same members again,
// over a few open posts), 64 to a transaction as a group commit shares
// them, on a file opened with NoSync. Its ns/op, B/op and allocs/op are
// the storage's own cost per answer.
func BenchmarkRecordAnswerWork(b *testing.B) {
	db, _ := newDB(b)
	db.bolt.NoSync = true
	var posts []questions.Post
	for i := range 4 {
		posts = append(posts, mustPost(b, db, questions.Post{QuestionID: fmt.Sprint("w#", i), Tags: []string{"t"}}))
	}
	const perTx = 64
	members := max(b.N/2, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for start := 0; start < b.N; start += perTx {
		err := db.bolt.Update(func(tx *bbolt.Tx) error {
			d := newDeltas()
			for i := start; i < min(start+perTx, b.N); i++ {
				p := posts[(i/members)%len(posts)]
				_, refused, err := db.recordAnswer(tx, d, questions.Answer{PostID: p.ID, GuildID: guild, UserID: questions.UserID(i%members + 1),
					InteractionID: uint64(i + 1), Choice: []string{questions.Letter(i % 4)}, At: t0.Add(time.Duration(i) * time.Second)})
				if err != nil || refused != nil {
					return fmt.Errorf("answer %d: %v, %v", i, err, refused)
				}
			}
			return d.flush()
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
