package main

import (
	"context"
	"fmt"
	"io"

	"github.com/quizhost/quizhost/bot"
)

// preview prints each question as it will be posted and as revealed.
func preview(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flagSet("preview", "[PATH...]",
		"Print each question of the bank files and folders as the bot will post it and then as revealed,\n"+
			"to proofread a bank without Discord. With no PATH, preview what the bot would load.\n"+
			"Problems are printed as \"quizhost validate\" prints them; exit 1 on any error.")
	paths, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	cat, ps, explicit, err := loadBanks(paths, getenv)
	if err != nil {
		return err
	}
	for _, b := range cat.Banks() {
		if explicit && len(b.Files()) == 0 {
			continue
		}
		for i := range b.Questions {
			q := &b.Questions[i]
			where := "built in"
			if q.Path != "" {
				where = fmt.Sprintf("%s:%d", q.Path, q.Line)
			}
			fmt.Fprintf(stdout, "######## %s (%s)\n%s\n", q.ID, where, bot.PreviewText(q))
		}
	}
	for _, p := range append(ps.Warnings(), ps.Errors()...) {
		fmt.Fprintln(stderr, p.Error())
	}
	if len(ps.Errors()) > 0 {
		return exitCode{1, ""}
	}
	return nil
}
