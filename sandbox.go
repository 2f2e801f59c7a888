package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/quizhost/quizhost/internal/sandbox"
)

// sandboxCmd runs `quizhost sandbox` until ctx ends (run ends it on SIGINT
// or SIGTERM).
func sandboxCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	getenv, err := envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	err = sandbox.Run(ctx, args, getenv, stdout, stderr)
	switch {
	case errors.Is(err, sandbox.ErrUsage):
		return exitCode{2, err.Error()}
	case errors.Is(err, syscall.EADDRINUSE):
		return exitCode{1, fmt.Sprintf("quizhost %v\nAnother program uses that port: give the sandbox another one, e.g. --addr 127.0.0.1:8081.", err)}
	}
	return helpShown(err)
}
