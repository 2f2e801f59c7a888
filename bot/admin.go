package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// MaxImportSize is the largest bank file /quizadmin import accepts.
const MaxImportSize = 1 << 20

var clockTime = regexp.MustCompile(`^([01]?\d|2[0-3]):([0-5]\d)$`)

// parseClock reads "HH:MM" (24 h) into hours and minutes.
func parseClock(s string) (h, m int, ok bool) {
	g := clockTime.FindStringSubmatch(strings.TrimSpace(s))
	if g == nil {
		return 0, 0, false
	}
	h, _ = strconv.Atoi(g[1])
	m, _ = strconv.Atoi(g[2])
	return h, m, true
}

// loadZone accepts IANA names only ("Europe/Berlin", "UTC"), not "Local".
func loadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("empty time zone")
	}
	return time.LoadLocation(name)
}

// dailyAt is the moment of the daily post on the local date of day.
// time.Date keeps the wall-clock time across daylight-saving changes (a
// time that does not exist that day moves forward by the gap).
func dailyAt(day time.Time, h, m int, loc *time.Location) time.Time {
	y, mo, d := day.In(loc).Date()
	return time.Date(y, mo, d, h, m, 0, 0, loc)
}

func localDate(t time.Time, loc *time.Location) string { return t.In(loc).Format(time.DateOnly) }

// dailySet sets the daily schedule (/quizadmin daily set).
func (b *Bot) dailySet(c *call, opts options, res *discordgo.ApplicationCommandInteractionDataResolved) error {
	channel, ok := opts.snowflake("channel")
	if !ok {
		return userErr("Pick the channel to post in.")
	}
	if res != nil && res.Channels != nil {
		if ch := res.Channels[formatID(channel)]; ch != nil && ch.Type != discordgo.ChannelTypeGuildText && ch.Type != discordgo.ChannelTypeGuildNews {
			return userErr("<#%d> is not a text channel.", channel)
		}
	}
	ts, _ := opts.str("time")
	h, m, ok := parseClock(ts)
	if !ok {
		return userErr("%q is not a time of day. Use HH:MM on a 24-hour clock, such as 08:30 or 19:00.", truncate(ts, 40))
	}
	zone, _ := opts.str("timezone")
	loc, err := loadZone(zone)
	if err != nil {
		return userErr("%q is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.", truncate(zone, 60))
	}
	bank, _ := opts.str("bank")
	if bank != "" {
		banks, err := b.guildBanks(c.guild)
		if err != nil {
			return err
		}
		bk := findBank(banks, bank)
		if bk == nil {
			return userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(bank, 100))
		}
		bank = bk.Name
	}
	count := 1
	if n, ok := opts.int("count"); ok {
		if n < 1 || n > 10 {
			return userErr("count must be between 1 and 10.")
		}
		count = n
	}
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("daily set: %w", err)
	}
	now := b.clock.Now()
	d := &questions.Daily{ChannelID: channel, Time: fmt.Sprintf("%02d:%02d", h, m), TimeZone: loc.String(),
		Bank: bank, Count: count}
	if set.Daily != nil {
		d.CloseAfterHours = set.Daily.CloseAfterHours
		d.LastPosted = set.Daily.LastPosted
	}
	// A time already past today starts tomorrow: setting a schedule never
	// posts at once.
	if !now.Before(dailyAt(now, h, m, loc)) {
		d.LastPosted = localDate(now, loc)
	}
	set.Daily = d
	set.TimeZone = loc.String()
	if err := b.store.SaveSettings(set); err != nil {
		return fmt.Errorf("daily set: %w", err)
	}
	b.poke()
	next := nextDaily(*d, now, loc, h, m)
	return c.reply(message{ephemeral: true, content: fmt.Sprintf(
		"📅 Daily quiz on: %s at **%s** (%s) in <#%d>, from %s. First post %s (%s).",
		plural(count, "question", "questions"), d.Time, d.TimeZone, channel, bankLabel(bank),
		timestamp(next, "F"), timestamp(next, "R"))})
}

func bankLabel(bank string) string {
	if bank == "" {
		return "every bank"
	}
	return "**" + bank + "**"
}

// nextDaily is the next post time of a schedule: today's, unless today's
// post was made (then tomorrow's). A time not after now means due now.
func nextDaily(d questions.Daily, now time.Time, loc *time.Location, h, m int) time.Time {
	today := dailyAt(now, h, m, loc)
	if d.LastPosted == localDate(now, loc) {
		return dailyAt(today.AddDate(0, 0, 1), h, m, loc)
	}
	return today
}

// dailyOff stops the daily quiz (/quizadmin daily off).
func (b *Bot) dailyOff(c *call) error {
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("daily off: %w", err)
	}
	if set.Daily == nil {
		return c.reply(message{ephemeral: true, content: "The daily quiz is already off."})
	}
	set.Daily = nil
	if err := b.store.SaveSettings(set); err != nil {
		return fmt.Errorf("daily off: %w", err)
	}
	b.poke()
	return c.reply(message{ephemeral: true, content: "📅 Daily quiz off. Open daily questions stay open until closed."})
}

// dailyStatus shows the schedule (/quizadmin daily status).
func (b *Bot) dailyStatus(c *call) error {
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("daily status: %w", err)
	}
	if set.Daily == nil {
		return c.reply(message{ephemeral: true, content: "📅 The daily quiz is off. `/quizadmin daily set` turns it on."})
	}
	d := *set.Daily
	loc, err := loadZone(d.TimeZone)
	if err != nil {
		return fmt.Errorf("daily status: stored zone %q: %w", d.TimeZone, err)
	}
	h, m, _ := parseClock(d.Time)
	next := nextDaily(d, b.clock.Now(), loc, h, m)
	closes := "when the next day's questions are posted"
	if d.CloseAfterHours > 0 {
		closes = "after " + plural(d.CloseAfterHours, "hour", "hours")
	}
	text := fmt.Sprintf("📅 **Daily quiz**\nChannel: <#%d>\nTime: **%s** (%s)\nBank: %s\nQuestions per day: %d\nQuestions close: %s\nNext post: %s (%s)",
		d.ChannelID, d.Time, d.TimeZone, bankLabel(d.Bank), d.Count, closes,
		next.In(loc).Format("Mon 2 Jan 2006 15:04 MST"), timestamp(next, "R"))
	return c.reply(message{ephemeral: true, content: text})
}

// runDaily posts every daily quiz that is due at now and returns the
// earliest next post time. A day is claimed in storage before its post, so
// no day is ever posted twice, even across restarts.
func (b *Bot) runDaily(ctx context.Context, now time.Time) time.Time {
	guilds, err := b.store.DailyGuilds()
	if err != nil {
		b.log.Error("list daily schedules", "err", err)
		return now.Add(time.Minute)
	}
	var next time.Time
	for _, set := range guilds {
		d := *set.Daily
		loc, err1 := loadZone(d.TimeZone)
		h, m, ok := parseClock(d.Time)
		if err1 != nil || !ok {
			b.log.Error("bad daily schedule", "guild", set.GuildID, "time", d.Time, "zone", d.TimeZone)
			continue
		}
		today := localDate(now, loc)
		at := dailyAt(now, h, m, loc)
		if d.LastPosted != today && !now.Before(at) {
			claimed, err := b.store.ClaimDaily(set.GuildID, today)
			if err != nil {
				b.log.Error("claim daily", "guild", set.GuildID, "err", err)
				continue
			}
			if claimed {
				b.postDaily(ctx, set, now)
			}
			d.LastPosted = today
		}
		t := nextDaily(d, now, loc, h, m)
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next
}

// postDaily closes the guild's previous daily questions and posts today's.
func (b *Bot) postDaily(ctx context.Context, set questions.Settings, now time.Time) {
	d := set.Daily
	open, err := b.store.OpenPostsIn(set.GuildID, 0)
	if err != nil {
		b.log.Error("daily: open posts", "guild", set.GuildID, "err", err)
	}
	for _, p := range open {
		if p.Daily {
			if err := b.closePost(ctx, p.ID); err != nil {
				b.log.Error("daily: close previous", "post", p.ID, "err", err)
			}
		}
	}
	var closes time.Time
	if d.CloseAfterHours > 0 {
		closes = now.Add(time.Duration(d.CloseAfterHours) * time.Hour)
	}
	streaks := b.streaksEmbed(set.GuildID, now)
	for n := 0; n < max(1, d.Count); n++ {
		var extra []*discordgo.MessageEmbed
		if n == 0 && streaks != nil {
			extra = append(extra, streaks)
		}
		if _, err := b.postQuestion(ctx, set.GuildID, d.ChannelID, set, d.Bank, closes, true, extra...); err != nil {
			b.log.Error("daily post", "guild", set.GuildID, "err", err)
			return
		}
	}
}

// streaksEmbed shows the server's active study streaks on the first daily
// question; nil when nobody has one.
func (b *Bot) streaksEmbed(guild uint64, now time.Time) *discordgo.MessageEmbed {
	streaks, err := b.store.ActiveStreaks(guild, now, 10)
	if err != nil {
		b.log.Error("daily streaks", "guild", guild, "err", err)
		return nil
	}
	if len(streaks) == 0 {
		return nil
	}
	var lines []string
	for _, s := range streaks {
		lines = append(lines, fmt.Sprintf("<@%d> · 🔥 %s", s.UserID, plural(s.CurrentStreak, "day", "days")))
	}
	return &discordgo.MessageEmbed{Title: "🔥 Active study streaks", Color: colorClosed,
		Description: strings.Join(lines, "\n") + "\nAnswer today to keep yours going."}
}

// settingsCmd shows or changes the server's settings (/quizadmin settings).
func (b *Bot) settingsCmd(c *call, opts options) error {
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	changed := false
	if v, ok := opts.bool("reveal_on_answer"); ok {
		set.RevealOnAnswer, changed = v, true
	}
	if v, ok := opts.int("ask_minutes"); ok {
		if v < 1 || v > 10080 {
			return userErr("ask_minutes must be between 1 and 10080 (a week).")
		}
		set.AskMinutes, changed = v, true
	}
	if v, ok := opts.str("timezone"); ok {
		loc, err := loadZone(v)
		if err != nil {
			return userErr("%q is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.", truncate(v, 60))
		}
		set.TimeZone, changed = loc.String(), true
		if set.Daily != nil {
			set.Daily.TimeZone = loc.String()
		}
	}
	if v, ok := opts.int("daily_close_hours"); ok {
		if v < 0 || v > 168 {
			return userErr("daily_close_hours must be between 0 and 168.")
		}
		if set.Daily == nil {
			return userErr("Set up the daily quiz first with `/quizadmin daily set`.")
		}
		set.Daily.CloseAfterHours, changed = v, true
	}
	if v, ok := opts.str("banks"); ok {
		names, err := b.bankList(c.guild, v)
		if err != nil {
			return err
		}
		set.Banks, changed = names, true
	}
	if changed {
		if err := b.store.SaveSettings(set); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
		b.poke()
	}
	reveal := "at once, in the private answer reply"
	if !set.RevealOnAnswer {
		reveal = "only when the question closes"
	}
	banks := "every bank"
	if len(set.Banks) > 0 {
		banks = strings.Join(set.Banks, ", ")
	}
	head := "⚙️ **Settings**"
	if changed {
		head = "⚙️ **Settings saved**"
	}
	return c.reply(message{ephemeral: true, content: truncate(fmt.Sprintf(
		"%s\nAnswer and explanation shown: %s\n`/quiz ask` stays open: %s\nQuestions drawn from: %s\nTime zone: %s",
		head, reveal, plural(set.AskMinutes, "minute", "minutes"), banks, set.TimeZone), 2000)})
}

// bankList reads "all" or a comma-separated list of existing bank names.
func (b *Bot) bankList(guild uint64, v string) ([]string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "all") || strings.TrimSpace(v) == "" {
		return nil, nil
	}
	banks, err := b.guildBanks(guild)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		bk := findBank(banks, n)
		if bk == nil {
			return nil, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(n, 100))
		}
		names = append(names, bk.Name)
	}
	return names, nil
}

// importCmd imports a bank file (/quizadmin import file:<attachment> [bank]).
func (b *Bot) importCmd(c *call, opts options, res *discordgo.ApplicationCommandInteractionDataResolved) error {
	id, ok := opts.snowflake("file")
	var att *discordgo.MessageAttachment
	if ok && res != nil {
		att = res.Attachments[formatID(id)]
	}
	if att == nil {
		return userErr("Attach the bank file to import.")
	}
	name := path.Base(strings.ReplaceAll(att.Filename, "\\", "/"))
	format, ok := questions.FormatOf(name)
	if !ok {
		return userErr("%q is not a bank file: use .txt (exam text), .yaml, .yml, .json or .gift.", truncate(name, 100))
	}
	if att.Size > MaxImportSize {
		return userErr("That file is %d KiB; a bank file may be at most 1 MiB.", att.Size/1024)
	}
	if err := c.deferReply(true); err != nil {
		return err
	}
	data, err := b.download(c.ctx, att.URL)
	if err != nil {
		b.log.Warn("import download", "guild", c.guild, "err", err)
		if msg, ok := isUser(err); ok {
			return userErr("%s", msg)
		}
		return userErr("I couldn't download that file. Try uploading it again.")
	}
	banks, err := questions.Parse(name, data)
	if err != nil {
		return c.reply(problemsMessage(name, err))
	}
	if len(banks) != 1 {
		var names []string
		for _, bk := range banks {
			names = append(names, bk.Name)
		}
		return userErr("That file holds %d banks (%s): import one bank per file.", len(banks), truncate(strings.Join(names, ", "), 500))
	}
	bk := banks[0]
	if override, ok := opts.str("bank"); ok && strings.TrimSpace(override) != "" {
		renameBank(&bk, strings.TrimSpace(override))
	}
	if _, builtin := b.cfg.Catalogue.Bank(bk.Name); builtin {
		return userErr("A bank named **%s** comes with this quizhost and can't be replaced. Give yours another name with the `bank` option.", bk.Name)
	}
	if p := questions.Validate([]questions.Bank{bk}); len(p) > 0 {
		return c.reply(problemsMessage(name, p))
	}
	existing, err := b.importedNames(c.guild)
	if err != nil {
		return err
	}
	if err := b.store.SaveBank(c.guild, questions.BankFile{Name: bk.Name, Format: format, Data: data,
		ImportedAt: b.clock.Now(), ImportedBy: c.user}); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	b.forgetImported(c.guild)
	b.log.Info("bank imported", "guild", c.guild, "bank", bk.Name, "questions", len(bk.Questions))
	verb := "Imported"
	if existing[strings.ToLower(bk.Name)] {
		verb = "Replaced"
	}
	return c.reply(message{ephemeral: true, content: fmt.Sprintf("📚 %s **%s**: %s.", verb, bk.Name,
		plural(len(bk.Questions), "question", "questions"))})
}

// problemsMessage lists every problem of a rejected file, "line N: message".
func problemsMessage(name string, err error) message {
	var ps questions.Problems
	var lines []string
	if errors.As(err, &ps) {
		for _, p := range ps {
			if p.Line > 0 {
				lines = append(lines, fmt.Sprintf("line %d: %s", p.Line, p.Msg))
			} else {
				lines = append(lines, p.Msg)
			}
		}
	} else {
		lines = []string{err.Error()}
	}
	desc := ""
	for i, l := range lines {
		next := desc + "• " + truncate(l, 300) + "\n"
		if runes(next) > maxDesc-40 {
			desc += fmt.Sprintf("…and %d more", len(lines)-i)
			break
		}
		desc = next
	}
	return message{ephemeral: true, content: fmt.Sprintf("❌ **%s** was not imported: %s. Nothing was stored.",
		truncate(name, 100), plural(len(lines), "problem", "problems")),
		embeds: []*discordgo.MessageEmbed{{Title: "Problems", Description: desc, Color: colorWrong}}}
}

// download fetches an attachment with a timeout and a size cap.
func (b *Bot) download(ctx context.Context, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("download: bad attachment url")
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	resp, err := b.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: status %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxImportSize+1))
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	if len(data) > MaxImportSize {
		return nil, userErr("That file is larger than 1 MiB; a bank file may be at most 1 MiB.")
	}
	return data, nil
}

// bankRemove removes an imported bank (/quizadmin bank remove name:<bank>).
func (b *Bot) bankRemove(c *call, opts options) error {
	name, _ := opts.str("name")
	f, err := b.importedFile(c.guild, name)
	if err != nil {
		return err
	}
	if err := b.store.DeleteBank(c.guild, f.Name); err != nil {
		return storeErr(err)
	}
	b.forgetImported(c.guild)
	return c.reply(message{ephemeral: true, content: fmt.Sprintf("🗑️ Removed **%s**. Scores earned on it stay.", f.Name)})
}

// bankExport sends an imported bank back as its file (/quizadmin bank export).
func (b *Bot) bankExport(c *call, opts options) error {
	name, _ := opts.str("name")
	f, err := b.importedFile(c.guild, name)
	if err != nil {
		return err
	}
	file := &discordgo.File{Name: fileName(f.Name) + "." + string(f.Format), ContentType: "text/plain; charset=utf-8",
		Reader: strings.NewReader(string(f.Data))}
	return c.reply(message{ephemeral: true, content: fmt.Sprintf("📚 **%s**, as imported.", f.Name), files: []*discordgo.File{file}})
}

// importedFile finds an imported bank by name, or says why not.
func (b *Bot) importedFile(guild uint64, name string) (questions.BankFile, error) {
	files, err := b.store.Banks(guild)
	if err != nil {
		return questions.BankFile{}, fmt.Errorf("banks: %w", err)
	}
	for _, f := range files {
		if strings.EqualFold(f.Name, strings.TrimSpace(name)) {
			return f, nil
		}
	}
	if _, ok := b.cfg.Catalogue.Bank(strings.TrimSpace(name)); ok {
		return questions.BankFile{}, userErr("**%s** is not an imported bank: it comes with this quizhost. `/quizadmin settings banks:` leaves it out of the draw.", truncate(name, 100))
	}
	return questions.BankFile{}, userErr("There is no imported bank named %q.", truncate(name, 100))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileName(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-.")
	if s == "" {
		s = "bank"
	}
	return truncate(s, 80)
}

// resetCmd asks to confirm a reset (/quizadmin reset scope:<all|member> [member]).
func (b *Bot) resetCmd(c *call, opts options) error {
	scope, _ := opts.str("scope")
	var member uint64
	var what string
	switch scope {
	case "all":
		what = "every member's scores, streaks and leaderboard places on this server, and which questions were asked"
	case "member":
		id, ok := opts.snowflake("member")
		if !ok {
			return userErr("With scope member, pick the member to reset.")
		}
		member = id
		what = fmt.Sprintf("<@%d>'s scores, streaks and leaderboard places on this server", id)
	default:
		return userErr("scope must be all or member.")
	}
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Reset", Style: discordgo.DangerButton, CustomID: resetCustomID(scope, member, c.user)},
		discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: resetCustomID("cancel", 0, c.user)},
	}}
	return c.reply(message{ephemeral: true, content: "⚠️ This resets " + what + ". It can't be undone. Reset?",
		components: []discordgo.MessageComponent{row}})
}

// resetConfirm carries out (or cancels) a confirmed reset.
func (b *Bot) resetConfirm(c *call, id componentID) error {
	if id.by != c.user || !isManager(c.member) {
		return userErr("Only the admin who asked for this reset can confirm it.")
	}
	var text string
	switch id.scope {
	case "cancel":
		text = "Reset cancelled. Nothing changed."
	case "all":
		if err := b.store.ResetGuild(c.guild); err != nil {
			return fmt.Errorf("reset guild: %w", err)
		}
		b.log.Info("guild reset", "guild", c.guild, "user", c.user)
		text = "✅ Reset done: every score, streak and leaderboard starts again from zero. Good luck this term!"
	case "member":
		if err := b.store.ResetMember(c.guild, id.member); err != nil {
			return fmt.Errorf("reset member: %w", err)
		}
		b.log.Info("member reset", "guild", c.guild, "user", c.user, "member", id.member)
		text = fmt.Sprintf("✅ Reset done for <@%d>.", id.member)
	}
	return c.update(message{content: text})
}
