package testenv

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestChooseRoot(t *testing.T) {
	const root = "/mem"
	tests := []struct {
		name   string
		tmpdir string
		bench  bool
		fi     fsInfo
		err    error
		want   string
	}{
		{"a tmpfs with room", "", false, fsInfo{tmpfs: true, free: MinFree}, nil, root},
		{"TMPDIR set: the user chose", "/var/tmp", false, fsInfo{tmpfs: true, free: MinFree}, nil, ""},
		{"benchmarks measure the disk", "", true, fsInfo{tmpfs: true, free: MinFree}, nil, ""},
		{"a disk", "", false, fsInfo{tmpfs: false, free: 1 << 40}, nil, ""},
		{"a container's 64 MB /dev/shm", "", false, fsInfo{tmpfs: true, free: 64 << 20}, nil, ""},
		{"no /dev/shm", "", false, fsInfo{}, errors.New("statfs /mem: no such file or directory"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chooseRoot(tt.tmpdir, tt.bench, root, func(path string) (fsInfo, error) {
				if path != root {
					t.Errorf("stat(%q), want stat(%q)", path, root)
				}
				return tt.fi, tt.err
			})
			if got != tt.want {
				t.Errorf("chooseRoot = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOwnerPID(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		ok   bool
	}{
		{"quizhost-test-4242-1234567", 4242, true},
		{"quizhost-test-4242-", 4242, true},
		{"quizhost-test-4242", 0, false},
		{"quizhost-test-x-1", 0, false},
		{"quizhost-test-0-1", 0, false},
		{"quizhost-test--1", 0, false},
		{"other-4242-1", 0, false},
	}
	for _, tt := range tests {
		pid, ok := ownerPID(tt.name)
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("ownerPID(%q) = %d, %v; want %d, %v", tt.name, pid, ok, tt.pid, tt.ok)
		}
	}
}

// TestRemoveOrphans: only the directories of processes that are gone go;
// another program's entries and a file of the same shape stay.
func TestRemoveOrphans(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"quizhost-test-111-1", "quizhost-test-222-2", "other-111-3"} {
		if err := os.MkdirAll(filepath.Join(root, d, "001"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, "001", "quiz.db"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "quizhost-test-333-3"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	removeOrphans(root, func(pid int) bool { return pid == 222 })
	var left []string
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"other-111-3", "quizhost-test-222-2", "quizhost-test-333-3"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}

// TestMemoryTempDir runs MemoryTempDir on this machine: with /dev/shm a
// tmpfs with room, scratch files go to a directory of this process there,
// which done removes; otherwise nothing changes.
func TestMemoryTempDir(t *testing.T) {
	t.Setenv("TMPDIR", "")
	before := os.TempDir()
	done := MemoryTempDir()
	dir := os.TempDir()
	if chooseRoot("", benchmarking(), shm, statfs) == "" {
		done()
		if dir != before {
			t.Errorf("TempDir %q, want %q unchanged: %s does not qualify", dir, before, shm)
		}
		t.Skipf("%s is not a tmpfs with %d bytes free here: MemoryTempDir changed nothing, as it should", shm, MinFree)
	}
	wantPrefix := filepath.Join(shm, prefix+strconv.Itoa(os.Getpid())+"-")
	if !strings.HasPrefix(dir, wantPrefix) {
		done()
		t.Fatalf("TempDir %q, want a directory named %s…", dir, wantPrefix)
	}
	f, err := os.CreateTemp("", "scratch")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if filepath.Dir(f.Name()) != dir {
		t.Errorf("os.CreateTemp wrote %s, want it in %s", f.Name(), dir)
	}
	done()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after done: stat %s: %v, want it gone", dir, err)
	}
	if v, set := os.LookupEnv("TMPDIR"); set {
		t.Errorf("after done: TMPDIR=%q, want it unset again", v)
	}
}

// TestBenchmarksKeepTheDisk: with -test.bench given, the scratch files
// stay where TMPDIR (or /tmp) puts them, on the disk the benchmarks
// measure.
func TestBenchmarksKeepTheDisk(t *testing.T) {
	f := flag.Lookup("test.bench")
	old := f.Value.String()
	t.Cleanup(func() { f.Value.Set(old) })
	if err := f.Value.Set("."); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", "")
	before := os.TempDir()
	done := MemoryTempDir()
	defer done()
	if got := os.TempDir(); got != before {
		t.Errorf("TempDir %q with -test.bench, want %q unchanged", got, before)
	}
}

// runFunc is a *testing.M stand-in for Run.
type runFunc func() int

func (f runFunc) Run() int { return f() }

// TestRun: the tests run with the scratch directory MemoryTempDir chose,
// Run passes their exit code on, and the directory is gone afterwards.
func TestRun(t *testing.T) {
	t.Setenv("TMPDIR", "")
	memory := chooseRoot("", benchmarking(), shm, statfs) != ""
	var during string
	code := Run(runFunc(func() int {
		during = os.TempDir()
		return 3
	}))
	if code != 3 {
		t.Errorf("Run = %d, want the tests' 3", code)
	}
	if !memory {
		t.Skipf("%s does not qualify here; nothing to remove", shm)
	}
	if !strings.HasPrefix(during, filepath.Join(shm, prefix)) {
		t.Fatalf("the tests ran with TempDir %q, want one under %s", during, shm)
	}
	if _, err := os.Stat(during); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Run: stat %s: %v, want it gone", during, err)
	}
}
