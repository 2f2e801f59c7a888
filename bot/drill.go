package bot

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// /quiz drill [topic] [count]: a private practice set of one topic (by
// default the member's weakest, questions.WeakestTopic), planned once
// (questions.PlanDrill: misses, then questions never answered, then a few
// known) and stored (questions.Drill), then shown one question at a time
// and graded at once exactly as a review question is (review.go: a stored
// Review, RecordReview), so drill answers move the member's memory and
// streak, never points. A question open in the channel is never shown:
// it is left out of the plan, skipped when its turn comes, and refused by
// RecordReview if it is posted while shown.

// drill plans and starts a member's drill (/quiz drill).
func (b *Bot) drill(c *call, opts options) (response, error) {
	count := questions.DrillSize
	if n, ok := opts.int("count"); ok {
		count = min(max(n, 1), questions.MaxDrillSize)
	}
	typed, _ := opts.str("topic")
	typed = strings.TrimSpace(typed)
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("drill: %w", err)
	}
	qs, err := b.examQuestions(c.guild, set, "")
	if err != nil {
		return response{}, err
	}
	if len(qs) == 0 {
		return response{}, userErr("There are no questions to drill yet.")
	}
	mems, err := b.store.Memories(c.guild, c.user)
	if err != nil {
		return response{}, fmt.Errorf("drill: %w", err)
	}
	open, err := b.store.OpenQuestions(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("drill: %w", err)
	}
	now := b.clock.Now()
	known := memoryMap(mems)
	topics := questions.Topics(qs)
	var topic, why string
	switch {
	case typed != "":
		topic = matchTopic(topics, typed)
		if topic == "" {
			return response{}, userErr("No question here has the topic %q. Topics: %s.", truncate(typed, 100), topicList(topics))
		}
	case len(topics) > 0:
		var recall float64
		topic, recall, _ = questions.WeakestTopic(qs, known, now)
		why = fmt.Sprintf("your weakest topic: you would likely get %d%% of its questions right now", recallPercent(recall))
		if !slices.ContainsFunc(qs, func(q questions.Question) bool { return len(q.Tags) > 0 && known[q.ID].Seen() }) {
			// WeakestTopic's choice when no topic has an answer of theirs.
			why = "the topic with the most questions, as you have answered none of them yet"
		}
	}
	ids := questions.PlanDrill(qs, known, topic, count, func(id string) bool { return open[id] }, now)
	if len(ids) == 0 {
		return response{}, userErr("Every question of %s is open in the server right now: answer them there, then drill.", topicName(topic))
	}
	d := questions.Drill{GuildID: c.guild, UserID: c.user, Topic: topic, Questions: ids, StartedAt: now}
	lead := drillPlanText(d, known, why)
	m, err := b.nextDrill(c, d, known, lead)
	if err != nil {
		return response{}, err
	}
	return asReply(m), nil
}

// matchTopic is the topic of topics that typed names (case does not
// matter); "" when none does.
func matchTopic(topics []string, typed string) string {
	for _, t := range topics {
		if strings.EqualFold(t, typed) {
			return t
		}
	}
	return ""
}

// topicList lists topics for a message: the first 20, then how many more.
func topicList(topics []string) string {
	if len(topics) == 0 {
		return "none (the questions have no tags: leave `topic` out to drill them all)"
	}
	shown := topics[:min(len(topics), 20)]
	text := "`" + strings.Join(shown, "`, `") + "`"
	if more := len(topics) - len(shown); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return truncate(text, 1500)
}

// topicName names a drill's topic in a message.
func topicName(topic string) string {
	if topic == "" {
		return "every bank"
	}
	return "**" + truncate(topic, 100) + "**"
}

// drillPlanText is the line that opens a drill: its topic (and why that
// one, when the member did not choose it) and what it holds.
func drillPlanText(d questions.Drill, known map[string]questions.Memory, why string) string {
	var missed, fresh, right int
	for _, id := range d.Questions {
		switch m, ok := known[id]; {
		case !ok || !m.Seen():
			fresh++
		case m.Missed():
			missed++
		default:
			right++
		}
	}
	var parts []string
	if missed > 0 {
		parts = append(parts, fmt.Sprintf("%d you missed last time", missed))
	}
	if fresh > 0 {
		parts = append(parts, fmt.Sprintf("%d new to you", fresh))
	}
	if right > 0 {
		parts = append(parts, fmt.Sprintf("%d you know", right))
	}
	text := "🎯 **Drill** of " + topicName(d.Topic)
	if why != "" {
		text += " (" + why + ")"
	}
	return text + fmt.Sprintf(": %s, %s, in that order.", plural(len(d.Questions), "question", "questions"), strings.Join(parts, ", "))
}

// nextDrill shows the drill's next question (skipping one removed from
// the banks or open in the server since the drill was planned) and stores
// how far the drill got; at its end, the drill's score. lead, when set, is
// put first.
func (b *Bot) nextDrill(c *call, d questions.Drill, known map[string]questions.Memory, lead string) (message, error) {
	open, err := b.store.OpenQuestions(c.guild)
	if err != nil {
		return message{}, fmt.Errorf("drill: %w", err)
	}
	now := b.clock.Now()
	for d.Shown < len(d.Questions) {
		q := b.question(c.guild, d.Questions[d.Shown])
		d.Shown++
		if q == nil || open[q.ID] {
			continue
		}
		r, err := b.showStudy(c, q, now)
		if err != nil {
			return message{}, fmt.Errorf("drill: %w", err)
		}
		d.Review = r.ID
		if err := b.store.SaveDrill(c.ctx, d); err != nil {
			return message{}, fmt.Errorf("drill: %w", err)
		}
		head := fmt.Sprintf("🎯 **Drill** · %s · question %d of %d · %s", topicName(d.Topic), d.Shown, len(d.Questions), drillStatus(known[q.ID]))
		return studyQuestionMessage(lead, head, r, q, kindDrillAnswer, kindDrillStep.id(componentID{action: "stop", review: r.ID})), nil
	}
	if err := b.store.SaveDrill(c.ctx, d); err != nil {
		return message{}, fmt.Errorf("drill: %w", err)
	}
	answered, right := d.Score(known)
	return message{ephemeral: true, content: joinLines(lead, drillDoneText(d, answered, right))}, nil
}

// drillStatus says what the member did with a drill question last.
func drillStatus(m questions.Memory) string {
	switch {
	case !m.Seen():
		return "new to you"
	case m.Missed():
		return "you missed this one last time"
	}
	return "you got this one right last time"
}

// drillDoneText ends a drill: its score.
func drillDoneText(d questions.Drill, answered, right int) string {
	if answered == 0 {
		return fmt.Sprintf("🏁 Drill of %s over: none of its questions could be shown (removed from the banks, or open in the server). `/quiz drill` plans a new one.", topicName(d.Topic))
	}
	return fmt.Sprintf("🏁 Drill of %s done: **%d of %d right** the first time. The ones you missed come back in `/quiz review` within minutes; `/quiz drill` plans a new drill.",
		topicName(d.Topic), right, answered)
}

// drillAnswer grades a member's pick on a drill question and turns the
// message into its grading, with Next and Stop while the drill goes on.
func (b *Bot) drillAnswer(c *call, id componentID) (response, error) {
	g, err := b.gradeStudy(c, id, drillSession)
	if err != nil {
		return response{}, err
	}
	d, err := b.store.Drill(c.guild, c.user)
	if errors.Is(err, questions.ErrNotFound) {
		ms := studyGrade(g)
		ms[0].content += "\n`/quiz drill` plans a drill."
		return asUpdates(ms), nil
	}
	if err != nil {
		return response{}, fmt.Errorf("drill answer: %w", err)
	}
	if !d.Current(g.r) {
		// A question of an earlier drill, or one this drill has gone
		// past: graded, with no Next or Stop that would move the drill.
		ms := studyGrade(g)
		ms[0].content += "\n" + staleDrill
		return asUpdates(ms), nil
	}
	answered, right := d.Score(memoryMap(g.mems))
	return asUpdates(drillGradeMessage(g, d, answered, right)), nil
}

// staleDrill is said of a drill message the member's drill has moved on
// from.
const staleDrill = "This message is from an earlier point of your drills: your drill goes on in its latest message, or `/quiz drill` plans a new one."

// drillGradeMessage is the grading of a drill answer (studyGrade), then
// where the drill stands with Next and Stop, or its score at its end.
func drillGradeMessage(g studyGraded, d questions.Drill, answered, right int) []message {
	ms := studyGrade(g)
	if d.Shown >= len(d.Questions) {
		ms[0].content += "\n" + drillDoneText(d, answered, right)
		return ms
	}
	ms[0].content += "\n" + fmt.Sprintf("Drill of %s: %d of %d right so far, %s to go.", topicName(d.Topic), right, answered,
		plural(len(d.Questions)-d.Shown, "question", "questions"))
	ms[len(ms)-1].components = nextStopRow(kindDrillStep.id(componentID{action: "next", review: g.r.ID}), kindDrillStep.id(componentID{action: "stop", review: g.r.ID}))
	return ms
}

// drillNext shows the drill's next question in place of the graded one, or
// stops the drill (the Next and Stop buttons). Buttons that name their
// question (kindDrillStep) act only while it is the drill's latest, so
// that a second click of Next, or a click in an earlier drill's message,
// moves nothing; the buttons of before (kindDrillNext) act on the drill.
func (b *Bot) drillNext(c *call, id componentID) (response, error) {
	d, err := b.store.Drill(c.guild, c.user)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("You have no drill going. `/quiz drill` plans one.")
	}
	if err != nil {
		return response{}, fmt.Errorf("drill: %w", err)
	}
	if id.review != 0 {
		r, err := b.store.Review(c.guild, id.review)
		if err != nil && !errors.Is(err, questions.ErrNotFound) {
			return response{}, fmt.Errorf("drill: %w", err)
		}
		if err != nil || !d.Current(r) {
			return response{}, userErr(staleDrill)
		}
	}
	mems, err := b.store.Memories(c.guild, c.user)
	if err != nil {
		return response{}, fmt.Errorf("drill: %w", err)
	}
	known := memoryMap(mems)
	if id.action == "next" {
		m, err := b.nextDrill(c, d, known, "")
		if err != nil {
			return response{}, err
		}
		return asUpdate(m), nil
	}
	answered, right := d.Score(known)
	return asUpdate(drillStoppedMessage(d, answered, right)), nil
}

// drillStoppedMessage ends a drill before its last question.
func drillStoppedMessage(d questions.Drill, answered, right int) message {
	text := fmt.Sprintf("⏸️ Drill of %s stopped: %d of %d right.", topicName(d.Topic), right, answered)
	if left := len(d.Questions) - d.Shown; left > 0 {
		text += fmt.Sprintf(" %s not shown. `/quiz drill` plans a new drill.", plural(left, "question was", "questions were"))
	}
	return message{ephemeral: true, content: text}
}

// suggestTopics suggests the topics (tags) of the banks the server draws
// from that contain what was typed.
func suggestTopics(b *Bot, c *call, typed string) ([]*discordgo.ApplicationCommandOptionChoice, error) {
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return nil, err
	}
	qs, err := b.examQuestions(c.guild, set, "")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range questions.Topics(qs) {
		if strings.Contains(strings.ToLower(t), typed) {
			names = append(names, t)
		}
	}
	return nameChoices(names), nil
}
