package storage

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.etcd.io/bbolt"
)

// Writable reports whether the database can commit a write: nil when an
// empty write transaction commits (bbolt writes and fsyncs a new meta page
// for it, so a full disk, a read-only file system or an I/O error shows),
// an error wrapping ErrDamaged once a transaction met damage at run time.
// It is the health probe: cheap (one small page write and fsync), and it
// changes no data. Safe for concurrent use.
func (db *DB) Writable(ctx context.Context) error {
	if err := db.broken.failed(); err != nil {
		return fmt.Errorf("writable: %w", err)
	}
	if db.bolt.IsReadOnly() {
		return errors.New("writable: the database is open read-only")
	}
	if err := db.update(ctx, func(*bbolt.Tx) error { return nil }); err != nil {
		return fmt.Errorf("writable: %w", err)
	}
	return nil
}

// OpenPostCount returns how many posts are open (answerable) across every
// guild. It counts keys of one small index and decodes no post. Safe for
// concurrent use.
func (db *DB) OpenPostCount() (int, error) {
	n := 0
	err := db.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bOpen).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("open post count: %w", err)
	}
	return n, nil
}

// StreamBackup is Backup for a receiver that must be told the length
// first, such as an HTTP response with a Content-Length: in one read
// transaction it calls size with the exact number of bytes the copy will
// have (bbolt's Tx.Size), then writes the copy to w. It returns the bytes
// written. While it runs, a write that has to grow the file waits for it
// (bbolt remaps the file only when no read transaction is open), so w
// should not be slow for long. Safe for concurrent use.
func (db *DB) StreamBackup(w io.Writer, size func(n int64)) (int64, error) {
	var n int64
	err := db.view(func(tx *bbolt.Tx) error {
		size(tx.Size())
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}
