package storage

import (
	"bytes"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// period is one period's buckets: guilds/<g>/periods/<name>/.
type period struct {
	b    *bbolt.Bucket
	kind int   // kindDay, kindWeek, kindMonth; -1 for all time
	num  int64 // the period's number within its kind (periodNum)
	pts  rankIndex
	acc  rankIndex
	pend *bucketDeltas // n and na changes waiting for the flush; nil: written at once
	d    *deltas       // the transaction's lookups (see deltas); nil: bbolt's own
}

// periodRW returns the period bucket named name, creating it. With d its
// counters (n, na, the blocks) change in d until d is flushed, and its
// keys are read and written through d; with nil at once.
func periodRW(g *bbolt.Bucket, name []byte, d *deltas) (period, error) {
	periods := g.Bucket(bPeriods)
	b := periods.Bucket(name)
	if b == nil {
		var err error
		if b, err = periods.CreateBucket(name); err != nil {
			return period{}, err
		}
		for _, sub := range [][]byte{bPtsBlocks, bAccBlocks} {
			if _, err := b.CreateBucket(sub); err != nil {
				return period{}, err
			}
		}
	}
	p := periodOf(name, b)
	p.pend = d.of(p.b, rankIndex{})
	p.pts.pend = d.of(p.pts.blocks, p.pts)
	p.acc.pend = d.of(p.acc.blocks, p.acc)
	p.d, p.pts.d, p.acc.d = d, d, d
	return p, nil
}

// periodRO returns the period bucket named name; its buckets are nil when
// the period has no scores.
func periodRO(g *bbolt.Bucket, name string) period {
	return periodOf([]byte(name), sub(sub(g, bPeriods), []byte(name)))
}

func periodOf(name []byte, b *bbolt.Bucket) period {
	kind, num, _ := periodNum(string(name))
	p := period{kind: kind, num: num}
	if b == nil {
		return p
	}
	p.b = b
	p.pts = rankIndex{groups: b, tag: tagPts, blocks: b.Bucket(bPtsBlocks)}
	p.acc = rankIndex{groups: b, tag: tagAcc, blocks: b.Bucket(bAccBlocks)}
	return p
}

// periodNum returns the kind of the period bucket named name and its
// number: the day number of a day or of a week's Monday, year*12+month-1
// of a month; kind -1 for the all-time period. ok is false for any other
// name.
func periodNum(name string) (kind int, num int64, ok bool) {
	if name == periodAll {
		return -1, 0, true
	}
	if len(name) < 2 {
		return -1, 0, false
	}
	switch name[0] {
	case 'd', 'w':
		t, err := time.Parse(dateLayout, name[1:])
		if err != nil {
			return -1, 0, false
		}
		kind = kindDay
		if name[0] == 'w' {
			kind = kindWeek
		}
		return kind, t.Unix() / 86400, true
	case 'm':
		t, err := time.Parse(monthLayout, name[1:])
		if err != nil {
			return -1, 0, false
		}
		return kindMonth, int64(t.Year())*12 + int64(t.Month()) - 1, true
	}
	return -1, 0, false
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

// has reports whether the points ranking holds the member's key for s.
func (p period) has(s questions.Score) bool {
	if p.pts.groups == nil {
		return false
	}
	var k [rankLen]byte
	putPointsKey(k[:], s)
	gb, _ := p.pts.group(k[:], false)
	return gb != nil && p.d.has(gb, k[groupLen:])
}

// set stores s as the member's score in the period, replacing old (had:
// there was one): it moves the member's keys in both rankings.
func (p period) set(old questions.Score, had bool, s questions.Score) error {
	var oldPts, oldAcc, newAcc []byte
	var kp, ka, kn [rankLen]byte // the keys on this stack: move keeps none
	if had {
		oldPts = putPointsKey(kp[:], old)
		if onAccuracyBoard(old) {
			oldAcc = putAccKey(ka[:], old)
		}
	} else if err := p.addCount(kMembers, 1); err != nil {
		return err
	}
	pv := appendUvarints(p.d.value(20), uint64(s.Answered), uint64(s.Correct))
	if err := p.pts.move(oldPts, putPointsKey(kn[:], s), pv); err != nil {
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
	var av []byte
	if newAcc != nil {
		av = appendUvarints(p.d.value(20), uint64(s.Points), uint64(s.Correct))
	}
	return p.acc.move(oldAcc, newAcc, av)
}

// remove deletes the member's keys for their score old from the period.
func (p period) remove(old questions.Score) error {
	if err := p.pts.move(pointsKey(old), nil, nil); err != nil {
		return err
	}
	if err := p.addCount(kMembers, -1); err != nil {
		return err
	}
	if onAccuracyBoard(old) {
		if err := p.acc.move(accKey(old), nil, nil); err != nil {
			return err
		}
		return p.addCount(kAccMembers, -1)
	}
	return nil
}

// find looks for user's score in the period by walking its points
// ranking: for the rare score a member record does not name (an answer
// delivered after one in a later period, a member reset); its cost grows
// with the members of the period.
func (p period) find(user questions.UserID) (questions.Score, bool) {
	if p.pts.groups == nil {
		return questions.Score{UserID: user}, false
	}
	rc := p.pts.cursor()
	for k, v := rc.seek(firstFence); k != nil; k, v = rc.next() {
		if rankKeyUser(k) == user {
			return pointsEntryScore(k, v), true
		}
	}
	return questions.Score{UserID: user}, false
}

// scoreIn returns the member's score in period p, whose member record is
// m (ok: there is one): the record's row of p's kind when it names p, else
// found in p. had is false when the member has no score in p.
func scoreIn(p period, m memberRec, ok bool) (s questions.Score, had bool) {
	user := m.all.UserID
	if p.kind < 0 {
		return m.all, ok
	}
	if !ok {
		return questions.Score{UserID: user}, false
	}
	r := m.cur[p.kind]
	switch {
	case r.ok && r.num == p.num:
		if p.has(r.score) {
			return r.score, true
		}
		return questions.Score{UserID: user}, false
	case r.ok && r.num > p.num:
		return p.find(user)
	}
	return questions.Score{UserID: user}, false
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
// the four periods' rankings, the member record (all-time score, streak,
// the rows of the latest periods, topic stats) and the streak index.
// RecordAnswer and RebuildScores both come through here, so a rebuild
// reproduces what live recording wrote. The ranking counters change in d
// (nil: written at once).
func countAnswer(g *bbolt.Bucket, d *deltas, user questions.UserID, gr questions.Grade, at time.Time, loc *time.Location, topics []string) error {
	ps, day, err := periodsAt(g, d, at, loc)
	if err != nil {
		return err
	}
	mb, err := membersRW(g)
	if err != nil {
		return err
	}
	m, ok, err := getMember(mb, d, user)
	if err != nil {
		return err
	}
	s := m.all
	addGrade(&s, gr, at)
	study(&s, day)
	if err := ps[0].set(m.all, ok, s); err != nil {
		return err
	}
	if err := moveStreak(g.Bucket(bStreaks), d, m.all, ok, s); err != nil {
		return err
	}
	for _, p := range ps[1:] {
		old, had := scoreIn(p, m, ok)
		ns := old
		addGrade(&ns, gr, at)
		if err := p.set(old, had, ns); err != nil {
			return err
		}
		if r := &m.cur[p.kind]; !r.ok || r.num <= p.num {
			*r = periodRow{ok: true, num: p.num, score: ns}
		}
	}
	m.all = s
	for _, topic := range topics {
		m.addTopic(topic, gr.Right)
	}
	return putMember(mb, d, m)
}

// moveStreak moves the member's key in the streaks bucket b from old's
// (had: there was an old score) to s's.
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
