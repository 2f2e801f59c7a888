package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestHelpAndVersion(t *testing.T) {
	t.Chdir(t.TempDir())
	_, help, _ := runCLI(t, nil, "help")
	for _, w := range []string{"quizhost help", "quizhost version", "quizhost validate [--strict] [PATH...]", "quizhost preview [PATH...]",
		"quizhost backup [--force] DEST", "quizhost sandbox [--addr 127.0.0.1:8080] [--db PATH]",
		"quizhost reshard --to N [--processes P] --out DIR FILE..."} {
		if !strings.Contains(help, w) {
			t.Errorf("got help\n%s\nwant it to contain %q", help, w)
		}
	}
	vars := map[string]string{"DISCORD_TOKEN": "(required)", "DISCORD_GUILD_ID": "(empty)", "DISCORD_API_BASE": "https://discord.com",
		"QUIZHOST_DB": "quizhost.db", "QUIZHOST_QUESTIONS": "(empty)", "QUIZHOST_LOG_LEVEL": "info"}
	for name, def := range vars {
		_, line, ok := strings.Cut(help, "\n  "+name+" ")
		if line, _, _ = strings.Cut(line, "\n"); !ok || !strings.HasPrefix(strings.TrimSpace(line), def+" ") {
			t.Errorf("got help line %q for %s, want its default %q and meaning", line, name, def)
		}
	}
	for _, arg := range []string{"-h", "--help", "-help"} {
		if code, out, _ := runCLI(t, nil, arg); code != 0 || out != help {
			t.Errorf("quizhost %s: got exit %d and\n%s\nwant exit 0 and the help", arg, code, out)
		}
	}
	for _, arg := range []string{"version", "--version", "-version"} {
		code, out, _ := runCLI(t, nil, arg)
		if code != 0 || !strings.HasPrefix(out, "quizhost ") || !strings.Contains(out, "\ngo            "+runtime.Version()+"\n") {
			t.Errorf("quizhost %s: got exit %d, version %q, want quizhost's version and %s", arg, code, out, runtime.Version())
		}
	}
	if code, _, errOut := runCLI(t, nil, "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) || !strings.Contains(errOut, "quizhost validate") {
		t.Errorf("got exit %d, stderr %q, want 2 with the commands", code, errOut)
	}
}
