package main

import (
	"strings"
	"testing"
)

// The sandbox serves only this machine: an --addr that is not a loopback
// host:port is bad usage (exit 2 with the usage), not a failure.
func TestSandboxAddrUsage(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ addr, want string }{
		{"nonsense", `--addr "nonsense": want host:port`},
		{"0.0.0.0:8080", `--addr "0.0.0.0:8080": the sandbox serves this machine only`},
		{"192.168.1.10:8080", "want a loopback address such as 127.0.0.1:8080"},
	} {
		code, out, errOut := runCLI(t, nil, "sandbox", "--addr", tc.addr)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "\nusage: quizhost sandbox ") {
			t.Errorf("sandbox --addr %s: got exit %d, stdout %q, stderr %q; want exit 2, %q and the usage", tc.addr, code, out, errOut, tc.want)
		}
	}
	// A port in use: the flag to change is named.
	busy := httptestListener(t)
	code, out, errOut := runCLI(t, nil, "sandbox", "--addr", busy)
	if code != 1 || out != "" || !strings.Contains(errOut, busy) || !strings.Contains(errOut, "give the sandbox another one, e.g. --addr 127.0.0.1:8081") {
		t.Errorf("sandbox --addr %s (in use): got exit %d, stdout %q, stderr %q; want exit 1 naming --addr", busy, code, out, errOut)
	}
}
