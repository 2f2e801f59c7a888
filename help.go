package main

import (
	"context"
	"fmt"
	"io"
)

// help prints every command and every environment variable.
func help(_ context.Context, args []string, _ func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("help", "", "Show every command and every environment variable.")
	if _, err := parseFlags(fs, args, 0, stdout); err != nil {
		return helpShown(err)
	}
	fmt.Fprintf(stdout, "quizhost hosts quizzes for study groups on Discord (see README.md).\n\n%s\n", commandList())
	fmt.Fprintln(stdout, "environment (also read from .env in the working directory; real environment variables win;")
	fmt.Fprintln(stdout, "a variable set empty takes its default):")
	vars := envVars()
	width := 0
	for _, v := range vars {
		width = max(width, len(v.name))
	}
	for _, v := range vars {
		fmt.Fprintf(stdout, "  %-*s %-24s %s\n", width, v.name, v.def, v.meaning)
	}
	return nil
}
