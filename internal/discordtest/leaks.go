package discordtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/quizhost/quizhost/internal/testenv"
)

// The discordgo functions of a session's Close and of the goroutines it
// ends. Close writes the close frame, then sleeps a fixed second holding
// the session's lock before it closes the connection; the session's
// reader and heartbeat wait for that lock meanwhile, then return.
// parallelTests is how many parallel tests VerifyTestMain lets run at
// once by default: enough to overlap the waits of a package's end-to-end
// tests on a 2-core machine without starving them of CPU.
const parallelTests = 8

// gcPercent is the GOGC VerifyTestMain runs the tests with (see there).
const gcPercent = 200

const (
	dgCloseWithCode = "github.com/bwmarrin/discordgo.(*Session).CloseWithCode"
	dgListen        = "github.com/bwmarrin/discordgo.(*Session).listen"
	dgHeartbeat     = "github.com/bwmarrin/discordgo.(*Session).heartbeat"
)

// VerifyTestMain runs the tests of a package that starts real bots, then
// fails the run if goroutines are left over, as goleak.VerifyTestMain
// does, and exits. A stopped bot leaves discordgo's Close to finish its
// fixed one-second sleep after the close frame in the background (the bot
// returns once the frame is out). A Close asleep in that pause, and the
// session's reader and heartbeat waiting for the lock it holds, are not
// leaks (they end when the pause does) and are not waited for; a Close or
// reader anywhere else is a leftover. Leftovers get up to 3 s to go.
// net/http's idle keep-alive connections are ignored.
//
// End-to-end tests mostly wait: on loopback round trips, on the disk's
// flushes, on a browser. So that their package does not take the sum of
// their waits, the tests that call t.Parallel run up to
// parallelTests at once unless -test.parallel is given (WaitingTests).
// Unless GOGC is set, they run with GOGC=200 (see verifyTestMain), and
// their scratch files go to memory (testenv.Run).
func VerifyTestMain(m *testing.M) { verifyTestMain(m, true) }

// VerifyTestMainStrict is VerifyTestMain without its allowance for
// net/http's idle keep-alive connections (nor for any goroutine blocked
// reading the network): only a discordgo Close in its pause, and the
// session's reader and heartbeat waiting for it, are let go. For
// fakediscord's own tests, whose server must leave no connection open.
func VerifyTestMainStrict(m *testing.M) { verifyTestMain(m, false) }

func verifyTestMain(m *testing.M, idleHTTP bool) {
	WaitingTests()
	// End-to-end tests allocate much and keep little (every request and
	// event is JSON, decoded and encoded again): with the heap let grow to
	// three times what the last collection found live, not twice, the
	// collector takes some 12% less of the bot's tests' CPU, for about 70
	// MB more memory. A GOGC in the environment still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if code := testenv.Run(m); code != 0 {
		os.Exit(code)
	}
	opts := []goleak.Option{
		// Checked by closesOnlyPausing instead.
		goleak.IgnoreAnyFunction(dgCloseWithCode),
		goleak.IgnoreAnyFunction(dgListen),
		goleak.IgnoreAnyFunction(dgHeartbeat),
	}
	if idleHTTP {
		opts = append(opts,
			goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
			goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
	}
	var err error
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		if err = goleak.Find(opts...); err == nil {
			if err = closesOnlyPausing(); err == nil {
				os.Exit(0)
			}
			time.Sleep(10 * time.Millisecond) // a Close past its pause finishes at once
		}
	}
	fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
	os.Exit(1)
}

// WaitingTests lets the parallel tests of a package whose tests mostly
// wait (loopback round trips, discordgo's fixed pauses) run parallelTests
// at once, unless -test.parallel is given. TestMain calls it before
// m.Run; VerifyTestMain does.
func WaitingTests() {
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == f.DefValue {
		if err := f.Value.Set(fmt.Sprint(parallelTests)); err != nil {
			panic(err)
		}
	}
}

// closesOnlyPausing reports an error unless every goroutine in a discordgo
// session's Close is asleep in its pause, and every goroutine of a
// session's reader or heartbeat is waiting for the session's lock while
// a Close pauses.
func closesOnlyPausing() error {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	pausing := 0
	var waiting [][]byte
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		lines := bytes.SplitN(g, []byte("\n"), 3)
		top := []byte{}
		if len(lines) > 1 {
			top = lines[1]
		}
		switch {
		case bytes.Contains(g, []byte(dgListen+"(")) || bytes.Contains(g, []byte(dgHeartbeat+"(")):
			// Also a Close that the reader or heartbeat started after a
			// drop: a reconnect follows it.
			if !bytes.HasPrefix(top, []byte("sync.runtime_SemacquireRWMutex")) {
				return fmt.Errorf("a discordgo session is still running:\n%s", g)
			}
			waiting = append(waiting, g)
		case bytes.Contains(g, []byte(dgCloseWithCode+"(")):
			if !bytes.HasPrefix(top, []byte("time.Sleep(")) {
				return fmt.Errorf("a discordgo Close is not in its pause:\n%s", g)
			}
			pausing++
		}
	}
	if len(waiting) > 0 && pausing == 0 {
		return fmt.Errorf("a discordgo session waits for its lock with no Close pausing:\n%s", waiting[0])
	}
	return nil
}
