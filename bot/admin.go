package bot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// MaxImportSize is the largest bank file /quizadmin import accepts.
const MaxImportSize = 1 << 20

// settingsCmd shows or changes the server's settings (/quizadmin settings).
// The options are checked first; the change is one storage transaction, so
// it cannot undo a daily post claimed meanwhile.
func (b *Bot) settingsCmd(c *call, opts options) error {
	var edits []func(s *questions.Settings, zone *time.Location) error
	if v, ok := opts.bool("reveal_on_answer"); ok {
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.RevealOnAnswer = v; return nil })
	}
	if v, ok := opts.int("ask_minutes"); ok {
		if v < 1 || v > 10080 {
			return userErr("ask_minutes must be between 1 and 10080 (a week).")
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.AskMinutes = v; return nil })
	}
	if v, ok := opts.str("timezone"); ok {
		loc, err := questions.LoadZone(v)
		if err != nil {
			return userErr("%q is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.", truncate(v, 60))
		}
		now := b.clock.Now()
		edits = append(edits, func(s *questions.Settings, from *time.Location) error {
			return s.SetTimeZone(from, loc, now)
		})
		// Scores are recounted in the new zone: that can take a moment.
		if err := c.deferReply(true); err != nil {
			return err
		}
	}
	if v, ok := opts.int("daily_close_hours"); ok {
		if v < 0 || v > 168 {
			return userErr("daily_close_hours must be between 0 and 168.")
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error {
			if s.Daily == nil {
				return userErr("Set up the daily quiz first with `/quizadmin daily set`.")
			}
			s.Daily.CloseAfterHours = v
			return nil
		})
	}
	if v, ok := opts.str("banks"); ok {
		names, err := b.bankList(c.guild, v)
		if err != nil {
			return err
		}
		edits = append(edits, func(s *questions.Settings, _ *time.Location) error { s.Banks = names; return nil })
	}
	var set questions.Settings
	var err error
	if len(edits) == 0 {
		set, err = b.store.Settings(c.guild)
	} else {
		set, err = b.updateSettings(c.ctx, c.guild, func(s *questions.Settings, zone *time.Location) error {
			for _, edit := range edits {
				if err := edit(s, zone); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	changed := len(edits) > 0
	if changed {
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
func (b *Bot) bankList(guild questions.GuildID, v string) ([]string, error) {
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

// maxImportFiles is how many files one /quizadmin import takes: the
// options file, file2 … file10.
const maxImportFiles = 10

// importFileOption names the attachment options in order: "file", "file2" …
func importFileOption(i int) string {
	if i == 0 {
		return "file"
	}
	return fmt.Sprintf("file%d", i+1)
}

// importCmd imports bank files (/quizadmin import file:<attachment>
// [file2 … file10] [bank] [mode]): their questions merge into the banks of
// their names (or the bank option's), or with mode replace replace those
// banks. All or nothing: a problem in any file refuses the whole import.
func (b *Bot) importCmd(c *call, opts options, res *discordgo.ApplicationCommandInteractionDataResolved) error {
	replace := false
	if mode, ok := opts.str("mode"); ok {
		switch mode {
		case "merge":
		case "replace":
			replace = true
		default:
			return userErr("mode must be merge or replace.")
		}
	}
	bankOpt, _ := opts.str("bank")
	bankOpt = strings.TrimSpace(bankOpt)
	type upload struct {
		name string
		att  *discordgo.MessageAttachment
	}
	var ups []upload
	var refusals []string
	for i := range maxImportFiles {
		id, ok := opts.snowflake(importFileOption(i))
		if !ok {
			continue
		}
		var att *discordgo.MessageAttachment
		if res != nil {
			att = res.Attachments[formatID(id)]
		}
		if att == nil {
			continue
		}
		name := path.Base(strings.ReplaceAll(att.Filename, "\\", "/"))
		if _, ok := questions.FormatOf(name); !ok {
			refusals = append(refusals, fmt.Sprintf("%q is not a bank file: use .txt (exam text), .yaml, .yml, .json or .gift.", truncate(name, 100)))
		} else if att.Size > MaxImportSize {
			refusals = append(refusals, fmt.Sprintf("%q is %d KiB; a bank file may be at most 1 MiB.", truncate(name, 100), att.Size/1024))
		}
		ups = append(ups, upload{name, att})
	}
	if len(ups) == 0 {
		return userErr("Attach the bank file to import.")
	}
	if len(refusals) > 0 {
		return userErr("Nothing was imported. %s", strings.Join(refusals, " "))
	}
	if err := c.deferReply(true); err != nil {
		return err
	}
	var parts []questions.Bank
	var ps questions.Problems
	for _, u := range ups {
		data, err := b.download(c.ctx, u.att.URL)
		if err != nil {
			b.log.Warn("import download", "guild", c.guild, "err", err)
			if msg, ok := isUser(err); ok {
				return userErr("%s: %s Nothing was imported.", truncate(u.name, 100), msg)
			}
			return userErr("I couldn't download %s. Try uploading it again; nothing was imported.", truncate(u.name, 100))
		}
		banks, fileProblems := questions.ParseFile(u.name, data, questions.ParseOptions{DefaultBank: bankOpt})
		ps = append(ps, fileProblems...)
		for _, bk := range banks {
			if bankOpt != "" {
				questions.Rename(&bk, bankOpt)
			}
			bk.Path = u.name
			parts = append(parts, bk)
		}
	}
	what := truncate(ups[0].name, 100)
	if len(ups) > 1 {
		what = fmt.Sprintf("The %d files", len(ups))
	}
	if errs := ps.Errors(); len(errs) > 0 {
		return c.reply(problemsMessage(what, len(ups) > 1, errs))
	}
	ch, refused, err := b.applyChange(c.ctx, c.guild, c.user, parts, replace, 0)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if len(refused) > 0 {
		return c.reply(problemsMessage(what, len(ups) > 1, refused))
	}
	for _, r := range ch.results {
		b.log.Info("bank imported", "guild", c.guild, "bank", r.name, "added", r.count.Added,
			"updated", r.count.Updated, "unchanged", r.count.Unchanged, "replace", replace)
	}
	m := message{ephemeral: true, content: changeSummary("Imported", ch.results)}
	if w := ps.Warnings(); len(w) > 0 {
		m.embeds = []*discordgo.MessageEmbed{{Title: "Warnings", Description: problemList(w, true), Color: colorOpen}}
	}
	return c.reply(m)
}

// problemList lists problems one a line, "file:line: message" (withPath)
// or "line N: message", within an embed description.
func problemList(ps questions.Problems, withPath bool) string {
	desc := ""
	for i, p := range ps {
		l := p.Msg
		switch {
		case withPath:
			l = p.Error()
		case p.Line > 0:
			l = fmt.Sprintf("line %d: %s", p.Line, p.Msg)
		}
		next := desc + "• " + truncate(l, 300) + "\n"
		if runes(next) > maxDesc-40 {
			desc += fmt.Sprintf("…and %d more", len(ps)-i)
			break
		}
		desc = next
	}
	return desc
}

// problemsMessage refuses an import of what (a file, or several files):
// every problem as file:line: message, and that nothing was stored.
func problemsMessage(what string, several bool, ps questions.Problems) message {
	verb := "was"
	if several {
		verb = "were"
	}
	return message{ephemeral: true, content: fmt.Sprintf("❌ **%s** %s not imported: %s. Nothing was stored.",
		what, verb, plural(len(ps), "problem", "problems")),
		embeds: []*discordgo.MessageEmbed{{Title: "Problems", Description: problemList(ps, true), Color: colorWrong}}}
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
	if err := b.store.DeleteBank(c.ctx, c.guild, f.Name); err != nil {
		return storeErr(err)
	}
	b.forgetImported(c.guild)
	return c.reply(message{ephemeral: true, content: fmt.Sprintf("🗑️ Removed **%s**. Scores earned on it stay.", f.Name)})
}

// bankExport sends an imported bank back as a file (/quizadmin bank export)
// that imports again as the same bank: the file as uploaded when it names
// the bank so, else the bank written out as YAML (after an import under
// another name, say).
func (b *Bot) bankExport(c *call, opts options) error {
	name, _ := opts.str("name")
	f, err := b.importedFile(c.guild, name)
	if err != nil {
		return err
	}
	data, file := f.Data, fileName(f.Name)+"."+string(f.Format)
	if banks, err := questions.Parse(file, data); err != nil || len(banks) != 1 || banks[0].Name != f.Name {
		bk, err := parseBankFile(f)
		if err != nil {
			return fmt.Errorf("export %q: %w", f.Name, err)
		}
		if data, err = questions.MarshalYAML(*bk); err != nil {
			return fmt.Errorf("export %q: %w", f.Name, err)
		}
		file = fileName(f.Name) + ".yaml"
	}
	return c.reply(message{ephemeral: true, content: fmt.Sprintf("📚 **%s**: import this file again to restore it.", f.Name),
		files: []*discordgo.File{{Name: file, ContentType: "text/plain; charset=utf-8", Reader: bytes.NewReader(data)}}})
}

// importedFile finds an imported bank by name, or says why not.
func (b *Bot) importedFile(guild questions.GuildID, name string) (questions.BankFile, error) {
	files, err := b.store.Banks(guild)
	if err != nil {
		return questions.BankFile{}, fmt.Errorf("banks: %w", err)
	}
	for _, f := range files {
		if sameName(f.Name, name) {
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
	var member questions.UserID
	var what string
	switch scope {
	case "all":
		what = "every member's scores, streaks and leaderboard places on this server, and which questions were asked"
	case "member":
		id, ok := opts.user("member")
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
	if id.scope == "cancel" {
		return c.update(message{content: "Reset cancelled. Nothing changed."})
	}
	// A server's whole history can take longer than Discord's 3 s.
	if err := c.deferUpdate(); err != nil {
		return err
	}
	var text string
	switch id.scope {
	case "all":
		if err := b.store.ResetGuild(c.ctx, c.guild); err != nil {
			return fmt.Errorf("reset guild: %w", err)
		}
		b.log.Info("guild reset", "guild", c.guild, "user", c.user)
		text = "✅ Reset done: every score, streak and leaderboard starts again from zero. Good luck this term!"
	case "member":
		if err := b.store.ResetMember(c.ctx, c.guild, id.member); err != nil {
			return fmt.Errorf("reset member: %w", err)
		}
		b.log.Info("member reset", "guild", c.guild, "user", c.user, "member", id.member)
		text = fmt.Sprintf("✅ Reset done for <@%d>.", id.member)
	}
	return c.reply(message{content: text})
}
