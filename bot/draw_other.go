//go:build !linux

package bot

// lowerThreadPriority does nothing where threads have no priority of
// their own that quizhost can set.
func lowerThreadPriority() {}
