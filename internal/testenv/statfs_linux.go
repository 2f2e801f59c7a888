package testenv

import (
	"errors"
	"os"
	"syscall"
)

// tmpfsMagic is the f_type statfs reports for a tmpfs (linux/magic.h).
const tmpfsMagic = 0x01021994

func statfs(path string) (fsInfo, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return fsInfo{}, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	return fsInfo{tmpfs: st.Type == tmpfsMagic, free: st.Bavail * uint64(st.Bsize)}, nil
}

// processExists reports whether a process with this ID runs (or is not
// ours to signal, which also means it runs).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
