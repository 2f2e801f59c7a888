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

// A .env saved with a byte-order mark reads as without; a .env that does
// not read is refused with a message that does not quote the file, which
// holds the bot token.
func TestDotenvBOMAndSecretFreeErrors(t *testing.T) {
	const token = "secret-token-1234567890"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"a byte-order mark, CRLF, no final newline", "\uFEFFDISCORD_TOKEN=" + token + "\r\nQUIZHOST_DB=x.db", ""},
		{"a stray character", "QUIZHOST_DB»=x.db\nDISCORD_TOKEN=" + token + "\n", "read .env: unexpected character"},
		{"an unterminated quote", "QUIZHOST_DB=\"x.db\nDISCORD_TOKEN=" + token + "\n", "read .env: a quoted value is never closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile(".env", []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			getenv, err := envWithDotenv(envMap(nil), ".env")
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := getenv("DISCORD_TOKEN"); got != token {
					t.Errorf("DISCORD_TOKEN = %q, want %q", got, token)
				}
				if got := getenv("QUIZHOST_DB"); got != "x.db" {
					t.Errorf("QUIZHOST_DB = %q, want x.db", got)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to start %q", err, tc.want)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error %q quotes the token", err)
			}
		})
	}
}
