package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// version prints the build's version, source revision and Go version.
func version(_ context.Context, args []string, _ func(string) string, stdout, _ io.Writer) error {
	fs := flagSet("version", "", "Show the version, the source revision and the Go version quizhost was built with.")
	if _, err := parseFlags(fs, args, 0, stdout); err != nil {
		return helpShown(err)
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info, ok))
	return nil
}

// versionText describes a build: the module version, the version-control
// revision, time and modified flag when the build recorded them, and the
// Go version.
func versionText(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "quizhost (no build information)\n"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "quizhost %s\n", v)
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified":
			fmt.Fprintf(&b, "%-13s %s\n", s.Key, s.Value)
		}
	}
	fmt.Fprintf(&b, "%-13s %s\n", "go", info.GoVersion)
	return b.String()
}
