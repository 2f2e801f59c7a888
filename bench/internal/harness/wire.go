package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

// Wait blocks until cond returns true or ctx ends. cond is called again at
// each change of the server's state (a request answered, a dispatch sent).
func Wait(ctx context.Context, srv *fakediscord.Server, what string, cond func() bool) error {
	for {
		ch := srv.Changed()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// CommandSyncs counts the successful bulk overwrites of application
// commands the server has answered so far: a bot that just did one is
// connected and ready.
func CommandSyncs(srv *fakediscord.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == "PUT" && strings.HasPrefix(r.Route, "/applications/") && strings.HasSuffix(r.Route, "/commands") && r.Status < 300 {
			n++
		}
	}
	return n
}

// Reply waits for the bot's answer to p: the initial callback, or when it
// deferred (type 5), the edit of @original that replaced "thinking…".
// It returns the time from the interaction reaching the bot to that reply,
// and whether the bot deferred.
func Reply(ctx context.Context, srv *fakediscord.Server, p *fakediscord.Pending) (fakediscord.Message, time.Duration, bool, error) {
	r, err := p.Response(ctx)
	if err != nil {
		return fakediscord.Message{}, 0, false, fmt.Errorf("interaction %s: no callback: %w", p.ID(), err)
	}
	delivered := r.At.Add(-r.Latency)
	var m fakediscord.Message
	err = Wait(ctx, srv, "the reply to interaction "+p.ID(), func() bool {
		var ok bool
		m, ok = p.Original()
		return r.Type != 5 || (ok && !m.Loading())
	})
	if err != nil {
		return m, 0, false, err
	}
	if r.Type != 5 {
		return m, r.Latency, false, nil
	}
	return m, m.EditedAt.Sub(delivered), true, nil
}

// Question is a posted question's select menu: what members answer.
type Question struct {
	GuildID, ChannelID, MessageID string
	CustomID                      string
	Values                        []string // the menu's option values
}

// FindQuestion returns the newest message in channelID that carries a
// select menu, and that menu.
func FindQuestion(srv *fakediscord.Server, guildID, channelID string) (Question, error) {
	msgs := srv.Messages(channelID)
	for i := len(msgs) - 1; i >= 0; i-- {
		var rows []struct {
			Components []struct {
				Type     int    `json:"type"`
				CustomID string `json:"custom_id"`
				Options  []struct {
					Value string `json:"value"`
				} `json:"options"`
			} `json:"components"`
		}
		if json.Unmarshal(msgs[i].RawComponents, &rows) != nil {
			continue
		}
		for _, row := range rows {
			for _, c := range row.Components {
				if c.Type == 3 && len(c.Options) > 0 {
					q := Question{GuildID: guildID, ChannelID: channelID, MessageID: msgs[i].ID, CustomID: c.CustomID}
					for _, o := range c.Options {
						q.Values = append(q.Values, o.Value)
					}
					return q, nil
				}
			}
		}
	}
	return Question{}, fmt.Errorf("no question with a select menu in channel %s", channelID)
}

// BurstResult is what a burst of answers measured.
type BurstResult struct {
	N        int
	Elapsed  time.Duration   // first interaction sent to last reply received
	Latency  []time.Duration // per answer, interaction reaching the bot to its reply; sorted
	Deferred int             // answers the bot deferred before replying
	Users    []string        // the members who answered, in order
}

// Burst sends n answers to q from n distinct members (ids firstUser,
// firstUser+1, …), inflight at a time: each member answers once its
// predecessor in the same lane got its reply. Member i picks
// q.Values[i % len]; a reply that is not the grade of that pick fails the
// burst.
func Burst(ctx context.Context, srv *fakediscord.Server, q Question, n, inflight int, firstUser uint64) (BurstResult, error) {
	return BurstSpread(ctx, srv, []Question{q}, n, inflight, firstUser)
}

// BurstSpread is Burst over several questions (of several servers):
// member i answers qs[i % len(qs)].
func BurstSpread(ctx context.Context, srv *fakediscord.Server, qs []Question, n, inflight int, firstUser uint64) (BurstResult, error) {
	res := BurstResult{N: n, Latency: make([]time.Duration, n), Users: make([]string, n)}
	var next, deferred atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, inflight)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	for range inflight {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				id := fmt.Sprint(firstUser + uint64(i))
				res.Users[i] = id
				m := fakediscord.Member{ID: id, Username: "m" + id}
				q := qs[i%len(qs)]
				value := q.Values[i/len(qs)%len(q.Values)]
				p := srv.Component(q.GuildID, q.ChannelID, m, q.MessageID, q.CustomID, value)
				reply, lat, def, err := Reply(ctx, srv, p)
				if err == nil && !IsGrade(reply.Content, value) {
					err = fmt.Errorf("got reply %q, want the grade of %s", reply.Content, value)
				}
				if err != nil {
					errs <- fmt.Errorf("answer %d: %w", i, err)
					cancel()
					return
				}
				if def {
					deferred.Add(1)
				}
				res.Latency[i] = lat
			}
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return res, err
	}
	res.Deferred = int(deferred.Load())
	slices.Sort(res.Latency)
	return res, nil
}

// IsGrade reports whether content is quizhost's reply grading the pick
// value (not a refusal or an error message).
func IsGrade(content, value string) bool {
	return strings.Contains(content, "You chose **"+value+"**")
}

// Percentile returns the q-th quantile (0 ≤ q ≤ 1) of sorted, nearest
// rank; 0 for an empty slice.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Over counts the values of sorted above d.
func Over(sorted []time.Duration, d time.Duration) int {
	i, _ := slices.BinarySearch(sorted, d+1)
	return len(sorted) - i
}

// Ms formats d in milliseconds with one decimal.
func Ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// LatencyMs is the q-th quantile (see Percentile) of the burst's
// latencies, in milliseconds.
func (r BurstResult) LatencyMs(q float64) float64 {
	return float64(Percentile(r.Latency, q).Microseconds()) / 1000
}

// Median returns the median of f over the items that keep selects (the
// upper one of an even count); 0 when none is selected.
func Median[T any](items []T, keep func(T) bool, f func(T) float64) float64 {
	var v []float64
	for _, it := range items {
		if keep(it) {
			v = append(v, f(it))
		}
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// PerSec is the burst's answers per second.
func (r BurstResult) PerSec() float64 { return float64(r.N) / r.Elapsed.Seconds() }

// CPUPer1000 is cpu (a bot's, over the burst) in seconds per 1,000 answers.
func (r BurstResult) CPUPer1000(cpu time.Duration) float64 {
	return cpu.Seconds() * 1000 / float64(r.N)
}

// Cells are the burst's columns of a results table, each followed by a
// tab: answers/s, p50, p99, max, answers over Deadline, deferred.
func (r BurstResult) Cells() string {
	l := r.Latency
	return fmt.Sprintf("%.0f\t%s\t%s\t%s\t%d\t%d\t", r.PerSec(), Ms(Percentile(l, 0.5)), Ms(Percentile(l, 0.99)), Ms(Percentile(l, 1)),
		Over(l, Deadline), r.Deferred)
}
