package bot

import (
	"sync"
	"time"

	"github.com/quizhost/quizhost/questions"
)

// Per-member rate limits on the writes members can repeat at will: the
// steps of /quiz suggest (opening the form, sending it) and of /quiz
// review (a question shown, an answer). Each is a token bucket per server
// and member: a burst of writes, then one more every interval. A refused
// write is answered at once with when to try again; nothing waits.
var (
	// suggestLimit: 10 suggestion steps, then one every 6 s (10 a minute).
	suggestLimit = limit{name: "suggestion", burst: 10, every: 6 * time.Second}
	// reviewLimit: 30 review steps, then one every 2 s (30 a minute: a
	// question shown and answered every 4 s).
	reviewLimit = limit{name: "review", burst: 30, every: 2 * time.Second}
)

// limit is a rate: burst writes at once, then one more every `every`.
type limit struct {
	name  string // in the refusal: "at most 10 suggestion steps a minute"
	burst int
	every time.Duration
}

// limiterStripes and limiterKeys bound a limiter's memory: at most
// limiterKeys members (per stripe) are remembered; a member whose bucket
// is full again is forgotten first, as their next write would find it.
const (
	limiterStripes = 16
	limiterKeys    = 1024
)

// limiter applies a limit to every server and member. Its state is the
// GCRA's one time per member (when their bucket is full again), in maps
// striped by member so that members of different servers rarely share a
// lock, held only to read and write one entry. Safe for concurrent use.
type limiter struct {
	limit
	stripes [limiterStripes]limiterStripe
}

type limiterStripe struct {
	mu   sync.Mutex
	full map[limiterKey]time.Time // when the member's bucket is full again
}

type limiterKey struct {
	guild questions.GuildID
	user  questions.UserID
}

func newLimiter(l limit) *limiter { return &limiter{limit: l} }

// allow takes one write of the member's at now. When their bucket is
// empty it takes nothing and returns false and the time the next write
// will be allowed.
func (l *limiter) allow(guild questions.GuildID, user questions.UserID, now time.Time) (bool, time.Time) {
	k := limiterKey{guild, user}
	s := &l.stripes[(uint64(guild)^uint64(user)*0x9e3779b97f4a7c15)>>60] // the top 4 bits: 16 stripes
	s.mu.Lock()
	defer s.mu.Unlock()
	full, known := s.full[k]
	if full.Before(now) {
		full = now
	}
	// The bucket holds burst writes: each write fills it up `every` later.
	slack := time.Duration(l.burst-1) * l.every
	if full.Sub(now) > slack {
		return false, full.Add(-slack)
	}
	if s.full == nil {
		s.full = make(map[limiterKey]time.Time)
	}
	if !known && len(s.full) >= limiterKeys {
		s.forget(now)
	}
	s.full[k] = full.Add(l.every)
	return true, time.Time{}
}

// forget makes room in a full stripe: it drops the members whose bucket
// is full at now (as if never seen) and, should that free less than an
// eighth of the stripe, members at random until it does: those get a full
// bucket early, the price of bounded memory. Freeing an eighth at a time
// keeps the cost per write constant however many members write.
func (s *limiterStripe) forget(now time.Time) {
	for k, full := range s.full {
		if !full.After(now) {
			delete(s.full, k)
		}
	}
	for k := range s.full { // map order: at random
		if len(s.full) <= limiterKeys*7/8 {
			return
		}
		delete(s.full, k)
	}
}

// take is allow for the member of c, as a refusal for them when their
// bucket is empty.
func (l *limiter) take(c *call, now time.Time) error {
	if ok, next := l.allow(c.guild, c.user, now); !ok {
		return userErr("⏳ Slow down a little: each member gets %d %s steps at once, then one every %s. Try again %s.",
			l.burst, l.name, secondsText(l.every), timestamp(next, "R"))
	}
	return nil
}
