//go:build !linux

package testenv

func statfs(string) (fsInfo, error) { return fsInfo{}, errNoStatfs }

func processExists(int) bool { return true }
