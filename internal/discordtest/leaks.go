package discordtest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// VerifyTestMain runs the tests of a package that starts real bots, then
// fails the run if goroutines are left over, as goleak.VerifyTestMain
// does, and exits. A stopped bot leaves discordgo's Close to finish its
// fixed one-second sleep after the close frame in the background (the bot
// returns once the frame is out), so leftovers get up to 3 s to go.
// net/http's idle keep-alive connections are ignored.
func VerifyTestMain(m *testing.M) {
	if code := m.Run(); code != 0 {
		os.Exit(code)
	}
	opts := []goleak.Option{
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	}
	var err error
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		if err = goleak.Find(opts...); err == nil {
			os.Exit(0)
		}
	}
	fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
	os.Exit(1)
}
