// Package testenv is what quizhost's test binaries set up before their
// tests run. It is test support: only _test.go files and the test helpers
// of internal/discordtest import it, never the production binary.
package testenv

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MinFree is the free space the memory file system must have for
// MemoryTempDir to use it: far more than the tests write at once (a few
// megabytes), and more than a container's default /dev/shm (64 MB), which
// is then left alone.
const MinFree = 512 << 20

// shm is where Linux mounts its memory file system for everyone.
const shm = "/dev/shm"

// prefix begins the name of each test binary's directory in shm, followed
// by the binary's process ID.
const prefix = "quizhost-test-"

// MemoryTempDir sends the test binary's scratch files (t.TempDir,
// os.MkdirTemp with no directory, and the child processes it starts) to a
// directory of its own on the memory file system, /dev/shm, when TMPDIR is
// not set, /dev/shm is a tmpfs with at least MinFree bytes free, and the
// binary runs no benchmark (-test.bench: benchmarks measure the disk a
// user's database would be on, fsync included, so theirs stay there). The
// tests create and remove thousands of files and bbolt databases; on a
// disk's file system each creation, removal and page write goes through
// its journal, which none of the tests is about. It returns the function
// that removes the directory again (TestMain calls it after m.Run);
// otherwise it changes nothing and returns a function that does nothing.
//
// It first removes what a test binary that did not end normally (a
// timeout, a kill) left in /dev/shm, which would otherwise hold memory
// until the machine restarts: the directories whose process is gone.
func MemoryTempDir() (done func()) {
	done = func() {}
	root := chooseRoot(os.Getenv("TMPDIR"), benchmarking(), shm, statfs)
	if root == "" {
		return done
	}
	removeOrphans(root, processExists)
	dir, err := os.MkdirTemp(root, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return done
	}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return done
	}
	return func() {
		os.Unsetenv("TMPDIR")
		os.RemoveAll(dir)
	}
}

// Run runs m's tests (a *testing.M) with their scratch files in memory
// as MemoryTempDir decides, removes them, and returns m.Run's exit code:
// a TestMain ends with os.Exit(testenv.Run(m)).
func Run(m interface{ Run() int }) int {
	done := MemoryTempDir()
	defer done()
	return m.Run()
}

// fsInfo is what chooseRoot needs to know of a file system.
type fsInfo struct {
	tmpfs bool   // a memory file system
	free  uint64 // bytes free to an unprivileged user
}

// chooseRoot returns root when the tests' scratch files should go there:
// tmpdir (the TMPDIR the tests were started with) is empty, no benchmark
// runs (bench) and root is a tmpfs with MinFree bytes free. Otherwise it
// returns "".
func chooseRoot(tmpdir string, bench bool, root string, stat func(string) (fsInfo, error)) string {
	if tmpdir != "" || bench {
		return "" // the user chose; a benchmark measures the disk
	}
	fi, err := stat(root)
	if err != nil || !fi.tmpfs || fi.free < MinFree {
		return ""
	}
	return root
}

// benchmarking reports whether the test binary was asked to run
// benchmarks. TestMain runs before the testing package parses the
// command line, so it is parsed here (as TestMain may).
func benchmarking() bool {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.bench")
	return f != nil && f.Value.String() != ""
}

// removeOrphans removes the directories of root that MemoryTempDir made
// for processes that no longer run.
func removeOrphans(root string, alive func(pid int) bool) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := ownerPID(e.Name())
		if !e.IsDir() || !ok || alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(root, e.Name()))
	}
}

// ownerPID reads the process ID from the name of a directory MemoryTempDir
// made (prefix, PID, "-", random digits).
func ownerPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
