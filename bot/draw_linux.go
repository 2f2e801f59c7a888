package bot

import "syscall"

// lowerThreadPriority gives the calling OS thread (only) the lowest
// scheduling priority, nice 19; a failure leaves it as it was.
func lowerThreadPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
}
