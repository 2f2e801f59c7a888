package bot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// MaxImportSize is the largest bank file /quizadmin import accepts.
const MaxImportSize = 1 << 20

// maxImportFiles is how many files one /quizadmin import takes: the
// options file, file2 … file10.
const maxImportFiles = 10

// Bounds on reading an uploaded file (see questions.ParseOptions): an
// import lists at most maxImportProblems problems of each file and counts
// the rest, and refuses a YAML or JSON file of more than maxImportValues
// values before building its tree past them (about 12 MiB of tree). A
// question of a practice exam takes about twenty values, 1 MiB of them
// about 30,000.
const (
	maxImportProblems = 100
	maxImportValues   = 100_000
)

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
// banks once the admin confirms. All or nothing: a problem in any file
// refuses the whole import.
func (b *Bot) importCmd(c *call, opts options) (response, error) {
	replace := false
	if mode, ok := opts.str("mode"); ok {
		switch mode {
		case "merge":
		case "replace":
			replace = true
		default:
			return response{}, userErr("mode must be merge or replace.")
		}
	}
	bankOpt, _ := opts.str("bank")
	bankOpt = strings.TrimSpace(bankOpt)
	ups, err := importUploads(opts, c.resolved)
	if err != nil {
		return response{}, err
	}
	// Downloading and parsing the files can take longer than Discord's 3 s.
	return later(func() (response, error) { return b.importFiles(c, ups, bankOpt, replace) }), nil
}

// importFiles downloads, parses and imports ups (see importCmd), once
// the interaction is deferred.
func (b *Bot) importFiles(c *call, ups []upload, bankOpt string, replace bool) (response, error) {
	parts, ps, err := b.parseUploads(c, ups, bankOpt)
	if err != nil {
		return response{}, err
	}
	names := make([]string, len(ups))
	for i, u := range ups {
		names[i] = u.name
	}
	what := importSubject(names)
	if errs := ps.Errors(); len(errs) > 0 {
		return asReply(problemsMessage(what, len(ups) > 1, errs)), nil
	}
	if replace { // asks to confirm when it replaces a bank (undo.go)
		return b.importReplace(c, parts, ps.Warnings(), what, len(ups) > 1)
	}
	ch, refused, err := b.applyChange(c.ctx, c.guild, c.user, parts, false, 0)
	if err != nil {
		return response{}, fmt.Errorf("import: %w", err)
	}
	if len(refused) > 0 {
		return asReply(problemsMessage(what, len(ups) > 1, refused)), nil
	}
	b.logImport(c, ch.results, false)
	return asReply(importedMessage(ch.results, ps.Warnings())), nil
}

// upload is one attached bank file: its base name and the attachment.
type upload struct {
	name string
	att  *discordgo.MessageAttachment
}

// importUploads reads the attachments of the file options, in order, and
// checks their names and sizes: every problem is refused together.
func importUploads(opts options, res *discordgo.ApplicationCommandInteractionDataResolved) ([]upload, error) {
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
			refusals = append(refusals, fmt.Sprintf("%q is not a bank file: use .txt (exam text, practice-site or Aiken), .aiken, .yaml, .yml, .json, .gift, .csv or .tsv.", truncate(name, 100)))
		} else if att.Size > MaxImportSize {
			refusals = append(refusals, fmt.Sprintf("%q is %d KiB; a bank file may be at most 1 MiB.", truncate(name, 100), att.Size/1024))
		}
		ups = append(ups, upload{name, att})
	}
	if len(ups) == 0 {
		return nil, userErr("Attach the bank file to import.")
	}
	if len(refusals) > 0 {
		return nil, userErr("Nothing was imported. %s", strings.Join(refusals, " "))
	}
	return ups, nil
}

// parseUploads downloads and parses the uploads one at a time: their banks
// (all renamed bankOpt, when set) and every file's problems, each file's
// bounded (maxImportProblems, maxImportValues), the questions the
// server's banks already have sharing their unchanged texts with them. Only
// one file's bytes and tree are held at a time; once a file has an error
// the import is refused, so the banks are dropped and the files after it
// are read for their problems only. A file that cannot be downloaded refuses the import.
func (b *Bot) parseUploads(c *call, ups []upload, bankOpt string) ([]questions.Bank, questions.Problems, error) {
	var parts []questions.Bank
	var ps questions.Problems
	refused := false
	// The server's banks as they are now, whose memory the files' questions
	// share where they repeat them (questions.ShareUnchanged). Only memory
	// depends on it: the change is planned from the snapshot it then finds,
	// and a failure to load is reported there.
	now, _ := b.imported(c.guild)
	for _, u := range ups {
		data, err := b.download(c.ctx, u.att.URL)
		if err != nil {
			b.log.Warn("import download", "guild", c.guild, "err", err)
			if msg, ok := isUser(err); ok {
				return nil, nil, userErr("%s: %s Nothing was imported.", truncate(u.name, 100), msg)
			}
			return nil, nil, userErr("I couldn't download %s. Try uploading it again; nothing was imported.", truncate(u.name, 100))
		}
		start := time.Now()
		banks, fileProblems := questions.ParseFile(u.name, data, questions.ParseOptions{DefaultBank: bankOpt,
			MaxProblems: maxImportProblems, MaxValues: maxImportValues})
		b.pace(c.ctx, start)
		ps = append(ps, fileProblems...)
		if refused = refused || len(fileProblems.Errors()) > 0; refused {
			parts = nil
			continue
		}
		for _, bk := range banks {
			if bankOpt != "" {
				questions.Rename(&bk, bankOpt)
			}
			bk.Path = u.name
			if base := now.bank(bk.Name); base != nil {
				questions.ShareUnchanged(&bk, base)
			}
			parts = append(parts, bk)
		}
	}
	return parts, ps, nil
}

// Rendering: pure functions of the files and what importing them did.

// importSubject names the files of an import for its refusal: the file's
// name, or "The N files".
func importSubject(files []string) string {
	if len(files) > 1 {
		return fmt.Sprintf("The %d files", len(files))
	}
	return truncate(files[0], 100)
}

// importedMessage reports a done import: what it did to each bank, and the
// files' warnings (file:line: message).
func importedMessage(results []bankResult, warnings questions.Problems) message {
	m := message{ephemeral: true, content: changeSummary("Imported", results)}
	if len(warnings) > 0 {
		m.embeds = []*discordgo.MessageEmbed{{Title: "Warnings", Description: problemList(warnings, true), Color: colorOpen}}
	}
	return m
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
			desc += fmt.Sprintf("…and %d more", ps[i:].Count())
			break
		}
		desc = next
	}
	return desc
}

// problemsMessage refuses an import of what (a file, or several files):
// every problem as file:line: message (when several files have problems,
// the first few of each and how many more), and that nothing was stored.
func problemsMessage(what string, several bool, ps questions.Problems) message {
	total := ps.Count()
	ps = perFile(ps, 40)
	verb := "was"
	if several {
		verb = "were"
	}
	return message{ephemeral: true, content: fmt.Sprintf("❌ **%s** %s not imported: %s. Nothing was stored.",
		what, verb, plural(total, "problem", "problems")),
		embeds: []*discordgo.MessageEmbed{{Title: "Problems", Description: problemList(ps, true), Color: colorWrong}}}
}

// perFile shares about room listed problems among the files of ps: each
// file keeps its first room/files (at least 3) and a summary of the rest,
// so that every file's first problems show.
func perFile(ps questions.Problems, room int) questions.Problems {
	var paths []string
	byPath := map[string]questions.Problems{}
	for _, p := range ps {
		if _, ok := byPath[p.Path]; !ok {
			paths = append(paths, p.Path)
		}
		byPath[p.Path] = append(byPath[p.Path], p)
	}
	if len(paths) < 2 {
		return ps
	}
	each := max(3, room/len(paths))
	var out questions.Problems
	for _, path := range paths {
		out = append(out, byPath[path].Limit(each)...)
	}
	return out
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

// importOptions are /quizadmin import's options: file (required), file2 …
// file10, bank and mode.
func importOptions(str func(name, desc string, required bool) *discordgo.ApplicationCommandOption) []*discordgo.ApplicationCommandOption {
	opts := []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionAttachment,
		Name: importFileOption(0), Description: "The bank file", Required: true}}
	for i := 1; i < maxImportFiles; i++ {
		opts = append(opts, &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionAttachment,
			Name: importFileOption(i), Description: "Another bank file"})
	}
	return append(opts,
		str("bank", "Bank to put every question in (default: the banks the files name)", false),
		&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString,
			Name: "mode", Description: "merge (default): add and update questions; replace: replace the whole bank",
			Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "merge", Value: "merge"}, {Name: "replace", Value: "replace"}}})
}
