package questions

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The daily quiz's schedule rules, as pure functions of a schedule, time
// zones and instants. A schedule is stored state: its next post instant
// (Daily.Next) is set when the schedule is set or changed and moved on by
// each claim of a post, so a day is posted at most once whatever restarts
// or settings changes happen. Time zones are resolved by the caller
// (LoadZone) before any of these run: none of them reads the disk.

// DailyLateness is how long after the midnight that ends its local day a
// daily post may still go out (a 23:59 schedule and a busy minute).
const DailyLateness = 10 * time.Minute

var clockTime = regexp.MustCompile(`^([01]?\d|2[0-3]):([0-5]\d)$`)

// ParseClock reads "HH:MM" (24 h; "8:30" too) into hours and minutes.
func ParseClock(s string) (h, m int, ok bool) {
	g := clockTime.FindStringSubmatch(strings.TrimSpace(s))
	if g == nil {
		return 0, 0, false
	}
	h, _ = strconv.Atoi(g[1])
	m, _ = strconv.Atoi(g[2])
	return h, m, true
}

// LoadZone loads an IANA time zone ("Europe/Berlin", "UTC"). It refuses ""
// and "Local", whose meaning depends on the host. It reads the system's
// zone database, so call it before a storage transaction, not inside one.
func LoadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "Local" {
		return nil, errors.New("empty time zone")
	}
	return time.LoadLocation(name)
}

// LocalDate is t's date in loc, "2006-01-02".
func LocalDate(t time.Time, loc *time.Location) string { return t.In(loc).Format(time.DateOnly) }

// DayEnd is the midnight that ends t's local day in loc.
func DayEnd(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, loc)
}

// dailyAt is the moment of the daily post on the local date of day.
// time.Date keeps the wall-clock time across daylight-saving changes (a
// time that does not exist that day moves forward by the gap).
func dailyAt(day time.Time, h, m int, loc *time.Location) time.Time {
	y, mo, d := day.In(loc).Date()
	return time.Date(y, mo, d, h, m, 0, 0, loc)
}

// NextPost is the first post time of d strictly after t, on a local date
// (in loc, the schedule's zone) after d.LastPosted, so that changing the
// time or the zone never gives a day a second post. It fails only when
// d.Time is not "HH:MM".
func (d Daily) NextPost(loc *time.Location, t time.Time) (time.Time, error) {
	h, m, ok := ParseClock(d.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("daily time %q is not HH:MM", d.Time)
	}
	at := dailyAt(t, h, m, loc)
	for !at.After(t) || (d.LastPosted != "" && LocalDate(at, loc) <= d.LastPosted) {
		at = dailyAt(at.In(loc).AddDate(0, 0, 1), h, m, loc)
	}
	return at, nil
}

// Rezone carries the schedule's last post date from one time zone to
// another: the post was made at d.Time on d.LastPosted in from (or about
// then), which may be another date in to. NextPost compares dates in the
// schedule's zone, so without this a move west could post twice in a day.
func (d *Daily) Rezone(from, to *time.Location) {
	h, m, ok := ParseClock(d.Time)
	day, err := time.ParseInLocation(time.DateOnly, d.LastPosted, from)
	if !ok || err != nil {
		return
	}
	d.LastPosted = LocalDate(dailyAt(day, h, m, from), to)
}

// KeepDue returns next, unless old's post is due at now and not yet made:
// then its due time, so that changing the schedule at that moment does not
// skip the day.
func KeepDue(old *Daily, now, next time.Time) time.Time {
	if old != nil && !old.Next.IsZero() && !old.Next.After(now) {
		return old.Next
	}
	return next
}

// DailyStep is what to do about a schedule whose Next has come: whether to
// post, and the schedule's state once the post is claimed.
type DailyStep struct {
	// Post is true when the day is still on (its local day, or at most
	// DailyLateness past its end); false when it passed while nobody was
	// there to post it (or Next was never computed): then it is skipped.
	Post bool
	// LastPosted is the local date to record: the scheduled day when
	// posting, even if late; else the schedule's LastPosted unchanged.
	LastPosted string
	// Next is the following post time.
	Next time.Time
}

// Step decides what to do at now about a schedule that is due (d.Next is
// not after now, or zero), in its zone loc. It fails only when d.Time is
// not "HH:MM".
func (d Daily) Step(loc *time.Location, now time.Time) (DailyStep, error) {
	st := DailyStep{LastPosted: d.LastPosted}
	st.Post = !d.Next.IsZero() && now.Before(DayEnd(d.Next, loc).Add(DailyLateness))
	if st.Post {
		st.LastPosted = LocalDate(d.Next, loc)
	}
	d.LastPosted = st.LastPosted
	next, err := d.NextPost(loc, now)
	if err != nil {
		return DailyStep{}, err
	}
	st.Next = next
	return st, nil
}

// SetDaily turns the daily quiz on with schedule d in zone loc (replacing
// any schedule), at now: it keeps the old schedule's last post date
// (carried into loc from from, the settings' zone; nil when that zone is
// unknown) and its close-after setting, computes the first post, and makes
// loc the settings' zone. d's own Next and LastPosted are ignored.
func (s *Settings) SetDaily(d Daily, from, loc *time.Location, now time.Time) error {
	if s.Daily == nil {
		s.moveLastDaily(from, loc)
	}
	d.LastPosted = s.LastDaily
	old := s.Daily
	if old != nil {
		if from != nil {
			old.Rezone(from, loc)
		}
		d.CloseAfterHours, d.LastPosted = old.CloseAfterHours, old.LastPosted
	}
	next, err := d.NextPost(loc, now)
	if err != nil {
		return err
	}
	d.Next = KeepDue(old, now, next)
	s.Daily, s.TimeZone = &d, loc.String()
	return nil
}

// SetTimeZone moves the settings to zone to at now. A daily schedule keeps
// its local time in the new zone, its last post date carried over from
// from (the current zone; nil when unknown), and its next post is
// recomputed (a post due now stays due).
func (s *Settings) SetTimeZone(from, to *time.Location, now time.Time) error {
	s.TimeZone = to.String()
	if s.Daily == nil {
		s.moveLastDaily(from, to)
		return nil
	}
	if from != nil {
		s.Daily.Rezone(from, to)
	}
	next, err := s.Daily.NextPost(to, now)
	if err != nil {
		return err
	}
	s.Daily.Next = KeepDue(s.Daily, now, next)
	return nil
}

// DailyOff turns the daily quiz off, keeping its last post date so that
// turning it on again the same day cannot post that day twice. It reports
// whether the daily quiz was on.
func (s *Settings) DailyOff() bool {
	if s.Daily == nil {
		return false
	}
	if s.Daily.LastPosted > s.LastDaily {
		s.LastDaily, s.LastDailyTime = s.Daily.LastPosted, s.Daily.Time
	}
	s.Daily = nil
	return true
}

// moveLastDaily carries the last post kept while the daily quiz is off
// (LastDaily at LastDailyTime, local to from) into zone to: the date and
// time it was there. Without a time (an older file) or a from zone, the
// date stays as it is.
func (s *Settings) moveLastDaily(from, to *time.Location) {
	h, m, ok := ParseClock(s.LastDailyTime)
	if !ok || from == nil {
		return
	}
	day, err := time.ParseInLocation(time.DateOnly, s.LastDaily, from)
	if err != nil {
		return
	}
	at := dailyAt(day, h, m, from).In(to)
	s.LastDaily, s.LastDailyTime = LocalDate(at, to), at.Format("15:04")
}
