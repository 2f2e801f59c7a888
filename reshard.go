package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/quizhost/quizhost/internal/sharding"
	"github.com/quizhost/quizhost/storage"
)

// reshardCmd splits or merges database files offline into the files of a
// new shard layout and prints what it read and wrote.
func reshardCmd(ctx context.Context, args []string, _ func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("reshard", "--to N [--processes P] --out DIR FILE...",
		"Split or merge the database files of one shard layout (every file of it, or one unsharded file)\n"+
			"into the files of N shards. Each server's whole state moves to the file of its shard,\n"+
			"(server ID >> 22) % N. By default each shard gets a file: DIR/"+storage.ShardFileName(0, 4)+" and so on.\n"+
			"With --processes P, P processes share the N shards evenly and each gets one file of N/P shards:\n"+
			"DIR/"+storage.LayoutFileName(sharding.Layout{First: 0, Last: 1, Count: 4})+" for QUIZHOST_SHARDS=0-1/4.\n"+
			"Stop every quizhost process first and keep a backup. The new files are verified (every answer once,\n"+
			"every server unchanged) before they appear; the old files are only read. Ctrl-C (SIGINT or SIGTERM)\n"+
			"stops it and leaves no new file. Exit status: 0 when written, 1 when refused or stopped, 2 on bad usage.")
	to := fs.Int("to", 0, "the number `N` of shards of the new layout")
	out := fs.String("out", "", "the directory `DIR` for the new files (created if missing; must be empty)")
	procs := fs.Int("processes", 0, "the number `P` of processes, one file each, sharing the N shards evenly (default N: a file per shard)")
	files, err := parseFlags(fs, args, -1, stdout)
	if err != nil {
		return helpShown(err)
	}
	var problems []string
	if *to < 1 {
		problems = append(problems, "--to: want the number of shards, at least 1")
	}
	if *out == "" {
		problems = append(problems, "--out: want the directory for the new files")
	}
	if len(files) == 0 {
		problems = append(problems, "want the database files of the old layout")
	}
	if *procs == 0 {
		*procs = *to
	}
	layouts, err := storage.EvenRanges(*to, *procs)
	if err != nil && *to >= 1 {
		problems = append(problems, "--processes: "+err.Error())
	}
	if len(problems) > 0 {
		return exitCode{2, fmt.Sprintf("quizhost reshard: %s\n%s", strings.Join(problems, "; "), usageOf(fs))}
	}
	rep, err := storage.ReshardRanges(ctx, layouts, *out, files)
	if err != nil && ctx.Err() != nil {
		return exitCode{1, "quizhost reshard: interrupted; no new file was written"}
	}
	if err != nil {
		return exitCode{1, "quizhost " + err.Error()}
	}
	line := func(verb string, f storage.ReshardFile) {
		fmt.Fprintf(stdout, "%-5s %s (shards %s): %s, %s, %s\n", verb, f.Path, f.Layout,
			plural(f.Guilds, "server", "servers"), plural(f.Posts, "post", "posts"), plural(f.Answers, "answer", "answers"))
	}
	for _, f := range rep.Inputs {
		line("read", f)
	}
	for _, f := range rep.Outputs {
		line("wrote", f)
	}
	fmt.Fprintln(stdout, "verified: every answer in exactly one new file, every server's state and leaderboards unchanged.")
	for _, f := range rep.Outputs {
		fmt.Fprintf(stdout, "start: QUIZHOST_SHARDS=%s QUIZHOST_DB=%s\n", f.Layout, f.Path)
	}
	return nil
}
