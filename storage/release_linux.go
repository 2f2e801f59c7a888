package storage

import (
	"syscall"

	"go.etcd.io/bbolt"
)

// releaseMap unmaps the file's pages from the process's memory
// (madvise(MADV_DONTNEED) over bbolt's read-only shared map): after a read
// of the whole file (a consistency check, a backup) they would stay
// resident in the process for as long as it runs. The kernel keeps them
// in its page cache, and a later read maps them back. It runs in a read
// transaction, so bbolt cannot remap the file meanwhile; errors are
// ignored (the pages merely stay).
func (db *DB) releaseMap() {
	db.view(func(tx *bbolt.Tx) error {
		syscall.Syscall(syscall.SYS_MADVISE, tx.DB().Info().Data, uintptr(tx.Size()), syscall.MADV_DONTNEED)
		return nil
	})
}
