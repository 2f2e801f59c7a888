package storage

// This file opens the database (Open, its options and lock timeout) and
// holds the DB type and its transaction helpers.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	// OnChecked, when set, is called once, on its own goroutine, when the
	// full consistency check that Open leaves to the background (files
	// larger than FullCheckMax) ends: with nil when the file is sound,
	// else with the damage found (an error wrapping ErrDamaged), after
	// which every call of the DB fails with an error wrapping ErrDamaged,
	// as after damage met at run time.
	OnChecked func(error)
	// NoSync skips fsync (bbolt's NoSync and NoGrowSync): a commit is in
	// the page cache when the method returns, which the process ending
	// does not lose but a machine's crash may. For tests, whose files are
	// thrown away; bbolt still syncs a new file's first pages.
	NoSync bool

	fullCheckMax int64 // tests: FullCheckMax when 0
	// recountInPlace, for tests, is how many answers a rebuild counts in
	// its own transaction (see DB.recountAside): rebuildInPlace when 0,
	// none when negative.
	recountInPlace int
	// recountChunk, for tests, is how many answers recountAside counts a
	// scratch transaction: rebuildChunk when 0.
	recountChunk int
	// duringCheck, for tests, runs inside the background check's read
	// transaction, before bbolt's check starts.
	duringCheck func()
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
	bolt *bbolt.DB
	path string
	// recountInPlace is how many answers a rebuild counts in its own
	// transaction; more are counted aside, recountChunk a scratch
	// transaction (see recountAside).
	recountInPlace, recountChunk int
	now                          func() time.Time
	locs                         sync.Map // IANA name → *time.Location
	group                        groupCommit
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
	// checked is closed when the background consistency check is done
	// (see Open); nil when Open checked the file itself.
	checked chan struct{}
}

// Open opens (creating if needed) the database at path, waits at most
// opts.Timeout for the file lock (then fails with an error wrapping
// ErrInUse) or until ctx ends (an error wrapping ctx.Err()), and upgrades
// an older schema in place in one transaction. A
// file of a newer schema is refused with an error wrapping ErrSchemaTooNew.
//
// An existing file is checked before bbolt maps it (it must be non-empty,
// start with a valid meta page and be as long as that page says), then by
// bbolt's consistency check, before anything is written: a file that fails
// is refused with an error wrapping ErrDamaged and left untouched. The
// full check reads every page once (about 2 s for a gigabyte in the page
// cache on a busy machine, and every page mapped in memory), so Open runs
// it in full only on files of at most FullCheckMax bytes; on a larger file
// it checks the pages it reads itself (the meta pages, the free-page list,
// the root and the top-level buckets, each guild's bucket) and leaves the
// full check to a goroutine, whose damage (see Options.OnChecked) stops the
// DB as damage met at run time does. Open returns in time proportional to
// what it reads, and after a full check the file's pages are unmapped from
// memory again (the kernel keeps them cached), so a large file costs the
// process the pages it reads, not the whole file.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	return open(ctx, path, opts, migrations())
}

// allocSize is how far bbolt grows the file past the pages in use when it
// needs room (its DB.AllocSize; bbolt's default is 16 MiB): a file holds
// at most this much room it has not used yet, for a truncate and an fsync
// every 4 MiB of growth.
const allocSize = 4 << 20

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
	b.AllocSize = allocSize
	removeScratch(path)
	if opts.fullCheckMax == 0 {
		opts.fullCheckMax = FullCheckMax
	}
	full := true
	if st, err := os.Stat(path); err == nil && st.Size() > opts.fullCheckMax {
		full = false
	}
	check := checkTx
	if !full {
		check = quickCheck
	}
	if err := protect(func() error { return b.View(check) }); err != nil {
		b.Close()
		if !errors.Is(err, ErrDamaged) {
			err = fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := protect(func() error { return migrateIfNeeded(b, migs) }); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	switch {
	case opts.recountInPlace == 0:
		opts.recountInPlace = rebuildInPlace
	case opts.recountInPlace < 0:
		opts.recountInPlace = 0
	}
	if opts.recountChunk <= 0 {
		opts.recountChunk = rebuildChunk
	}
	db := &DB{bolt: b, path: path, now: opts.Now, recountInPlace: opts.recountInPlace, recountChunk: opts.recountChunk, broken: &breaker{}, gate: make(chan struct{}, 1), quota: opts.Quota,
		postCache: decodeCache[questions.PostID, questions.Post]{clone: clonePost}, settingsCache: decodeCache[questions.GuildID, questions.Settings]{clone: cloneSettings}}
	db.group = groupCommit{db: b, max: 1000, delay: commitDelay, broken: db.broken, gate: db.gate,
		onCommit: opts.OnCommit, joined: make(chan struct{}, 1)}
	db.write = db.group.do
	db.releaseMap() // the pages a check or a migration read
	if !full {
		db.checked = make(chan struct{})
		go db.checkInBackground(opts.OnChecked, opts.duringCheck)
	}
	return db, nil
}

// FullCheckMax is the largest file Open runs bbolt's full consistency
// check on before it returns (64 MiB: tens of milliseconds); a larger
// file is checked in full in the background (see Open).
const FullCheckMax = 64 << 20

// checkInBackground runs the full consistency check; damage stops the DB
// (its breaker). It unmaps the pages the check read, and reports to
// onChecked.
//
// It holds the write turn (DB.gate) throughout, so writes wait for it
// (about 2 s a gigabyte) and reads do not: bbolt's check compares the
// pages its transaction reaches with the free-page list as it is when the
// check starts, not as the transaction saw it, so a write committed in
// between (the pages it took from the list, the pages it freed) made a
// sound file look damaged ("unreachable unfreed", "reachable freed"), and
// it reads that list without a lock (bbolt: a check in a read transaction
// is "not safe" beside writers). A check in a write transaction would
// hold writes as long.
func (db *DB) checkInBackground(onChecked func(error), during func()) {
	defer close(db.checked)
	db.gate <- struct{}{}
	err := db.view(func(tx *bbolt.Tx) error {
		if during != nil {
			during()
		}
		return checkTx(tx)
	})
	<-db.gate
	if err != nil && !errors.Is(err, ErrDamaged) {
		err = fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	if err != nil {
		err = fmt.Errorf("check %s: %w", db.path, err)
		db.broken.err.CompareAndSwap(nil, &err)
	} else {
		db.releaseMap()
	}
	if onChecked != nil {
		onChecked(err)
	}
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
	if db.checked != nil {
		<-db.checked // the background check's transaction would hold Close up anyway
	}
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
