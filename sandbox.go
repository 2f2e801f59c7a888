package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/quizhost/quizhost/internal/sandbox"
)

// sandboxCmd runs `quizhost sandbox` until SIGINT or SIGTERM.
func sandboxCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	getenv, err := envWithDotenv(getenv, ".env")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = sandbox.Run(ctx, args, getenv, stdout, stderr)
	switch {
	case errors.Is(err, sandbox.ErrUsage):
		return exitCode{2, err.Error()}
	case errors.Is(err, syscall.EADDRINUSE):
		return exitCode{1, fmt.Sprintf("quizhost %v\nAnother program uses that port: give the sandbox another one, e.g. --addr 127.0.0.1:8081.", err)}
	}
	return helpShown(err)
}
