package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
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
	// broken holds the first bbolt panic met by a transaction: bbolt may
	// have panicked holding its own locks, so the DB is not used again.
	broken *breaker
	// write runs RecordAnswer's transactions: group.do (a benchmark swaps
	// in bbolt's DB.Batch to compare).
	write func(func(*bbolt.Tx) error) error
}

// ErrDamaged is returned by Open when the file is not a whole, consistent
// quizhost database: empty, cut short, not a bbolt file, or failing bbolt's
// consistency check. Open refuses such a file before it writes anything, so
// the file is left as it was. It is also returned, wrapped, by any method
// whose transaction made bbolt panic (a damaged page met at run time)
// instead of letting the panic end the process.
var ErrDamaged = errors.New("database file is damaged")

// Open opens (creating if needed) the database at path, waits at most
// opts.Timeout for the file lock (then fails with an error wrapping
// ErrInUse), and upgrades an older schema in place in one transaction. A
// file of a newer schema is refused with an error wrapping ErrSchemaTooNew.
//
// An existing file is checked before bbolt maps it (it must be non-empty,
// start with a valid meta page and be as long as that page says) and then
// in full with bbolt's consistency check, before anything is written: a
// file that fails either is refused with an error wrapping ErrDamaged and
// left untouched. The full check reads every page once: measured at 80 ms
// for a 243 MB file (100,000 members, 1,000,000 answers) in the page
// cache; a cold start pays for reading the file from disk once.
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
	if err := plausibleFile(path); err != nil {
		return nil, fmt.Errorf("open %s: %w: %w", path, ErrDamaged, err)
	}
	var b *bbolt.DB
	err := protect(func() error {
		var err error
		b, err = bbolt.Open(path, 0o600, &bbolt.Options{
			Timeout:      opts.Timeout,
			FreelistType: bbolt.FreelistMapType,
		})
		return err
	})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("open %s: %w", path, ErrInUse)
		}
		// When bbolt panicked half-way through opening (ErrDamaged), its
		// lock and map cannot be released: the process's exit frees them.
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := protect(func() error { return b.View(checkTx) }); err != nil {
		b.Close()
		if !errors.Is(err, ErrDamaged) {
			err = fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := protect(func() error { return b.Update(func(tx *bbolt.Tx) error { return migrate(tx, migs) }) }); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path, now: opts.Now, broken: &breaker{}}
	db.group = groupCommit{db: b, max: 1000, broken: db.broken}
	db.write = db.group.do
	return db, nil
}

// view runs fn in a read transaction, turning a bbolt panic into an error.
func (db *DB) view(fn func(*bbolt.Tx) error) error {
	return db.broken.run(func() error { return db.bolt.View(fn) })
}

// update runs fn in a write transaction, turning a bbolt panic into an
// error.
func (db *DB) update(fn func(*bbolt.Tx) error) error {
	return db.broken.run(func() error { return db.bolt.Update(fn) })
}

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

// Close waits for running transactions to finish and closes the file,
// releasing its lock. No other method may be called after Close. A DB that
// met damage at run time (its methods return errors wrapping ErrDamaged)
// is not closed, since bbolt may hold its own locks: Close returns that
// error, and the lock and map go when the process exits.
func (db *DB) Close() error {
	if err := db.broken.failed(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
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
	if err := db.view(checkTx); err != nil {
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
	err := db.view(func(tx *bbolt.Tx) error {
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
	broken  *breaker
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
		err := g.broken.run(func() error {
			return g.db.Update(func(tx *bbolt.Tx) error {
				for i, c := range calls {
					if err := safeCall(c.fn, tx); err != nil {
						failed = i
						return err
					}
				}
				return nil
			})
		})
		if failed >= 0 {
			c := calls[failed]
			calls = append(calls[:failed:failed], calls[failed+1:]...)
			c.done <- groupResult{err: g.broken.run(func() error {
				return g.db.Update(func(tx *bbolt.Tx) error { return safeCall(c.fn, tx) })
			})}
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
