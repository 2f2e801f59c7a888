package storage

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// period is one period's buckets: guilds/<g>/periods/<key>/.
type period struct {
	b    *bbolt.Bucket
	rows *bbolt.Bucket
	pts  rankIndex
	acc  rankIndex
	pend *bucketDeltas // n and na changes waiting for the flush; nil: written at once
	d    *deltas       // the transaction's lookups (see deltas); nil: bbolt's own
}

// periodRW returns the period bucket named key, creating it. With d its
// counters (n, na, ph, ah) change in d until d is flushed, and its rows
// and keys are read and written through d; with nil at once.
func periodRW(g *bbolt.Bucket, key []byte, d *deltas) (period, error) {
	periods := g.Bucket(bPeriods)
	b := periods.Bucket(key)
	if b == nil {
		var err error
		if b, err = periods.CreateBucket(key); err != nil {
			return period{}, err
		}
		for _, name := range [][]byte{bRows, bPts, bPtsHist, bAcc, bAccHist} {
			if _, err := b.CreateBucket(name); err != nil {
				return period{}, err
			}
		}
	}
	p := periodOf(b)
	p.pend = d.of(p.b)
	p.pts.pend = d.of(p.pts.hist)
	p.acc.pend = d.of(p.acc.hist)
	p.d, p.pts.d, p.acc.d = d, d, d
	return p, nil
}

// periodRO returns the period bucket named key; its fields are nil when the
// period has no scores.
func periodRO(g *bbolt.Bucket, key string) period {
	return periodOf(sub(sub(g, bPeriods), []byte(key)))
}

func periodOf(b *bbolt.Bucket) period {
	if b == nil {
		return period{}
	}
	return period{
		b:    b,
		rows: b.Bucket(bRows),
		pts:  rankIndex{keys: b.Bucket(bPts), hist: b.Bucket(bPtsHist)},
		acc:  rankIndex{keys: b.Bucket(bAcc), hist: b.Bucket(bAccHist)},
	}
}

// row returns a member's score in the period and whether there is one.
func (p period) row(user questions.UserID) (questions.Score, bool) {
	if p.rows == nil {
		return questions.Score{UserID: user}, false
	}
	v := p.d.get(p.rows, u64(user))
	if v == nil {
		return questions.Score{UserID: user}, false
	}
	return decodeScore(user, v), true
}

// count returns a counter (n, na) as the transaction will leave it: the
// stored value plus any pending change.
func (p period) count(key []byte) int {
	if p.b == nil {
		return 0
	}
	return int(getU64(p.b.Get(key))) + int(p.pend.pending(key))
}

// addCount adds delta to a counter; a counter that falls to 0 is deleted
// (a rebuild never writes one that stays 0). With pending changes it only
// adds delta to them.
func (p period) addCount(key []byte, delta int) error {
	if p.pend != nil {
		p.pend.add(key, int64(delta))
		return nil
	}
	n := p.count(key) + delta
	if n <= 0 {
		return p.b.Delete(key)
	}
	return p.b.Put(key, u64(uint64(n)))
}

func onAccuracyBoard(s questions.Score) bool { return s.Answered >= questions.MinAnswersForAccuracy }

// set stores s as the member's row, replacing old (had: there was one),
// and moves the member's keys in both rankings.
func (p period) set(old questions.Score, had bool, s questions.Score) error {
	if err := p.d.put(p.rows, u64(s.UserID), appendScore(p.d.value(scoreLen(s)), s)); err != nil {
		return err
	}
	var oldPts, oldAcc, newAcc []byte
	var kp, ka, kn [32]byte // the keys on this stack: move keeps none
	if had {
		oldPts = putPointsKey(kp[:], old)
		if onAccuracyBoard(old) {
			oldAcc = putAccKey(ka[:], old)
		}
	} else if err := p.addCount(kMembers, 1); err != nil {
		return err
	}
	if err := p.pts.move(oldPts, putPointsKey(kn[:], s)); err != nil {
		return err
	}
	if onAccuracyBoard(s) {
		newAcc = putAccKey(kn[:], s)
	}
	if (oldAcc == nil) != (newAcc == nil) {
		d := 1
		if newAcc == nil {
			d = -1
		}
		if err := p.addCount(kAccMembers, d); err != nil {
			return err
		}
	}
	return p.acc.move(oldAcc, newAcc)
}

// remove deletes a member's row and keys from the period.
func (p period) remove(user questions.UserID) error {
	old, had := p.row(user)
	if !had {
		return nil
	}
	if err := p.rows.Delete(u64(user)); err != nil {
		return err
	}
	if err := p.pts.move(pointsKey(old), nil); err != nil {
		return err
	}
	if err := p.addCount(kMembers, -1); err != nil {
		return err
	}
	if onAccuracyBoard(old) {
		if err := p.acc.move(accKey(old), nil); err != nil {
			return err
		}
		return p.addCount(kAccMembers, -1)
	}
	return nil
}

// addGrade counts one graded answer at `at` into s. ReachedAt moves when
// points were gained, or on the first answer (the tie-break among members
// with the same points and accuracy).
func addGrade(s *questions.Score, g questions.Grade, at time.Time) {
	if s.Answered == 0 || g.Points > 0 {
		s.ReachedAt = at
	}
	s.Answered++
	if g.Right {
		s.Correct++
	}
	s.Points += g.Points
}

// study counts day (a local date) as a study day for s's streaks. A day
// before the last study day (an answer delivered late) changes nothing.
func study(s *questions.Score, day string) {
	switch {
	case s.LastStudyDay == "" || day > s.LastStudyDay && dayNumber(day)-dayNumber(s.LastStudyDay) > 1:
		s.CurrentStreak = 1
		s.LastStudyDay = day
	case day > s.LastStudyDay:
		s.CurrentStreak++
		s.LastStudyDay = day
	}
	s.BestStreak = max(s.BestStreak, s.CurrentStreak)
}

// dayNumber is the number of days from 1970-01-01 to the date day
// ("2006-01-02"): calendar days, whatever their length in any time zone.
func dayNumber(day string) int64 {
	t, err := time.Parse(dateLayout, day)
	if err != nil {
		return 0
	}
	return t.Unix() / 86400
}

// showStreak sets what a reader sees: the current streak is 0 once the last
// study day is before yesterday (local date today).
func showStreak(s *questions.Score, today string) {
	if s.LastStudyDay == "" || dayNumber(today)-dayNumber(s.LastStudyDay) > 1 {
		s.CurrentStreak = 0
	}
}

// periodSet is what periodsAt caches: the periods of guild bucket g that
// contain the local date y-m-dd in loc, and that date.
type periodSet struct {
	g     *bbolt.Bucket
	loc   *time.Location
	y, dd int
	m     time.Month
	ps    [4]period
	day   string
}

// periodsAt returns the periods of g that contain `at` in loc, in
// periodKeys' order (all time, day, week, month), created if need be
// (periodRW, with d), and the local date. With d it remembers them for
// the answers of the transaction at the same local date.
func periodsAt(g *bbolt.Bucket, d *deltas, at time.Time, loc *time.Location) ([4]period, string, error) {
	y, m, dd := at.In(loc).Date()
	if d != nil {
		for i := range d.spans {
			if s := &d.spans[i]; s.g == g && s.loc == loc && s.y == y && s.m == m && s.dd == dd {
				return s.ps, s.day, nil
			}
		}
	}
	keys, day := periodKeys(at, loc)
	var ps [4]period
	for i, key := range keys {
		p, err := periodRW(g, key, d)
		if err != nil {
			return ps, "", err
		}
		ps[i] = p
	}
	if d != nil {
		if len(d.spans) == maxSpans {
			clear(d.spans)
			d.spans = d.spans[:0]
		}
		d.spans = append(d.spans, periodSet{g: g, loc: loc, y: y, m: m, dd: dd, ps: ps, day: day})
	}
	return ps, day, nil
}

// periodKeys returns the bucket names of the periods that contain `at` in
// loc: all time, its day, its week (by Monday's date) and its month; and
// the local date.
func periodKeys(at time.Time, loc *time.Location) (keys [4][]byte, day string) {
	t := at.In(loc)
	day = t.Format(dateLayout)
	keys[0] = kAllTime
	keys[1] = []byte("d" + day)
	keys[2] = []byte("w" + weekStart(t).Format(dateLayout))
	keys[3] = []byte("m" + t.Format(monthLayout))
	return keys, day
}

// weekStart returns local midnight of the Monday of t's week (t in its
// local zone).
func weekStart(t time.Time) time.Time {
	back := (int(t.Weekday()) + 6) % 7
	y, m, d := t.Date()
	return time.Date(y, m, d-back, 0, 0, 0, 0, t.Location())
}

// periodOfAt returns the bucket name and the start of the period p that
// contains `at` in loc.
func periodOfAt(p questions.Period, at time.Time, loc *time.Location) ([]byte, time.Time, bool) {
	t := at.In(loc)
	y, m, d := t.Date()
	switch p {
	case questions.PeriodAll:
		return kAllTime, time.Time{}, true
	case questions.PeriodDay:
		return []byte("d" + t.Format(dateLayout)), time.Date(y, m, d, 0, 0, 0, 0, loc), true
	case questions.PeriodWeek:
		w := weekStart(t)
		return []byte("w" + w.Format(dateLayout)), w, true
	case questions.PeriodMonth:
		return []byte("m" + t.Format(monthLayout)), time.Date(y, m, 1, 0, 0, 0, 0, loc), true
	}
	return nil, time.Time{}, false
}

// countAnswer adds one graded answer of user to every score the guild keeps:
// the four period rows and rankings, the streaks and their index, and the
// topic stats. RecordAnswer and RebuildScores both come through here, so a
// rebuild reproduces what live recording wrote. The ranking counters
// change in d (nil: written at once).
func countAnswer(g *bbolt.Bucket, d *deltas, user questions.UserID, gr questions.Grade, at time.Time, loc *time.Location, topics []string) error {
	ps, day, err := periodsAt(g, d, at, loc)
	if err != nil {
		return err
	}
	all := ps[0]
	old, had := all.row(user)
	s := old
	addGrade(&s, gr, at)
	study(&s, day)
	if err := all.set(old, had, s); err != nil {
		return err
	}
	if err := moveStreak(g.Bucket(bStreaks), d, old, had, s); err != nil {
		return err
	}
	for _, p := range ps[1:] {
		old, had := p.row(user)
		ps := old
		addGrade(&ps, gr, at)
		// Streaks live in the all-time row only (files written before
		// this build kept a copy here: drop it).
		ps.CurrentStreak, ps.BestStreak, ps.LastStudyDay = 0, 0, ""
		if err := p.set(old, had, ps); err != nil {
			return err
		}
	}
	tb := g.Bucket(bTopics)
	var kb [64]byte
	for _, topic := range topics {
		k := append(binary.BigEndian.AppendUint64(kb[:0], uint64(user)), topic...)
		v := d.get(tb, k)
		answered, correct := getU64(v)+1, uint64(0)
		if len(v) == 16 {
			correct = getU64(v[8:])
		}
		if gr.Right {
			correct++
		}
		nv := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(d.value(16), answered), correct)
		if err := d.put(tb, k, nv); err != nil {
			return err
		}
	}
	return nil
}

// moveStreak moves the member's key in the streaks bucket b from old's
// (had: there was an old row) to s's.
func moveStreak(b *bbolt.Bucket, d *deltas, old questions.Score, had bool, s questions.Score) error {
	var ko, kn [streakKeyLen]byte
	nk := appendStreakKey(kn[:0], s)
	if had {
		if ok := appendStreakKey(ko[:0], old); ok != nil {
			if bytes.Equal(ok, nk) && d.has(b, nk) {
				return nil // the same day, the same streak: the key stays
			}
			if err := d.del(b, ok); err != nil {
				return err
			}
		}
	}
	return d.put(b, nk, nil)
}

// topicsOf lists the topic keys an answer to p counts toward.
func topicsOf(p questions.Post) []string {
	topics := make([]string, 0, 1+len(p.Tags))
	if p.Bank != "" {
		topics = append(topics, "bank:"+p.Bank)
	}
	for _, t := range p.Tags {
		if t != "" && !slices.Contains(topics, "tag:"+t) {
			topics = append(topics, "tag:"+t)
		}
	}
	return topics
}
