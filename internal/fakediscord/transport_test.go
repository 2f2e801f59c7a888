package fakediscord

import "testing"

func TestTransport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"discord.com", true}, {"cdn.discordapp.com", true}, {"media.discordapp.net", true},
		{"example.com", false}, {"notdiscord.com", false},
	}
	for _, tt := range tests {
		if got := isDiscordHost(tt.host); got != tt.want {
			t.Errorf("isDiscordHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
