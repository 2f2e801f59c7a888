package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// damagedFixture is a closed database file with a few posts and answers,
// and its page size and pages in use: the same for every test, made once
// per test binary (damagedFile).
func damagedFixture(t *testing.T) (data []byte, pageSize, inUse int) {
	t.Helper()
	fx, err := damagedFile()
	if err != nil {
		t.Fatalf("the damage tests' fixture: %v", err)
	}
	return fx.data, fx.pageSize, fx.inUse
}

type damagedFx struct {
	data            []byte
	pageSize, inUse int
}

var damagedFile = sync.OnceValues(func() (damagedFx, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "quizhost-damaged-")
	if err != nil {
		return damagedFx{}, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "quiz.db")
	empty, err := newFile()
	if err != nil {
		return damagedFx{}, err
	}
	if err := os.WriteFile(path, empty, 0o600); err != nil {
		return damagedFx{}, err
	}
	// Without fsync: the bytes are read back from the page cache all the same.
	db, err := Open(ctx, path, Options{Now: func() time.Time { return t0 }, NoSync: true})
	if err != nil {
		return damagedFx{}, err
	}
	defer db.Close()
	for i := range 3 {
		p, err := db.CreatePost(ctx, questions.Post{GuildID: guild, ChannelID: 7, QuestionID: fmt.Sprint("bank#", i), Bank: "bank",
			Correct: []string{"B"}, OptionCount: 4, SelectCount: 1})
		if err != nil {
			return damagedFx{}, err
		}
		for u := questions.UserID(1); u <= 40; u++ {
			if _, err := db.RecordAnswer(ctx, questions.Answer{PostID: p.ID, GuildID: guild, UserID: u, InteractionID: uint64(u)*1000 + uint64(p.ID),
				Choice: []string{"B"}, At: t0}); err != nil {
				return damagedFx{}, err
			}
		}
	}
	if err := db.Close(); err != nil {
		return damagedFx{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return damagedFx{}, err
	}
	// The fixture is sound: Open checks it in full.
	if db, err = Open(ctx, path, Options{NoSync: true}); err != nil {
		return damagedFx{}, err
	}
	fx := damagedFx{data: data, pageSize: db.bolt.Info().PageSize}
	db.bolt.View(func(tx *bbolt.Tx) error { fx.inUse = int(tx.Size()) / fx.pageSize; return nil })
	return fx, db.Close()
})

// TestOpenRefusesDamagedFile: a file cut anywhere, empty, random or with a
// damaged page is refused with ErrDamaged before anything is written (the
// file stays byte-identical) and without crashing the process.
func TestOpenRefusesDamagedFile(t *testing.T) {
	t.Parallel()
	good, ps, inUse := damagedFixture(t)
	if inUse < 6 {
		t.Fatalf("fixture uses %d pages; want a few more to cut", inUse)
	}
	type tc struct {
		name string
		data []byte
	}
	var cases []tc
	for k := range inUse {
		cases = append(cases, tc{fmt.Sprintf("cut at page %d", k), good[:k*ps]})
		cases = append(cases, tc{fmt.Sprintf("cut inside page %d", k), good[:k*ps+ps/2]})
	}
	cases = append(cases, tc{"cut by half a page", good[:len(good)-ps/2]})
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, len(good))
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	cases = append(cases, tc{"random bytes", random})
	// Damaged but plausible: meta pages intact, one page in use garbled.
	// bbolt itself panics on some of these ("invalid freelist page").
	for k := 2; k < inUse; k++ {
		d := bytes.Clone(good)
		for i := k * ps; i < (k+1)*ps; i++ {
			d[i] = byte(r.UintN(256))
		}
		cases = append(cases, tc{fmt.Sprintf("page %d garbled", k), d})
	}
	refused := 0
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d.db", i))
			if err := os.WriteFile(path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(t.Context(), path, Options{Timeout: 100 * time.Millisecond})
			if err == nil {
				// Only a garbled page that bbolt no longer uses (a free
				// page) may open, and then the file must check clean.
				defer db.Close()
				if cerr := db.Check(); cerr != nil {
					t.Fatalf("Open: got nil error and Check: %v; want ErrDamaged from Open", cerr)
				}
				if len(c.data) != len(good) {
					t.Fatalf("Open of a %d-byte cut of a %d-byte file: got nil error, want ErrDamaged", len(c.data), len(good))
				}
				return
			}
			refused++
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("Open: got %v, want an error wrapping ErrDamaged", err)
			}
			after, rerr := os.ReadFile(path)
			if rerr != nil || !bytes.Equal(after, c.data) {
				t.Errorf("the file changed: %d bytes before, %d after (%v)", len(c.data), len(after), rerr)
			}
		})
	}
	if want := 2*inUse + 2; refused < want {
		t.Errorf("refused %d of %d damaged files, want at least the %d cut or random ones", refused, len(cases), want)
	}
}

// TestOpenRefusesEmptyFile: an empty file (a failed restore) is not taken
// for a new database.
func TestOpenRefusesEmptyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "quiz.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), path, Options{})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open of an empty file: got %v, want ErrDamaged", err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 0 {
		t.Errorf("the empty file changed: %v, %v", st, err)
	}
}

// TestDamageWhileOpenIsAnError: pages garbled, or the file cut, under a
// running DB make its methods fail with ErrDamaged instead of crashing the
// process (a bbolt panic, or a fault reading the map past the file's end).
func TestDamageWhileOpenIsAnError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage func(f *os.File, ps int) error
	}{
		{"pages garbled", func(f *os.File, ps int) error {
			st, err := f.Stat()
			if err != nil {
				return err
			}
			junk := bytes.Repeat([]byte{0xff}, int(st.Size())-2*ps)
			_, err = f.WriteAt(junk, int64(2*ps))
			return err
		}},
		{"file cut to nothing", func(f *os.File, ps int) error { return f.Truncate(0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newPath(t)
			db, err := Open(t.Context(), path, Options{Now: func() time.Time { return t0 }, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			p := mustPost(t, db, questions.Post{})
			answer(t, db, p, 1, t0, "B")
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := tc.damage(f, os.Getpagesize()); err != nil {
				t.Fatal(err)
			}
			_, rerr := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 10)
			_, aerr := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, UserID: 2, GuildID: guild, Choice: []string{"B"}, At: t0})
			if !errors.Is(rerr, ErrDamaged) && !errors.Is(aerr, ErrDamaged) {
				t.Errorf("after damage: Leaderboard %v, RecordAnswer %v; want ErrDamaged from at least one", rerr, aerr)
			}
		})
	}
}

// TestBrokenDBFailsEveryRead: once a transaction met damage (a bbolt
// panic), every read fails with ErrDamaged without touching bbolt, whose
// locks the panic may have left held.
func TestBrokenDBFailsEveryRead(t *testing.T) {
	t.Parallel()
	db, _ := newDB(t)
	t.Cleanup(func() { db.broken.err.Store(nil) }) // the file is fine: let newDB's cleanup close it
	if err := db.broken.run(func() error { panic("damaged page") }); !errors.Is(err, ErrDamaged) {
		t.Fatalf("the tripping transaction: got %v, want ErrDamaged", err)
	}
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"Review", func() error { _, err := db.Review(guild, 1); return err }},
		{"Draft", func() error { _, err := db.Draft(guild, 1); return err }},
		{"Suggestions", func() error { _, err := db.Suggestions(guild); return err }},
		{"Memories", func() error { _, err := db.Memories(guild, 1); return err }},
		{"GroupMemories", func() error { _, err := db.GroupMemories(guild, []questions.UserID{1}, nil); return err }},
		{"Players", func() error { _, err := db.Players(guild, t0); return err }},
		{"OpenQuestions", func() error { _, err := db.OpenQuestions(guild); return err }},
		{"ReviewQueue", func() error { _, err := db.ReviewQueue(guild, 1, t0, nil, questions.ExamPlan{}); return err }},
		{"ExamDate", func() error { _, err := db.ExamDate(guild, 1); return err }},
		{"Drill", func() error { _, err := db.Drill(guild, 1); return err }},
		{"Post", func() error { _, err := db.Post(1); return err }},
	} {
		if err := tc.read(); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s on a broken DB: got %v, want ErrDamaged", tc.name, err)
		}
	}
}

// TestOpenChecksLargeFilesInBackground: a file over the size Open checks
// in full opens after a check of the pages Open reads; the full check
// runs in the background, and damage it finds is reported (OnChecked) and
// fails every later call with ErrDamaged, the file left as it was. A
// sound file opens, is reported sound and stays usable.
func TestOpenChecksLargeFilesInBackground(t *testing.T) {
	t.Parallel()
	good, ps, inUse := damagedFixture(t)
	open := func(path string, reported chan error) (*DB, error) {
		return Open(t.Context(), path, Options{Timeout: 100 * time.Millisecond, fullCheckMax: 1,
			OnChecked: func(err error) { reported <- err }})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "sound.db")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	reported := make(chan error, 1)
	db, err := open(path, reported)
	if err != nil {
		t.Fatalf("Open of a sound file: %v", err)
	}
	if err := <-reported; err != nil {
		t.Errorf("background check of a sound file: %v", err)
	}
	if _, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 3); err != nil {
		t.Errorf("after the background check of a sound file: %v", err)
	}
	db.Close()

	r := rand.New(rand.NewPCG(5, 6))
	found := 0
	for k := 2; k < inUse; k += 2 {
		d := bytes.Clone(good)
		for i := k * ps; i < (k+1)*ps; i++ {
			d[i] = byte(r.UintN(256))
		}
		path := filepath.Join(dir, fmt.Sprintf("page%d.db", k))
		if err := os.WriteFile(path, d, 0o600); err != nil {
			t.Fatal(err)
		}
		reported := make(chan error, 1)
		db, err := open(path, reported)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("page %d garbled: Open: %v, want nil or ErrDamaged", k, err)
			}
			continue // found by the pages Open reads itself
		}
		if err := <-reported; err != nil {
			found++
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("page %d garbled: reported %v, want ErrDamaged", k, err)
			}
			if _, err := db.Leaderboard(guild, questions.PeriodAll, questions.ByPoints, t0, 0, 3); !errors.Is(err, ErrDamaged) {
				t.Errorf("page %d garbled: Leaderboard after the report: %v, want ErrDamaged", k, err)
			}
			if err := db.Close(); !errors.Is(err, ErrDamaged) {
				t.Errorf("page %d garbled: Close: %v, want ErrDamaged", k, err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, d) {
				t.Errorf("page %d garbled: the file changed", k)
			}
		} else {
			db.Close() // a free page: nothing read it
		}
	}
	if found == 0 {
		t.Error("the background check found no garbled page")
	}
}

// TestBackgroundCheckBesideWrites: answers that come while the background
// check runs wait for it, and a sound file is reported sound. bbolt's check
// compares the pages its read transaction reaches with the free-page list
// as it is when the check starts: answers committed in between took pages
// from that list that the transaction does not reach and freed pages it
// reaches, and the check took them for damage ("unreachable unfreed",
// "reachable freed"), which stopped the DB: the bot on a busy gigabyte's
// file declared it damaged at start. The file has free pages to take (a
// megabyte's bucket written, then dropped) and 30 answers come during the
// check: should the write turn be free while it runs, they commit inside
// it.
func TestBackgroundCheckBesideWrites(t *testing.T) {
	t.Parallel()
	first, path := newDB(t)
	p := mustPost(t, first, questions.Post{QuestionID: "bank#beside"})
	answer(t, first, p, 1, t0, "A")
	junk := []byte("junk")
	for _, drop := range []bool{false, true} {
		if err := first.bolt.Update(func(tx *bbolt.Tx) error {
			if drop {
				return tx.DeleteBucket(junk)
			}
			b, err := tx.CreateBucket(junk)
			for i := 0; err == nil && i < 1000; i++ {
				err = b.Put(binary.BigEndian.AppendUint32(nil, uint32(i)), make([]byte, 1000))
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	first.Close()
	var db *DB
	opened := make(chan struct{})
	reported := make(chan error, 1)
	late := make(chan error, 1)
	answers := func() error {
		for u := range questions.UserID(30) {
			if _, err := db.RecordAnswer(t.Context(), questions.Answer{PostID: p.ID, GuildID: p.GuildID, UserID: 1000 + u,
				InteractionID: uint64(1000 + u), Choice: []string{"B"}, At: t0}); err != nil {
				return err
			}
		}
		return nil
	}
	during := func() {
		<-opened
		select {
		case db.gate <- struct{}{}:
			// The write turn is free while the check runs: the answers
			// commit now, inside the check's transaction.
			<-db.gate
			late <- answers()
		default:
			go func() { late <- answers() }() // they wait for the check
		}
	}
	db, err := Open(t.Context(), path, Options{Timeout: 100 * time.Millisecond, fullCheckMax: 1, NoSync: true,
		OnChecked: func(err error) { reported <- err }, duringCheck: during})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	close(opened)
	if err := <-reported; err != nil {
		t.Fatalf("background check of a sound file written to meanwhile: %v", err)
	}
	if err := <-late; err != nil {
		t.Fatalf("the answers given during the check: %v", err)
	}
	if got, err := db.Answers(p.ID); err != nil || len(got) != 31 {
		t.Errorf("after the check: %d answers, %v; want 31", len(got), err)
	}
	if a, err := db.Answer(p.ID, 1000); err != nil || !a.Right {
		t.Errorf("an answer given during the check: got %+v, %v", a, err)
	}
}
