package fakediscord

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/quizhost/quizhost/internal/sharding"
)

// gwShard is one gateway shard: its ready connection, its session (for
// RESUME) and the dispatches waiting for it.
type gwShard struct {
	active  *gwConn // the connection dispatches go to (ready)
	session *gwSession
	pending []queued // dispatches waiting for a ready connection
}

// identifyLimits is the session start limit: when each identify bucket
// last accepted an IDENTIFY, and how many session starts are used.
type identifyLimits struct {
	last    map[int]time.Time // bucket (shard id % max_concurrency) → last IDENTIFY accepted
	used    int
	limited int // IDENTIFYs refused for coming too soon
}

// sessionStartReset is session_start_limit.reset_after: Discord resets the
// daily count 24 h after the first start; this server never does.
const sessionStartReset = 24 * time.Hour

// shardOfGuild is the shard that serves guildID (a snowflake string) by
// Discord's formula, sharding.ShardOf; 0 for "" or an unparsable ID (DMs
// go to shard 0).
func (s *Server) shardOfGuild(guildID string) int {
	id, err := strconv.ParseUint(guildID, 10, 64)
	if err != nil {
		return 0
	}
	return sharding.ShardOf(id, len(s.gw.shards))
}

// shardOfDispatch is the shard a dispatch goes to: the one
// DispatchToShard named, else its interaction's guild's, else the payload's "guild_id", else shard 0.
func (s *Server) shardOfDispatch(d []byte, it *interaction) int {
	if len(s.gw.shards) == 1 {
		return 0
	}
	if it != nil && it.toShard > 0 {
		return it.toShard - 1
	}
	if it != nil && it.guildID != "" {
		return s.shardOfGuild(it.guildID)
	}
	var head struct {
		GuildID string `json:"guild_id"`
	}
	_ = json.Unmarshal(d, &head)
	return s.shardOfGuild(head.GuildID)
}

// identifyShardLocked checks an IDENTIFY's shard field and the identify
// rate limit, and returns [id, count]; when it is refused the connection
// is closed (4010 for an invalid shard, 4011 when sharding is required)
// or answered op 9 (identified too soon), and ok is false.
func (s *Server) identifyShardLocked(c *gwConn, shard []int) ([]int, bool) {
	n := len(s.gw.shards)
	switch {
	case shard == nil && n > 1:
		s.violationLocked("gateway IDENTIFY: no shard, %d shards required", n)
		s.closeConnLocked(c, 4011, "Sharding required.")
		return nil, false
	case shard == nil:
		shard = []int{0, 1}
	case len(shard) != 2 || shard[1] < 1 || shard[0] < 0 || shard[0] >= shard[1]:
		s.violationLocked("gateway IDENTIFY: invalid shard %v", shard)
		s.closeConnLocked(c, 4010, "Invalid shard.")
		return nil, false
	case shard[1] < n:
		s.violationLocked("gateway IDENTIFY: shard %v, %d shards required", shard, n)
		s.closeConnLocked(c, 4011, "Sharding required.")
		return nil, false
	case shard[1] != n:
		// Discord accepts more shards than it recommends; this server
		// serves exactly Options.Shards.
		s.violationLocked("gateway IDENTIFY: shard %v, this server has %d shards", shard, n)
		s.closeConnLocked(c, 4010, "Invalid shard.")
		return nil, false
	}
	lim := &s.gw.limits
	if s.opts.IdentifyInterval > 0 {
		bucket := shard[0] % s.opts.MaxConcurrency
		now := s.opts.Now()
		if last, ok := lim.last[bucket]; ok && now.Sub(last) < s.opts.IdentifyInterval {
			// Discord answers an IDENTIFY over the concurrency limit with
			// op 9 Invalid Session.
			lim.limited++
			s.violationLocked("gateway IDENTIFY: shard %d identified %v after the last IDENTIFY of bucket %d, want at least %v",
				shard[0], now.Sub(last).Round(time.Millisecond), bucket, s.opts.IdentifyInterval)
			s.writeLocked(c, []byte(`{"op":9,"s":null,"t":null,"d":false}`))
			return nil, false
		}
		if lim.last == nil {
			lim.last = map[int]time.Time{}
		}
		lim.last[bucket] = now
	}
	if lim.used >= s.opts.SessionStarts {
		s.violationLocked("gateway IDENTIFY: no session starts remaining")
	}
	lim.used++
	return shard, true
}

// gatewayBotLocked is GET /gateway/bot's body.
func (s *Server) gatewayBotLocked() map[string]any {
	remaining := max(s.opts.SessionStarts-s.gw.limits.used, 0)
	return map[string]any{"url": s.wsURL, "shards": len(s.gw.shards),
		"session_start_limit": map[string]any{
			"total":           max(1000, s.opts.SessionStarts),
			"remaining":       remaining,
			"reset_after":     sessionStartReset.Milliseconds(),
			"max_concurrency": s.opts.MaxConcurrency,
		}}
}

// sessionShardLocked is the shard whose session has the id; -1 if none.
func (s *Server) sessionShardLocked(id string) int {
	for i := range s.gw.shards {
		if sess := s.gw.shards[i].session; sess != nil && sess.id == id {
			return i
		}
	}
	return -1
}

// dropActiveLocked forgets c as its shard's ready connection.
func (s *Server) dropActiveLocked(c *gwConn) {
	if sh := &s.gw.shards[c.shard]; sh.active == c {
		sh.active = nil
	}
}

func (s *Server) dropAllActiveLocked() {
	for i := range s.gw.shards {
		s.gw.shards[i].active = nil
	}
}

func (s *Server) allActiveLocked() bool {
	for i := range s.gw.shards {
		if s.gw.shards[i].active == nil {
			return false
		}
	}
	return true
}

// Shards returns the number of gateway shards the server runs.
func (s *Server) Shards() int { return len(s.gw.shards) }

// ShardConnected reports whether shard has a ready session on an open
// websocket.
func (s *Server) ShardConnected(shard int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return shard >= 0 && shard < len(s.gw.shards) && s.gw.shards[shard].active != nil
}

// IdentifiesLimited returns how many IDENTIFYs were refused with op 9 for
// coming sooner than IdentifyInterval after the last one of their bucket.
func (s *Server) IdentifiesLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.limits.limited
}
