package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

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
		{8, "a smaller layout: answers with memories, member records, grouped rankings counted in blocks", compactLayout},
		{9, "question statistics counted from the answers", buildStats},
	}
}

// SchemaVersion is the schema version this build writes and reads.
func SchemaVersion() uint64 { return uint64(len(migrations())) }

// migrateIfNeeded runs migrate in a write transaction when the file is
// not at the latest version (or is new); a file at it is only read.
func migrateIfNeeded(b *bbolt.DB, migs []migration) error {
	current := false
	if err := b.View(func(tx *bbolt.Tx) error {
		current = tx.Bucket(bMeta) != nil && getU64(tx.Bucket(bMeta).Get(kSchema)) == uint64(len(migs))
		return nil
	}); err != nil {
		return err
	}
	if current {
		return nil
	}
	return b.Update(func(tx *bbolt.Tx) error { return migrate(tx, migs) })
}

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
// all-time score rows (in the layout of version 7, see legacy.go).
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
		rows := sub(sub(sub(g, bPeriods), kAllTime), bRowsV7)
		if rows == nil {
			return nil
		}
		return rows.ForEach(func(k, v []byte) error {
			if k := streakKeyV7(decodeScoreV7(getID[questions.UserID](k), v)); k != nil {
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
		reviews, answers := g.Bucket(bReviews), g.Bucket(bAnswersV7)
		if reviews == nil {
			return nil
		}
		return reviews.ForEach(func(k, v []byte) error {
			r, err := decodeReview(0, getID[questions.ReviewID](k), v)
			if err != nil {
				return fmt.Errorf("guild %d: %w", getU64(name), err)
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

// eachGuild calls fn with each guild's bucket in turn, the migrations'
// walk: fn may change the guild's buckets (their names are read first),
// and an error of fn stops the walk, naming the guild.
func eachGuild(tx *bbolt.Tx, fn func(*bbolt.Tx, *bbolt.Bucket) error) error {
	guilds := tx.Bucket(bGuilds)
	var names [][]byte
	if err := guilds.ForEachBucket(func(name []byte) error {
		names = append(names, bytes.Clone(name))
		return nil
	}); err != nil {
		return err
	}
	for _, name := range names {
		if err := fn(tx, guilds.Bucket(name)); err != nil {
			return fmt.Errorf("guild %d: %w", getU64(name), err)
		}
	}
	return nil
}

// compactLayout is version 8: the layout that keeps the file small (see
// doc.go), converted from version 7's (legacy.go) guild by guild. Each
// member's answers to one question and their memory of it become one
// record; each member's all-time score, streak, topic stats and their rows
// of the latest day, week and month become one member record; each
// period's rows, flat rankings and histograms become rankings grouped by
// points and accuracy, counted in blocks; the streak index gets shorter
// keys; reviews become binary. What every reader returns stays the same.
// The new buckets are written in key order, their pages filled.
func compactLayout(tx *bbolt.Tx) error {
	return eachGuild(tx, func(tx *bbolt.Tx, g *bbolt.Bucket) error {
		for _, step := range []func(*bbolt.Tx, *bbolt.Bucket) error{convertAnswers, convertScores, convertReviews} {
			if err := step(tx, g); err != nil {
				return err
			}
		}
		return nil
	})
}

// recreate deletes g's bucket name if it exists and creates it anew, its
// pages to be filled (its keys are written in order).
func recreate(g *bbolt.Bucket, name []byte) (*bbolt.Bucket, error) {
	if g.Bucket(name) != nil {
		if err := deleteBucket(g, name); err != nil {
			return nil, err
		}
	}
	b, err := g.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	b.FillPercent = appendFill
	return b, nil
}

// convertAnswers turns guilds/<g>/answers (<post><user> → answer),
// guilds/<g>/memory (<user><question ID> → card and history) and the
// answers of ended mock exams (guilds/<g>/mocks, which stay) into answer
// records (guilds/<g>/answers/<user><question number>), the questions
// numbered in the order of their IDs (qids, qnames). A record's card is
// the memory's when there is one, else computed from its answers as
// RebuildMemory does.
func convertAnswers(tx *bbolt.Tx, g *bbolt.Bucket) error {
	old := g.Bucket(bAnswersV7)
	if old == nil {
		for _, name := range [][]byte{bAnswers, bQids, bQnames} {
			if _, err := recreate(g, name); err != nil {
				return err
			}
		}
		return nil
	}
	seq := old.Sequence()
	type recKey struct {
		user questions.UserID
		qid  string
	}
	recs := map[recKey]*record{}
	sources := map[questions.PostID]sourceV7{}
	c := old.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 16 || v == nil {
			continue
		}
		a, aseq := decodeAnswerV7(0, k, v)
		src, err := sourceOfV7(tx, g, a.PostID, sources)
		if err != nil {
			return err
		}
		rk := recKey{a.UserID, src.questionID}
		rec := recs[rk]
		if rec == nil {
			rec = &record{user: a.UserID, qid: src.questionID}
			recs[rk] = rec
		}
		rec.answers = append(rec.answers, recAnswer{id: a.PostID, seq: aseq, interaction: a.InteractionID, at: a.At,
			right: a.Right, review: src.review, picks: a.RightPicks, points: a.Points, choice: a.Choice})
	}
	// The answers of ended mock exams (guilds/<g>/mocks, created on first
	// use in version 7), which version 7's memory counted: mock answers,
	// at the sequence number their attempt took when it ended.
	if err := eachMockAnswer(g, func(id questions.MockID, seq uint64, user questions.UserID, qid string, a questions.Attempt) {
		rk := recKey{user, qid}
		rec := recs[rk]
		if rec == nil {
			rec = &record{user: user, qid: qid}
			recs[rk] = rec
		}
		rec.answers = append(rec.answers, recAnswer{id: questions.PostID(id), seq: seq, at: a.At, right: a.Right, mock: true})
	}); err != nil {
		return err
	}
	// Number the questions in the order of their IDs.
	seen := map[string]bool{}
	var qids []string
	for rk := range recs {
		if rk.qid != "" && !seen[rk.qid] {
			seen[rk.qid] = true
			qids = append(qids, rk.qid)
		}
	}
	slices.Sort(qids)
	nums := make(map[string]uint32, len(qids))
	ids, err := recreate(g, bQids)
	if err != nil {
		return err
	}
	names, err := recreate(g, bQnames)
	if err != nil {
		return err
	}
	for i, qid := range qids {
		nums[qid] = uint32(i + 1)
		if err := ids.Put([]byte(qid), binary.BigEndian.AppendUint32(nil, uint32(i+1))); err != nil {
			return err
		}
		if err := names.Put(binary.BigEndian.AppendUint32(nil, uint32(i+1)), []byte(qid)); err != nil {
			return err
		}
	}
	if err := ids.SetSequence(uint64(len(qids))); err != nil {
		return err
	}
	mem := g.Bucket(bMemoryV7)
	postSources := map[questions.PostID]postSource{}
	keyed := make(map[string]*record, len(recs))
	for rk, rec := range recs {
		rec.num = nums[rk.qid]
		keyed[string(recordKey(nil, rec.user, rec.num))] = rec
		slices.SortFunc(rec.answers, func(x, y recAnswer) int { return cmp.Compare(x.seq, y.seq) })
		if rec.qid == "" {
			continue
		}
		mk := cat(u64(rec.user), []byte(rec.qid))
		if v := getIn(mem, mk); v != nil {
			m, err := decodeMemoryV7(mk, v)
			if err != nil {
				return err
			}
			rec.mem = m
			continue
		}
		if err := replay(tx, rec, postSources); err != nil {
			return err
		}
	}
	keys := slices.Sorted(maps.Keys(keyed))
	if mem != nil {
		if err := g.DeleteBucket(bMemoryV7); err != nil {
			return err
		}
	}
	b, err := recreate(g, bAnswers)
	if err != nil {
		return err
	}
	if err := b.SetSequence(seq); err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Put([]byte(k), encodeRecord(*keyed[k])); err != nil {
			return err
		}
	}
	return nil
}

// convertScores turns each period's rows, flat rankings and histograms
// into grouped rankings and blocks, and the all-time rows, the latest
// rows of each kind and guilds/<g>/topics into member records; the streak
// index is rebuilt from them.
func convertScores(tx *bbolt.Tx, g *bbolt.Bucket) error {
	members := map[questions.UserID]*memberRec{}
	rec := func(u questions.UserID) *memberRec {
		m := members[u]
		if m == nil {
			m = &memberRec{all: questions.Score{UserID: u}}
			members[u] = m
		}
		return m
	}
	hasAll := map[questions.UserID]bool{}
	periods := g.Bucket(bPeriods)
	var names [][]byte
	if periods != nil {
		if err := periods.ForEachBucket(func(k []byte) error {
			names = append(names, bytes.Clone(k))
			return nil
		}); err != nil {
			return err
		}
	}
	for _, name := range names {
		pb := periods.Bucket(name)
		kind, num, ok := periodNum(string(name))
		if !ok {
			continue
		}
		var rows []questions.Score
		if rb := pb.Bucket(bRowsV7); rb != nil {
			if err := rb.ForEach(func(k, v []byte) error {
				rows = append(rows, decodeScoreV7(getID[questions.UserID](k), v))
				return nil
			}); err != nil {
				return err
			}
		}
		for _, sub := range [][]byte{bRowsV7, bPtsHistV7, bAccHistV7, bPtsV7, bAccV7, bPtsBlocks, bAccBlocks} {
			if pb.Bucket(sub) != nil {
				if err := deleteBucket(pb, sub); err != nil {
					return err
				}
			}
		}
		if err := writeRankings(pb, rows); err != nil {
			return err
		}
		for _, s := range rows {
			m := rec(s.UserID)
			if kind < 0 {
				m.all = s
				hasAll[s.UserID] = true
				continue
			}
			s.CurrentStreak, s.BestStreak, s.LastStudyDay = 0, 0, ""
			if r := &m.cur[kind]; !r.ok || r.num < num {
				*r = periodRow{ok: true, num: num, score: s}
			}
		}
	}
	if tb := g.Bucket(bTopicsV7); tb != nil {
		if err := tb.ForEach(func(k, v []byte) error {
			if len(k) < 8 {
				return nil
			}
			m := rec(getID[questions.UserID](k))
			m.topics = append(m.topics, topicStat{topic: string(k[8:]), answered: int(getU64(v)), correct: int(getU64(v[min(8, len(v)):]))})
			return nil
		}); err != nil {
			return err
		}
		if err := g.DeleteBucket(bTopicsV7); err != nil {
			return err
		}
	}
	mb, err := recreate(g, bMembers)
	if err != nil {
		return err
	}
	st, err := recreate(g, bStreaks)
	if err != nil {
		return err
	}
	users := slices.Sorted(maps.Keys(members))
	var streaks [][]byte
	for _, u := range users {
		if !hasAll[u] {
			continue // topics or rows of a member without an all-time score: none are read
		}
		m := members[u]
		if err := mb.Put(u64(u), appendMember(nil, *m)); err != nil {
			return err
		}
		if k := streakKey(m.all); k != nil {
			streaks = append(streaks, k)
		}
	}
	slices.SortFunc(streaks, bytes.Compare)
	for _, k := range streaks {
		if err := st.Put(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// writeRankings writes a period's rankings (their groups and blocks) from
// its members' scores, in key order; its counters n and na stay.
func writeRankings(pb *bbolt.Bucket, rows []questions.Score) error {
	type entry struct{ k, v []byte }
	var pts, acc []entry
	for _, s := range rows {
		pts = append(pts, entry{pointsKey(s), appendUvarints(nil, uint64(s.Answered), uint64(s.Correct))})
		if onAccuracyBoard(s) {
			acc = append(acc, entry{accKey(s), appendUvarints(nil, uint64(s.Points), uint64(s.Correct))})
		}
	}
	for _, r := range []struct {
		tag     byte
		blocks  []byte
		entries []entry
	}{{tagPts, bPtsBlocks, pts}, {tagAcc, bAccBlocks, acc}} {
		slices.SortFunc(r.entries, func(x, y entry) int { return bytes.Compare(x.k, y.k) })
		bs, err := recreate(pb, r.blocks)
		if err != nil {
			return err
		}
		ri := rankIndex{groups: pb, tag: r.tag}
		var gb *bbolt.Bucket
		for i, e := range r.entries {
			if gb == nil || !bytes.Equal(r.entries[i-1].k[:groupLen], e.k[:groupLen]) {
				if gb, err = ri.group(e.k, true); err != nil {
					return err
				}
				gb.FillPercent = appendFill
			}
			if err := gb.Put(e.k[groupLen:], e.v); err != nil {
				return err
			}
		}
		for i := 0; i < len(r.entries); i += blockSplit {
			n := min(blockSplit, len(r.entries)-i)
			if len(r.entries)-(i+n) < blockMin {
				n = len(r.entries) - i // the rest would make too small a block
			}
			fence := firstFence
			if i > 0 {
				fence = r.entries[i].k
			}
			if err := bs.Put(fence, u64(uint64(n))); err != nil {
				return err
			}
			if i+n == len(r.entries) {
				break
			}
		}
	}
	return nil
}

// convertReviews rewrites each review (JSON up to version 7) in the
// binary form.
func convertReviews(_ *bbolt.Tx, g *bbolt.Bucket) error {
	b := g.Bucket(bReviews)
	if b == nil {
		return nil
	}
	type kv struct{ k, v []byte }
	var all []kv
	if err := b.ForEach(func(k, v []byte) error {
		r, err := decodeReview(0, getID[questions.ReviewID](k), v)
		if err != nil {
			return err
		}
		all = append(all, kv{bytes.Clone(k), encodeReview(r)})
		return nil
	}); err != nil {
		return err
	}
	seq := b.Sequence()
	nb, err := recreate(g, bReviews)
	if err != nil {
		return err
	}
	if err := nb.SetSequence(seq); err != nil {
		return err
	}
	for _, e := range all {
		if err := nb.Put(e.k, e.v); err != nil {
			return err
		}
	}
	return nil
}
