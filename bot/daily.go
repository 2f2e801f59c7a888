package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// The daily quiz. A schedule is stored state: its next post instant
// (Daily.Next) is set when the schedule is set or changed and moved on by
// each claim (storage's ClaimDaily, a compare-and-set), so the scheduler
// posts a day at most once whatever restarts or settings changes happen.

// dailySet sets the daily schedule (/quizadmin daily set).
func (b *Bot) dailySet(c *call, opts options) (response, error) {
	res := c.resolved
	channel, ok := opts.channel("channel")
	if !ok {
		return response{}, userErr("Pick the channel to post in.")
	}
	if res != nil && res.Channels != nil {
		if ch := res.Channels[formatID(channel)]; ch != nil && ch.Type != discordgo.ChannelTypeGuildText && ch.Type != discordgo.ChannelTypeGuildNews {
			return response{}, userErr("<#%d> is not a text channel.", channel)
		}
	}
	ts, _ := opts.str("time")
	h, m, ok := questions.ParseClock(ts)
	if !ok {
		return response{}, userErr("%q is not a time of day. Use HH:MM on a 24-hour clock, such as 08:30 or 19:00.", truncate(ts, 40))
	}
	zone, _ := opts.str("timezone")
	loc, err := questions.LoadZone(zone)
	if err != nil {
		return response{}, userErr("%q is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.", truncate(zone, 60))
	}
	bank, _ := opts.str("bank")
	if bank != "" {
		banks, err := b.guildBanks(c.guild)
		if err != nil {
			return response{}, err
		}
		bk := findBank(banks, bank)
		if bk == nil {
			return response{}, userErr("There is no bank named %q here. `/quiz banks` lists them.", truncate(bank, 100))
		}
		bank = bk.Name
	}
	count := 1
	if n, ok := opts.int("count"); ok {
		if n < 1 || n > 10 {
			return response{}, userErr("count must be between 1 and 10.")
		}
		count = n
	}
	now := b.clock.Now()
	set, err := b.updateSettings(c.ctx, c.guild, func(s *questions.Settings, from *time.Location) error {
		return s.SetDaily(questions.Daily{ChannelID: channel, Time: fmt.Sprintf("%02d:%02d", h, m), Bank: bank, Count: count},
			from, loc, now)
	})
	if err != nil {
		return response{}, fmt.Errorf("daily set: %w", err)
	}
	b.poke()
	d := set.Daily
	return asReply(message{ephemeral: true, content: fmt.Sprintf(
		"📅 Daily quiz on: %s at **%s** (%s) in <#%d>, from %s. First post %s (%s).",
		plural(count, "question", "questions"), d.Time, set.TimeZone, channel, bankLabel(bank),
		timestamp(d.Next, "F"), timestamp(d.Next, "R"))}), nil
}

func bankLabel(bank string) string {
	if bank == "" {
		return "every bank"
	}
	return "**" + bank + "**"
}

// dailyOff stops the daily quiz (/quizadmin daily off).
func (b *Bot) dailyOff(c *call, _ options) (response, error) {
	was := false
	_, err := b.store.UpdateSettings(c.ctx, c.guild, func(s *questions.Settings) error {
		was = s.DailyOff()
		return nil
	})
	if err != nil {
		return response{}, fmt.Errorf("daily off: %w", err)
	}
	if !was {
		return asReply(message{ephemeral: true, content: "The daily quiz is already off."}), nil
	}
	b.poke()
	return asReply(message{ephemeral: true, content: "📅 Daily quiz off. Open daily questions stay open until closed."}), nil
}

// dailyStatus shows the schedule (/quizadmin daily status).
func (b *Bot) dailyStatus(c *call, _ options) (response, error) {
	set, err := b.store.Settings(c.guild)
	if err != nil {
		return response{}, fmt.Errorf("daily status: %w", err)
	}
	loc, err := questions.LoadZone(set.TimeZone)
	if err != nil && set.Daily != nil {
		return response{}, fmt.Errorf("daily status: stored zone %q: %w", set.TimeZone, err)
	}
	return asReply(dailyStatusMessage(set, loc)), nil
}

// dailyStatusMessage shows the daily schedule of set; loc is its zone.
func dailyStatusMessage(set questions.Settings, loc *time.Location) message {
	if set.Daily == nil {
		return message{ephemeral: true, content: "📅 The daily quiz is off. `/quizadmin daily set` turns it on."}
	}
	d := *set.Daily
	closes := "when the next day's questions are posted"
	if d.CloseAfterHours > 0 {
		closes = "after " + plural(d.CloseAfterHours, "hour", "hours")
	}
	last := "not yet"
	if d.LastPosted != "" {
		last = d.LastPosted
	}
	text := fmt.Sprintf("📅 **Daily quiz**\nChannel: <#%d>\nTime: **%s** (%s)\nBank: %s\nQuestions per day: %d\nQuestions close: %s\nLast posted: %s\nNext post: %s (%s)",
		d.ChannelID, d.Time, set.TimeZone, bankLabel(d.Bank), d.Count, closes, last,
		d.Next.In(loc).Format("Mon 2 Jan 2006 15:04 MST"), timestamp(d.Next, "R"))
	if d.LastError != "" {
		text += "\n⚠️ The last post failed: " + truncate(d.LastError, 300)
	}
	return message{ephemeral: true, content: text}
}

// runDaily posts every daily quiz that is due at now and returns the
// earliest next post time. A due post is made on its local day or up to
// questions.DailyLateness past that day's midnight (the bot was down, or busy);
// later than that it is skipped, not posted on the wrong day. A post that
// fails before anything went out is tried again a minute later, that same
// local day.
func (b *Bot) runDaily(ctx context.Context, now time.Time) time.Time {
	guilds, err := b.store.DailyGuilds()
	if err != nil {
		b.log.Error("list daily schedules", "err", err)
		return now.Add(time.Minute)
	}
	var next time.Time
	for _, set := range guilds {
		if ctx.Err() != nil {
			break // shutting down: claim nothing more
		}
		if !b.shards.Owns(uint64(set.GuildID)) {
			b.log.Error("daily quiz of a server of another shard left alone", "guild", set.GuildID, "shards", b.shards.String())
			continue
		}
		if t := b.runGuildDaily(ctx, set, now); !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next
}

// runGuildDaily does one guild's daily post if it is due, and returns its
// next post time (zero when the schedule is broken).
func (b *Bot) runGuildDaily(ctx context.Context, set questions.Settings, now time.Time) time.Time {
	d := *set.Daily
	loc, err := questions.LoadZone(set.TimeZone)
	if err != nil {
		b.log.Error("bad daily schedule", "guild", set.GuildID, "zone", set.TimeZone)
		return time.Time{}
	}
	if d.Next.After(now) {
		return d.Next
	}
	// Due, or never computed (a zero Next): decide, claim, move on.
	step, err := d.Step(loc, now)
	if err != nil {
		b.log.Error("bad daily schedule", "guild", set.GuildID, "time", d.Time)
		return time.Time{}
	}
	post, following := step.Post, step.Next
	claimed, err := b.store.ClaimDaily(ctx, set.GuildID, d.Next, following, step.LastPosted)
	if err != nil {
		b.log.Error("claim daily", "guild", set.GuildID, "err", err)
		return now.Add(time.Minute)
	}
	switch {
	case !claimed:
		return now.Add(time.Second) // the schedule changed meanwhile: look again
	case !post:
		if !d.Next.IsZero() {
			b.log.Warn("daily post skipped: its day passed while quizhost was down", "guild", set.GuildID, "due", d.Next)
		}
		return following
	}
	b.cfg.Metrics.SchedulerLag(now.Sub(d.Next))
	posted, err := b.postDaily(ctx, set, now)
	if err == nil {
		return following
	}
	b.log.Error("daily post", "guild", set.GuildID, "posted", posted, "err", redact(err))
	msg := failureText(err)
	retry := now.Add(time.Minute)
	if posted == 0 && questions.LocalDate(retry, loc) == step.LastPosted {
		// Nothing went out: hand the day back and try again shortly.
		if ok, cerr := b.store.ClaimDaily(ctx, set.GuildID, following, retry, d.LastPosted); cerr == nil && ok {
			following, msg = retry, msg+" (trying again)"
		}
	}
	if ferr := b.store.DailyFailed(ctx, set.GuildID, msg); ferr != nil {
		b.log.Error("record daily failure", "guild", set.GuildID, "err", ferr)
	}
	return following
}

// failureText is what daily status shows of a failed post.
func failureText(err error) string {
	if msg, ok := isUser(err); ok {
		return msg
	}
	return redact(err)
}

// postDaily closes the guild's previous daily questions and posts today's,
// returning how many it posted. It draws the first question before closing
// anything, so a failure to draw leaves yesterday's questions open.
func (b *Bot) postDaily(ctx context.Context, set questions.Settings, now time.Time) (int, error) {
	d := set.Daily
	q, err := b.draw(ctx, set.GuildID, set, d.Bank)
	if err != nil {
		return 0, err
	}
	open, err := b.store.OpenPostsIn(set.GuildID, 0)
	if err != nil {
		return 0, fmt.Errorf("open posts: %w", err)
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
		if n > 0 {
			if q, err = b.draw(ctx, set.GuildID, set, d.Bank); err != nil {
				return n, err
			}
		}
		if _, err := b.postQuestion(ctx, set.GuildID, d.ChannelID, q, closes, true, extra...); err != nil {
			return n, err
		}
	}
	return max(1, d.Count), nil
}
