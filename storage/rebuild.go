package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// RebuildScores recounts every score, streak, topic stat and leaderboard
// index of the guild from its stored answers (those recorded after the
// last ResetGuild, and after the member's last ResetMember), in recording
// order, in the guild's current time zone. It is the repair path and the
// tests' oracle: on an intact file it changes nothing (but how the
// rankings' keys are cut into blocks, see rank.go). One transaction; its
// cost grows with the guild's answers, and it holds about 80 bytes per
// counted answer in memory. Safe for concurrent use.
func (db *DB) RebuildScores(ctx context.Context, guildID questions.GuildID) error {
	if err := db.update(ctx, func(tx *bbolt.Tx) error { return db.rebuild(tx, guildID) }); err != nil {
		return fmt.Errorf("rebuild scores: %w", err)
	}
	return nil
}

func (db *DB) rebuild(tx *bbolt.Tx, guildID questions.GuildID) error {
	g := guildRO(tx, guildID)
	if g == nil {
		return nil
	}
	if err := clearScores(g); err != nil {
		return err
	}
	refs, err := countedAnswers(g, nil)
	if err != nil {
		return err
	}
	if len(refs) <= db.recountInPlace {
		return db.recount(tx, g, guildID, refs)
	}
	return db.recountAside(tx, g, guildID, refs)
}

// rescore recounts the scores of the members in users from their answers
// that count, in the guild's bucket g of tx. A member's scores are theirs
// alone, so the other members' keys and the rankings' counts stay right:
// a regrade recounts only the members whose grades it changed, a deleted
// post only those who answered it. When those members' answers are more
// than a rebuild counts in place, the whole guild is recounted (rebuild,
// which counts them aside): removing so many members can empty a ranking,
// and counting them back into it within the transaction is the square
// cost recountAside avoids.
func (db *DB) rescore(tx *bbolt.Tx, g *bbolt.Bucket, guildID questions.GuildID, users map[questions.UserID]bool) error {
	if len(users) == 0 {
		return nil
	}
	refs, err := countedAnswers(g, users)
	if err != nil {
		return err
	}
	if len(refs) > db.recountInPlace {
		return db.rebuild(tx, guildID)
	}
	if err := removeMembers(g, users); err != nil {
		return err
	}
	return db.recount(tx, g, guildID, refs)
}

// rebuildInPlace is how many answers a rebuild counts into the guild's
// emptied score buckets within its own transaction; past it they are
// counted aside (recountAside).
const rebuildInPlace = 20_000

// rebuildChunk is how many answers recountAside counts in each of its
// scratch transactions (DB.recountChunk but in tests).
const rebuildChunk = 10_000

// scoreBuckets are the guild's buckets its answers are counted into, which
// clearScores empties.
var scoreBuckets = [][]byte{bPeriods, bMembers, bStreaks}

// recountAside is recount for a guild of many answers. bbolt splits a
// bucket's pages only when its transaction commits: counted within one
// transaction, the answers of a large guild land in the few pages of its
// emptied score buckets, which grow without bound, and every key put or
// moved copies the rest of its page (the time grows as the square of the
// answers: a guild of 1,000,000 answers took more than ten minutes,
// holding the write transaction every server's answers wait for). So they
// are counted, in order, into a scratch database beside the file,
// committing every rebuildChunk answers as the group commit does, and the
// scores that result are copied into the guild's buckets in key order.
// The scratch file is removed at the end (and, should the process die
// meanwhile, by the next Open).
func (db *DB) recountAside(tx *bbolt.Tx, g *bbolt.Bucket, guildID questions.GuildID, refs []answerRef) error {
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return err
	}
	path := db.path
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+scratchSuffix+"*")
	if err != nil {
		return fmt.Errorf("recount aside: %w", err)
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	scratch, err := bbolt.Open(name, 0o600, &bbolt.Options{NoSync: true, NoFreelistSync: true, NoGrowSync: true})
	if err != nil {
		return fmt.Errorf("recount aside: %w", err)
	}
	defer scratch.Close()
	scratchGuild := []byte("guild")
	sources := map[questions.PostID]postSource{}
	for start := 0; start < len(refs); start += db.recountChunk {
		err := scratch.Update(func(stx *bbolt.Tx) error {
			sg, err := stx.CreateBucketIfNotExists(scratchGuild)
			if err != nil {
				return err
			}
			for _, name := range scoreBuckets {
				if _, err := sg.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			d := newDeltas()
			for _, r := range refs[start:min(start+db.recountChunk, len(refs))] {
				if err := countStored(tx, sg, d, loc, r.user, r.ra, sources); err != nil {
					return err
				}
			}
			return d.flush()
		})
		if err != nil {
			return fmt.Errorf("recount aside: %w", err)
		}
	}
	// The copies outlive the scratch file: bbolt keeps what is put until
	// the commit of tx.
	var slab []byte
	keep := func(b []byte) []byte {
		if slab == nil || len(slab)+len(b) > cap(slab) {
			slab = make([]byte, 0, max(64<<10, len(b)))
		}
		at := len(slab)
		slab = append(slab, b...)
		return slab[at:len(slab):len(slab)]
	}
	return scratch.View(func(stx *bbolt.Tx) error {
		sg := stx.Bucket(scratchGuild)
		for _, name := range scoreBuckets {
			dst := g.Bucket(name)
			dst.FillPercent = appendFill // filled in key order
			if err := copyBucketWith(sg.Bucket(name), dst, keep); err != nil {
				return fmt.Errorf("recount aside: %w", err)
			}
		}
		return nil
	})
}

// scratchSuffix ends the name of recountAside's scratch file, after the
// database file's name.
const scratchSuffix = ".recount-"

// removeScratch removes the scratch files of recountAside beside the
// database file path, left by a process that died while it counted (the
// caller holds the file's lock: no other process counts into them).
func removeScratch(path string) {
	entries, _ := os.ReadDir(filepath.Dir(path))
	prefix := filepath.Base(path) + scratchSuffix
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			_ = os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

// countedAnswers returns the guild's answers that count (recorded after
// the last ResetGuild and the member's last ResetMember), of the members
// in users (every member when users is nil), in recording order; mock
// answers are not among them.
func countedAnswers(g *bbolt.Bucket, users map[questions.UserID]bool) ([]answerRef, error) {
	counts := countsFilter(g)
	var refs []answerRef
	b := g.Bucket(bAnswers)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		if len(k) < 8 {
			return nil
		}
		user := getID[questions.UserID](k)
		if users != nil && !users[user] {
			return nil
		}
		rec, err := decodeRecord(k, v, "")
		if err != nil {
			return err
		}
		for _, ra := range rec.answers {
			if !ra.mock && counts(user, ra.seq) { // mock answers never count for scores
				refs = append(refs, answerRef{user: user, ra: ra})
			}
		}
		return nil
	})
	sortRefs(refs)
	return refs, err
}

// countsFilter returns a function that tells whether the answer of user
// with sequence number seq counts: recorded after the guild's last
// ResetGuild and the member's last ResetMember.
func countsFilter(g *bbolt.Bucket) func(user questions.UserID, seq uint64) bool {
	guildReset := getU64(g.Bucket(bInfo).Get(kReset))
	resets := g.Bucket(bResets)
	return func(user questions.UserID, seq uint64) bool {
		return seq > guildReset && seq > getU64(resets.Get(u64(user)))
	}
}

// recount counts the answers refs, in order, into the guild's scores, in
// the guild's current time zone. Its counter changes are buffered and
// written once at the end, as a group commit's are.
func (db *DB) recount(tx *bbolt.Tx, g *bbolt.Bucket, guildID questions.GuildID, refs []answerRef) error {
	loc, err := db.guildLocation(tx, guildID)
	if err != nil {
		return err
	}
	d := newDeltas()
	sources := map[questions.PostID]postSource{}
	for _, r := range refs {
		if err := countStored(tx, g, d, loc, r.user, r.ra, sources); err != nil {
			return err
		}
	}
	return d.flush()
}
