package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrInUse is returned by Open when another process (or another DB in this
// process) holds the file's lock for longer than Options.Timeout.
var ErrInUse = errors.New("database is in use by another process")

// ErrSchemaTooNew is returned by Open when the file was written by a newer
// quizhost whose schema this build does not know. The file is left
// untouched.
var ErrSchemaTooNew = errors.New("database was written by a newer quizhost; upgrade quizhost to open it")

// DefaultTimeout is how long Open waits for the file lock when
// Options.Timeout is zero.
const DefaultTimeout = 2 * time.Second

// Options configure Open.
type Options struct {
	// Timeout is how long Open waits for the file lock held by another
	// process before it fails with ErrInUse; 0 means DefaultTimeout.
	Timeout time.Duration
	// Now is the clock (time.Now when nil). Used where a method is given no
	// time: answers without At, posts without OpenedAt.
	Now func() time.Time
}

// DB is a quizhost database: one bbolt file holding settings, posts,
// answers, scores, leaderboard indexes, asked history and imported banks.
// A DB is safe for concurrent use by many goroutines. Only one process may
// have the file open at a time.
type DB struct {
	bolt  *bbolt.DB
	path  string
	now   func() time.Time
	locs  sync.Map // IANA name → *time.Location
	group groupCommit
	// write runs RecordAnswer's transactions: group.do (a benchmark swaps
	// in bbolt's DB.Batch to compare).
	write func(func(*bbolt.Tx) error) error
}

// Open opens (creating if needed) the database at path, waits at most
// opts.Timeout for the file lock (then fails with an error wrapping
// ErrInUse), and upgrades an older schema in place in one transaction. A
// file of a newer schema is refused with an error wrapping ErrSchemaTooNew.
func Open(path string, opts Options) (*DB, error) {
	return open(path, opts, migrations())
}

func open(path string, opts Options, migs []migration) (*DB, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:      opts.Timeout,
		FreelistType: bbolt.FreelistMapType,
	})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("open %s: %w", path, ErrInUse)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := b.Update(func(tx *bbolt.Tx) error { return migrate(tx, migs) }); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path, now: opts.Now}
	db.group = groupCommit{db: b, max: 1000}
	db.write = db.group.do
	return db, nil
}

// Close waits for running transactions to finish and closes the file,
// releasing its lock. No other method may be called after Close.
func (db *DB) Close() error {
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

// Path is the file the DB was opened from.
func (db *DB) Path() string { return db.path }

// Check runs bbolt's consistency check over the whole file in one read
// transaction and returns every problem found, joined; nil when clean.
func (db *DB) Check() error {
	if err := db.bolt.View(checkTx); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	return nil
}

func checkTx(tx *bbolt.Tx) error {
	var errs []error
	for err := range tx.Check() {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Backup writes a consistent copy of the whole file to w while the
// database stays in use (a hot backup: one read transaction, Tx.WriteTo).
// It returns the bytes written.
func (db *DB) Backup(w io.Writer) (int64, error) {
	var n int64
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}

// BackupFile writes a hot backup to path durably: it writes a temporary
// file in the same directory, fsyncs it, opens it read-only and runs the
// consistency check, and only then renames it over path and fsyncs the
// directory. On error, path is the previous file (or, if only the final
// directory fsync failed, the complete, checked copy) and no temporary file
// is left. It refuses path when it names the database's own file (the same
// absolute, cleaned path, or the same file through a link).
func (db *DB) BackupFile(path string) error {
	if err := db.notOwnFile(path); err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	err := replaceChecked(path, func(w io.Writer) error {
		_, err := db.Backup(w)
		return err
	})
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
// to path, fsyncs it, checks it (read-only open, tx.Check), then renames
// it over path and fsyncs the directory. The temporary file is removed on
// any error before the rename.
func replaceChecked(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		if !renamed {
			f.Close() // may be closed already
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := checkFileAt(tmp); err != nil {
		return fmt.Errorf("verify copy: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	return syncDir(dir)
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

// wholeFile refuses a bbolt file shorter than its newest valid meta page
// says it is. bbolt maps the file into memory and would fault reading a
// page past its end: a fatal signal, not an error, so a truncated copy must
// be caught before bbolt opens it.
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
	// magic, version, page size, flags (4 bytes each), root bucket (16),
	// freelist, high-water page id, txid, checksum (8 bytes each).
	const header, metaLen, magic, version = 16, 64, 0xED0CDAED, 2
	pageSize := int64(os.Getpagesize())
	var found bool
	var bestTx, need uint64
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
		ps, pgid, txid := int64(le.Uint32(m[8:])), le.Uint64(m[40:]), le.Uint64(m[48:])
		if i == 0 {
			pageSize = ps
		}
		if !found || txid > bestTx {
			found, bestTx, need = true, txid, pgid*uint64(ps)
		}
	}
	if !found {
		return errors.New("not a bbolt file: no valid meta page")
	}
	if uint64(st.Size()) < need {
		return fmt.Errorf("truncated: %d bytes, its meta page needs %d", st.Size(), need)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// location returns the time zone named name, cached; UTC for "" or an
// unknown name (SaveSettings refuses unknown names, so that only happens
// if the system's zone database lost one).
func (db *DB) location(name string) *time.Location {
	if name == "" || name == "UTC" {
		return time.UTC
	}
	if l, ok := db.locs.Load(name); ok {
		return l.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = time.UTC
	}
	db.locs.Store(name, loc)
	return loc
}

// groupCommit merges concurrent write functions into shared transactions,
// like bbolt's DB.Batch but without its fixed delay: the first caller
// commits at once (leader); callers that arrive while a commit runs queue
// up and the next leader commits them all in one transaction, one fsync
// pair. A lone caller never waits for a timer, and under load every commit
// carries everything that arrived during the previous one.
//
// As with DB.Batch a function may run more than once (when another
// function of its group fails, the group is retried without it and the
// failing one re-run alone), so functions must reset their outputs and
// have no effect outside the transaction.
type groupCommit struct {
	db      *bbolt.DB
	max     int // most functions per transaction
	mu      sync.Mutex
	running bool
	queue   []*groupCall
}

type groupCall struct {
	fn   func(*bbolt.Tx) error
	done chan groupResult // buffered 1: a lead signal, or the result
}

type groupResult struct {
	err  error
	lead bool
}

// do runs fn in a shared write transaction and returns once that
// transaction has committed (or failed).
func (g *groupCommit) do(fn func(*bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan groupResult, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.running {
		g.mu.Unlock()
		r := <-c.done
		if !r.lead {
			return r.err
		}
		g.mu.Lock()
	}
	// This goroutine leads: take what is queued (c included) and commit it.
	g.running = true
	n := min(len(g.queue), g.max)
	calls := g.queue[:n:n]
	g.queue = append([]*groupCall(nil), g.queue[n:]...)
	g.mu.Unlock()

	g.run(calls)

	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].done <- groupResult{lead: true} // hand over
	} else {
		g.running = false
	}
	g.mu.Unlock()
	return (<-c.done).err
}

func (g *groupCommit) run(calls []*groupCall) {
	for len(calls) > 0 {
		failed := -1
		err := g.db.Update(func(tx *bbolt.Tx) error {
			for i, c := range calls {
				if err := safeCall(c.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed >= 0 {
			c := calls[failed]
			calls = append(calls[:failed:failed], calls[failed+1:]...)
			c.done <- groupResult{err: g.db.Update(func(tx *bbolt.Tx) error { return safeCall(c.fn, tx) })}
			continue
		}
		for _, c := range calls {
			c.done <- groupResult{err: err}
		}
		return
	}
}

// safeCall turns a panic of fn into an error so one bad call cannot take
// the leader (and everyone waiting on it) down.
func safeCall(fn func(*bbolt.Tx) error, tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(tx)
}
