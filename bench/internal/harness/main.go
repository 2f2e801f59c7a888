package harness

// This file is what the benchmark commands share around their run.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

// Admin is the member whose commands set up a benchmark (/quiz ask,
// /quizadmin daily): the guilds' administrator.
var Admin = fakediscord.Member{ID: "7001", Username: "alice", Permissions: fakediscord.AdminPermissions}

// FirstMember is the first answering member's id; members are numbered on
// from it.
const FirstMember = 1_000_000_000

// Deadline is Discord's: every member must hear back within it.
const Deadline = 3 * time.Second

// Main runs a benchmark command named name: run gets the command line and
// standard output, and a context that SIGINT or SIGTERM ends; an error is
// printed on standard error and exits with 1.
func Main(name string, run func(ctx context.Context, args []string, out io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
