package bot

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// bankExport sends an imported bank back as a file (/quizadmin bank export)
// that imports again as the same bank: the file as uploaded when it names
// the bank so, else the bank written out as YAML (after an import under
// another name, say).
func (b *Bot) bankExport(c *call, opts options) (response, error) {
	name, _ := opts.str("name")
	f, err := b.importedFile(c.guild, name)
	if err != nil {
		return response{}, err
	}
	data, file := f.Data, fileName(f.Name)+"."+string(f.Format)
	if banks, err := questions.Parse(file, data); err != nil || len(banks) != 1 || banks[0].Name != f.Name {
		bk, err := parseBankFile(f)
		if err != nil {
			return response{}, fmt.Errorf("export %q: %w", f.Name, err)
		}
		if data, err = questions.MarshalYAML(*bk); err != nil {
			return response{}, fmt.Errorf("export %q: %w", f.Name, err)
		}
		file = fileName(f.Name) + ".yaml"
	}
	return asReply(message{ephemeral: true, content: fmt.Sprintf("📚 **%s**: import this file again to restore it.", f.Name),
		files: []*discordgo.File{{Name: file, ContentType: "text/plain; charset=utf-8", Reader: bytes.NewReader(data)}}}), nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileName(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-.")
	if s == "" {
		s = "bank"
	}
	return truncate(s, 80)
}
