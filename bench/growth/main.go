// Command growth measures how quizhost's database file grows with its
// history, through storage's own API (no bot, no network):
//
//   - a year of one server, simulated day by day: -members members, each
//     day a daily quiz (open until the next day's) and three /quiz asks
//     (open 10 minutes each), answered by the members at random times,
//     members reviewing their misses in the evening, and the upkeep the bot
//     runs (scores kept 90 days, the default; expired reviews deleted).
//     At the end of each month: the file's size, bytes and keys per answer,
//     and the page fill of the buckets that take the most room;
//
//   - the large guild of bench/scale (100,000 members, 1,000,000 answers
//     through RecordAnswer, built once and cached): bytes and keys per
//     answer and the fill of each bucket.
//
//     go run ./bench/growth [-only year|large] [-members 500] [-days 365] [-seed 1]
//
// "Answers" counts every answer stored: to posts and to reviews.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quizhost/quizhost/bench/internal/harness"
	"github.com/quizhost/quizhost/questions"
	"github.com/quizhost/quizhost/storage"
)

func main() { harness.Main("growth", run) }

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("growth", flag.ContinueOnError)
	only := fs.String("only", "", `run one part: "year" (one server's year) or "large" (100,000 members)`)
	members := fs.Int("members", 500, "members of the simulated server")
	days := fs.Int("days", 365, "days simulated")
	seed := fs.Uint64("seed", 1, "seed of the simulation")
	keep := fs.Bool("keep", false, "keep the temporary directory (databases)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *members < 1 || *days < 1 || (*only != "" && *only != "year" && *only != "large") {
		return errors.New(`-members and -days must be at least 1; -only is "year" or "large"`)
	}
	tmp, _, remove, err := harness.Workdir("quizhost-growth-", *keep, out)
	if err != nil {
		return err
	}
	defer remove()
	if *only != "large" {
		if err := year(ctx, out, filepath.Join(tmp, "year.db"), *members, *days, *seed); err != nil {
			return fmt.Errorf("year: %w", err)
		}
	}
	if *only != "year" {
		if err := large(out, tmp); err != nil {
			return fmt.Errorf("large guild: %w", err)
		}
	}
	return nil
}

// tier is how a kind of member plays: the chance they answer the daily
// question, each /quiz ask, and review their misses on a day, and how often
// they are right.
type tier struct {
	share                 float64
	daily, ask, review, p float64
}

// tiers: a fifth of the members are regulars, a third come now and then,
// the rest rarely answer.
var tiers = []tier{
	{share: 0.2, daily: 0.9, ask: 0.3, review: 0.5, p: 0.75},
	{share: 0.3, daily: 0.4, ask: 0.1, review: 0.1, p: 0.65},
	{share: 0.5, daily: 0.05, ask: 0.02, review: 0, p: 0.55},
}

type member struct {
	id questions.UserID
	tier
}

const (
	guildID    questions.GuildID   = 900_000_000_000_000_001
	channelID  questions.ChannelID = 900_000_000_000_000_002
	bankName                       = "Networking Fundamentals"
	bankSize                       = 2000
	keepScores                     = 90 * 24 * time.Hour
)

var topicNames = []string{"ip", "routing", "switching", "dns", "tcp", "udp", "vlan", "wifi", "security", "ipv6", "subnetting", "osi"}

// question i of the simulated bank: its ID, tags and key (one in five
// picks two of five options, the others one of four).
func question(i int) (id string, tags, correct []string, options int) {
	id = fmt.Sprintf("%s#%d", bankName, i+1)
	tags = []string{topicNames[i%len(topicNames)]}
	if i%3 == 0 {
		tags = append(tags, topicNames[(i/3)%len(topicNames)])
	}
	if i%5 == 0 {
		return id, tags, []string{"A", "D"}, 5
	}
	return id, tags, []string{questions.Letter(i % 4)}, 4
}

// sim is the simulated server and its database.
type sim struct {
	db       *storage.DB
	r        *rand.Rand
	loc      *time.Location
	members  []member
	next     int // the next question of the bank to ask
	answers  int // stored: to posts and to reviews
	reviews  int
	ctx      context.Context
	refusals int
}

func year(ctx context.Context, out io.Writer, path string, nMembers, days int, seed uint64) error {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		return err
	}
	var now time.Time
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setNow := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
	db, err := storage.Open(ctx, path, storage.Options{Now: clock})
	if err != nil {
		return err
	}
	defer db.Close()
	s := &sim{db: db, r: rand.New(rand.NewPCG(seed, 23)), loc: loc, ctx: ctx}
	for i := range nMembers {
		t := tiers[len(tiers)-1]
		acc := 0.0
		for _, c := range tiers {
			acc += c.share
			if float64(i) < acc*float64(nMembers) {
				t = c
				break
			}
		}
		// Discord snowflakes: member IDs in no particular order.
		s.members = append(s.members, member{id: questions.UserID(1<<56 + s.r.Uint64N(1<<59)), tier: t})
	}
	if err := db.SaveSettings(ctx, questions.Settings{GuildID: guildID, TimeZone: loc.String(), RevealOnAnswer: true, AskMinutes: 10}); err != nil {
		return err
	}

	fmt.Fprintf(out, "one server's year: %d members (%s), a daily question and three asks a day, reviews of misses, scores kept %v\n",
		nMembers, tierText(), keepScores)
	fmt.Fprintf(out, "%-8s %9s %8s %9s %9s %9s %9s %6s\n", "month", "answers", "reviews", "file", "in use", "B/answer", "keys/ans", "fill")
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, loc)
	var daily questions.Post
	var months []monthly
	began := time.Now()
	for d := range days {
		if err := ctx.Err(); err != nil {
			return err
		}
		day := start.AddDate(0, 0, d)
		// Upkeep at 03:00, as the bot's daily prune and hourly expiry.
		setNow(day.Add(3 * time.Hour))
		if _, err := db.PruneScores(ctx, day.Add(3*time.Hour), keepScores); err != nil {
			return err
		}
		if _, err := db.PruneExpired(ctx, day.Add(3*time.Hour)); err != nil {
			return err
		}
		// 09:00: yesterday's daily question closes, today's is posted.
		at := day.Add(9 * time.Hour)
		setNow(at)
		if daily.ID != 0 {
			if err := s.close(daily, at); err != nil {
				return err
			}
		}
		if daily, err = s.post(at, true); err != nil {
			return err
		}
		// The members' answers to it during the day, and three asks.
		var events []event
		for _, m := range s.members {
			if s.r.Float64() < m.daily {
				events = append(events, event{at: at.Add(time.Duration(s.r.Int64N(int64(14 * time.Hour)))), post: &daily, m: m})
			}
		}
		asks := make([]questions.Post, 3)
		for i, h := range []int{12, 16, 20} {
			askAt := day.Add(time.Duration(h) * time.Hour)
			events = append(events, event{at: askAt, ask: &asks[i]})
			for _, m := range s.members {
				if s.r.Float64() < m.ask {
					events = append(events, event{at: askAt.Add(time.Second + time.Duration(s.r.Int64N(int64(9*time.Minute)))), post: &asks[i], m: m})
				}
			}
			events = append(events, event{at: askAt.Add(10 * time.Minute), close: &asks[i]})
		}
		slices.SortStableFunc(events, func(a, b event) int { return a.at.Compare(b.at) })
		if err := s.play(events, setNow); err != nil {
			return err
		}
		// 21:30: reviews of the misses due.
		setNow(day.Add(21*time.Hour + 30*time.Minute))
		if err := s.review(day.Add(21*time.Hour + 30*time.Minute)); err != nil {
			return err
		}
		if next := day.AddDate(0, 0, 1); next.Month() != day.Month() || d == days-1 {
			sp, err := db.Space()
			if err != nil {
				return err
			}
			m := monthly{name: day.Format("2006-01"), answers: s.answers, reviews: s.reviews, space: sp}
			months = append(months, m)
			fmt.Fprintln(out, m.line())
		}
		if d%30 == 29 {
			fmt.Fprintf(os.Stderr, "  day %d of %d, %v\n", d+1, days, time.Since(began).Round(time.Second))
		}
	}
	fmt.Fprintf(out, "simulated in %v; %d answers refused (closed before they came)\n", time.Since(began).Round(time.Second), s.refusals)
	last := months[len(months)-1]
	fmt.Fprintf(out, "\npage fill of the buckets that hold the most, at the end of each month (target: the year's file under 50 MB)\n")
	kinds := topKinds(last.space, 10)
	fmt.Fprintf(out, "%-44s", "bucket")
	for _, m := range months {
		fmt.Fprintf(out, " %5s", m.name[2:])
	}
	fmt.Fprintln(out)
	for _, k := range kinds {
		fmt.Fprintf(out, "%-44s", k)
		for _, m := range months {
			fmt.Fprintf(out, " %5s", fill(m.space, k))
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	printKinds(out, last.space, last.answers)
	return nil
}

func tierText() string {
	var parts []string
	for _, t := range tiers {
		parts = append(parts, fmt.Sprintf("%.0f%% answering the daily with p=%.2f, an ask %.2f, reviewing %.2f", 100*t.share, t.daily, t.ask, t.review))
	}
	return strings.Join(parts, "; ")
}

// event is one thing happening on a simulated day: an answer (post and
// m), an ask posted (ask) or closed (close).
type event struct {
	at    time.Time
	post  *questions.Post
	m     member
	ask   *questions.Post
	close *questions.Post
}

// play runs a day's events in time order; consecutive answers are recorded
// by up to 16 members at once, so that they share commits as members
// answering together do.
func (s *sim) play(events []event, setNow func(time.Time)) error {
	for i := 0; i < len(events); {
		e := events[i]
		setNow(e.at)
		switch {
		case e.ask != nil:
			p, err := s.post(e.at, false)
			if err != nil {
				return err
			}
			*e.ask = p
			i++
		case e.close != nil:
			if err := s.close(*e.close, e.at); err != nil {
				return err
			}
			i++
		default:
			j := i
			for j < len(events) && events[j].post != nil {
				j++
			}
			if err := s.answerAll(events[i:j]); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

func (s *sim) answerAll(evs []event) error {
	type job struct{ a questions.Answer }
	jobs := make([]job, len(evs))
	for i, e := range evs {
		choice := slices.Clone(e.post.Correct)
		if s.r.Float64() >= e.m.p {
			choice = wrong(e.post.Correct, e.post.OptionCount)
		}
		jobs[i] = job{a: questions.Answer{PostID: e.post.ID, GuildID: guildID, UserID: e.m.id, InteractionID: s.r.Uint64(),
			Choice: choice, At: e.at}}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := 0
	for range min(16, len(jobs)) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(jobs) {
					return
				}
				_, err := s.db.RecordAnswer(s.ctx, jobs[i].a)
				mu.Lock()
				switch {
				case err == nil:
					s.answers++
				case errors.Is(err, questions.ErrAlreadyAnswered), errors.Is(err, questions.ErrClosed):
					s.refusals++
				default:
					if firstErr == nil {
						firstErr = err
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return firstErr
}

// post posts the next question of the bank at `at`: the daily question
// (open until the next day's) or an ask (open 10 minutes).
func (s *sim) post(at time.Time, daily bool) (questions.Post, error) {
	id, tags, correct, options := question(s.next % bankSize)
	s.next++
	p := questions.Post{GuildID: guildID, ChannelID: channelID, QuestionID: id, Bank: bankName, Tags: tags,
		Correct: correct, OptionCount: options, SelectCount: len(correct), Daily: daily, OpenedAt: at}
	if !daily {
		p.ClosesAt = at.Add(10 * time.Minute)
	}
	p, err := s.db.CreatePost(s.ctx, p)
	if err != nil {
		return p, err
	}
	return p, s.db.SetPostMessage(s.ctx, p.ID, questions.MessageID(1<<57+uint64(p.ID)))
}

// wrong is a wrong choice of as many letters as correct: its first letter
// then the next ones that are not correct.
func wrong(correct []string, options int) []string {
	out := correct[: len(correct)-1 : len(correct)-1]
	for i := range options {
		if l := questions.Letter(i); !slices.Contains(correct, l) {
			return append(slices.Clone(out), l)
		}
	}
	return correct
}

func (s *sim) close(p questions.Post, at time.Time) error {
	if _, _, err := s.db.ClosePost(s.ctx, p.ID, at); err != nil {
		return err
	}
	return s.db.MarkRevealed(s.ctx, p.ID)
}

// review: the members who review today go through the misses due in
// their review queue as /quiz review does, at most five each, several
// members at once.
func (s *sim) review(at time.Time) error {
	type session struct {
		m   member
		due []questions.Memory
		r   *rand.Rand
	}
	var sessions []session
	for _, m := range s.members {
		if s.r.Float64() >= m.review {
			continue
		}
		q, err := s.db.ReviewQueue(guildID, m.id, at, nil, questions.ExamPlan{})
		if err != nil {
			return err
		}
		var misses []questions.Memory
		for _, mem := range q.Due {
			if mem.Missed() && len(misses) < questions.MaxOpenReviews {
				misses = append(misses, mem)
			}
		}
		if len(misses) > 0 {
			sessions = append(sessions, session{m, misses, rand.New(rand.NewPCG(s.r.Uint64(), 1))})
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	work := make(chan session)
	for range 16 {
		wg.Go(func() {
			for ss := range work {
				n, err := s.session(ss.m, ss.due, at, ss.r)
				mu.Lock()
				s.answers += n
				s.reviews += n
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	for _, ss := range sessions {
		work <- ss
	}
	close(work)
	wg.Wait()
	return firstErr
}

// session is one member's review of due: each question started, then
// answered 20 s later; it returns how many were answered.
func (s *sim) session(m member, due []questions.Memory, at time.Time, r *rand.Rand) (int, error) {
	t := at
	for i, mem := range due {
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(mem.QuestionID, bankName+"#"), "%d", &n); err != nil {
			return i, fmt.Errorf("question %q: %w", mem.QuestionID, err)
		}
		_, tags, correct, options := question(n - 1)
		rv, err := s.db.StartReview(s.ctx, questions.Review{GuildID: guildID, UserID: m.id, QuestionID: mem.QuestionID,
			Bank: bankName, Tags: tags, Correct: correct, OptionCount: options, SelectCount: len(correct), OpenedAt: t})
		if err != nil {
			return i, err
		}
		choice := slices.Clone(correct)
		if r.Float64() >= m.p+0.1 {
			choice = wrong(correct, options)
		}
		t = t.Add(20 * time.Second)
		if _, err := s.db.RecordReview(s.ctx, questions.Answer{PostID: rv.ID.Post(), GuildID: guildID, UserID: m.id,
			InteractionID: r.Uint64(), Choice: choice, At: t}); err != nil {
			return i, err
		}
	}
	return len(due), nil
}

type monthly struct {
	name             string
	answers, reviews int
	space            storage.Space
}

func (m monthly) line() string {
	used, alloc := 0, 0
	for _, k := range m.space.Kinds {
		used += k.Used
		alloc += k.Alloc
	}
	inUse := int64(m.space.Pages-m.space.FreePages) * int64(m.space.PageSize)
	return fmt.Sprintf("%-8s %9d %8d %9s %9s %9.0f %9.2f %5.0f%%", m.name, m.answers, m.reviews, mb(m.space.FileBytes), mb(inUse),
		float64(m.space.FileBytes)/float64(max(m.answers, 1)), float64(m.space.Keys)/float64(max(m.answers, 1)),
		100*float64(used)/float64(max(alloc, 1)))
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

// topKinds lists the n kinds of bucket with the most bytes allocated.
func topKinds(s storage.Space, n int) []string {
	var out []string
	for _, k := range s.Kinds[:min(n, len(s.Kinds))] {
		out = append(out, k.Kind)
	}
	return out
}

func fill(s storage.Space, kind string) string {
	for _, k := range s.Kinds {
		if k.Kind == kind && k.Alloc > 0 {
			return fmt.Sprintf("%.0f%%", 100*k.Fill())
		}
	}
	return "-"
}

// printKinds prints every kind of bucket holding at least 0.5% of the file:
// its keys and bytes per answer and its fill.
func printKinds(out io.Writer, s storage.Space, answers int) {
	fmt.Fprintf(out, "file %s, %d pages of %d bytes (%d free), %d keys, %d answers\n", mb(s.FileBytes), s.Pages, s.PageSize, s.FreePages, s.Keys, answers)
	fmt.Fprintf(out, "%-44s %10s %12s %12s %6s\n", "bucket", "keys/ans", "used B/ans", "alloc B/ans", "fill")
	kinds := slices.Clone(s.Kinds)
	slices.SortFunc(kinds, func(a, b storage.BucketSpace) int { return cmp.Compare(b.Alloc+b.Used, a.Alloc+a.Used) })
	a := float64(max(answers, 1))
	for _, k := range kinds {
		if float64(max(k.Alloc, k.Used)) < 0.005*float64(s.FileBytes) {
			continue
		}
		fmt.Fprintf(out, "%-44s %10.2f %12.1f %12.1f %5.0f%%\n", k.Kind, float64(k.Keys)/a, float64(k.Used)/a, float64(k.Alloc)/a, 100*k.Fill())
	}
	free := int64(s.FreePages) * int64(s.PageSize)
	fmt.Fprintf(out, "%-44s %10s %12s %12.1f\n", "(free pages)", "", "", float64(free)/a)
}

// large measures the large guild of bench/scale.
func large(out io.Writer, tmp string) error {
	cached, err := harness.CachedGuild(out)
	if err != nil {
		return err
	}
	path := filepath.Join(tmp, "large.db")
	if err := harness.CopyFile(path, cached); err != nil {
		return err
	}
	db, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := db.Space()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nthe large guild: %d members, %d answers through RecordAnswer (target: at most 250 bytes of file per answer)\n",
		harness.LargeMembers, harness.LargeAnswers)
	fmt.Fprintf(out, "%.0f bytes of file per answer, %.2f keys per answer\n", float64(s.FileBytes)/harness.LargeAnswers, float64(s.Keys)/harness.LargeAnswers)
	printKinds(out, s, harness.LargeAnswers)
	return nil
}
