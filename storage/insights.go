package storage

// This file is the item analysis's statistics (schema version 9): per
// question of a guild (guilds/<g>/qstats/<question number>) its answers,
// right answers, options picked, wrong combinations and the running sums
// of its discrimination index; per member and bank (guilds/<g>/qbanks)
// their answers and right answers there, which the discrimination of the
// next answer needs; and the flags an admin dismissed (qdismissed).
//
// Every answer to a post (not a /quiz review's or a drill's, not a mock
// exam's: the answer records' mock answers) counts, whatever the
// resets (statistics describe the questions, not the competition), graded
// as stored. RecordAnswer updates the question's record and the member's
// bank totals in its transaction: two reads and two writes, whatever the
// size of the guild. Anything that changes stored grades or removes
// answers (Regrade, DeletePost) and RebuildStats recount them from the
// answer records in recording order (rebuildStats), which yields exactly
// what the answers did one by one: the same additions in the same order.
//
// The discrimination index. Moodle's is the correlation, over the
// students, between their mark on a question and their mark on the rest of
// the test. Here members answer different questions of a bank, some of
// them again and again, and the bank grows: a member's mark on "the rest"
// changes with every answer they give, and keeping a correlation over
// final marks current would mean revisiting every question a member
// answered whenever they answer another. So each answer is one
// observation, taken when it is given: x = 1 when it is right (0 else), y
// = the member's accuracy on the rest of the bank at that moment (their
// earlier answers to its other questions: c − r over n − a, where n and c
// are their bank totals and a and r their earlier answers to this
// question), counted when n − a ≥ questions.MinRestAnswers. The index is
// Pearson's r over those observations,
//
//	r = (N·Σxy − Σx·Σy) / √((N·Σx − (Σx)²) · (N·Σy² − (Σy)²))
//
// and N, Σx, Σy, Σy², Σxy are sums, each answer adding its terms: the
// record keeps them (questions.DiscSums), so QuestionStats reads one
// record per question and computes nothing over answers. Good questions
// have r > 0 (members who do well elsewhere get them right more often); a
// wrong key gives r < 0 once the bank's strong members keep picking the
// right answer.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// statsFormat is the first byte of a question's statistics record.
const statsFormat = 1

// maxCombos bounds the wrong combinations a record keeps: a combination
// first chosen when the record holds that many is not counted (a
// question with 5 options has 31 combinations, one with 25 millions).
const maxCombos = 64

// qstat is a question's statistics record, decoded.
type qstat struct {
	bank                   string
	key                    uint32 // letter i is bit i
	answers, right, strong int
	opts                   []questions.OptionPicks
	combos                 []comboN // in the order first chosen
	disc                   questions.DiscSums
}

type comboN struct {
	mask  uint32
	count int
}

// statObs is one answer as the statistics count it.
type statObs struct {
	bank         string
	key, choice  uint32
	options      int
	right        bool
	restN, restC int // the member's earlier answers and right answers to the bank's other questions
}

// add counts o into s.
func (s *qstat) add(o statObs) {
	s.bank, s.key = o.bank, o.key
	for len(s.opts) < o.options {
		s.opts = append(s.opts, questions.OptionPicks{})
	}
	s.answers++
	if o.right {
		s.right++
	}
	counted := o.restN >= questions.MinRestAnswers
	var y float64
	if counted {
		y = float64(o.restC) / float64(o.restN)
	}
	strong := counted && y >= questions.StrongAccuracy
	if strong {
		s.strong++
	}
	for m := o.choice; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		for len(s.opts) <= i {
			s.opts = append(s.opts, questions.OptionPicks{})
		}
		if o.right {
			s.opts[i].Right++
		} else {
			s.opts[i].Wrong++
		}
		if strong {
			s.opts[i].Strong++
		}
	}
	if !o.right {
		j := slices.IndexFunc(s.combos, func(c comboN) bool { return c.mask == o.choice })
		switch {
		case j >= 0:
			s.combos[j].count++
		case len(s.combos) < maxCombos:
			s.combos = append(s.combos, comboN{mask: o.choice, count: 1})
		}
	}
	if counted {
		s.disc = s.disc.Add(o.right, y)
	}
}

func encodeQstat(s qstat) []byte {
	b := make([]byte, 0, 64+6*len(s.opts)+6*len(s.combos))
	b = append(b, statsFormat)
	b = appendStr(b, s.bank)
	b = appendUvarints(b, uint64(s.key), uint64(s.answers), uint64(s.right), uint64(s.strong), uint64(len(s.opts)))
	for _, o := range s.opts {
		b = appendUvarints(b, uint64(o.Right), uint64(o.Wrong), uint64(o.Strong))
	}
	b = binary.AppendUvarint(b, uint64(len(s.combos)))
	for _, c := range s.combos {
		b = appendUvarints(b, uint64(c.mask), uint64(c.count))
	}
	b = appendUvarints(b, uint64(s.disc.N), uint64(s.disc.SumX))
	for _, f := range []float64{s.disc.SumY, s.disc.SumYY, s.disc.SumXY} {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

func decodeQstat(v []byte) (qstat, error) { return decodeQstatBank(v, "") }

// decodeQstatBank is decodeQstat reusing bank, the name of the record
// read before, when this record's is the same (no allocation).
func decodeQstatBank(v []byte, bank string) (qstat, error) {
	r := reader{b: v}
	if r.byte() != statsFormat {
		return qstat{}, fmt.Errorf("question statistics: unknown format")
	}
	name := r.bytes(r.int())
	if string(name) != bank {
		bank = string(name)
	}
	s := qstat{bank: bank, key: uint32(r.uvarint()), answers: r.int(), right: r.int(), strong: r.int()}
	n := r.int()
	if n > questions.MaxOptions {
		return qstat{}, fmt.Errorf("question statistics: %d options", n)
	}
	s.opts = make([]questions.OptionPicks, n)
	for i := range s.opts {
		s.opts[i] = questions.OptionPicks{Right: r.int(), Wrong: r.int(), Strong: r.int()}
	}
	nc := r.int()
	if nc > maxCombos {
		return qstat{}, fmt.Errorf("question statistics: %d combinations", nc)
	}
	s.combos = make([]comboN, nc)
	for i := range s.combos {
		s.combos[i] = comboN{mask: uint32(r.uvarint()), count: r.int()}
	}
	s.disc.N, s.disc.SumX = r.int(), r.int()
	s.disc.SumY = math.Float64frombits(r.u64())
	s.disc.SumYY = math.Float64frombits(r.u64())
	s.disc.SumXY = math.Float64frombits(r.u64())
	if r.bad || len(r.b) != 0 {
		return qstat{}, fmt.Errorf("question statistics: damaged record (%d bytes)", len(v))
	}
	return s, nil
}

// letterMask is the mask of letters ls (letters that are not options are
// left out).
func letterMask(ls []string) uint32 {
	var m uint32
	for _, l := range ls {
		if i := questions.LetterIndex(l); i >= 0 && i < 32 {
			m |= 1 << i
		}
	}
	return m
}

// maskLetters is the letters of mask m, in order.
func maskLetters(m uint32) []string {
	var out []string
	for ; m != 0; m &= m - 1 {
		out = append(out, questions.Letter(bits.TrailingZeros32(m)))
	}
	return out
}

// bankKey is how a bank's name keys the member totals: case and outer
// spaces do not tell banks apart.
func bankKey(bank string) string { return strings.ToLower(strings.TrimSpace(bank)) }

// memberBankKey appends <user><bank key> to dst.
func memberBankKey(dst []byte, user questions.UserID, bank string) []byte {
	return append(binary.BigEndian.AppendUint64(dst, uint64(user)), bankKey(bank)...)
}

// priorAnswers counts the answers to posts (not reviews, not mock
// answers) of an answer record's answers, and those right.
func priorAnswers(answers []byte) (n, right int) {
	r := reader{b: answers}
	for len(r.b) > 0 && !r.bad {
		r.uvarint()
		r.uvarint()
		r.bytes(16)
		f := r.byte()
		r.uvarint()
		r.uvarint()
		r.bytes(r.int())
		if f&(ansReview|ansMock) == 0 {
			n++
			if f&ansRight != 0 {
				right++
			}
		}
	}
	return n, right
}

// countStats counts a, an answer to post p (question number num), into the
// question's statistics and the member's bank totals; prior are the
// member's answers to the question's posts before it, right those right.
func countStats(g *bbolt.Bucket, d *deltas, num uint32, p questions.Post, a questions.Answer, prior, priorRight int) error {
	if num == 0 {
		return nil
	}
	stats, totals := g.Bucket(bQstats), g.Bucket(bQbanks)
	var tk [64]byte
	tkey := memberBankKey(tk[:0], a.UserID, p.Bank)
	n, c := 0, 0
	if v := d.get(totals, tkey); v != nil {
		r := reader{b: v}
		n, c = r.int(), r.int()
	}
	var s qstat
	var nk [4]byte
	skey := binary.BigEndian.AppendUint32(nk[:0], num)
	if v := d.get(stats, skey); v != nil {
		var err error
		if s, err = decodeQstat(v); err != nil {
			return fmt.Errorf("question %q: %w", p.QuestionID, err)
		}
	}
	s.add(statObs{bank: p.Bank, key: letterMask(p.Correct), choice: letterMask(a.Choice), options: p.OptionCount,
		right: a.Right, restN: n - prior, restC: c - priorRight})
	if err := d.put(stats, skey, encodeQstat(s)); err != nil {
		return err
	}
	if err := bumpStats(g); err != nil {
		return err
	}
	if a.Right {
		c++
	}
	return d.put(totals, tkey, appendUvarints(make([]byte, 0, 8), uint64(n+1), uint64(c)))
}

// rebuildStats recounts the guild's statistics (qstats, qbanks) from its
// answer records: every answer to a post still stored, in recording order,
// as countStats counted them. Dismissals are kept (they compare with what
// the statistics become). Its cost is a pass over the guild's answers.
func rebuildStats(tx *bbolt.Tx, g *bbolt.Bucket) error {
	type obsRef struct {
		seq   uint64
		user  questions.UserID
		num   uint32
		post  questions.PostID
		right bool
		mask  uint32
	}
	var refs []obsRef
	if err := g.Bucket(bAnswers).ForEach(func(k, v []byte) error {
		num := recordNum(k)
		if num == 0 {
			return nil
		}
		rec, err := decodeRecord(k, v, "")
		if err != nil {
			return err
		}
		for _, ra := range rec.answers {
			if !ra.review && !ra.mock { // a mock answer's ID is a mock exam's, not a post's
				refs = append(refs, obsRef{seq: ra.seq, user: rec.user, num: num, post: ra.id, right: ra.right, mask: letterMask(ra.choice)})
			}
		}
		return nil
	}); err != nil {
		return err
	}
	slices.SortFunc(refs, func(a, b obsRef) int { return cmp.Compare(a.seq, b.seq) })
	type pairKey struct {
		user questions.UserID
		num  uint32
	}
	type tally struct{ n, c int }
	type totalKey struct {
		user questions.UserID
		bank string
	}
	posts := map[questions.PostID]*questions.Post{}
	stats := map[uint32]*qstat{}
	pairs := map[pairKey]tally{}
	totals := map[totalKey]tally{}
	for _, r := range refs {
		p, ok := posts[r.post]
		if !ok {
			got, err := getPost(tx, r.post)
			if err == nil {
				p = &got
			}
			posts[r.post] = p
		}
		if p == nil {
			continue // the post was deleted with its answers
		}
		s := stats[r.num]
		if s == nil {
			s = &qstat{}
			stats[r.num] = s
		}
		pk, tk := pairKey{r.user, r.num}, totalKey{r.user, bankKey(p.Bank)}
		pr, t := pairs[pk], totals[tk]
		s.add(statObs{bank: p.Bank, key: letterMask(p.Correct), choice: r.mask, options: p.OptionCount,
			right: r.right, restN: t.n - pr.n, restC: t.c - pr.c})
		pr.n, t.n = pr.n+1, t.n+1
		if r.right {
			pr.c, t.c = pr.c+1, t.c+1
		}
		pairs[pk], totals[tk] = pr, t
	}
	var version uint64
	if old := g.Bucket(bQstats); old != nil {
		version = old.Sequence()
	}
	sb, err := recreate(g, bQstats)
	if err != nil {
		return err
	}
	if err := sb.SetSequence(version + 1); err != nil {
		return err
	}
	for _, n := range slices.Sorted(maps.Keys(stats)) {
		if err := sb.Put(binary.BigEndian.AppendUint32(nil, n), encodeQstat(*stats[n])); err != nil {
			return err
		}
	}
	tb, err := recreate(g, bQbanks)
	if err != nil {
		return err
	}
	type kv struct{ k, v []byte }
	rows := make([]kv, 0, len(totals))
	for k, t := range totals {
		rows = append(rows, kv{memberBankKey(nil, k.user, k.bank), appendUvarints(nil, uint64(t.n), uint64(t.c))})
	}
	slices.SortFunc(rows, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	for _, r := range rows {
		if err := tb.Put(r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

// buildStats is migration 9: the statistics of every guild, counted from
// its answers.
func buildStats(tx *bbolt.Tx) error {
	return eachGuild(tx, rebuildStats)
}

// RebuildStats recounts the guild's question statistics from its stored
// answers (see QuestionStats). It is the repair path and the tests'
// oracle: on an intact file it changes nothing. One transaction; its cost
// grows with the guild's answers. Safe for concurrent use.
func (db *DB) RebuildStats(ctx context.Context, guildID questions.GuildID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		if g == nil {
			return nil
		}
		return rebuildStats(tx, g)
	})
	if err != nil {
		return fmt.Errorf("rebuild stats: %w", err)
	}
	return nil
}

// statsOf is the API's view of record s of question num (its slices are
// s's).
func statsOf(num uint32, qid string, s qstat) questions.QuestionStats {
	out := questions.QuestionStats{QuestionID: qid, Number: num, Bank: s.bank, Key: maskLetters(s.key),
		Answers: s.answers, Right: s.right, Strong: s.strong, Disc: s.disc, Options: s.opts}
	if len(s.combos) > 0 {
		out.WrongCombos = make([]questions.ComboCount, len(s.combos))
		for i, c := range s.combos {
			out.WrongCombos[i] = questions.ComboCount{Letters: maskLetters(c.mask), Count: c.count}
		}
	}
	slices.SortStableFunc(out.WrongCombos, func(a, b questions.ComboCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return slices.Compare(a.Letters, b.Letters)
	})
	return out
}

// dismissStamp is what a dismissal remembers of the statistics: they
// have changed when it no longer matches.
func dismissStamp(s qstat) []byte {
	return appendUvarints(nil, uint64(s.answers), uint64(s.right), uint64(s.key))
}

// QuestionStats returns the statistics of the guild's questions that have
// answers, of bank (case-insensitive; every bank for ""), in question
// number order, each marked Dismissed when its flags were dismissed and
// its statistics have not changed since. Its cost is one record per
// question of the guild, whatever the number of answers or members. Safe
// for concurrent use.
func (db *DB) QuestionStats(guildID questions.GuildID, bank string) ([]questions.QuestionStats, error) {
	var out []questions.QuestionStats
	err := db.view(func(tx *bbolt.Tx) error {
		out = nil
		g := guildRO(tx, guildID)
		sb := sub(g, bQstats)
		if sb == nil {
			return nil
		}
		dismissed := sub(g, bQdismissed)
		want := bankKey(bank)
		out = make([]questions.QuestionStats, 0, min(g.Bucket(bQids).Sequence(), 1<<20))
		// qnames and qstats are both keyed by the number: one walk of each.
		names := g.Bucket(bQnames).Cursor()
		nk, nv := names.First()
		last, lastKey := "", ""
		c := sb.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			s, err := decodeQstatBank(v, last)
			if err != nil {
				return err
			}
			if s.bank != last {
				last, lastKey = s.bank, bankKey(s.bank)
			}
			if want != "" && lastKey != want {
				continue
			}
			for nk != nil && bytes.Compare(nk, k) < 0 {
				nk, nv = names.Next()
			}
			if !bytes.Equal(nk, k) {
				return fmt.Errorf("question number %d has no question ID (RebuildMemory cannot repair this: restore a backup)", binary.BigEndian.Uint32(k))
			}
			st := statsOf(binary.BigEndian.Uint32(k), string(nv), s)
			if dismissed != nil {
				st.Dismissed = bytes.Equal(dismissed.Get(k), dismissStamp(s))
			}
			out = append(out, st)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("question stats: %w", err)
	}
	return out, nil
}

// bumpStats changes the guild's statistics version (see StatsVersion):
// the sequence of its qstats bucket, which rebuildStats carries over.
func bumpStats(g *bbolt.Bucket) error {
	b := g.Bucket(bQstats)
	if b == nil {
		return nil
	}
	return b.SetSequence(b.Sequence() + 1)
}

// StatsVersion returns a number that changes whenever what QuestionStats
// returns for the guild may change: an answer, a regrade, a post deleted,
// a dismissal (a caller may keep what it made of the statistics until
// then). It is 0 for a guild without statistics. One read; safe for
// concurrent use.
func (db *DB) StatsVersion(guildID questions.GuildID) (uint64, error) {
	var v uint64
	err := db.view(func(tx *bbolt.Tx) error {
		if b := sub(guildRO(tx, guildID), bQstats); b != nil {
			v = b.Sequence()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("stats version: %w", err)
	}
	return v, nil
}

// QuestionStat returns the statistics of the guild's question number num
// (empty ones when it has no answers); an error wrapping
// questions.ErrNotFound when the guild has no such number. Safe for
// concurrent use.
func (db *DB) QuestionStat(guildID questions.GuildID, num uint32) (questions.QuestionStats, error) {
	var out questions.QuestionStats
	err := db.view(func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		s, qid, err := statAt(g, num)
		if err != nil {
			return err
		}
		k := binary.BigEndian.AppendUint32(nil, num)
		out = statsOf(num, qid, s)
		out.Dismissed = bytes.Equal(getIn(sub(g, bQdismissed), k), dismissStamp(s))
		return nil
	})
	if err != nil {
		return questions.QuestionStats{}, fmt.Errorf("question stat: %w", err)
	}
	return out, nil
}

// DismissFlags hides the flags of the guild's question number num until
// its statistics change (an answer, a regrade): QuestionStats reports it
// Dismissed until then. An error wrapping questions.ErrNotFound when the
// guild has no such number. Safe for concurrent use.
func (db *DB) DismissFlags(ctx context.Context, guildID questions.GuildID, num uint32) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		s, _, err := statAt(g, num)
		if err != nil {
			return err
		}
		k := binary.BigEndian.AppendUint32(nil, num)
		b, err := g.CreateBucketIfNotExists(bQdismissed)
		if err != nil {
			return err
		}
		if err := b.Put(k, dismissStamp(s)); err != nil {
			return err
		}
		return bumpStats(g)
	})
	if err != nil {
		return fmt.Errorf("dismiss flags: %w", err)
	}
	return nil
}

// statAt returns the statistics record of question number num of guild
// bucket g (may be nil; empty when it has no answers) and its ID; an error
// wrapping questions.ErrNotFound for a number without a question.
func statAt(g *bbolt.Bucket, num uint32) (qstat, string, error) {
	k := binary.BigEndian.AppendUint32(nil, num)
	name := getIn(sub(g, bQnames), k)
	if num == 0 || name == nil {
		return qstat{}, "", fmt.Errorf("question number %d: %w", num, questions.ErrNotFound)
	}
	qid := string(name)
	var s qstat
	if v := getIn(sub(g, bQstats), k); v != nil {
		var err error
		if s, err = decodeQstat(v); err != nil {
			return qstat{}, "", fmt.Errorf("question %q: %w", qid, err)
		}
	}
	return s, qid, nil
}

// QuestionNumbers returns the guild's numbers of questions qids (the
// handles of QuestionStat and DismissFlags), numbering those that have
// none yet (as their first post would). Safe for concurrent use.
func (db *DB) QuestionNumbers(ctx context.Context, guildID questions.GuildID, qids []string) (map[string]uint32, error) {
	out := map[string]uint32{}
	read := func(tx *bbolt.Tx) (missing bool, err error) {
		g := guildRO(tx, guildID)
		for _, q := range qids {
			if q == "" {
				continue
			}
			num, ok := uint32(0), false
			if g != nil {
				if num, ok, err = questionNum(g, nil, q, false); err != nil {
					return false, err
				}
			}
			if !ok {
				missing = true
				continue
			}
			out[q] = num
		}
		return missing, nil
	}
	var missing bool
	err := db.view(func(tx *bbolt.Tx) error {
		var err error
		missing, err = read(tx)
		return err
	})
	if err == nil && missing {
		err = db.update(ctx, func(tx *bbolt.Tx) error {
			g, err := guildRW(tx, guildID)
			if err != nil {
				return err
			}
			for _, q := range qids {
				if q == "" {
					continue
				}
				num, _, err := questionNum(g, nil, q, true)
				if err != nil {
					return err
				}
				out[q] = num
			}
			return nil
		})
	}
	if err != nil {
		return nil, fmt.Errorf("question numbers: %w", err)
	}
	return out, nil
}
