package storage

// This file answers the admin listener (internal/admin, internal/metrics)
// besides its backups: the health probe (Writable) and the gauge of open
// posts (OpenPostCount).

import (
	"context"
	"errors"
	"fmt"

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
