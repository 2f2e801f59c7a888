package harness

// This file reads a child's heap from the Go runtime's GC trace
// (GODEBUG=gctrace=1, on the child's standard error, in its log) and its
// peak resident memory, for the import benchmarks.

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

// GCTraceEnv makes a Go child print a line per garbage collection.
const GCTraceEnv = "GODEBUG=gctrace=1"

// GC is one collection of a GC trace, in MiB: the heap when it started,
// when it ended, and what was live.
type GC struct{ Start, End, Live int }

// Room is the heap the collection lets grow before the next one, in MiB:
// twice what it found live, the runtime's default pacing (GOGC=100, which
// the benchmarks' children run with). The process is bound to reach it
// sooner or later, unless another collection starts early.
func (g GC) Room() int { return 2 * g.Live }

// gcLine matches a gctrace line's "A->B->C MB".
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @.* (\d+)->(\d+)->(\d+) MB`)

// GCs parses the collections of a GC trace (other lines are skipped).
func GCs(log []byte) []GC {
	var out []GC
	for _, m := range gcLine.FindAllSubmatch(log, -1) {
		a, _ := strconv.Atoi(string(m[1]))
		b, _ := strconv.Atoi(string(m[2]))
		c, _ := strconv.Atoi(string(m[3]))
		out = append(out, GC{a, b, c})
	}
	return out
}

// LogFrom returns the child's log from byte off on, and the offset of its
// end.
func (c *Child) LogFrom(off int64) ([]byte, int64, error) {
	f, err := os.Open(c.log)
	if err != nil {
		return nil, off, fmt.Errorf("read log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, off, fmt.Errorf("read log: %w", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, off, fmt.Errorf("read log: %w", err)
	}
	return b, off + int64(len(b)), nil
}

// ResetPeakMemory starts the child's peak resident memory (VmHWM) over
// from its resident memory now.
func (c *Child) ResetPeakMemory() error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", c.PID()), []byte("5"), 0); err != nil {
		return fmt.Errorf("reset peak memory: %w", err)
	}
	return nil
}

// Import is /quizadmin import's option tree for the files named, which
// the server serves (Server.AddFile), in order.
func Import(names ...string) fakediscord.Option {
	opts := make([]fakediscord.Option, len(names))
	for i, n := range names {
		name := "file"
		if i > 0 {
			name = fmt.Sprintf("file%d", i+1)
		}
		opts[i] = fakediscord.Option{Name: name, Type: discordgo.ApplicationCommandOptionAttachment, Value: n}
	}
	return fakediscord.Option{Name: "import", Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}
}
