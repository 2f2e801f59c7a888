//go:build !linux

package storage

// releaseMap does nothing here (see release_linux.go).
func (db *DB) releaseMap() {}
