package storage

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// migration upgrades the file from version-1 to version. Migrations run in
// order inside Open's single Update, and the new version is stamped in the
// same transaction, so a crash leaves the file at the old or the new
// version, never in between.
type migration struct {
	version uint64
	name    string
	up      func(tx *bbolt.Tx) error
}

// migrations lists every schema change in order; the last version is the
// schema this build writes. Append only: never edit or reorder a shipped
// migration.
func migrations() []migration {
	return []migration{
		{1, "create the top-level buckets", createTopBuckets},
		{2, "index active streaks of every guild", indexStreaks},
		{3, "index unrevealed posts; closed posts count as revealed", indexUnrevealed},
		{4, "a drafts bucket in every guild", createDrafts},
		{5, "memory, exams and reviews in every guild; memories built from the answers", buildMemory},
		{6, "index the review questions shown and not answered", indexShown},
		{7, "imported banks' files apart from their records, with their questions and bytes for the quota", splitBanks},
	}
}

// SchemaVersion is the schema version this build writes and reads.
func SchemaVersion() uint64 { return uint64(len(migrations())) }

func migrate(tx *bbolt.Tx, migs []migration) error {
	meta, err := tx.CreateBucketIfNotExists(bMeta)
	if err != nil {
		return err
	}
	have := getU64(meta.Get(kSchema))
	latest := uint64(len(migs))
	if have > latest {
		return fmt.Errorf("%w (file schema version %d, this build knows up to %d)", ErrSchemaTooNew, have, latest)
	}
	for _, m := range migs[have:] {
		if err := m.up(tx); err != nil {
			return fmt.Errorf("migrate to schema version %d (%s): %w", m.version, m.name, err)
		}
	}
	if have != latest {
		return meta.Put(kSchema, u64(latest))
	}
	return nil
}

// createTopBuckets is version 1: the top-level buckets.
func createTopBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bSettings, bPosts, bOpen, bGuilds} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// indexStreaks is version 2: guilds/<g>/streaks, the index of members by
// last study day and current streak behind ActiveStreaks, built from the
// all-time score rows.
func indexStreaks(tx *bbolt.Tx) error {
	guilds := tx.Bucket(bGuilds)
	return guilds.ForEachBucket(func(name []byte) error {
		g := guilds.Bucket(name)
		if g.Bucket(bStreaks) != nil {
			if err := g.DeleteBucket(bStreaks); err != nil {
				return err
			}
		}
		st, err := g.CreateBucket(bStreaks)
		if err != nil {
			return err
		}
		pb := periodRO(g, periodAll)
		if pb.rows == nil {
			return nil
		}
		return pb.rows.ForEach(func(k, v []byte) error {
			if k := streakKey(decodeScore(getID[questions.UserID](k), v)); k != nil {
				return st.Put(k, nil)
			}
			return nil
		})
	})
}

// indexUnrevealed is version 3: the top-level unrevealed bucket, the index
// behind UnrevealedPosts. Builds before it revealed a post as they closed
// it and kept no record of failures, so every post closed already is taken
// as revealed: its record gets "revealed": true and the index starts
// empty. The records are patched as JSON objects, not through postRec, so
// this migration keeps its meaning whatever postRec becomes.
func indexUnrevealed(tx *bbolt.Tx) error {
	if _, err := tx.CreateBucketIfNotExists(bUnrevealed); err != nil {
		return err
	}
	posts := tx.Bucket(bPosts)
	type kv struct{ k, v []byte }
	var patched []kv
	err := posts.ForEach(func(k, v []byte) error {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("post %d: %w", getU64(k), err)
		}
		if string(rec["closed"]) != "true" || string(rec["revealed"]) == "true" {
			return nil
		}
		rec["revealed"] = json.RawMessage("true")
		nv, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		patched = append(patched, kv{append([]byte(nil), k...), nv})
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range patched {
		if err := posts.Put(p.k, p.v); err != nil {
			return err
		}
	}
	return nil
}

// createDrafts is version 4: guilds/<g>/drafts, the pasted questions
// waiting to be added and the suggestions waiting for review.
func createDrafts(tx *bbolt.Tx) error {
	guilds := tx.Bucket(bGuilds)
	return guilds.ForEachBucket(func(name []byte) error {
		_, err := guilds.Bucket(name).CreateBucketIfNotExists(bDrafts)
		return err
	})
}

// indexShown is version 6: guilds/<g>/shown, the index of each member's
// review questions shown and not answered (reviews without an answer of
// their member), behind the cap on them and the deletion of those that
// expired (StartReview, PruneExpired).
func indexShown(tx *bbolt.Tx) error {
	guilds := tx.Bucket(bGuilds)
	return guilds.ForEachBucket(func(name []byte) error {
		g := guilds.Bucket(name)
		shown, err := g.CreateBucketIfNotExists(bShown)
		if err != nil {
			return err
		}
		reviews, answers := g.Bucket(bReviews), g.Bucket(bAnswers)
		if reviews == nil {
			return nil
		}
		return reviews.ForEach(func(k, v []byte) error {
			var r reviewRec
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("guild %d, review %d: %w", getU64(name), getU64(k), err)
			}
			if getIn(answers, cat(k, u64(r.UserID))) != nil {
				return nil
			}
			return shown.Put(cat(u64(r.UserID), k), nil)
		})
	})
}

// splitBanks is version 7: each imported bank's file moves out of its
// JSON record (where it was base64) into guilds/<g>/bankdata as it is, and
// guilds/<g>/bankinfo gets its questions and bytes, which the quota counts
// (see putBanks). The questions are counted by parsing each bank as the
// bot does (those that parse cleanly: a bank a newer parser refuses counts
// what it keeps).
func splitBanks(tx *bbolt.Tx) error {
	guilds := tx.Bucket(bGuilds)
	return guilds.ForEachBucket(func(name []byte) error {
		g := guilds.Bucket(name)
		data, err := g.CreateBucketIfNotExists(bBankData)
		if err != nil {
			return err
		}
		info, err := g.CreateBucketIfNotExists(bBankInfo)
		if err != nil {
			return err
		}
		banks := g.Bucket(bBanks)
		if banks == nil {
			return nil
		}
		var keys [][]byte
		if err := banks.ForEach(func(k, _ []byte) error { keys = append(keys, bytes.Clone(k)); return nil }); err != nil {
			return err
		}
		for _, k := range keys {
			var r bankRec
			if err := json.Unmarshal(banks.Get(k), &r); err != nil {
				return fmt.Errorf("guild %d bank %q: %w", getU64(name), k, err)
			}
			parsed, _ := questions.ParseFile(r.Name+"."+r.Format, r.Data, questions.ParseOptions{})
			n := 0
			for _, b := range parsed {
				n += len(b.Questions)
			}
			file := r.Data
			if file == nil {
				file = []byte{}
			}
			r.Data = nil
			rec, err := json.Marshal(r)
			if err != nil {
				return err
			}
			for _, put := range []struct {
				b *bbolt.Bucket
				v []byte
			}{{banks, rec}, {data, file}, {info, bankInfo(n, len(file))}} {
				if err := put.b.Put(k, put.v); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
