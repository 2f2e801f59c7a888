// Command quizhost is a Discord bot that hosts quizzes for study groups.
//
//	quizhost                                  run the bot (configuration from the environment and .env)
//	quizhost help                             every command and environment variable
//	quizhost version                          the version, source revision and Go version
//	quizhost validate [--strict] [PATH...]    check bank files as start-up would
//	quizhost preview [PATH...]                print questions as posted and revealed
//	quizhost backup [--force] DEST            copy the database of a stopped bot (while it runs, send it SIGUSR1)
//	quizhost compact [--out FILE] [FILE]      rewrite the database of a stopped bot without its free pages
//	quizhost sandbox [--addr A] [--db PATH]   try the bot in a browser, without Discord
//	quizhost reshard --to N [--processes P] --out DIR FILE...
//	                                          split or merge stopped database files into N shards' files
//
// See README.md for setup and configuration.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/storage"
)

var _ bot.Store = (*storage.DB)(nil)

func main() {
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	var ec exitCode
	switch {
	case err == nil:
	case errors.As(err, &ec):
		if ec.msg != "" {
			fmt.Fprintln(os.Stderr, ec.msg)
		}
		os.Exit(ec.code)
	default:
		fmt.Fprintln(os.Stderr, "quizhost:", err)
		os.Exit(1)
	}
}

// exitCode ends the program with a status and an optional message.
type exitCode struct {
	code int
	msg  string
}

func (e exitCode) Error() string { return fmt.Sprintf("exit %d: %s", e.code, e.msg) }

// run is quizhost: it runs the bot (no args) or the command args name, and
// returns when the bot stops or the command is done. For the bot and the
// commands that stop cleanly when their context ends (command.stops),
// SIGINT and SIGTERM end ctx; they end the other commands as they end any
// program.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := lookup(args)
	if err != nil {
		return err
	}
	if c.stops {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if len(args) > 0 {
		args = args[1:]
	}
	return c.run(ctx, args, getenv, stdout, stderr)
}

// lookup finds the command args[0] names: the bot when args is empty.
func lookup(args []string) (command, error) {
	if len(args) == 0 {
		return botCommand(), nil
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c, nil
		}
	}
	return command{}, exitCode{2, fmt.Sprintf("quizhost: unknown command %q\n%s", args[0], commandList())}
}

// command is a quizhost subcommand: its name, its arguments as usage shows
// them, what it does, and how it runs. commands() is the one list that
// dispatch and help read.
type command struct {
	name, args, summary string
	// stops says the command stops cleanly when its context ends (it
	// leaves no half-written file), so that run ends the context on SIGINT
	// and SIGTERM. The commands that only read and print leave it false: a
	// signal ends them at once.
	stops bool
	run   func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{name: "help", summary: "show this help: every command and every environment variable", run: help},
		{name: "version", summary: "show the version, the source revision and the Go version it was built with", run: version},
		{name: "validate", args: "[--strict] [PATH...]", summary: "check bank files or folders as start-up would (no PATH: what the bot would load)", run: validate},
		{name: "preview", args: "[PATH...]", summary: "print each question as it will be posted and as revealed (no PATH: what the bot would load)", run: preview},
		{name: "backup", args: "[--force] DEST", summary: "copy the database of a stopped bot to the file DEST, or into the folder DEST", stops: true, run: backup},
		{name: "compact", args: "[--out FILE] [FILE]", summary: "rewrite the database of a stopped bot without its free pages (FILE: default QUIZHOST_DB)", stops: true, run: compactCmd},
		{name: "sandbox", args: "[--addr 127.0.0.1:8080] [--db PATH]", summary: "try the bot in a browser, without Discord", stops: true, run: sandboxCmd},
		{name: "reshard", args: "--to N [--processes P] --out DIR FILE...", summary: "split or merge stopped database files into the files of N shards (see README.md, \"Sharding\")", stops: true, run: reshardCmd},
	}
}

// botCommand is quizhost without a command: the bot, until SIGINT or
// SIGTERM.
func botCommand() command {
	return command{summary: "run the bot (configuration from the environment and .env)", stops: true, run: serve}
}

// commandList is the usage line of every command.
func commandList() string {
	const width = 40 // a usage longer than this puts its summary on the next line
	var b strings.Builder
	b.WriteString("usage:\n")
	line := func(usage, summary string) {
		if len(usage) > width {
			fmt.Fprintf(&b, "  %s\n  %-*s %s\n", usage, width, "", summary)
			return
		}
		fmt.Fprintf(&b, "  %-*s %s\n", width, usage, summary)
	}
	line("quizhost", botCommand().summary)
	for _, c := range commands() {
		line(strings.TrimSpace("quizhost "+c.name+" "+c.args), c.summary)
	}
	line("quizhost COMMAND -h", "a command's usage")
	return b.String()
}
