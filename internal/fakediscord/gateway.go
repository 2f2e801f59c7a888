package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/websocket"
)

// maxReplay bounds the dispatches a session keeps for RESUME; a RESUME from
// further back gets op 9.
const maxReplay = 10000

// gwWriteTimeout bounds one frame write; a client that stops reading is
// dropped.
const gwWriteTimeout = 5 * time.Second

// Identify is one IDENTIFY (op 2) the gateway received.
type Identify struct {
	Token   string          // as sent, normally "Bot <token>"
	Intents int             // the intents bitset
	Shard   []int           // [id, count] when sent
	Raw     json.RawMessage // the whole d object
	At      time.Time
}

type gateway struct {
	conns      map[*gwConn]struct{}
	shards     []gwShard // one per shard (Options.Shards)
	limits     identifyLimits
	identifies []Identify
	resumes    int
	heartbeats int
	sessions   int
	dials      int    // websocket connections accepted
	stalled    bool   // new connections get no HELLO
	failCode   int    // when set, sessions are closed with this code
	failText   string // and this reason
}

type gwConn struct {
	ws    *websocket.Conn
	shard int // the shard it identified or resumed as
}

type gwSession struct {
	id  string
	seq int64
	log []sentFrame // dispatches sent in this session, for RESUME
}

type sentFrame struct {
	seq   int64
	frame []byte
}

type queued struct {
	t  string
	d  []byte
	it *interaction // set for INTERACTION_CREATE built or registered here
}

var upgrader = websocket.Upgrader{
	CheckOrigin: func(*http.Request) bool { return true },
}

func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "closed", http.StatusServiceUnavailable)
		return
	}
	s.wsWG.Add(1)
	s.mu.Unlock()
	defer s.wsWG.Done()

	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gwConn{ws: ws}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = ws.Close()
		return
	}
	if s.gw.conns == nil {
		s.gw.conns = map[*gwConn]struct{}{}
	}
	s.gw.conns[c] = struct{}{}
	s.gw.dials++
	s.notifyLocked()
	if s.gw.stalled {
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.gw.conns, c)
			s.notifyLocked()
			s.mu.Unlock()
			_ = ws.Close()
		}()
		for { // no HELLO: wait for the client (or Close) to drop it
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}
	hello := fmt.Sprintf(`{"op":10,"s":null,"t":null,"d":{"heartbeat_interval":%d}}`, s.opts.HeartbeatInterval.Milliseconds())
	s.writeLocked(c, []byte(hello))
	s.mu.Unlock()

	defer func() {
		s.mu.Lock()
		delete(s.gw.conns, c)
		s.dropActiveLocked(c)
		s.notifyLocked()
		s.mu.Unlock()
		_ = ws.Close()
	}()

	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var f struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(data, &f) != nil {
			s.mu.Lock()
			s.closeConnLocked(c, 4002, "Error while decoding payload.")
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		switch f.Op {
		case 1:
			s.gw.heartbeats++
			s.writeLocked(c, []byte(`{"op":11,"s":null,"t":null,"d":null}`))
		case 2:
			s.identifyLocked(c, f.D)
		case 6:
			s.resumeLocked(c, f.D)
		default:
			// presence and voice updates, request guild members: accepted, ignored
		}
		s.notifyLocked()
		s.mu.Unlock()
	}
}

// writeLocked writes one text frame; on failure the connection is closed
// (its reader then cleans up).
func (s *Server) writeLocked(c *gwConn, frame []byte) bool {
	_ = c.ws.SetWriteDeadline(time.Now().Add(gwWriteTimeout))
	if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		_ = c.ws.Close()
		s.dropActiveLocked(c)
		return false
	}
	return true
}

func (s *Server) closeConnLocked(c *gwConn, code int, text string) {
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	_ = c.ws.Close()
	s.dropActiveLocked(c)
}

func (s *Server) identifyLocked(c *gwConn, d json.RawMessage) {
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
		Shard   []int  `json:"shard"`
	}
	_ = json.Unmarshal(d, &id)
	s.gw.identifies = append(s.gw.identifies, Identify{Token: id.Token, Intents: id.Intents, Shard: id.Shard,
		Raw: append(json.RawMessage(nil), d...), At: s.opts.Now()})
	if s.gw.failCode != 0 {
		s.closeConnLocked(c, s.gw.failCode, s.gw.failText)
		return
	}
	if !s.tokenOK(id.Token) {
		s.violationLocked("gateway IDENTIFY: bad token")
		s.closeConnLocked(c, 4004, "Authentication failed.")
		return
	}
	shard, ok := s.identifyShardLocked(c, id.Shard)
	if !ok {
		return
	}
	c.shard = shard[0]
	s.gw.sessions++
	sess := &gwSession{id: "sess-" + strconv.Itoa(s.gw.sessions)}
	s.gw.shards[c.shard].session = sess

	var guilds []*Guild
	for _, g := range s.guilds {
		if s.shardOfGuild(g.ID) == c.shard {
			guilds = append(guilds, g)
		}
	}
	stubs := make([]map[string]any, 0, len(guilds))
	for _, g := range guilds {
		stubs = append(stubs, map[string]any{"id": g.ID, "unavailable": true})
	}
	ready := map[string]any{
		"v":                  9,
		"session_id":         sess.id,
		"resume_gateway_url": s.wsURL,
		"user":               s.botUserJSON(),
		"shard":              shard,
		"application":        map[string]any{"id": s.opts.AppID, "flags": 0},
		"guilds":             stubs,
		"private_channels":   []any{},
	}
	if !s.sendLocked(c, "READY", mustJSON(ready), nil) {
		return
	}
	for _, g := range guilds {
		if !s.sendLocked(c, "GUILD_CREATE", mustJSON(s.guildCreateJSON(g)), nil) {
			return
		}
	}
	s.gw.shards[c.shard].active = c
	s.flushPendingLocked(c.shard)
}

func (s *Server) resumeLocked(c *gwConn, d json.RawMessage) {
	var r struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	_ = json.Unmarshal(d, &r)
	s.gw.resumes++
	if s.gw.failCode != 0 {
		s.closeConnLocked(c, s.gw.failCode, s.gw.failText)
		return
	}
	if !s.tokenOK(r.Token) {
		s.violationLocked("gateway RESUME: bad token")
		s.closeConnLocked(c, 4004, "Authentication failed.")
		return
	}
	shard := s.sessionShardLocked(r.SessionID)
	var sess *gwSession
	if shard >= 0 {
		sess = s.gw.shards[shard].session
	}
	ok := !s.opts.DisableResume && sess != nil && r.Seq >= 0 && r.Seq <= sess.seq
	if ok && r.Seq < sess.seq {
		ok = len(sess.log) > 0 && sess.log[0].seq <= r.Seq+1
	}
	if !ok {
		s.writeLocked(c, []byte(`{"op":9,"s":null,"t":null,"d":false}`))
		return
	}
	// RESUMED carries the client's own sequence so its counter never moves
	// back; the replayed dispatches follow with their original numbers.
	resumed := fmt.Sprintf(`{"op":0,"s":%d,"t":"RESUMED","d":{"_trace":["fakediscord"]}}`, r.Seq)
	if !s.writeLocked(c, []byte(resumed)) {
		return
	}
	for _, f := range sess.log {
		if f.seq > r.Seq {
			if !s.writeLocked(c, f.frame) {
				return
			}
		}
	}
	c.shard = shard
	s.gw.shards[shard].active = c
	s.flushPendingLocked(shard)
}

func (s *Server) tokenOK(tok string) bool {
	if s.opts.Token != "" {
		return tok == "Bot "+s.opts.Token || tok == s.opts.Token
	}
	return tok != ""
}

// sendLocked numbers and writes one dispatch on c, logging it for RESUME
// in the session of c's shard.
func (s *Server) sendLocked(c *gwConn, t string, d []byte, it *interaction) bool {
	sess := s.gw.shards[c.shard].session
	sess.seq++
	frame := []byte(fmt.Sprintf(`{"op":0,"s":%d,"t":%q,"d":`, sess.seq, t))
	frame = append(append(frame, d...), '}')
	sess.log = append(sess.log, sentFrame{seq: sess.seq, frame: frame})
	if len(sess.log) > maxReplay {
		sess.log = sess.log[len(sess.log)-maxReplay:]
	}
	if it != nil && it.deliveredAt.IsZero() {
		it.deliveredAt = s.opts.Now()
	}
	return s.writeLocked(c, frame)
}

// dispatchLocked sends a dispatch to the ready connection of the shard of
// its guild (shard 0 without a guild), or queues it for that shard.
func (s *Server) dispatchLocked(t string, d []byte, it *interaction) {
	sh := &s.gw.shards[s.shardOfDispatch(d, it)]
	if sh.active == nil || sh.session == nil {
		sh.pending = append(sh.pending, queued{t: t, d: d, it: it})
		return
	}
	s.sendLocked(sh.active, t, d, it)
	s.notifyLocked()
}

func (s *Server) flushPendingLocked(shard int) {
	sh := &s.gw.shards[shard]
	for len(sh.pending) > 0 && sh.active != nil {
		q := sh.pending[0]
		sh.pending = sh.pending[1:]
		s.sendLocked(sh.active, q.t, q.d, q.it)
	}
}

// DispatchEvent sends any gateway dispatch (op 0) with type eventType and
// payload d (a json.RawMessage or []byte is sent verbatim, anything else is
// marshalled). It is queued while no session is ready.
func (s *Server) DispatchEvent(eventType string, d any) {
	var b []byte
	switch v := d.(type) {
	case json.RawMessage:
		b = v
	case []byte:
		b = v
	default:
		b = mustJSON(v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatchLocked(eventType, append([]byte(nil), b...), nil)
}

// Identifies returns how many IDENTIFY frames the gateway received.
func (s *Server) Identifies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.gw.identifies)
}

// IdentifyPayloads returns every IDENTIFY received, oldest first.
func (s *Server) IdentifyPayloads() []Identify {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Identify(nil), s.gw.identifies...)
}

// Resumes returns how many RESUME frames the gateway received (answered with
// RESUMED or, when refused, op 9).
func (s *Server) Resumes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.resumes
}

// Heartbeats returns how many op 1 heartbeats the gateway received.
func (s *Server) Heartbeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.heartbeats
}

// GatewayDials returns how many gateway websocket connections the server
// accepted, stalled ones included.
func (s *Server) GatewayDials() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.dials
}

// Connected reports whether every shard has a ready session (after READY
// and the GUILD_CREATEs, or after RESUMED) on an open websocket: with one
// shard, whether the client is connected.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allActiveLocked()
}

// Disconnect drops every gateway websocket without a close frame, as a
// network failure would. The session stays resumable: discordgo reconnects
// (after about 1 s) and RESUMEs; dispatches made meanwhile are queued and
// replayed. Events already written to the dropped socket are replayed too if
// the client had not acknowledged them through its RESUME sequence.
func (s *Server) Disconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.gw.conns {
		_ = c.ws.Close()
	}
	s.dropAllActiveLocked()
	s.notifyLocked()
}

// FailGateway closes every gateway connection with the close code and
// reason given (4004 "Authentication failed.", 4014 "Disallowed
// intent(s).", …) and closes every later IDENTIFY and RESUME the same way,
// as Discord does once a token is reset or an intent withdrawn. The
// session is gone: a client that honours fatal codes stops; one that does
// not keeps reconnecting (Identifies and Resumes count its tries).
func (s *Server) FailGateway(code int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.failCode, s.gw.failText = code, reason
	for c := range s.gw.conns {
		s.closeConnLocked(c, code, reason)
	}
	s.dropAllActiveLocked()
	s.notifyLocked()
}

// StallGateway makes new gateway connections (while on is true) hang
// before HELLO: the websocket is accepted and then nothing is sent, as a
// gateway that is overloaded or cut off behind a proxy would. Connections
// already stalled stay so until the client drops them or the server closes.
func (s *Server) StallGateway(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.stalled = on
}

// RequestReconnect sends op 7 (RECONNECT) on the ready connection of every
// shard, which makes discordgo close it and RESUME on a new one.
func (s *Server) RequestReconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.gw.shards {
		if c := s.gw.shards[i].active; c != nil {
			s.writeLocked(c, []byte(`{"op":7,"s":null,"t":null,"d":null}`))
		}
	}
}

func (s *Server) botUserJSON() map[string]any {
	return map[string]any{"id": s.opts.BotUserID, "username": s.opts.BotUsername, "discriminator": "0",
		"global_name": nil, "avatar": nil, "bot": true}
}

func userJSON(m Member) map[string]any {
	u := map[string]any{"id": m.ID, "username": m.Username, "discriminator": "0", "avatar": nil}
	if m.GlobalName != "" {
		u["global_name"] = m.GlobalName
	} else {
		u["global_name"] = nil
	}
	if m.Bot {
		u["bot"] = true
	}
	return u
}

const joinedAt = "2024-01-01T00:00:00.000000+00:00"

// memberJSON is a guild member object; withPerms adds the "permissions"
// string that interaction payloads carry.
func memberJSON(m Member, withPerms bool) map[string]any {
	o := map[string]any{"user": userJSON(m), "roles": []string{}, "joined_at": joinedAt,
		"deaf": false, "mute": false, "flags": 0, "pending": false}
	if m.Nick != "" {
		o["nick"] = m.Nick
	} else {
		o["nick"] = nil
	}
	if withPerms {
		o["permissions"] = strconv.FormatInt(m.Permissions, 10)
	}
	return o
}

func channelJSON(g *Guild, c *Channel) map[string]any {
	return map[string]any{"id": c.ID, "type": c.Type, "name": c.Name, "guild_id": g.ID, "position": 0,
		"permission_overwrites": []any{}, "nsfw": false, "parent_id": nil}
}

func (s *Server) guildCreateJSON(g *Guild) map[string]any {
	chans := make([]map[string]any, 0, len(g.Channels))
	for i := range g.Channels {
		c := channelJSON(g, &g.Channels[i])
		delete(c, "guild_id")
		chans = append(chans, c)
	}
	members := make([]map[string]any, 0, len(g.Members))
	for _, m := range g.Members {
		members = append(members, memberJSON(m, false))
	}
	return map[string]any{
		"id": g.ID, "name": g.Name, "owner_id": g.OwnerID, "joined_at": joinedAt,
		"member_count": len(g.Members), "unavailable": false, "large": false,
		"preferred_locale": g.Locale,
		"roles": []map[string]any{{"id": g.ID, "name": "@everyone",
			"permissions": strconv.FormatInt(DefaultPermissions, 10), "position": 0}},
		"channels": chans,
		"members":  members,
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakediscord: marshal: %v", err))
	}
	return b
}
