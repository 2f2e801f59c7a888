package bot

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// /quiz misses export: the member's missed questions as a file Anki
// imports (questions.AnkiFile), sent privately.

// missesDeck is the Anki deck the export names; missesFile its file name.
const (
	missesDeck = "quizhost::Misses"
	missesFile = "quizhost-misses.txt"
)

// maxAttachment is the largest file the bot attaches: Discord's upload
// limit for a server without boosts (10 MiB), less room for the request's
// other parts.
const maxAttachment = 10<<20 - 64<<10

// missesExport sends the member's missed questions as an Anki text file:
// every question of the server's banks they have answered wrong at least
// once (in the channel, the daily quiz, a review or a drill), in bank
// order, leaving out the questions open in the server right now (the file
// holds their answers).
func (b *Bot) missesExport(c *call, _ options) (response, error) {
	return later(func() (response, error) {
		mems, err := b.store.Memories(c.guild, c.user)
		if err != nil {
			return response{}, fmt.Errorf("misses export: %w", err)
		}
		missed := map[string]bool{}
		for _, m := range mems {
			if slices.ContainsFunc(m.History, func(a questions.Attempt) bool { return !a.Right }) {
				missed[m.QuestionID] = true
			}
		}
		open, err := b.store.OpenQuestions(c.guild)
		if err != nil {
			return response{}, fmt.Errorf("misses export: %w", err)
		}
		banks, err := b.guildBanks(c.guild)
		if err != nil {
			return response{}, err
		}
		var qs []*questions.Question
		held := 0
		for _, bk := range banks {
			for i := range bk.Questions {
				q := &bk.Questions[i]
				switch {
				case !missed[q.ID]:
				case open[q.ID]:
					held++
				default:
					qs = append(qs, q)
				}
			}
		}
		return asReply(missesMessage(qs, held, maxAttachment)), nil
	}), nil
}

// missesMessage is the reply of /quiz misses export: the file of qs (as
// many as fit in limit bytes, in order) and what it holds, or, with no
// question to export, why not. held counts the member's misses left out
// as open in the server.
func missesMessage(qs []*questions.Question, held, limit int) message {
	heldText := ""
	if held > 0 {
		heldText = fmt.Sprintf(" %s open in the server right now %s left out until %s.",
			plural(held, "question", "questions"), pick(held, "is", "are"), pick(held, "it closes", "they close"))
	}
	if len(qs) == 0 {
		return message{ephemeral: true, content: "📭 You have no missed questions to export: every question you answered, you got right (or you have answered none yet)." + heldText}
	}
	data := questions.AnkiFile(missesDeck, qs)
	n := len(qs)
	for len(data) > limit && n > 1 {
		n = max(1, n*limit/len(data)-1)
		data = questions.AnkiFile(missesDeck, qs[:n])
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "📤 **%s you missed**, for Anki: in Anki, **File › Import** this file. It makes Basic notes tagged with their bank "+
		"and topics, in the deck `%s` if you have one (Anki does not create it: make it first, or pick a deck in the import window); "+
		"importing a newer export updates the notes you have.", plural(n, "question", "questions"), missesDeck)
	if n < len(qs) {
		fmt.Fprintf(&sb, " The first %d of your %d misses fit in one file: the rest did not.", n, len(qs))
	}
	sb.WriteString(heldText)
	return message{ephemeral: true, content: sb.String(),
		files: []*discordgo.File{{Name: missesFile, ContentType: "text/plain; charset=utf-8", Reader: bytes.NewReader(data)}}}
}

// pick is one when n is 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
