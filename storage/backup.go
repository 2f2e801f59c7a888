package storage

// This file writes hot backups (Backup, StreamBackup, BackupFile and
// BackupFileContext). BackupFile's copies are compacted (compact.go).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.etcd.io/bbolt"
)

// Backup writes a consistent copy of the whole file to w while the
// database stays in use (a hot backup: one read transaction, Tx.WriteTo).
// It returns the bytes written.
func (db *DB) Backup(w io.Writer) (int64, error) {
	return db.StreamBackup(w, func(int64) {})
}

// BackupFile writes a hot backup to path durably, compacted (the data of
// one read transaction copied key by key into a new file with its pages
// filled and no free pages, as CompactFile writes, so the backup is
// usually smaller than the database): it writes a temporary file in the
// same directory, fsyncs it, checks that it holds the same keys and
// sequences in every bucket, opens it read-only and runs the consistency
// check, and only then renames it over path and fsyncs the directory. On error, path is the previous file (or, if only the final
// directory fsync failed, the complete, checked copy) and no temporary file
// is left. It refuses path when it names the database's own file (the same
// absolute, cleaned path, or the same file through a link).
func (db *DB) BackupFile(path string) error {
	return db.BackupFileContext(context.Background(), path)
}

// BackupFileContext is BackupFile stopping when ctx ends before the copy
// has its name: the error wraps ctx.Err(), path is the previous file and
// no temporary file is left. The copy stops within a few thousand keys.
func (db *DB) BackupFileContext(ctx context.Context, path string) error {
	if err := db.notOwnFile(path); err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	err := replaceWith(ctx, path, func(tmp string) error {
		return db.view(func(tx *bbolt.Tx) error {
			_, err := compactTo(ctx, tmp, tx)
			return err
		})
	})
	db.releaseMap() // the copy read every page
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	return nil
}

// notOwnFile refuses a path that names the database's own file.
func (db *DB) notOwnFile(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	own, err := filepath.Abs(db.path)
	if err != nil {
		return err
	}
	if abs == own {
		return fmt.Errorf("%s is the database itself", path)
	}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ownFi, err := os.Stat(db.path)
	if err != nil {
		return err
	}
	if os.SameFile(fi, ownFi) {
		return fmt.Errorf("%s is the database itself", path)
	}
	return nil
}

// replaceChecked writes a bbolt file with write into a temporary file next
// to path, fsyncs it, and replaces path with it as replaceWith does.
func replaceChecked(ctx context.Context, path string, write func(io.Writer) error) error {
	return replaceWith(ctx, path, func(tmp string) error {
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// replaceWith has fill write a bbolt file, durably, at the name of a new
// empty temporary file next to path; then it checks the file (read-only
// open, tx.Check), renames it over path and fsyncs the directory. The
// temporary file is removed on any error before the rename; once ctx has
// ended, the rename does not happen (an error wrapping ctx.Err()).
func replaceWith(ctx context.Context, path string, fill func(tmp string) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp)
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if err := checkFileAt(tmp); err != nil {
		return fmt.Errorf("verify copy: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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
	db.releaseMap()
	if err != nil {
		return n, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}
