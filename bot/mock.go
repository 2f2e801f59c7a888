package bot

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot/internal/discord"
	"github.com/quizhost/quizhost/chart"
	"github.com/quizhost/quizhost/questions"
)

// /quiz mock: a member's private, timed attempt at a bank's exam. The
// attempt is drawn and stored at the start (questions.DrawMock,
// Store.StartMock); each click on its private message is a new
// interaction, answered through its own token by an update of that
// message, so an attempt may last longer than the 15 minutes an
// interaction's token lives, and /quiz mock shows the open attempt again
// to a member who lost the message. Every click first ends an attempt
// whose deadline has passed and shows its result; the scheduler also ends
// it at the deadline (runMocks) and sends the result by direct message.
// The rendering is mockrender.go; the exam settings, examsettings.go.

// mockHistoryShown is how many of a member's ended attempts /quiz stats
// shows and charts.
const mockHistoryShown = 20

// mockDMTries is how many times the scheduler tries to send a timed-out
// attempt's result before it gives up (a closed DM is never retried).
const mockDMTries = 5

// mock starts the member's mock exam, or shows the one they have open
// (/quiz mock [bank] [questions] [minutes]), after a private deferral:
// the draw reads the member's memory and the server's open questions.
func (b *Bot) mock(c *call, opts options) (response, error) {
	return later(func() (response, error) { return b.mockStart(c, opts) }), nil
}

// mockStart is /quiz mock's work.
func (b *Bot) mockStart(c *call, opts options) (response, error) {
	now := b.clock.Now()
	latest, err := b.store.LatestMock(c.guild, c.user)
	switch {
	case errors.Is(err, questions.ErrNotFound):
	case err != nil:
		return response{}, fmt.Errorf("mock: %w", err)
	case latest.Expired(now), latest.Open(), latest.TimedOut && !latest.Seen:
		// The attempt open (or ended by its deadline and not seen): show
		// it, ending it first if its time is up.
		return b.mockChange(c, latest.ID, true, func(m *questions.Mock, now time.Time) error { return nil })
	}

	bk, err := b.mockBank(c, opts)
	if err != nil {
		return response{}, err
	}
	exam, err := b.examOf(c.guild, bk)
	if err != nil {
		return response{}, err
	}
	open, err := b.store.OpenQuestions(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("mock: %w", err)
	}
	mems, err := b.store.Memories(c.guild, c.user)
	if err != nil {
		return response{}, fmt.Errorf("mock: %w", err)
	}
	available := 0
	for _, q := range bk.Questions {
		if !open[q.ID] {
			available++
		}
	}
	asked, _ := opts.int("questions")
	minutes, _ := opts.int("minutes")
	n, mins := exam.Plan(available, asked, minutes)
	if n == 0 {
		return response{}, userErr("Every question of **%s** is open in the server right now: answer them there, then try again once they close.", bk.Name)
	}
	items := questions.DrawMock(questions.MockDraw{Questions: bk.Questions, Exam: exam, N: n, Memories: memoryMap(mems),
		Skip: func(id string) bool { return open[id] }, Rand: b.pick})
	m := questions.Mock{GuildID: c.guild, UserID: c.user, Bank: bk.Name, Pass: exam.PassMark(), StartedAt: now,
		Deadline: now.Add(time.Duration(mins) * time.Minute), Items: items}
	for _, d := range exam.Domains {
		m.Domains = append(m.Domains, d.Name)
	}
	m, err = b.store.StartMock(c.ctx, m)
	if errors.Is(err, questions.ErrMockOpen) { // started meanwhile, from another device
		return b.mockChange(c, m.ID, true, func(*questions.Mock, time.Time) error { return nil })
	}
	if err != nil {
		return response{}, fmt.Errorf("mock: %w", err)
	}
	b.poke() // its deadline may be the scheduler's next
	lead := mockStartText(m, len(items), asked, available)
	return asReply(mockQuestionMessage(m, b.mockQuestion(c.guild, m, m.Current), lead)), nil
}

// mockBank is the bank /quiz mock draws from: the one named, else the
// bank of the member's exam date, else the server's only bank it draws
// from (its setting, or the only bank it has).
func (b *Bot) mockBank(c *call, opts options) (*questions.Bank, error) {
	banks, err := b.guildBanks(c.guild)
	if err != nil {
		return nil, err
	}
	if name, ok := opts.str("bank"); ok && strings.TrimSpace(name) != "" {
		if bk := findBank(banks, name); bk != nil {
			return bk, nil
		}
		return nil, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(name, 100))
	}
	if e, err := b.store.ExamDate(c.guild, c.user); err == nil && e.Bank != "" {
		if bk := findBank(banks, e.Bank); bk != nil {
			return bk, nil
		}
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	if len(set.Banks) == 1 {
		if bk := findBank(banks, set.Banks[0]); bk != nil {
			return bk, nil
		}
	}
	if len(banks) == 1 {
		return banks[0], nil
	}
	names := make([]string, 0, len(banks))
	for _, bk := range banks {
		names = append(names, bk.Name)
	}
	return nil, userErr("Which bank? Name it: `/quiz mock bank:<name>` (%s).", truncate(strings.Join(names, ", "), 1500))
}

// mockQuestion is question i of the attempt as the guild's banks have it
// now; nil when it is gone or no longer has the options it had.
func (b *Bot) mockQuestion(guild questions.GuildID, m questions.Mock, i int) *questions.Question {
	if i < 0 || i >= len(m.Items) {
		return nil
	}
	q := b.question(guild, m.Items[i].QuestionID)
	if q == nil || len(q.Options) != m.Items[i].OptionCount {
		return nil
	}
	return q
}

// mockChange applies change to the member's attempt id (mockUpdate) and
// answers with what to show (mockShow).
func (b *Bot) mockChange(c *call, id questions.MockID, reply bool, change func(*questions.Mock, time.Time) error) (response, error) {
	u, err := b.mockUpdate(c, id, change)
	if err != nil {
		return response{}, err
	}
	return b.mockShow(c, u, reply)
}

// mockUpdated is an attempt as a click left it: whether the click ended
// it because its deadline had passed, and whether the member had seen its
// result before.
type mockUpdated struct {
	m             questions.Mock
	expired, seen bool
}

// mockUpdate applies change to the member's attempt id in one store
// transaction. An attempt whose deadline has passed is ended instead,
// without the change (it comes too late), and the scheduler is woken to
// send its result by direct message; an ended attempt is left as it is.
// Either way the member is about to see the result (Seen).
func (b *Bot) mockUpdate(c *call, id questions.MockID, change func(*questions.Mock, time.Time) error) (mockUpdated, error) {
	now := b.clock.Now()
	var expired, seen bool
	m, err := b.store.UpdateMock(c.ctx, c.guild, c.user, id, func(m *questions.Mock) error {
		expired, seen = false, m.Seen
		switch {
		case m.Expired(now):
			m.Finish(now)
			expired = true
		case m.Open():
			if err := change(m, now); err != nil {
				return err
			}
		}
		if !m.Open() {
			m.Seen = true
		}
		return nil
	})
	switch {
	case errors.Is(err, questions.ErrNotFound):
		return mockUpdated{}, userErr("This mock exam is gone. `/quiz mock` starts a new one.")
	case errors.Is(err, questions.ErrBadChoice):
		return mockUpdated{}, userErr("That answer does not fit the question: pick as many answers as it asks for.")
	case err != nil:
		return mockUpdated{}, fmt.Errorf("mock: %w", err)
	}
	if expired {
		b.poke() // the scheduler sends the result by direct message
	}
	return mockUpdated{m: m, expired: expired, seen: seen}, nil
}

// mockShow answers with what an attempt shows: the question it is at, or
// once it has ended, its result. reply answers with a new message (/quiz
// mock), else with an update of the clicked one.
func (b *Bot) mockShow(c *call, u mockUpdated, reply bool) (response, error) {
	m, expired, seen := u.m, u.expired, u.seen
	var ms []message
	var err error
	switch {
	case m.Open() && reply:
		lead := fmt.Sprintf("📝 Your mock exam is still open (it ends %s): here it is again. Finish it before you start another.", timestamp(m.Deadline, "R"))
		ms = []message{mockQuestionMessage(m, b.mockQuestion(c.guild, m, m.Current), lead)}
	case m.Open():
		ms = []message{mockQuestionMessage(m, b.mockQuestion(c.guild, m, m.Current), "")}
	default:
		lead := ""
		switch {
		case expired || m.TimedOut && !seen:
			lead = "⏰ **Time is up.** Your mock exam ended at its deadline; questions you had not answered count as wrong. The result is also in your direct messages."
		case reply:
			lead = "Your last mock exam has ended: its result. `/quiz mock` again starts a new one."
		}
		ms, err = b.mockResultMessages(c.guild, m, 0, lead)
		if err != nil {
			return response{}, err
		}
	}
	if reply {
		return asReplies(ms), nil
	}
	return asUpdates(ms), nil
}

// mockAnswer records the member's pick on a question of their attempt
// (the question's select) and shows the question with it.
func (b *Bot) mockAnswer(c *call, id componentID) (response, error) {
	return later(func() (response, error) {
		return b.mockChange(c, id.mock, false, func(m *questions.Mock, now time.Time) error {
			return m.Answer(id.page, c.values, now)
		})
	}), nil
}

// mockButton answers the buttons under a question of an attempt: Back and
// Next show the question before or after, Flag flags it for review (or
// unflags it), Finish ends the attempt, first asking to confirm when
// questions are unanswered or flagged (end confirms; resume goes back to
// the question).
func (b *Bot) mockButton(c *call, id componentID) (response, error) {
	return later(func() (response, error) {
		confirm := false
		u, err := b.mockUpdate(c, id.mock, func(m *questions.Mock, now time.Time) error {
			confirm = false
			switch id.action {
			case "back":
				return m.Show(max(id.page-1, 0), now)
			case "next":
				return m.Show(min(id.page+1, len(m.Items)-1), now)
			case "flag":
				return m.ToggleFlag(id.page, now)
			case "resume":
				return m.Show(id.page, now)
			case "finish":
				if _, flagged, unanswered := m.Counts(); flagged > 0 || unanswered > 0 {
					confirm = true
					return nil
				}
			}
			m.Finish(now) // finish with nothing left, or end
			return nil
		})
		if err != nil {
			return response{}, err
		}
		if confirm && u.m.Open() {
			return asUpdate(mockFinishPrompt(u.m, id.page)), nil
		}
		return b.mockShow(c, u, false)
	}), nil
}

// mockResultPage shows a page of an ended attempt's result: the summary
// (page 0) or one of the questions to go over.
func (b *Bot) mockResultPage(c *call, id componentID) (response, error) {
	return later(func() (response, error) {
		m, err := b.store.Mock(c.guild, c.user, id.mock)
		if errors.Is(err, questions.ErrNotFound) {
			return response{}, userErr("This mock exam is gone. `/quiz mock` starts a new one.")
		}
		if err != nil {
			return response{}, fmt.Errorf("mock result: %w", err)
		}
		if m.Open() { // not ended: a click of another attempt's page? show the attempt
			return b.mockChange(c, m.ID, false, func(*questions.Mock, time.Time) error { return nil })
		}
		ms, err := b.mockResultMessages(c.guild, m, id.page, "")
		if err != nil {
			return response{}, err
		}
		return asUpdates(ms), nil
	}), nil
}

// mockResultMessages renders page of an ended attempt's result, with the
// questions as the guild's banks have them now (a question open in the
// server keeps its answer hidden).
func (b *Bot) mockResultMessages(guild questions.GuildID, m questions.Mock, page int, lead string) ([]message, error) {
	open, err := b.store.OpenQuestions(guild)
	if err != nil {
		return nil, fmt.Errorf("mock result: %w", err)
	}
	r := m.Result()
	if page <= 0 || page > len(r.Review) {
		return []message{mockSummaryMessage(m, r, lead)}, nil
	}
	i := r.Review[page-1]
	return mockReviewMessages(m, r, page, b.mockQuestion(guild, m, i), open[m.Items[i].QuestionID]), nil
}

// runMocks acts on the mock exams whose deadline has come, of the bot's
// own servers: it ends each still open and sends the member its result by
// direct message (a closed DM is only logged; another failure is retried,
// a minute later then doubling, mockDMTries times in all). It returns the
// next deadline (zero if none). Scheduler goroutine only.
func (b *Bot) runMocks(ctx context.Context, now time.Time) time.Time {
	due, err := b.store.MocksDue()
	if err != nil {
		b.log.Error("list mock exams due", "err", err)
		return now.Add(time.Minute)
	}
	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, d := range due {
		if !b.shards.Owns(uint64(d.GuildID)) {
			continue
		}
		at := d.Deadline
		if retry := b.mockRetryAt[mockRefOf(d)]; retry.After(at) {
			at = retry
		}
		if at.After(now) {
			earliest(at)
			continue
		}
		b.cfg.Metrics.SchedulerLag(now.Sub(at))
		b.endMock(ctx, d, now)
		earliest(b.mockRetryAt[mockRefOf(d)])
	}
	return next
}

// endMock ends the attempt d if it is still open, sends its result to the
// member by direct message, and takes it out of the scheduler's index;
// a failed step is retried later (see runMocks).
func (b *Bot) endMock(ctx context.Context, d questions.MockDue, now time.Time) {
	log := b.log.With("guild", d.GuildID, "user", d.UserID, "mock", d.MockID)
	m, err := b.store.UpdateMock(ctx, d.GuildID, d.UserID, d.MockID, func(m *questions.Mock) error { m.Finish(now); return nil })
	if err != nil && !errors.Is(err, questions.ErrNotFound) {
		log.Error("end mock exam", "err", err)
		b.mockRetry(d, now)
		return
	}
	if err == nil && m.TimedOut {
		msgs, rerr := b.mockResultMessages(d.GuildID, m, 0, "")
		if rerr != nil {
			log.Error("mock exam result", "err", rerr)
			b.mockRetry(d, now)
			return
		}
		err = b.out.DM(ctx, formatID(d.UserID), mockDM(m, msgs[0], b.guildName(d.GuildID)))
		switch {
		case err == nil:
			log.Info("mock exam result sent by direct message")
		case errors.Is(err, discord.ErrDMClosed):
			log.Info("mock exam result not sent: the member's direct messages are closed")
		case b.mockTries[mockRefOf(d)]+1 < mockDMTries && !discord.Permanent(err):
			log.Warn("mock exam result: direct message failed, will retry", "err", redact(err))
			b.mockRetry(d, now)
			return
		default:
			log.Error("mock exam result: direct message failed, given up", "err", redact(err))
		}
	}
	if err := b.store.MockNotified(ctx, d.GuildID, d.UserID, d.MockID); err != nil {
		log.Error("mock exam notified", "err", err)
		b.mockRetry(d, now)
		return
	}
	delete(b.mockRetryAt, mockRefOf(d))
	delete(b.mockTries, mockRefOf(d))
}

// mockRef names an attempt across guilds (a MockID is one guild's).
type mockRef struct {
	guild questions.GuildID
	user  questions.UserID
	id    questions.MockID
}

func mockRefOf(d questions.MockDue) mockRef { return mockRef{d.GuildID, d.UserID, d.MockID} }

// mockRetry schedules another try of endMock for d: a minute after the
// first failure, doubling.
func (b *Bot) mockRetry(d questions.MockDue, now time.Time) {
	ref := mockRefOf(d)
	tries := b.mockTries[ref]
	b.mockTries[ref] = tries + 1
	b.mockRetryAt[ref] = now.Add(time.Minute << min(tries, 6))
}

// mockChartFile is the mock exam chart's attachment name.
const mockChartFile = "mocks.png"

// mockChart draws (or finds kept, see memberCharts) the mock exam
// history of /quiz stats: the scores of the ended attempts at the bank of
// the latest (ms, oldest first), against its pass mark; nil when there
// are none, drawing fails or the drawer's queue is full (logged).
func (b *Bot) mockChart(guild questions.GuildID, who questions.UserID, ms []questions.Mock) *discordgo.File {
	if len(ms) == 0 {
		return nil
	}
	last := ms[len(ms)-1]
	d := chart.MockData{Title: last.Bank, PassPercent: math.Round(10*last.Pass.PercentNeeded()) / 10}
	for _, m := range ms {
		if m.Bank != last.Bank {
			continue
		}
		r := m.Result()
		d.Attempts = append(d.Attempts, chart.MockAttempt{Percent: 100 * float64(r.Right) / float64(max(r.Questions, 1)), Passed: r.Passed})
	}
	return b.memberChart(guild, who, mockChartFile, mockDataSum(d), "mock exam chart", func() ([]byte, error) { return chart.RenderMocks(d) })
}

// mockDataSum is a digest of everything a mock exam chart draws.
func mockDataSum(d chart.MockData) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%q %v", d.Title, d.PassPercent)
	for _, a := range d.Attempts {
		fmt.Fprintf(h, "|%v %v", a.Percent, a.Passed)
	}
	return h.Sum64()
}
