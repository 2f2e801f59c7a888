package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/questions"
)

// validate checks bank files as start-up would and prints, per bank, its
// name, question count and files, then every warning, then every error.
func validate(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flagSet("validate", "[--strict] [PATH...]",
		"Check bank files and folders exactly as start-up does: each file, the banks named by several files,\n"+
			"questions defined twice, the built-in bank's name. With no PATH, check what the bot would load\n"+
			"(QUIZHOST_QUESTIONS from the environment and .env, and the built-in bank).\n"+
			"Exit status: 0 when the banks load (warnings included), 1 on any error, 2 on bad usage.")
	strict := fs.Bool("strict", false, "fail (exit 1) on warnings too")
	paths, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	cat, ps, explicit, err := loadBanks(paths, getenv)
	if err != nil {
		return err
	}
	ps = append(ps, longReveals(cat, explicit)...)
	warns, errs := ps.Warnings(), ps.Errors()
	// A question an error names at its first line does not load (start-up
	// would refuse the whole set): it is not counted.
	// In a file whose list of errors was cut (questions.MaxLoadProblems),
	// the questions the unlisted errors name are unknown: none of its
	// questions is counted.
	failed := map[string]bool{}
	cut := map[string]bool{}
	for _, p := range errs {
		failed[fmt.Sprintf("%s:%d", p.Path, p.Line)] = true
		if p.Omitted > 0 {
			cut[p.Path] = true
		}
	}
	nb, nq := 0, 0
	for _, b := range cat.Banks() {
		if explicit && len(b.Files()) == 0 {
			continue // the built-in bank, when checking named files
		}
		n, uncounted := 0, 0
		for i := range b.Questions {
			q := &b.Questions[i]
			switch {
			case cut[q.Path]:
				uncounted++
			case !failed[fmt.Sprintf("%s:%d", q.Path, q.Line)]:
				n++
			}
		}
		nb++
		nq += n
		note := ""
		if uncounted > 0 {
			note = fmt.Sprintf(" (and %s not counted: more errors than listed in their files)", plural(uncounted, "question", "questions"))
		}
		fmt.Fprintf(stdout, "%s: %s %s%s\n", b.Name, plural(n, "question", "questions"), describeFiles(b.Files()), note)
		if b.Exam != nil { // what /quiz mock sits, so that an exam.yaml's bank shows
			fmt.Fprintf(stdout, "  mock exam: %s\n", b.Exam.Describe(len(b.Questions)))
		}
	}
	for _, p := range append(warns, errs...) {
		fmt.Fprintln(stderr, p.Error())
	}
	// The last line is always the totals, with the verdict.
	fail := len(errs) > 0 || *strict && len(warns) > 0
	verdict := "ok"
	if fail {
		verdict = "failed"
	}
	summary := fmt.Sprintf("%s: %s, %s; %s, %s", verdict, plural(nb, "bank", "banks"), plural(nq, "question", "questions"),
		plural(errs.Count(), "error", "errors"), plural(warns.Count(), "warning", "warnings"))
	if *strict && len(warns) > 0 {
		summary += " (--strict: warnings fail too)"
	}
	fmt.Fprintln(stdout, summary)
	if fail {
		return exitCode{1, ""}
	}
	return nil
}

// longReveals warns of each question of cat's banks (the built-in bank
// too unless explicit) whose reveal takes more than one message.
func longReveals(cat *questions.Catalogue, explicit bool) questions.Problems {
	var ps questions.Problems
	for _, b := range cat.Banks() {
		if explicit && len(b.Files()) == 0 {
			continue
		}
		for i := range b.Questions {
			q := &b.Questions[i]
			if n := bot.RevealMessageCount(q); n > 1 {
				path := q.Path
				if path == "" {
					path = "(built in)"
				}
				ps = append(ps, questions.Problem{Path: path, Line: q.Line, Warning: true,
					Msg: fmt.Sprintf("question %d's reveal takes %d messages: the closed post, then %s replying to it (quizhost preview shows them)",
						q.Number, n, plural(n-1, "message", "messages"))})
			}
		}
	}
	return ps
}

// loadBanks loads paths as start-up would, or, with none, what the bot
// would load: QUIZHOST_QUESTIONS from the environment and .env. explicit
// says paths were given.
func loadBanks(paths []string, getenv func(string) string) (cat *questions.Catalogue, ps questions.Problems, explicit bool, err error) {
	if len(paths) == 0 {
		getenv, err = envWithDotenv(getenv, ".env")
		if err != nil {
			return nil, nil, false, err
		}
		paths = bankPaths(strings.TrimSpace(getenv("QUIZHOST_QUESTIONS")))
	} else {
		explicit = true
	}
	cat, ps = questions.Loader{Paths: paths}.Load()
	return cat, ps, explicit, nil
}

// describeFiles names the files a bank came from: all of them when few,
// else per folder.
func describeFiles(files []string) string {
	if len(files) == 0 {
		return "(built in)"
	}
	if len(files) <= 3 {
		return "from " + strings.Join(files, ", ")
	}
	var dirs []string
	count := map[string]int{}
	first := map[string]string{}
	for _, f := range files {
		d := filepath.Dir(f)
		if count[d] == 0 {
			dirs = append(dirs, d)
			first[d] = f
		}
		count[d]++
	}
	parts := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if count[d] == 1 {
			parts = append(parts, first[d])
		} else {
			parts = append(parts, fmt.Sprintf("%d in %s%c", count[d], d, filepath.Separator))
		}
	}
	return fmt.Sprintf("from %d files: %s", len(files), strings.Join(parts, ", "))
}
