package bot

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/chart"
	"github.com/quizhost/quizhost/questions"
)

// Insights (/quizadmin insights [bank] [sort]): what members' answers say
// about the questions. Flagged questions first, each with its reasons in
// words, then every answered question by facility or discrimination, a
// few per page, each with Show (the question and its statistics),
// Regrade… (a form naming the suggested key: the bank's key is changed and
// the answers graded again) and Dismiss (hides the flags until the
// statistics change); and the bank's chart, attached once the list is out.

// insightsPerPage is how many questions a page shows: one row of buttons
// each, and a row for paging.
const insightsPerPage = 4

// keyInputID is the custom ID of the regrade form's text input.
const keyInputID = "key"

// The orders of the list after the flagged questions.
const (
	sortFacility       = "facility"
	sortDiscrimination = "discrimination"
)

// insightEntry is one question of the list.
type insightEntry struct {
	st    questions.QuestionStats
	q     *questions.Question // nil when it is no longer in the banks
	flags []questions.Flag
	// The sort's keys, worked out once.
	facility float64
	disc     float64
	hasDisc  bool
}

// insightsView is one page of the list.
type insightsView struct {
	bank    string // as the admin named it; "" for every bank
	ref     string // bankRef(bank)
	sort    string
	page    int
	entries []insightEntry // the whole list, in order
	flagged int
}

// bankRef is a short stand-in for a bank name in custom IDs (names can be
// 100 characters): "-" for every bank, else 8 hex digits of a hash of the
// name as storage keys it.
func bankRef(bank string) string {
	k := strings.ToLower(strings.TrimSpace(bank))
	if k == "" {
		return "-"
	}
	h := fnv.New32a()
	h.Write([]byte(k))
	return fmt.Sprintf("%08x", h.Sum32())
}

// insightsCmd answers /quizadmin insights.
func (b *Bot) insightsCmd(c *call, opts options) (response, error) {
	bank, _ := opts.str("bank")
	bank = strings.TrimSpace(bank)
	order, _ := opts.str("sort")
	if order != sortDiscrimination {
		order = sortFacility
	}
	if bank != "" {
		banks, err := b.guildBanks(c.guild)
		if err != nil {
			return response{}, err
		}
		bk := findBank(banks, bank)
		if bk == nil {
			return response{}, userErr("There is no bank %q here. Pick one from the list, or leave bank out for every bank.", truncate(bank, 100))
		}
		bank = bk.Name
	}
	v, err := b.insights(c.ctx, c.guild, bank, order, 0)
	if err != nil {
		return response{}, err
	}
	m := insightsMessage(v, "")
	resp := asReply(m)
	if len(v.entries) > 0 {
		resp.after = func() {
			png := b.insightsChart(c.guild, v)
			if png == nil {
				return
			}
			m.files = []*discordgo.File{{Name: "insights.png", ContentType: "image/png", Reader: bytes.NewReader(png)}}
			if err := c.edit(m); err != nil {
				b.log.Warn("attach the insights chart", "guild", c.guild, "err", redact(err))
			}
		}
	}
	return resp, nil
}

// insights works out the list of bank ("" for every bank) in order, or
// finds it kept (Bot.lists, see insightsList).
func (b *Bot) insights(ctx context.Context, guild questions.GuildID, bank, order string, page int) (insightsView, error) {
	v := insightsView{bank: bank, ref: bankRef(bank), sort: order, page: page}
	version, err := b.store.StatsVersion(guild)
	if err != nil {
		return v, fmt.Errorf("insights: %w", err)
	}
	reports, err := b.store.Reports(guild)
	if err != nil {
		return v, fmt.Errorf("insights: %w", err)
	}
	imp, err := b.imported(guild)
	if err != nil {
		return v, err
	}
	h := fnv.New64a()
	open := map[string]int{}
	for _, r := range reports {
		open[r.QuestionID]++
		fmt.Fprintf(h, "%q;", r.QuestionID)
	}
	key := insightsKey{guild: guild, ref: v.ref, order: order}
	state := insightsState{stats: version, reports: h.Sum64(), banks: imp}
	if l, ok := b.lists.get(key); ok && l.state == state {
		v.entries, v.flagged = l.entries, l.flagged
		return v, nil
	}
	stats, err := b.store.QuestionStats(guild, bank)
	if err != nil {
		return v, fmt.Errorf("insights: %w", err)
	}
	seen := make(map[string]bool, len(stats))
	v.entries = make([]insightEntry, 0, len(stats))
	for _, st := range stats {
		seen[st.QuestionID] = true
		q := b.question(guild, st.QuestionID)
		v.entries = append(v.entries, newInsightEntry(st, q, questions.Flags(st, q, open[st.QuestionID])))
	}
	// Questions without answers flagged all the same: the source site's
	// vote disagrees, or a member reported them.
	banks, err := b.guildBanks(guild)
	if err != nil {
		return v, err
	}
	var unanswered []*questions.Question
	for _, bk := range banks {
		if bank != "" && !sameName(bk.Name, bank) {
			continue
		}
		for i := range bk.Questions {
			q := &bk.Questions[i]
			if seen[q.ID] {
				continue
			}
			if _, disagrees := q.CommunityDisagrees(); disagrees || open[q.ID] > 0 {
				unanswered = append(unanswered, q)
			}
		}
	}
	if len(unanswered) > 0 {
		ids := make([]string, len(unanswered))
		for i, q := range unanswered {
			ids[i] = q.ID
		}
		nums, err := b.store.QuestionNumbers(ctx, guild, ids)
		if err != nil {
			return v, fmt.Errorf("insights: %w", err)
		}
		for _, q := range unanswered {
			st, err := b.store.QuestionStat(guild, nums[q.ID])
			if err != nil {
				return v, fmt.Errorf("insights: %w", err)
			}
			st.Bank = q.Bank
			if fl := questions.Flags(st, q, open[q.ID]); len(fl) > 0 || st.Dismissed {
				v.entries = append(v.entries, newInsightEntry(st, q, fl))
			}
		}
	}
	sortInsights(v.entries, order)
	for _, e := range v.entries {
		if len(e.flags) > 0 {
			v.flagged++
		}
	}
	b.lists.put(guild, key, insightsList{state: state, entries: v.entries, flagged: v.flagged})
	return v, nil
}

func newInsightEntry(st questions.QuestionStats, q *questions.Question, flags []questions.Flag) insightEntry {
	e := insightEntry{st: st, q: q, flags: flags, facility: st.Facility()}
	e.disc, e.hasDisc = st.Discrimination()
	return e
}

// The last list worked out of each guild's bank and order is kept
// (Bot.lists) with what it was made from: the statistics' version, the
// open reports and the imported banks. A list of 10,000 questions takes
// tens of milliseconds to make; paging through it, Show and Regrade… find
// it kept until an answer, a regrade, a dismissal, a report or an import
// changes it. The entries kept are never changed.
type insightsKey struct {
	guild questions.GuildID
	ref   string // bankRef
	order string // the list's; "" for the bank's chart
}

// insightsState is what a list was made from.
type insightsState struct {
	stats   uint64      // the store's StatsVersion
	reports uint64      // a digest of the open reports' questions
	banks   *guildBanks // the imported banks' snapshot
}

type insightsList struct {
	state   insightsState
	entries []insightEntry
	flagged int
}

// maxInsightsLists bounds the lists kept (a list of 10,000 questions
// takes a few megabytes), and maxInsightsListsPerGuild one server's share.
const (
	maxInsightsLists         = 16
	maxInsightsListsPerGuild = 4
)

// sortInsights puts the flagged questions first (the most reasons first,
// then the lowest facility), then the others by facility or by
// discrimination, lowest first (those without one last), then by number.
func sortInsights(es []insightEntry, order string) {
	slices.SortStableFunc(es, func(a, b insightEntry) int {
		if c := cmp.Compare(len(b.flags), len(a.flags)); c != 0 {
			return c
		}
		if order == sortDiscrimination && len(a.flags) == 0 {
			ra, oka := a.disc, a.hasDisc
			rb, okb := b.disc, b.hasDisc
			switch {
			case oka != okb:
				if oka {
					return -1
				}
				return 1
			case oka && ra != rb:
				return cmp.Compare(ra, rb)
			}
		}
		if c := cmp.Compare(a.facility, b.facility); c != 0 {
			return c
		}
		return cmp.Compare(a.st.Number, b.st.Number)
	})
}

// insightsMessage renders one page of the list.
func insightsMessage(v insightsView, note string) message {
	scope := "every bank"
	if v.bank != "" {
		scope = "**" + v.bank + "**"
	}
	if len(v.entries) == 0 {
		return message{ephemeral: true, content: joinLines(note, fmt.Sprintf("🔎 No question of %s has answers yet: insights come from members' answers.", scope))}
	}
	pages := (len(v.entries) + insightsPerPage - 1) / insightsPerPage
	page := min(max(v.page, 0), pages-1)
	head := fmt.Sprintf("🔎 **Insights** · %s · %s · **%d flagged** · page %d of %d, then by %s\n"+
		"Facility: the share of answers right. Discrimination (−1 to 1): above 0 when members who do well on the rest of the bank get it right more often; under 0 usually means a wrong key.",
		scope, plural(len(v.entries), "question", "questions"), v.flagged, page+1, pages, v.sort)
	var embeds []*discordgo.MessageEmbed
	var rows []discordgo.MessageComponent
	for i, e := range v.entries[page*insightsPerPage : min(len(v.entries), (page+1)*insightsPerPage)] {
		n := page*insightsPerPage + i + 1
		embeds = append(embeds, insightEmbed(n, e))
		button := func(action string) string { // with the page the entry is on
			return kindInsight.id(componentID{action: action, num: e.st.Number, sortBy: v.sort, page: page, ref: v.ref})
		}
		buttons := []discordgo.MessageComponent{
			discordgo.Button{Label: fmt.Sprintf("Show %d", n), Style: discordgo.SecondaryButton, CustomID: button("s")},
			discordgo.Button{Label: fmt.Sprintf("Regrade… %d", n), Style: discordgo.PrimaryButton, CustomID: button("r")},
		}
		if len(e.flags) > 0 {
			buttons = append(buttons, discordgo.Button{Label: fmt.Sprintf("Dismiss %d", n), Style: discordgo.SecondaryButton, CustomID: button("d")})
		}
		rows = append(rows, discordgo.ActionsRow{Components: buttons})
	}
	if pages > 1 {
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "◀ Previous", Style: discordgo.SecondaryButton, Disabled: page == 0, CustomID: kindInsights.id(componentID{sortBy: v.sort, page: max(page-1, 0), ref: v.ref})},
			discordgo.Button{Label: "Next ▶", Style: discordgo.SecondaryButton, Disabled: page == pages-1, CustomID: kindInsights.id(componentID{sortBy: v.sort, page: min(page+1, pages-1), ref: v.ref})},
		}})
	}
	return message{ephemeral: true, content: truncate(joinLines(note, head), maxContent), embeds: fitEmbeds(embeds), components: rows}
}

// insightEmbed is one question of the list: its figures and its flags.
func insightEmbed(n int, e insightEntry) *discordgo.MessageEmbed {
	title := e.st.QuestionID
	if e.q != nil {
		title = questionTitle(e.q)
	}
	color := colorOpen
	lines := []string{fmt.Sprintf("`%s` · %s", e.st.QuestionID, figures(e.st))}
	if len(e.flags) > 0 {
		color = colorWrong
		title = "⚠️ " + title
		for _, f := range e.flags {
			lines = append(lines, "⚠️ "+f.Reason)
		}
	} else if e.st.Dismissed {
		lines = append(lines, "Flags dismissed: hidden until the statistics change.")
	}
	return &discordgo.MessageEmbed{Title: truncate(fmt.Sprintf("%d. %s", n, title), maxTitle),
		Description: truncate(strings.Join(lines, "\n"), maxDesc), Color: color}
}

// figures is a question's answers, facility and discrimination in words.
func figures(st questions.QuestionStats) string {
	if st.Answers == 0 {
		return "no answers yet"
	}
	disc := "discrimination not known yet"
	if r, ok := st.Discrimination(); ok {
		disc = "discrimination " + signedFixed(r)
	}
	return fmt.Sprintf("%s · facility %d%% · %s", plural(st.Answers, "answer", "answers"), percent(st.Right, st.Answers), disc)
}

// signedFixed formats r with two decimals and a real minus sign.
func signedFixed(r float64) string {
	return strings.Replace(fmt.Sprintf("%.2f", r), "-", "−", 1)
}

// insightsPage turns the page (◀ Previous, Next ▶).
func (b *Bot) insightsPage(c *call, id componentID) (response, error) {
	bank, err := b.bankOfRef(c.guild, id.ref)
	if err != nil {
		return response{}, err
	}
	v, err := b.insights(c.ctx, c.guild, bank, id.sortBy, id.page)
	if err != nil {
		return response{}, err
	}
	return asUpdate(insightsMessage(v, "")), nil
}

// bankOfRef finds the bank a custom ID's bankRef names; "" for "-".
func (b *Bot) bankOfRef(guild questions.GuildID, ref string) (string, error) {
	if ref == "-" {
		return "", nil
	}
	banks, err := b.guildBanks(guild)
	if err != nil {
		return "", err
	}
	for _, bk := range banks {
		if bankRef(bk.Name) == ref {
			return bk.Name, nil
		}
	}
	return "", userErr("That bank is gone. Run /quizadmin insights again.")
}

// insightButton answers an entry's Show, Regrade… and Dismiss.
func (b *Bot) insightButton(c *call, id componentID) (response, error) {
	st, err := b.store.QuestionStat(c.guild, id.num)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("That question is gone. Run /quizadmin insights again.")
	}
	if err != nil {
		return response{}, fmt.Errorf("insights: %w", err)
	}
	q := b.question(c.guild, st.QuestionID)
	reports, err := b.store.Reports(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("insights: %w", err)
	}
	open := 0
	for _, r := range reports {
		if r.QuestionID == st.QuestionID {
			open++
		}
	}
	flags := questions.Flags(st, q, open)
	switch id.action {
	case "s":
		ms := []message{{ephemeral: true, embeds: []*discordgo.MessageEmbed{statsEmbed(st, q, flags)}}}
		if q != nil {
			ms = append(ms, questionShowMessage(q, b.isCatalogue(q.ID))...)
		}
		return asReplies(ms), nil
	case "r":
		if q == nil {
			return response{}, userErr("`%s` is no longer in the banks: there is no key to fix.", truncate(st.QuestionID, 200))
		}
		if b.isCatalogue(q.ID) {
			return response{}, userErr("`%s` comes with this quizhost and can't be changed here.", truncate(q.ID, 200))
		}
		suggest := q.Correct()
		for _, f := range flags {
			if len(f.Suggest) > 0 {
				suggest = f.Suggest
				break
			}
		}
		return asModal(regradeModal(id.num, q, suggest)), nil
	default: // "d"
		note := fmt.Sprintf("🙈 Dismissed the flags of `%s` until its statistics change.", truncate(st.QuestionID, 200))
		if err := b.store.DismissFlags(c.ctx, c.guild, id.num); err != nil {
			return response{}, fmt.Errorf("dismiss: %w", err)
		}
		b.log.Info("insight dismissed", "guild", c.guild, "question", st.QuestionID, "by", c.user)
		bank, err := b.bankOfRef(c.guild, id.ref)
		if err != nil {
			return response{}, err
		}
		v, err := b.insights(c.ctx, c.guild, bank, id.sortBy, id.page)
		if err != nil {
			return response{}, err
		}
		return asUpdate(insightsMessage(v, note)), nil
	}
}

// statsEmbed is a question's statistics in full (Show): the figures, the
// picks of each option as bars, the most picked wrong answer, the source
// site's vote and the flags.
func statsEmbed(st questions.QuestionStats, q *questions.Question, flags []questions.Flag) *discordgo.MessageEmbed {
	title := st.QuestionID
	if q != nil {
		title = questionTitle(q)
	}
	lines := []string{fmt.Sprintf("`%s` · %s", st.QuestionID, figures(st))}
	if st.Disc.N > 0 {
		lines = append(lines, fmt.Sprintf("Discrimination over %s of members with %d+ answers on the rest of the bank; %s of strong members (%d%%+ right there).",
			plural(st.Disc.N, "answer", "answers"), questions.MinRestAnswers, plural(st.Strong, "answer", "answers"), int(questions.StrongAccuracy*100)))
	}
	n := len(st.Options)
	if q != nil {
		n = max(n, len(q.Options))
	}
	for i := range n {
		var p questions.OptionPicks
		if i < len(st.Options) {
			p = st.Options[i]
		}
		mark := "▫️"
		if slices.Contains(st.Key, questions.Letter(i)) {
			mark = "✅"
		}
		lines = append(lines, fmt.Sprintf("%s **%s** %s %d%% · picked %d× (%d in right answers, %d in wrong, %d by strong members)",
			mark, questions.Letter(i), bar(p.Total(), st.Answers), percent(p.Total(), st.Answers), p.Total(), p.Right, p.Wrong, p.Strong))
	}
	if w, ok := st.MostPickedWrong(); ok {
		lines = append(lines, fmt.Sprintf("Most picked wrong answer: **%s** · %s (%d%%)", strings.Join(w.Letters, ""), plural(w.Count, "answer", "answers"), percent(w.Count, st.Answers)))
	}
	if q != nil && len(q.Community) > 0 {
		var vs []string
		for _, v := range q.Community {
			vs = append(vs, fmt.Sprintf("%s %d%%", strings.Join(v.Letters, ""), v.Percent))
		}
		lines = append(lines, "Source site's vote: "+strings.Join(vs, ", "))
	}
	switch {
	case len(flags) > 0:
		for _, f := range flags {
			lines = append(lines, "⚠️ "+f.Reason)
		}
	case st.Dismissed:
		lines = append(lines, "Flags dismissed: hidden until the statistics change.")
	default:
		lines = append(lines, "No flag.")
	}
	return &discordgo.MessageEmbed{Title: truncate("📈 "+title, maxTitle), Description: truncate(strings.Join(lines, "\n"), maxDesc), Color: colorOpen}
}

// regradeModal asks for the key to grade a question against, the
// suggested one filled in.
func regradeModal(num uint32, q *questions.Question, suggest []string) *discordgo.InteractionResponseData {
	return &discordgo.InteractionResponseData{
		CustomID: kindRegradeForm.id(componentID{num: num}),
		Title:    truncate("Regrade · "+questionTitle(q), 45),
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: keyInputID, Label: truncate(fmt.Sprintf("Key (now %s; suggested %s)", strings.Join(q.Correct(), ""), strings.Join(suggest, "")), 45),
				Style: discordgo.TextInputShort, Value: strings.Join(suggest, ", "), Required: true, MinLength: 1, MaxLength: 80},
		}}},
	}
}

// parseKey reads the letters an admin typed: "C", "a, c", "AC".
func parseKey(s string) []string {
	var out []string
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' && r <= 'Z' {
			out = append(out, string(r))
		}
	}
	return out
}

// regradeSubmit changes the key of a question in its bank to the one the
// form names (when it differs) and grades the stored answers again
// against it.
func (b *Bot) regradeSubmit(c *call, id componentID) (response, error) {
	text := c.text(keyInputID)
	st, err := b.store.QuestionStat(c.guild, id.num)
	if errors.Is(err, questions.ErrNotFound) {
		return response{}, userErr("That question is gone. Run /quizadmin insights again.")
	}
	if err != nil {
		return response{}, fmt.Errorf("regrade: %w", err)
	}
	q := b.question(c.guild, st.QuestionID)
	if q == nil || b.isCatalogue(q.ID) {
		return response{}, userErr("`%s` can't be changed here.", truncate(st.QuestionID, 200))
	}
	letters := parseKey(text)
	key, err := questions.NormalizeChoice(letters, len(q.Options), len(letters))
	if err != nil || len(key) == 0 {
		return response{}, userErr("%q is not a key of this question: give 1 to %d of the letters %s, e.g. `C` or `A, C`.",
			truncate(text, 80), len(q.Options), questions.Letters[:len(q.Options)])
	}
	// Changing the bank and grading every stored answer again can take a
	// while.
	return later(func() (response, error) { return b.regradeToKey(c, st, q, key) }), nil
}

// regradeToKey changes the key of q (whose statistics are st) in its bank
// to key, when it differs, and grades the stored answers again against it.
func (b *Bot) regradeToKey(c *call, st questions.QuestionStats, q *questions.Question, key []string) (response, error) {
	// Refused before the bank changes: a question open in the server.
	open, err := b.store.OpenPosts()
	if err != nil {
		return response{}, fmt.Errorf("regrade: %w", err)
	}
	for _, p := range open {
		if p.GuildID == c.guild && p.QuestionID == q.ID {
			return response{}, regradeErr(q, questions.ErrQuestionOpen)
		}
	}
	old := q.Correct()
	if !slices.Equal(old, key) {
		nq := *q
		nq.Options = slices.Clone(q.Options)
		for i := range nq.Options {
			nq.Options[i].Correct = slices.Contains(key, nq.Options[i].Letter)
		}
		_, problems, err := b.applyChange(c.ctx, c.guild, c.user, []questions.Bank{{Name: q.Bank, Questions: []questions.Question{nq}}}, false, 0)
		if err != nil {
			return response{}, fmt.Errorf("regrade: %w", err)
		}
		if len(problems) > 0 {
			return response{}, userErr("❌ The key was not changed: %s", truncate(problems.Error(), 1500))
		}
		q = b.question(c.guild, q.ID)
		if q == nil {
			return response{}, fmt.Errorf("regrade: question %q gone after its key changed", st.QuestionID)
		}
	}
	res, err := b.store.Regrade(c.ctx, c.guild, q.ID, q.Correct(), len(q.Options))
	if err := regradeErr(q, err); err != nil {
		return response{}, err
	}
	b.log.Info("question regraded from insights", "guild", c.guild, "question", q.ID, "by", c.user, "key", strings.Join(key, ""), "answers", res.Answers, "changed", res.Changed)
	m := regradeMessage(q, res)
	if !slices.Equal(old, key) {
		m.content = fmt.Sprintf("🔑 The key of `%s` in bank **%s** is now **%s** (it was %s).\n", truncate(q.ID, 200), q.Bank, strings.Join(key, ", "), strings.Join(old, ", ")) + m.content
	}
	return asReply(m), nil
}

// The last chart drawn of each guild's bank is kept (Bot.charts) with a
// digest of the statistics it was drawn from: drawing takes tens of
// milliseconds, and the statistics change only with answers.
type chartEntry struct {
	sum uint64
	png []byte
}

// maxInsightsCharts bounds the charts kept (about 60 KB each), and
// maxInsightsChartsPerGuild one server's share.
const (
	maxInsightsCharts         = 64
	maxInsightsChartsPerGuild = 8
)

// insightsChart draws (or finds) the chart of v's questions; nil when
// drawing failed (logged). The chart shows the questions' marks whatever
// order the list is sorted in: they are drawn, and the chart is kept,
// in an order of their own, so that the same bank sorted another way
// finds the chart it drew.
func (b *Bot) insightsChart(guild questions.GuildID, v insightsView) []byte {
	items := make([]chart.Item, 0, len(v.entries))
	for _, e := range v.entries {
		if !e.hasDisc || e.st.Answers == 0 {
			continue
		}
		items = append(items, chart.Item{Facility: e.facility, Discrimination: e.disc, Flagged: len(e.flags) > 0})
	}
	slices.SortFunc(items, func(a, b chart.Item) int {
		if c := cmp.Compare(a.Facility, b.Facility); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Discrimination, b.Discrimination); c != 0 {
			return c
		}
		switch {
		case a.Flagged == b.Flagged:
			return 0
		case a.Flagged:
			return 1
		}
		return -1
	})
	h := fnv.New64a() // of what is drawn
	for _, it := range items {
		fmt.Fprintf(h, "%x:%x:%v;", math.Float64bits(it.Facility), math.Float64bits(it.Discrimination), it.Flagged)
	}
	key, sum := insightsKey{guild: guild, ref: v.ref}, h.Sum64()
	if e, ok := b.charts.get(key); ok && e.sum == sum {
		return e.png
	}
	title := "Every bank"
	if v.bank != "" {
		title = v.bank
	}
	var png []byte
	var err error
	if !b.drawer.draw(guild, func() { png, err = chart.RenderBank(title, items) }) {
		b.log.Warn("insights chart left out: too many charts waiting to be drawn", "guild", guild)
		return nil
	}
	if err != nil {
		b.log.Error("insights chart", "guild", guild, "err", err)
		return nil
	}
	b.charts.put(guild, key, chartEntry{sum: sum, png: png})
	return png
}
