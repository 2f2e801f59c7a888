package storage

// This file is the damage check: a file refused before bbolt maps it
// (plausibleFile, wholeFile: the meta page), the full consistency check,
// and bbolt panics turned into ErrDamaged at run time (protect, breaker).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/debug"
	"sync/atomic"

	"go.etcd.io/bbolt"
)

// ErrDamaged is returned by Open when the file is not a whole, consistent
// quizhost database: empty, cut short, not a bbolt file, or failing bbolt's
// consistency check. Open refuses such a file before it writes anything, so
// the file is left as it was. It is also returned, wrapped, by any method
// whose transaction made bbolt panic (a damaged page met at run time)
// instead of letting the panic end the process.
var ErrDamaged = errors.New("database file is damaged")

// breaker runs transactions through protect and, once one panicked, fails
// every later call with that error without touching bbolt: a panic inside
// bbolt (a fault while it held its meta lock, say) can leave its locks
// held, and the next transaction would wait for them forever.
type breaker struct {
	err atomic.Pointer[error]
}

func (b *breaker) run(fn func() error) error {
	if e := b.err.Load(); e != nil {
		return *e
	}
	err := protect(fn)
	var p panicError
	if errors.As(err, &p) {
		b.err.CompareAndSwap(nil, &err)
	}
	return err
}

// failed returns the panic that broke the DB, or nil.
func (b *breaker) failed() error {
	if e := b.err.Load(); e != nil {
		return *e
	}
	return nil
}

// panicError is a panic turned into an error by protect.
type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("%s: %v", ErrDamaged, p.v) }
func (p panicError) Unwrap() error { return ErrDamaged }

// protect runs fn and turns a panic into an error wrapping ErrDamaged.
// bbolt panics on pages it finds inconsistent ("invalid freelist page",
// "assertion failed: Page expected to be …"), and a read of the map past
// the end of a file cut short while open is a fault: with SetPanicOnFault
// that fault is a panic of this goroutine too, so neither ends the process.
func protect(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = panicError{p}
		}
	}()
	return fn()
}

// Check runs bbolt's consistency check over the whole file in one read
// transaction and returns every problem found, joined; nil when clean.
func (db *DB) Check() error {
	if err := db.view(checkTx); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	db.releaseMap()
	return nil
}

func checkTx(tx *bbolt.Tx) error {
	var errs []error
	for err := range tx.Check() {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// quickCheck reads the pages Open reads itself before it returns, so that
// damage there is found before anything is written: the root bucket, each
// top-level bucket, and each guild's bucket (its sub-buckets' headers).
// bbolt read the meta pages and the free-page list when it opened the
// file (a damaged one makes it panic: see protect).
func quickCheck(tx *bbolt.Tx) error {
	return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
		c := b.Cursor()
		c.First()
		c.Last()
		if string(name) != string(bGuilds) {
			return nil
		}
		return b.ForEachBucket(func(k []byte) error {
			return b.Bucket(k).ForEachBucket(func([]byte) error { return nil })
		})
	})
}

// checkFileAt opens a closed bbolt file read-only and runs tx.Check.
func checkFileAt(path string) error {
	if err := wholeFile(path); err != nil {
		return err
	}
	c, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: DefaultTimeout})
	if err != nil {
		return err
	}
	defer c.Close()
	return c.View(checkTx)
}

// plausibleFile is the check before Open lets bbolt map a file: a missing
// file is fine (it will be created), an empty one is refused (bbolt would
// silently make it a new, empty database: a failed restore must not wipe
// every score), anything else must pass wholeFile.
func plausibleFile(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file")
	}
	if st.Size() == 0 {
		return errors.New("the file is empty (0 bytes)")
	}
	return wholeFile(path)
}

// wholeFile refuses a file that is not a whole bbolt file: no valid meta
// page, a meta page pointing outside the file, a length that is not a
// whole number of pages, or shorter than its newest valid meta page says.
// bbolt maps the file into memory and would fault reading a page past its
// end: a fatal signal, not an error, so a truncated file must be caught
// before bbolt opens it.
func wholeFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	// The meta of bbolt's common.Meta, after a 16-byte page header:
	// magic, version, page size, flags (4 bytes each), root bucket (root
	// page id, sequence: 8 bytes each), freelist, high-water page id, txid,
	// checksum (8 bytes each). bbolt uses the valid meta with the highest
	// txid; so does this check.
	const header, metaLen, magic, version = 16, 64, 0xED0CDAED, 2
	const noFreelist = ^uint64(0)
	pageSize := int64(os.Getpagesize())
	var found bool
	var bestTx, root, freelist, hwm uint64
	var ps int64
	for i := range int64(2) {
		m := make([]byte, metaLen)
		if _, err := f.ReadAt(m, i*pageSize+header); err != nil {
			continue
		}
		h := fnv.New64a()
		h.Write(m[:56])
		le := binary.LittleEndian
		if le.Uint32(m[0:]) != magic || le.Uint32(m[4:]) != version || le.Uint64(m[56:]) != h.Sum64() {
			continue
		}
		if i == 0 {
			pageSize = int64(le.Uint32(m[8:]))
		}
		if txid := le.Uint64(m[48:]); !found || txid > bestTx {
			found, bestTx = true, txid
			ps, root, freelist, hwm = int64(le.Uint32(m[8:])), le.Uint64(m[16:]), le.Uint64(m[32:]), le.Uint64(m[40:])
		}
	}
	if !found {
		return errors.New("not a bbolt file: no valid meta page")
	}
	size := st.Size()
	switch {
	case ps < 1024 || ps&(ps-1) != 0:
		return fmt.Errorf("its meta page gives an impossible page size of %d", ps)
	case hwm < 4 || root < 2 || root >= hwm || (freelist != noFreelist && (freelist < 2 || freelist >= hwm)):
		return fmt.Errorf("its meta page points outside the file (root page %d, freelist page %d, %d pages in use)", root, freelist, hwm)
	case size%ps != 0:
		return fmt.Errorf("truncated: %d bytes is not a whole number of %d-byte pages", size, ps)
	case uint64(size) < hwm*uint64(ps):
		return fmt.Errorf("truncated: %d bytes, its meta page needs %d", size, hwm*uint64(ps))
	}
	return nil
}
