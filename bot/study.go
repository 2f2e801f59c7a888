package bot

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/chart"
	"github.com/quizhost/quizhost/questions"
)

// Readiness and the study chart: /quiz exam sets a member's exam date;
// /quiz stats shows the readiness for it and attaches the chart.

// chartDays is how many days the chart's answers-per-day panel covers.
const chartDays = 30

// chartFile is the chart's attachment name.
const chartFile = "stats.png"

// exam sets the member's exam date (/quiz exam date:<YYYY-MM-DD> [bank]).
func (b *Bot) exam(c *call, opts options) (response, error) {
	raw, _ := opts.str("date")
	date, err := questions.ParseExamDate(raw)
	if err != nil {
		return response{}, userErr("%s.", truncate(err.Error(), 200))
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("exam: %w", err)
	}
	loc := guildZone(set)
	now := b.clock.Now()
	if date < now.In(loc).Format(time.DateOnly) {
		return response{}, userErr("%s has passed. Give the date of your exam to come, written YYYY-MM-DD.", date)
	}
	e := questions.ExamDate{GuildID: c.guild, UserID: c.user, Date: date}
	if name, ok := opts.str("bank"); ok && name != "" {
		banks, err := b.guildBanks(c.guild)
		if err != nil {
			return response{}, err
		}
		bk := findBank(banks, name)
		if bk == nil {
			return response{}, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(name, 100))
		}
		e.Bank = bk.Name
	}
	if err := b.store.SetExamDate(c.ctx, e); err != nil {
		return response{}, fmt.Errorf("exam: %w", err)
	}
	forecast := -1
	if r, ok, err := b.readiness(c.guild, c.user, set, now); err == nil && ok {
		forecast = recallPercent(r.Overall.Recall)
	}
	return asReply(examSetMessage(e, loc, forecast)), nil
}

// examSetMessage confirms an exam date, with today's forecast of the share
// recalled on it (a percentage; negative when there is none).
func examSetMessage(e questions.ExamDate, loc *time.Location, forecast int) message {
	text := fmt.Sprintf("📅 Your exam date is set: **%s**, on %s. `/quiz stats` now shows how ready you are for it, "+
		"and your reviews now end on exam day: none of its questions comes back after it.",
		e.At(loc).Format("Monday 2 January 2006"), examScope(e.Bank))
	if forecast >= 0 {
		text += fmt.Sprintf("\nToday's forecast: **%d%%** of the questions recalled on the exam date.", forecast)
	}
	return message{ephemeral: true, content: text}
}

func examScope(bank string) string {
	if bank == "" {
		return "every bank this server draws from"
	}
	return "**" + bank + "**"
}

// guildZone is the guild's time zone (UTC if its name no longer loads).
func guildZone(set questions.Settings) *time.Location {
	loc, err := questions.LoadZone(set.TimeZone)
	if err != nil || loc == nil {
		return time.UTC
	}
	return loc
}

// examQuestions are the questions an exam date is about: its bank's, or
// those of every bank the guild draws from (when it names none, or its
// bank is gone).
func (b *Bot) examQuestions(guild questions.GuildID, set questions.Settings, bank string) ([]questions.Question, error) {
	banks, err := b.guildBanks(guild)
	if err != nil {
		return nil, err
	}
	if bk := findBank(banks, bank); bank != "" && bk != nil {
		return bk.Questions, nil
	}
	var qs []questions.Question
	for _, bk := range banks {
		if len(set.Banks) == 0 || containsName(set.Banks, bk.Name) {
			qs = append(qs, bk.Questions...)
		}
	}
	return qs, nil
}

// examPlan is the member's exam as their review schedule sees it
// (questions.ExamPlan): its instant and the questions it covers, those of
// examQuestions; the zero plan when they set no exam date.
func (b *Bot) examPlan(guild questions.GuildID, user questions.UserID) (questions.ExamPlan, error) {
	e, err := b.store.ExamDate(guild, user)
	if errors.Is(err, questions.ErrNotFound) {
		return questions.ExamPlan{}, nil
	}
	if err != nil {
		return questions.ExamPlan{}, fmt.Errorf("exam plan: %w", err)
	}
	set, err := b.store.Settings(guild)
	if err != nil {
		return questions.ExamPlan{}, fmt.Errorf("exam plan: %w", err)
	}
	banks, err := b.guildBanks(guild)
	if err != nil {
		return questions.ExamPlan{}, err
	}
	plan := questions.ExamPlan{At: e.At(guildZone(set))}
	if bk := findBank(banks, e.Bank); e.Bank != "" && bk != nil {
		name := bk.Name
		plan.Covers = func(id string) bool {
			q := b.question(guild, id)
			return q != nil && sameName(q.Bank, name)
		}
	} else if len(set.Banks) > 0 {
		plan.Covers = func(id string) bool {
			q := b.question(guild, id)
			return q != nil && containsName(set.Banks, q.Bank)
		}
	}
	return plan, nil
}

// readiness computes a member's readiness for their exam date; false when
// they have set none.
func (b *Bot) readiness(guild questions.GuildID, user questions.UserID, set questions.Settings, now time.Time) (readinessView, bool, error) {
	e, err := b.store.ExamDate(guild, user)
	if errors.Is(err, questions.ErrNotFound) {
		return readinessView{}, false, nil
	}
	if err != nil {
		return readinessView{}, false, fmt.Errorf("readiness: %w", err)
	}
	qs, err := b.examQuestions(guild, set, e.Bank)
	if err != nil {
		return readinessView{}, false, err
	}
	mems, err := b.store.Memories(guild, user)
	if err != nil {
		return readinessView{}, false, fmt.Errorf("readiness: %w", err)
	}
	open, err := b.store.OpenQuestions(guild)
	if err != nil {
		return readinessView{}, false, fmt.Errorf("readiness: %w", err)
	}
	r := questions.ComputeReadiness(qs, memoryMap(mems), func(id string) bool { return open[id] }, now, e.At(guildZone(set)))
	return readinessView{Readiness: r, exam: e, passed: !r.Exam.After(now)}, true, nil
}

// readinessView is a readiness with the exam date it is for.
type readinessView struct {
	questions.Readiness
	exam   questions.ExamDate
	passed bool // the exam instant is not after now
}

func memoryMap(mems []questions.Memory) map[string]questions.Memory {
	out := make(map[string]questions.Memory, len(mems))
	for _, m := range mems {
		out[m.QuestionID] = m
	}
	return out
}

func recallPercent(r float64) int { return int(math.Round(100 * r)) }

func accuracyPercent(t questions.TopicReadiness) int { return int(math.Round(100 * t.Accuracy())) }

// readinessEmbed renders a readiness: overall, then per topic (tag), with
// the plain explanation of the predicted figure.
func readinessEmbed(r readinessView) *discordgo.MessageEmbed {
	o := r.Overall
	desc := fmt.Sprintf("**Predicted recalled on the exam date: %d%%** of %s\nSeen %d of %d · accuracy %d%% · %s due now",
		recallPercent(o.Recall), plural(o.Questions, "question", "questions"), o.Seen, o.Questions, accuracyPercent(o),
		plural(o.Due, "question", "questions"))
	if o.Due > 0 {
		desc += " (`/quiz review`)"
	}
	if r.passed {
		desc += "\nThe exam date has passed: set your next one with `/quiz exam`."
	} else if p := r.Pace; p.Days > 0 {
		desc += "\n" + paceText(p)
	}
	e := &discordgo.MessageEmbed{
		Title:       truncate(fmt.Sprintf("🎯 Readiness for %s · %s", r.exam.Date, cmp.Or(r.exam.Bank, "every bank")), maxTitle),
		Description: desc,
		Color:       colorClosed,
		Footer:      &discordgo.MessageEmbedFooter{Text: questions.ReadinessExplained},
	}
	for _, t := range r.Topics {
		if len(e.Fields) == 25 {
			break
		}
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{
			Name: truncate("Topic: "+t.Topic, 256),
			Value: fmt.Sprintf("recalled %d%% · seen %d of %d · accuracy %d%% · %d due",
				recallPercent(t.Recall), t.Seen, t.Questions, accuracyPercent(t), t.Due),
			Inline: true,
		})
	}
	return e
}

// paceText says how many answers a day keep the member on track
// (questions.Pace).
func paceText(p questions.Pace) string {
	if p.Answers == 0 {
		return "**On track:** nothing more is due before the exam."
	}
	text := fmt.Sprintf("**On track: %s a day** until the exam: %s over %s, each question reviewed whenever it comes due (`/quiz review`)",
		plural(p.PerDay, "answer", "answers"), plural(p.Answers, "answer", "answers"), plural(p.Days, "day", "days"))
	if p.Unseen > 0 {
		text += fmt.Sprintf(", after a first answer to the %s you have not seen yet (`/quiz drill`)", plural(p.Unseen, "question", "questions"))
	}
	return text + "."
}

// chartTopics are the chart's accuracy bars from a member's memories
// (answers live and in review): per tag of the guild's questions, or per
// bank when no tag has answers.
func chartTopics(banks []*questions.Bank, mems map[string]questions.Memory, now time.Time) []questions.TopicReadiness {
	var all []questions.Question
	var perBank []questions.TopicReadiness
	for _, bk := range banks {
		all = append(all, bk.Questions...)
		r := questions.ComputeReadiness(bk.Questions, mems, nil, now, now).Overall
		if r.Answers > 0 {
			r.Topic = bk.Name
			perBank = append(perBank, r)
		}
	}
	var tags []questions.TopicReadiness
	for _, t := range questions.ComputeReadiness(all, mems, nil, now, now).Topics {
		if t.Answers > 0 {
			tags = append(tags, t)
		}
	}
	if len(tags) > 0 {
		return tags
	}
	return perBank
}

// chartTitle names whose study a stats chart shows: "Your study" for the
// member who asked, else the member's name as the command resolved it (a
// picture cannot show a mention).
func chartTitle(c *call, who questions.UserID) string {
	if who == c.user {
		return "Your study"
	}
	if c.i.Type == discordgo.InteractionApplicationCommand {
		if res := c.i.ApplicationCommandData().Resolved; res != nil {
			if u := res.Users[who.String()]; u != nil {
				name := u.GlobalName
				if name == "" {
					name = u.Username
				}
				if name != "" {
					return truncate(name, 40) + "'s study"
				}
			}
		}
	}
	return "A member's study"
}

// statsChart renders the member's chart as an attachment; nil when they
// have no answers (nothing to draw) or drawing fails (logged: the stats
// go out without it).
func (b *Bot) statsChart(guild questions.GuildID, who questions.UserID, title string, set questions.Settings, now time.Time) *discordgo.File {
	mems, err := b.store.Memories(guild, who)
	if err != nil {
		b.log.Error("stats chart", "guild", guild, "err", err)
		return nil
	}
	if len(mems) == 0 {
		return nil
	}
	banks, err := b.guildBanks(guild)
	if err != nil {
		b.log.Error("stats chart", "guild", guild, "err", err)
		return nil
	}
	data := chart.Data{
		Title:  title,
		Topics: chartTopics(banks, memoryMap(mems), now),
		Days:   questions.AnswersPerDay(mems, guildZone(set), now, chartDays),
	}
	return b.memberChart(guild, who, chartFile, dataSum(data), "stats chart", func() ([]byte, error) { return chart.Render(data) })
}

// memberChart is the member's chart named file (its attachment name),
// whose content has the digest sum: the one kept (statsCharts), else
// drawn by render through the drawer and kept. nil when the drawer's
// queue is full or drawing fails (logged, as what).
func (b *Bot) memberChart(guild questions.GuildID, who questions.UserID, file string, sum uint64, what string, render func() ([]byte, error)) *discordgo.File {
	key := memberKey{guild, who, file}
	png := keptChart(b.statsCharts, key, sum)
	if png == nil {
		var err error
		queued := b.drawer.draw(guild, func() {
			if png = keptChart(b.statsCharts, key, sum); png != nil {
				return // drawn while this one waited
			}
			if png, err = render(); err == nil {
				b.statsCharts.put(guild, key, chartEntry{sum: sum, png: png})
			}
		})
		switch {
		case !queued:
			b.log.Warn(what+" left out: too many charts waiting to be drawn", "guild", guild)
			return nil
		case err != nil:
			b.log.Error(what, "guild", guild, "err", err)
			return nil
		}
	}
	return &discordgo.File{Name: file, ContentType: "image/png", Reader: bytes.NewReader(png)}
}

// The last charts of /quiz stats drawn of each member (the study chart
// and the mock exams' chart, about 40 KB each) are kept (Bot.statsCharts)
// with a digest of what each shows: a member asking again before their
// next answer or attempt (or the next day, which moves the days drawn)
// gets them without the drawing, which takes tens of milliseconds of CPU
// that other commands wait for.
type memberKey struct {
	guild questions.GuildID
	user  questions.UserID
	file  string // the chart's attachment name: chartFile or mockChartFile
}

// keptChart returns the chart kept in c for key if its digest is sum,
// else nil.
func keptChart(c *guildCache[memberKey, chartEntry], key memberKey, sum uint64) []byte {
	if e, ok := c.get(key); ok && e.sum == sum {
		return e.png
	}
	return nil
}

// maxMemberCharts bounds the member charts kept (about 80 MB), and
// maxMemberChartsPerGuild one server's share of them.
const (
	maxMemberCharts         = 2048
	maxMemberChartsPerGuild = 256
)

// dataSum is a digest of everything a chart draws.
func dataSum(d chart.Data) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%q", d.Title)
	for _, t := range d.Topics {
		fmt.Fprintf(h, "|%q %d %d", t.Topic, t.Answers, t.Right)
	}
	for _, day := range d.Days {
		fmt.Fprintf(h, "|%s %d %d", day.Date, day.Answers, day.Right)
	}
	return h.Sum64()
}
