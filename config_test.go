package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		wantCode int
		want     []string
	}{
		{"no token", map[string]string{}, 2, []string{"DISCORD_TOKEN is not set", "README.md", "bot applications.commands",
			"cp .env.example .env", "without Discord: quizhost sandbox"}},
		{"bad base and guild", map[string]string{"DISCORD_TOKEN": "x", "DISCORD_API_BASE": "http://", "DISCORD_GUILD_ID": "abc"},
			2, []string{"DISCORD_API_BASE \"http://\"", "DISCORD_GUILD_ID \"abc\""}},
		{"bad log level", map[string]string{"DISCORD_TOKEN": "x", "QUIZHOST_LOG_LEVEL": "loud"}, 2, []string{"QUIZHOST_LOG_LEVEL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // no .env here
			var out, errOut bytes.Buffer
			err := run(context.Background(), nil, envMap(tt.env), &out, &errOut)
			var ec exitCode
			if !errors.As(err, &ec) || ec.code != tt.wantCode {
				t.Fatalf("run = %v, want exit %d", err, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(ec.msg, w) {
					t.Errorf("message %q lacks %q", ec.msg, w)
				}
			}
		})
	}
}

func TestDotenvRealEnvironmentWins(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(".env", []byte("DISCORD_TOKEN=from-file\nQUIZHOST_DB=file.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv, err := envWithDotenv(envMap(map[string]string{"QUIZHOST_DB": "real.db"}), ".env")
	if err != nil {
		t.Fatal(err)
	}
	if got := getenv("DISCORD_TOKEN"); got != "from-file" {
		t.Errorf("DISCORD_TOKEN = %q, want from-file", got)
	}
	if got := getenv("QUIZHOST_DB"); got != "real.db" {
		t.Errorf("QUIZHOST_DB = %q, want the real environment's real.db", got)
	}
}
