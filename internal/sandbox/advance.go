package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// The page's Advance time control moves the sandbox's clock forward: the
// bot's close timers and daily schedule, and the embedded server's time,
// all run on it (see the package comment).

// maxAdvance bounds one jump: a week covers every schedule the bot has.
const maxAdvance = 7 * 24 * time.Hour

// advanceRequest is what the page's Advance time buttons post.
type advanceRequest struct {
	// By is how far to move the clock: a duration such as "10m" or "1h",
	// or "daily" for the time of the next daily quiz.
	By string `json:"by"`
}

// advanced is what the page learns from a jump.
type advanced struct {
	// Offset is how far ahead of the wall clock the sandbox's clock now
	// is, in milliseconds: the page's relative times count from it.
	Offset int64  `json:"offset_ms"`
	Error  string `json:"error,omitempty"`
}

// advance moves the clock as the page asks and tells every page.
func (sb *Sandbox) advance(w http.ResponseWriter, r *http.Request) {
	var req advanceRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<10)).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	d, err := sb.jumpFor(req.By)
	if err != nil {
		writeJSON(w, advanced{Offset: sb.clock.Offset().Milliseconds(), Error: err.Error()})
		return
	}
	fired := sb.clock.Advance(d)
	sb.log.Info("sandbox clock advanced", "by", d, "timers", fired, "ahead", sb.clock.Offset())
	sb.mu.Lock()
	close(sb.jumped)
	sb.jumped = make(chan struct{})
	sb.mu.Unlock()
	writeJSON(w, advanced{Offset: sb.clock.Offset().Milliseconds()})
}

// jumpFor is how far "by" moves the clock now.
func (sb *Sandbox) jumpFor(by string) (time.Duration, error) {
	if by == "daily" {
		next, ok, err := sb.nextDaily()
		switch {
		case err != nil:
			return 0, err
		case !ok:
			return 0, fmt.Errorf("no daily quiz is set: /quizadmin daily set starts one")
		}
		return max(0, next.Sub(sb.clock.Now())), nil
	}
	d, err := time.ParseDuration(by)
	if err != nil || d <= 0 || d > maxAdvance {
		return 0, fmt.Errorf("advance by %q: want a duration from 1s to %v, or \"daily\"", by, maxAdvance)
	}
	return d, nil
}

// nextDaily is when the simulated server's daily quiz posts next; ok is
// false when none is set.
func (sb *Sandbox) nextDaily() (next time.Time, ok bool, err error) {
	id, _ := strconv.ParseUint(guildID, 10, 64)
	set, err := sb.db.Settings(questions.GuildID(id))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read the daily schedule: %w", err)
	}
	if set.Daily == nil || set.Daily.Next.IsZero() {
		return time.Time{}, false, nil
	}
	return set.Daily.Next, true, nil
}

// clockView is the sandbox's clock as the page's Time panel shows it.
type clockView struct {
	Now      string // "Tuesday, 2 December 2025 at 14:05"; the page's script keeps it current
	Ahead    string // "1 h 10 min ahead of real time", or "real time"
	OffsetMS int64
	// Daily is when the daily quiz posts next ("" when none is set).
	Daily string
}

func (sb *Sandbox) clockView(now time.Time) clockView {
	off := sb.clock.Offset()
	v := clockView{Now: now.Format("Monday, 2 January 2006 at 15:04"), Ahead: "real time", OffsetMS: off.Milliseconds()}
	if off > 0 {
		v.Ahead = span(off) + " ahead of real time"
	}
	if next, ok, err := sb.nextDaily(); err != nil {
		sb.log.Warn("sandbox clock", "err", err)
	} else if ok {
		v.Daily = next.In(now.Location()).Format("Mon 15:04") + " (" + relative(next, now) + ")"
	}
	return v
}

// span writes a jump in days, hours and minutes: "1 d 2 h", "10 min".
func span(d time.Duration) string {
	m := int(d.Round(time.Minute) / time.Minute)
	var parts []string
	if days := m / (24 * 60); days > 0 {
		parts = append(parts, fmt.Sprintf("%d d", days))
	}
	if h := m / 60 % 24; h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if mins := m % 60; mins > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d min", mins))
	}
	return strings.Join(parts, " ")
}
