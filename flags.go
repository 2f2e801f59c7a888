package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/quizhost/quizhost/bot"
)

// flagSet is a subcommand's flag set, its usage the command line and what
// the command does, then its flags.
func flagSet(name, args, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\n", strings.TrimSpace("quizhost "+name+" "+args), about)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(fs.Output(), "\nflags:")
			printFlags(fs)
		}
	}
	return fs
}

// printFlags is flag.PrintDefaults with the flags written as usage and
// README write them: --name (Go's flag package takes -name too).
func printFlags(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		switch f.DefValue {
		case "", "0", "false":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(fs.Output(), "%s\n        %s\n", line, usage)
	})
}

// usageOf is fs's usage text, without its final newline.
func usageOf(fs *flag.FlagSet) string {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.Usage()
	fs.SetOutput(out)
	return strings.TrimSuffix(b.String(), "\n")
}

// parseFlags parses a subcommand's arguments, flags before, between or
// after its operands ("--" ends the flags), and checks it has want
// operands (-1: any number). -h or --help prints the usage to stdout and
// returns flag.ErrHelp (see helpShown); a bad flag or the wrong number of
// operands is exit status 2 with the usage.
func parseFlags(fs *flag.FlagSet, args []string, want int, stdout io.Writer) ([]string, error) {
	var operands []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usageOf(fs))
			return nil, flag.ErrHelp
		}
		if err != nil {
			return nil, exitCode{2, fmt.Sprintf("quizhost %s: %v\n%s", fs.Name(), err, usageOf(fs))}
		}
		used := len(args) - fs.NArg()
		ended := used > 0 && args[used-1] == "--"
		args = fs.Args()
		if ended {
			operands = append(operands, args...)
			break
		}
		if len(args) == 0 {
			break
		}
		operands = append(operands, args[0])
		args = args[1:]
	}
	if want >= 0 && len(operands) != want {
		msg := fmt.Sprintf("want %s, got %d", plural(want, "argument", "arguments"), len(operands))
		if want == 0 {
			msg = fmt.Sprintf("unexpected argument %q", operands[0])
		}
		return nil, exitCode{2, fmt.Sprintf("quizhost %s: %s\n%s", fs.Name(), msg, usageOf(fs))}
	}
	return operands, nil
}

// helpShown turns the flag.ErrHelp of a -h into success.
func helpShown(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// plural is "1 question" or "2 questions".
func plural(n int, one, many string) string { return bot.Plural(n, one, many) }
