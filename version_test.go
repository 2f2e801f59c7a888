package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionText(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"a release", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"}, {Key: "vcs.revision", Value: "0a1b2c3"}, {Key: "vcs.time", Value: "2025-06-01T10:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			true, "quizhost v1.4.0\nvcs.revision  0a1b2c3\nvcs.time      2025-06-01T10:00:00Z\nvcs.modified  false\ngo            go1.26.1\n"},
		{"a local build without version control", &debug.BuildInfo{GoVersion: "go1.26.1"}, true, "quizhost (devel)\ngo            go1.26.1\n"},
		{"no build information", nil, false, "quizhost (no build information)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionText(tt.info, tt.ok); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
