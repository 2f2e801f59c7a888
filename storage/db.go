package storage

// This file opens the database (Open, its options and lock timeout) and
// holds the DB type and its transaction helpers.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/quizhost/quizhost/questions"
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
	// OnCommit, when set, is called after each group commit of answers
	// that committed, with how many answers it carried (for metrics). It
	// runs on the committing goroutine: keep it quick.
	OnCommit func(answers int)
	// Quota bounds each guild's imported banks (SaveBanks refuses a change
	// past it); the zero value bounds nothing.
	Quota questions.Quota
	// NoSync skips fsync (bbolt's NoSync and NoGrowSync): a commit is in
	// the page cache when the method returns, which the process ending
	// does not lose but a machine's crash may. For tests, whose files are
	// thrown away; bbolt still syncs a new file's first pages.
	NoSync bool
}

// DB is a quizhost database: one bbolt file holding settings, posts,
// answers, scores, leaderboard indexes, asked history and imported banks.
// A DB is safe for concurrent use by many goroutines. Only one process may
// have the file open at a time.
//
// Methods that write take a context. Writes take turns (one write
// transaction at a time, RecordAnswer's merged by the group commit); the
// context bounds the wait for the turn: if it ends first the method
// returns an error wrapping ctx.Err() and has written nothing. Once the
// transaction has begun the context is no longer looked at: a change that
// committed is reported as committed. Reads do not wait and take none.
type DB struct {
	bolt  *bbolt.DB
	path  string
	now   func() time.Time
	locs  sync.Map // IANA name → *time.Location
	group groupCommit
	// broken holds the first bbolt panic met by a transaction: bbolt may
	// have panicked holding its own locks, so the DB is not used again.
	broken *breaker
	// gate admits one write transaction at a time, so that a writer waits
	// for its turn here, where its context can end the wait, rather than
	// on bbolt's lock, where nothing can.
	gate chan struct{}
	// write runs RecordAnswer's transactions: group.do (a benchmark swaps
	// in bbolt's DB.Batch to compare). The function's counter changes go
	// to the deltas, which write flushes before the commit.
	write func(context.Context, func(*bbolt.Tx, *deltas) error) error
	// postCache and settingsCache spare the hot path decoding the same
	// records again (see decodeCache).
	postCache     decodeCache[questions.PostID, questions.Post]
	settingsCache decodeCache[questions.GuildID, questions.Settings]
	quota         questions.Quota
}

// Open opens (creating if needed) the database at path, waits at most
// opts.Timeout for the file lock (then fails with an error wrapping
// ErrInUse) or until ctx ends (an error wrapping ctx.Err()), and upgrades
// an older schema in place in one transaction. A
// file of a newer schema is refused with an error wrapping ErrSchemaTooNew.
//
// An existing file is checked before bbolt maps it (it must be non-empty,
// start with a valid meta page and be as long as that page says) and then
// in full with bbolt's consistency check, before anything is written: a
// file that fails either is refused with an error wrapping ErrDamaged and
// left untouched. The full check reads every page once: measured at 80 ms
// for a 243 MB file (100,000 members, 1,000,000 answers) in the page
// cache; a cold start pays for reading the file from disk once.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	return open(ctx, path, opts, migrations())
}

// lockPoll is the longest bbolt waits for the file lock at a time before
// Open looks at its context again.
const lockPoll = 100 * time.Millisecond

func open(ctx context.Context, path string, opts Options, migs []migration) (*DB, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := plausibleFile(path); err != nil {
		return nil, fmt.Errorf("open %s: %w: %w", path, ErrDamaged, err)
	}
	b, err := openLocked(ctx, path, opts.Timeout, opts.NoSync)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("open %s: %w", path, ErrInUse)
		}
		// When bbolt panicked half-way through opening (ErrDamaged), its
		// lock and map cannot be released: the process's exit frees them.
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			return nil, err // "open PATH: permission denied" names the path already
		}
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
	db := &DB{bolt: b, path: path, now: opts.Now, broken: &breaker{}, gate: make(chan struct{}, 1), quota: opts.Quota,
		postCache: decodeCache[questions.PostID, questions.Post]{clone: clonePost}, settingsCache: decodeCache[questions.GuildID, questions.Settings]{clone: cloneSettings}}
	db.group = groupCommit{db: b, max: 1000, delay: commitDelay, broken: db.broken, gate: db.gate,
		onCommit: opts.OnCommit, joined: make(chan struct{}, 1)}
	db.write = db.group.do
	return db, nil
}

// initialMmap is how much of the file bbolt maps when it opens it: address
// space, not memory (only the pages read take memory). A write that grows
// the file past the map remaps it, and before that bbolt copies every key
// and value the write has touched to the heap (node.dereference), so that
// a write of ten 1 MiB banks would hold them twice; and the remap waits
// for every read in flight. Mapping 1 GiB at once spares files below it
// both. On a 32-bit system (strconv.IntSize 32) it is 0: bbolt's default.
const initialMmap = (1 << 30) * (strconv.IntSize / 64)

// openLocked opens the file with bbolt, waiting for its lock at most
// timeout (then bbolt's ErrTimeout) or until ctx ends: bbolt's own wait
// cannot be interrupted, so it waits lockPoll at a time.
func openLocked(ctx context.Context, path string, timeout time.Duration, noSync bool) (*bbolt.DB, error) {
	deadline := time.Now().Add(timeout)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var b *bbolt.DB
		err := protect(func() error {
			var err error
			b, err = bbolt.Open(path, 0o600, &bbolt.Options{
				Timeout:         max(min(lockPoll, time.Until(deadline)), time.Millisecond),
				FreelistType:    bbolt.FreelistMapType,
				InitialMmapSize: initialMmap,
				NoSync:          noSync,
				NoGrowSync:      noSync,
			})
			return err
		})
		if !errors.Is(err, berrors.ErrTimeout) || time.Until(deadline) <= 0 {
			return b, err
		}
	}
}

// view runs fn in a read transaction, turning a bbolt panic into an error.
func (db *DB) view(fn func(*bbolt.Tx) error) error {
	return db.broken.run(func() error { return db.bolt.View(fn) })
}

// update runs fn in a write transaction, turning a bbolt panic into an
// error. It waits for its turn (see DB.gate) only while ctx lasts; once
// the transaction has begun it runs to its end.
func (db *DB) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	select {
	case db.gate <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-db.gate }()
	return db.broken.run(func() error { return db.bolt.Update(fn) })
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
