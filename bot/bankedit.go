package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// A change to a guild's imported banks (an import, an admin's paste, an
// approved suggestion) is worked out in full first, then stored in one
// transaction: all of it or none.

// bankChange is a worked-out change: the banks as they will be stored,
// what happened to each, and the snapshot it was planned from with the
// banks as the next snapshot keeps them.
type bankChange struct {
	files   []questions.BankFile
	results []bankResult
	base    *guildBanks
	banks   []*questions.Bank
}

// bankResult is what a change does to one bank.
type bankResult struct {
	name     string
	isNew    bool // the guild had no bank of that name
	replaced bool // mode replace: the old questions are gone
	count    questions.MergeCount
	total    int // questions in the bank afterwards
}

// planBanks works out how parts (banks as parsed, each with the Path of the
// file it came from) change the guild's imported banks: each is merged by
// question ID into the bank of its name (with replace, the first part of a
// name replaces that bank and later ones merge into it); a name the guild
// has no bank of makes a new bank. The problems, with the file and line of
// the question concerned, refuse the whole change: a bank name of the
// catalogue, a question ID used twice in parts or by another bank of the
// guild, a bank that would not store. The caller holds the guild's edit
// lock (bankSlot.edit) from planning to storing, so that no other edit
// slips in between.
func (b *Bot) planBanks(guild questions.GuildID, user questions.UserID, parts []questions.Bank, replace bool) (bankChange, questions.Problems, error) {
	g, err := b.imported(guild)
	if err != nil {
		return bankChange{}, nil, err
	}
	var ps questions.Problems
	merged := map[string]*questions.Bank{} // lower-case name → the bank as it will be
	var order []string
	var results []*bankResult
	byKey := map[string]*bankResult{}
	where := map[string]string{} // question ID → "path:line" where this change brings it
	paths := map[string]string{} // lower-case name → the file of its first part
	for _, part := range parts {
		if len(part.Questions) == 0 {
			continue
		}
		// The one rule for the built-in bank's name, as at start-up and in
		// "quizhost validate"; then the banks of QUIZHOST_QUESTIONS, which
		// live in files on the bot's disk.
		if err := questions.CheckBankName(part.Name); err != nil {
			ps = append(ps, questions.Problem{Path: part.Path, Line: part.Questions[0].Line, Msg: err.Error()})
			continue
		}
		if cat, ok := b.cfg.Catalogue.Bank(part.Name); ok {
			ps = append(ps, questions.Problem{Path: part.Path, Line: part.Questions[0].Line,
				Msg: fmt.Sprintf("bank %q comes with this quizhost and can't be changed here; put the questions in a bank of the server's own with the bank option", cat.Name)})
			continue
		}
		key := strings.ToLower(strings.TrimSpace(part.Name))
		if _, ok := paths[key]; !ok {
			paths[key] = part.Path
		}
		res := byKey[key]
		if res == nil {
			res = &bankResult{name: part.Name, isNew: true}
			base := questions.Bank{}
			if old := findBank(g.banks, part.Name); old != nil {
				res.name, res.isNew, res.replaced = old.Name, false, replace
				if !replace {
					base = *old
				}
			}
			merged[key] = &base
			byKey[key] = res
			order = append(order, key)
			results = append(results, res)
		}
		if part.Name != res.name { // Rename changes the questions in place: the caller's stay as they were
			part.Questions = slices.Clone(part.Questions)
			questions.Rename(&part, res.name)
		}
		for _, q := range part.Questions {
			here := fmt.Sprintf("%s:%d", part.Path, q.Line)
			if first, dup := where[q.ID]; dup {
				ps = append(ps, questions.Problem{Path: part.Path, Line: q.Line,
					Msg: fmt.Sprintf("question id %q is also brought in at %s; each question may come once", q.ID, first)})
				continue
			}
			where[q.ID] = here
		}
		next, n := questions.Merge(*merged[key], part)
		next.Name = res.name
		*merged[key] = next
		res.count.Added += n.Added
		res.count.Updated += n.Updated
		res.count.Unchanged += n.Unchanged
	}
	// A question ID belongs to one bank of the guild.
	owner := map[string]string{}
	for _, bk := range b.cfg.Catalogue.Banks() {
		for _, q := range bk.Questions {
			owner[q.ID] = bk.Name
		}
	}
	for _, bk := range g.banks {
		if merged[strings.ToLower(strings.TrimSpace(bk.Name))] != nil {
			continue
		}
		for _, q := range bk.Questions {
			owner[q.ID] = bk.Name
		}
	}
	for _, key := range order {
		for _, q := range merged[key].Questions {
			if o, ok := owner[q.ID]; ok && !sameName(o, q.Bank) {
				path, line := splitWhere(where[q.ID])
				ps = append(ps, questions.Problem{Path: path, Line: line,
					Msg: fmt.Sprintf("question id %q is already used by bank %q; give this question another id", q.ID, o)})
			}
			if _, ok := owner[q.ID]; !ok {
				owner[q.ID] = q.Bank
			}
		}
	}
	if len(ps) > 0 {
		return bankChange{}, ps, nil
	}
	ch := bankChange{base: g}
	var changed []*questions.Bank
	for i, key := range order {
		bk := merged[key]
		results[i].total = len(bk.Questions)
		ch.results = append(ch.results, *results[i])
		if r := results[i]; !r.isNew && !r.replaced && r.count.Added == 0 && r.count.Updated == 0 {
			continue // every question as it was: the bank stays as stored
		}
		changed = append(changed, bk)
	}
	// Every bank is checked to store (questions.MarshalYAML) before any is
	// kept encoded: reading a bank back allocates some 25 MiB a MiB, and
	// the garbage collector lets the heap grow to twice what is live while
	// it does, so nothing else is held meanwhile; each is then encoded
	// again (cheap: no reading back) to be stored.
	for _, bk := range changed {
		start := time.Now()
		_, err := questions.MarshalYAML(*bk)
		b.pace(context.Background(), start)
		if err != nil {
			// Parsed banks store; say so plainly if one does not.
			return bankChange{}, questions.Problems{{Path: paths[strings.ToLower(strings.TrimSpace(bk.Name))], Msg: fmt.Sprintf("bank %q can't be stored: %v", bk.Name, err)}}, nil
		}
	}
	now := b.clock.Now()
	for _, bk := range changed {
		start := time.Now()
		data, err := questions.EncodeYAML(*bk)
		if err != nil {
			return bankChange{}, nil, fmt.Errorf("encode bank %q: %w", bk.Name, err)
		}
		ch.files = append(ch.files, bankFile(*bk, data, user, now))
		ch.banks = append(ch.banks, snapshotBank(*bk))
		b.pace(context.Background(), start)
	}
	return ch, nil, nil
}

// pace makes a stretch of a bank change's heavy work (parsing a file,
// checking or encoding a bank), begun at start, a background job: it
// waits Config.ImportPace times as long as the stretch took (longer when
// the stretch had to wait for the CPU). An import again and again (one
// server's admin importing 10 MiB in a loop) then takes at most
// 1/(ImportPace+1) of a core for as long as it goes on, whatever its
// files, and the answers of every server, its own included, keep the
// rest; a longer wait makes a single import slower, not cheaper. An
// import of ten 1 MiB files takes about eight times its CPU time (some 10
// s). It returns early when ctx ends.
func (b *Bot) pace(ctx context.Context, start time.Time) {
	if b.cfg.ImportPace == 0 {
		return
	}
	t := time.NewTimer(time.Duration(b.cfg.ImportPace) * time.Since(start))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// encodeBank is bk as stored (see bankFile), which MarshalYAML has
// checked reads back from the file unchanged (but for each question's
// Line), and as the guild's snapshot keeps it: bk itself, named by the
// file.
func (b *Bot) encodeBank(bk questions.Bank, user questions.UserID, now time.Time) (questions.BankFile, *questions.Bank, error) {
	data, err := questions.MarshalYAML(bk)
	if err != nil {
		return questions.BankFile{}, nil, err
	}
	return bankFile(bk, data, user, now), snapshotBank(bk), nil
}

// bankFile is bk as stored: data, its YAML (kept at its size), with its
// questions counted for the quota.
func bankFile(bk questions.Bank, data []byte, user questions.UserID, now time.Time) questions.BankFile {
	return questions.BankFile{Name: bk.Name, Format: questions.FormatYAML, Data: bytes.Clone(data), ImportedAt: now, ImportedBy: user,
		Questions: len(bk.Questions)}
}

// snapshotBank is bk as a snapshot keeps it once stored: named by its
// file.
func snapshotBank(bk questions.Bank) *questions.Bank {
	bk.Path = bk.Name + "." + string(questions.FormatYAML)
	return &bk
}

// splitWhere splits "path:line" as planBanks records it.
func splitWhere(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n := 0
	fmt.Sscan(s[i+1:], &n)
	return s[:i], n
}

// applyChange plans a change (see planBanks) and, when nothing refuses it,
// stores it, consuming the draft when draftID is not 0 (an error wrapping
// questions.ErrNotFound if that draft is gone). A guild's changes are
// applied one at a time (other guilds' meanwhile); no Discord call is made
// meanwhile.
func (b *Bot) applyChange(ctx context.Context, guild questions.GuildID, user questions.UserID, parts []questions.Bank, replace bool, draftID questions.DraftID) (bankChange, questions.Problems, error) {
	s := b.slot(guild)
	s.edit.Lock()
	defer s.edit.Unlock()
	ch, refused, err := b.planBanks(guild, user, parts, replace)
	if err != nil || len(refused) > 0 {
		return ch, refused, err
	}
	if err := b.saveChange(ctx, s, guild, &ch, draftID); err != nil {
		return bankChange{}, nil, err
	}
	return ch, nil, nil
}

// saveChange stores a planned change (consuming the draft when draftID is
// not 0) and publishes the guild's next snapshot: the one planned from
// with the changed banks in place. Once stored, ch keeps only its results:
// the files and the snapshots are let go. The caller holds s.edit. A
// change the guild's quota refuses is a message for the admin (see
// quotaErr).
func (b *Bot) saveChange(ctx context.Context, s *bankSlot, guild questions.GuildID, ch *bankChange, draftID questions.DraftID) error {
	if len(ch.files) == 0 && draftID == 0 {
		return nil // nothing changes
	}
	big := storedBytes(ch.files) >= collectAfter
	if big {
		runtime.GC() // see collectAfter
	}
	if err := b.store.SaveBanks(ctx, guild, ch.files, draftID); err != nil {
		return quotaErr(err)
	}
	s.publish(ch.base.with(ch.banks))
	ch.files, ch.banks, ch.base = nil, nil, nil
	if big {
		runtime.GC()
	}
	return nil
}

// collectAfter is the size of the files of a change from which storing
// it is bracketed by garbage collections. The runtime lets the heap grow
// to twice what its last collection found live: one that runs while the
// change is committed finds the next snapshot, the files and the pages
// the database writes them from live at once (some 40 MiB for ten 1 MiB
// banks), and would let the heap grow to some 80 MiB more than before
// until the next. Collecting once the change is worked out (its garbage
// gone, what the commit will hold mostly live) leaves the commit room
// enough to run without a collection, and collecting once it is stored
// and published, when the files and the replaced snapshot are garbage,
// sets the heap's room by what stays. Each is a collection of a heap of
// some tens of MiB, a few milliseconds of CPU, for a change that took
// seconds to work out.
const collectAfter = 1 << 20

// storedBytes is the size of files' data.
func storedBytes(files []questions.BankFile) int {
	n := 0
	for _, f := range files {
		n += len(f.Data)
	}
	return n
}

// quotaErr words a change refused by the server's quota (see
// questions.Quota) for the admin; other errors pass.
func quotaErr(err error) error {
	var q *questions.QuotaError
	if !errors.As(err, &q) {
		return err
	}
	env, have := "", ""
	switch q.What {
	case "banks":
		env, have = "QUIZHOST_QUOTA_BANKS", fmt.Sprintf("have %d banks, and may have at most %d", q.Have, q.Limit)
	case "questions":
		env, have = "QUIZHOST_QUOTA_QUESTIONS", fmt.Sprintf("hold %d questions, and may hold at most %d", q.Have, q.Limit)
	default:
		env, have = "QUIZHOST_QUOTA_BANK_BYTES", fmt.Sprintf("take %s, and may take at most %s", byteSize(q.Have), byteSize(q.Limit))
	}
	return userErr("❌ Nothing was stored: this server's banks would %s (a limit of this bot, %s). Remove questions or banks first with `/quizadmin question remove` or `/quizadmin bank remove`.", have, env)
}

// byteSize is n bytes for people: "812 bytes", "340.0 KiB", "20.0 MiB".
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return plural(int(n), "byte", "bytes")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// changeSummary says what a change did, one line per bank, each starting
// with verb ("Imported", "Added to"): "added N, updated M, unchanged K".
func changeSummary(verb string, results []bankResult) string {
	var lines []string
	for _, r := range results {
		how := ""
		switch {
		case r.isNew:
			how = " (new bank)"
		case r.replaced:
			how = " (replaced)"
		}
		lines = append(lines, fmt.Sprintf("📚 %s **%s**%s: added %d, updated %d, unchanged %d · %s in the bank now",
			verb, r.name, how, r.count.Added, r.count.Updated, r.count.Unchanged, plural(r.total, "question", "questions")))
	}
	return strings.Join(lines, "\n")
}
