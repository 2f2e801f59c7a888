// Package harness drives quizhost (or the ceiling bot) as a child process
// against an embedded Discord-compatible server on 127.0.0.1, for the
// over-the-wire benchmarks under bench/. It knows the bot only by its
// binary, its environment variables and what it sends over the wire.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Build compiles the Go package pkg (an import path, such as
// "github.com/quizhost/quizhost") into dir and returns the binary's path.
// It must run inside the module.
func Build(ctx context.Context, dir, pkg, name string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return out, nil
}

// Child is a bot process started by Start.
type Child struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// Start runs bin in dir with exactly env (plus PATH, HOME and TMPDIR from
// this process), its stdout and stderr appended to logPath. dir should be
// a directory of its own: quizhost reads a .env file from it.
func Start(bin, dir, logPath string, env []string) (*Child, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	c := &Child{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		logf.Close()
		close(c.done)
	}()
	return c, nil
}

// PID is the child's process id.
func (c *Child) PID() int { return c.cmd.Process.Pid }

// Exited is closed when the child has exited.
func (c *Child) Exited() <-chan struct{} { return c.done }

// Stop sends SIGTERM and waits up to timeout for the child to exit (then
// kills it). It returns an error when the child did not exit cleanly
// (status 0) in time; the log's tail is in the message.
func (c *Child) Stop(timeout time.Duration) error {
	select {
	case <-c.done:
		return c.exitErr("exited before SIGTERM")
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return c.exitErr("after SIGTERM")
	case <-time.After(timeout):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("%s did not exit within %v of SIGTERM; killed\n%s", filepath.Base(c.cmd.Path), timeout, c.LogTail(2000))
	}
}

func (c *Child) exitErr(when string) error {
	if c.err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w\n%s", filepath.Base(c.cmd.Path), when, c.err, c.LogTail(2000))
}

// LogTail returns the last n bytes of the child's log.
func (c *Child) LogTail(n int) string {
	b, err := os.ReadFile(c.log)
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// CPU returns the user plus system CPU time the child has used so far, all
// threads, from /proc/<pid>/stat (clock ticks, 10 ms on Linux).
func (c *Child) CPU() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.PID()))
	if err != nil {
		return 0, fmt.Errorf("cpu time: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing one. utime and stime are fields 14
	// and 15, the 12th and 13th after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("cpu time: /proc stat without a command name")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("cpu time: /proc stat too short")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("cpu time: /proc stat fields are not numbers")
	}
	const ticksPerSecond = 100 // USER_HZ, fixed at 100 for user space on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, nil
}

// Memory is a process's resident memory, in bytes, from
// /proc/<pid>/status.
type Memory struct {
	RSS  int64 // VmRSS: resident now
	HWM  int64 // VmHWM: the peak of RSS
	Anon int64 // RssAnon: heap, stacks (what the process allocated)
	File int64 // RssFile: mapped files (the bbolt file), reclaimable page cache
}

// Memory reads the child's resident memory now.
func (c *Child) Memory() (Memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.PID()))
	if err != nil {
		return Memory{}, fmt.Errorf("memory: %w", err)
	}
	var m Memory
	fields := map[string]*int64{"VmRSS": &m.RSS, "VmHWM": &m.HWM, "RssAnon": &m.Anon, "RssFile": &m.File}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		dst := fields[k]
		if !ok || dst == nil {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("memory: %s %q", k, v)
		}
		*dst = kb << 10
	}
	return m, nil
}

// MachineCPU is the whole machine's CPU time since boot, from /proc/stat:
// busy (every state but idle and iowait) and total, summed over its cores.
// Two readings around a run give how busy the machine was: a run that
// kept every core busy was bound by CPU, not by waiting.
func MachineCPU() (busy, total time.Duration, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("machine cpu: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, errors.New("machine cpu: /proc/stat has no cpu line")
	}
	const ticksPerSecond = 100 // USER_HZ
	for i, s := range f[1:] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, 0, errors.New("machine cpu: /proc/stat fields are not numbers")
		}
		d := time.Duration(n) * time.Second / ticksPerSecond
		if i < 8 { // user nice system idle iowait irq softirq steal; guest time is already in user
			total += d
			if i != 3 && i != 4 {
				busy += d
			}
		}
	}
	return busy, total, nil
}
