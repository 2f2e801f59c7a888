package questions

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/quizhost/quizhost/internal/testenv"
)

// TestMain runs the package's tests with the collector started at five
// times the live heap rather than twice (GOGC=400 rather than 100): the
// property tests, the fuzz seeds and the hostile files make some 450 MB of
// short-lived garbage over a live heap of a few MB, which at the default
// is about 200 collections and a quarter of the package's CPU; the test
// binary then peaks at about 60 MB instead of 38. What the tests assert
// does not depend on it (the one that measures memory counts the bytes
// allocated, not the heap). A GOGC set in the environment is kept. The
// loader tests' folders go to memory (testenv.Run).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(testenv.Run(m))
}
