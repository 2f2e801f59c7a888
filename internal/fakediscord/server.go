package fakediscord

import (
	"context"
	"fmt"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultPermissions is the permission bitset of @everyone in a new Discord
// server (no ADMINISTRATOR, no MANAGE_GUILD; VIEW_CHANNEL, SEND_MESSAGES,
// EMBED_LINKS, USE_APPLICATION_COMMANDS and more). It is used for members and
// for the bot wherever an Options, Guild, Channel or Member field leaves
// permissions at zero.
const DefaultPermissions int64 = 2248473465835073

// AdminPermissions is DefaultPermissions plus MANAGE_GUILD and ADMINISTRATOR.
const AdminPermissions = DefaultPermissions | 1<<5 | 1<<3

// discordEpoch is the first millisecond of 2015, the origin of snowflakes.
const discordEpoch = 1420070400000

// Options configure a Server. The zero value is usable.
type Options struct {
	// AppID is the application id (READY's application.id and the first
	// segment of webhook routes). Default "9001".
	AppID string
	// BotUserID and BotUsername describe the bot user (READY's user and the
	// author of every message the bot sends). Defaults "9001" and "quizhost".
	BotUserID, BotUsername string
	// Token, when set, is the only accepted bot token: REST requests must
	// carry "Authorization: Bot <Token>" and IDENTIFY the same string (else
	// close code 4004). When empty any "Bot <something>" is accepted.
	Token string
	// Guilds are announced in READY (as unavailable stubs) and then one
	// GUILD_CREATE each. nil means []Guild{DefaultGuild()}; use a non-nil
	// empty slice for no guilds.
	Guilds []Guild
	// AppPermissions is the bot's permission bitset in every channel
	// (interactions' app_permissions) unless a Channel overrides it.
	// Default DefaultPermissions.
	AppPermissions int64
	// HeartbeatInterval is sent in HELLO (whole milliseconds). Default 41.25 s.
	HeartbeatInterval time.Duration
	// CallbackDeadline is how long after an interaction reaches the client
	// its initial callback is accepted; later callbacks get 404 code 10062
	// like Discord's. 0 means 3 s; negative disables the check.
	CallbackDeadline time.Duration
	// DisableResume makes the gateway answer every RESUME with op 9
	// (invalid session, d:false), so the client identifies again.
	DisableResume bool
	// Shards is the number of gateway shards (GET /gateway/bot's "shards"):
	// each IDENTIFY must carry "shard":[id, Shards], and each session gets
	// the guilds, events and interactions of its shard only (see
	// "Sharding" in the package documentation). 0 means 1.
	Shards int
	// MaxConcurrency is session_start_limit.max_concurrency: IDENTIFYs of
	// shards in one bucket (shard id % MaxConcurrency) must be at least
	// IdentifyInterval apart. 0 means 1.
	MaxConcurrency int
	// IdentifyInterval is the identify rate limit's window per bucket; an
	// IDENTIFY sooner than that after the last one of its bucket gets op 9
	// and is listed by Violations. 0 means Discord's 5 s when Shards > 1,
	// and no limit with one shard (as before shards existed); negative
	// turns the limit off.
	IdentifyInterval time.Duration
	// SessionStarts is session_start_limit.remaining before the first
	// IDENTIFY (each IDENTIFY uses one; total is max(1000, SessionStarts)).
	// 0 means 1000.
	SessionStarts int
	// Now is the server's clock: snowflake ids, message timestamps, the
	// times of requests and callbacks and so the callback deadline, and
	// the identify rate limit. nil means time.Now. A bot run on a clock
	// that jumps (the sandbox's) passes the same clock here, so that
	// Discord's time and the bot's agree.
	Now func() time.Time
	// OwnHostOnly refuses, with 421 Misdirected Request and unrecorded,
	// every request (REST, gateway, files) whose Host header is not the
	// server's own address, 127.0.0.1:PORT or localhost:PORT: what a
	// web page whose name an attacker rebinds to 127.0.0.1 sends. Off by
	// default; the sandbox turns it on.
	OwnHostOnly bool
}

// Guild is a server the bot is in. Zero fields get defaults: ID a fresh
// snowflake, Name "Guild <id>", OwnerID the first member's id (else "7001"),
// Locale "en-US", Channels one text channel named "general". The bot's own
// member is added to Members automatically.
type Guild struct {
	ID, Name, OwnerID string
	Locale            string
	Channels          []Channel
	Members           []Member
}

// Channel is a guild channel. ID defaults to a fresh snowflake, Name to
// "channel-<id>", Type 0 (GUILD_TEXT). AppPermissions, when non-zero,
// overrides Options.AppPermissions in this channel.
type Channel struct {
	ID, Name       string
	Type           int
	AppPermissions int64
}

// Member is a guild member (or, in a DM interaction, just the user).
// Permissions is the member's permission bitset in the channel of an
// interaction; 0 means DefaultPermissions. Locale defaults to "en-US".
type Member struct {
	ID, Username     string
	GlobalName, Nick string
	Permissions      int64
	Bot              bool
	Locale           string
}

// DefaultGuild is the guild used when Options.Guilds is nil: "8001" "Study
// Group" owned by alice ("7001"), with the text channel "6001" named "quiz".
func DefaultGuild() Guild {
	return Guild{
		ID: "8001", Name: "Study Group", OwnerID: "7001",
		Channels: []Channel{{ID: "6001", Name: "quiz"}},
		Members:  []Member{{ID: "7001", Username: "alice", GlobalName: "Alice"}},
	}
}

// Server is a running Discord-compatible server. Create it with Listen
// (in tests, discordtest.Start).
// All methods are safe for concurrent use.
type Server struct {
	opts  Options
	hs    *httpServer
	url   string
	wsURL string

	wsWG sync.WaitGroup

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	closed  bool
	lastID  uint64

	guilds   []*Guild
	guildIdx map[string]*Guild
	chanIdx  map[string]chanRef

	requests        []Request
	authViolations  []Request
	violations      []string
	failures        []failure
	holds           []*Hold // every HoldNext, taken or not (Close releases them)
	files           map[string]storedFile
	commands        map[string][]map[string]any // "" = global, else guild id
	commandsVersion int                         // changes to commands (CommandsVersion)

	messages     map[string]*message
	channelMsgs  map[string][]*message
	allMsgs      []*message
	interactions map[string]*interaction
	byToken      map[string]*interaction

	gw gateway
	dm dms
}

type chanRef struct {
	guild *Guild
	ch    *Channel
}

type storedFile struct {
	contentType string
	data        []byte
}

type failure struct {
	method, prefix string
	status         int
	body           string
	header         http.Header
}

func newServer(opts Options) *Server {
	if opts.AppID == "" {
		opts.AppID = "9001"
	}
	if opts.BotUserID == "" {
		opts.BotUserID = "9001"
	}
	if opts.BotUsername == "" {
		opts.BotUsername = "quizhost"
	}
	if opts.AppPermissions == 0 {
		opts.AppPermissions = DefaultPermissions
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = 41250 * time.Millisecond
	}
	if opts.CallbackDeadline == 0 {
		opts.CallbackDeadline = 3 * time.Second
	}
	if opts.Guilds == nil {
		opts.Guilds = []Guild{DefaultGuild()}
	}
	if opts.Shards <= 0 {
		opts.Shards = 1
	}
	if opts.MaxConcurrency <= 0 {
		opts.MaxConcurrency = 1
	}
	if opts.IdentifyInterval == 0 && opts.Shards > 1 {
		opts.IdentifyInterval = 5 * time.Second
	}
	if opts.SessionStarts <= 0 {
		opts.SessionStarts = 1000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		opts:         opts,
		changed:      make(chan struct{}),
		guildIdx:     map[string]*Guild{},
		chanIdx:      map[string]chanRef{},
		files:        map[string]storedFile{},
		commands:     map[string][]map[string]any{},
		messages:     map[string]*message{},
		channelMsgs:  map[string][]*message{},
		interactions: map[string]*interaction{},
		byToken:      map[string]*interaction{},
	}
	s.gw.shards = make([]gwShard, opts.Shards)
	for _, in := range opts.Guilds {
		g := in
		if g.ID == "" {
			g.ID = s.newIDLocked()
		}
		if g.Name == "" {
			g.Name = "Guild " + g.ID
		}
		if g.Locale == "" {
			g.Locale = "en-US"
		}
		if g.OwnerID == "" {
			g.OwnerID = "7001"
			if len(g.Members) > 0 {
				g.OwnerID = g.Members[0].ID
			}
		}
		if len(g.Channels) == 0 {
			g.Channels = []Channel{{Name: "general"}}
		}
		g.Channels = append([]Channel(nil), g.Channels...)
		for i := range g.Channels {
			c := &g.Channels[i]
			if c.ID == "" {
				c.ID = s.newIDLocked()
			}
			if c.Name == "" {
				c.Name = "channel-" + c.ID
			}
		}
		members := make([]Member, 0, len(g.Members)+1)
		hasBot := false
		for _, m := range g.Members {
			members = append(members, fillMember(m))
			hasBot = hasBot || m.ID == opts.BotUserID
		}
		if !hasBot {
			members = append(members, Member{ID: opts.BotUserID, Username: opts.BotUsername,
				Permissions: opts.AppPermissions, Bot: true, Locale: "en-US"})
		}
		g.Members = members
		gp := &g
		s.guilds = append(s.guilds, gp)
		s.guildIdx[g.ID] = gp
		for i := range gp.Channels {
			s.chanIdx[gp.Channels[i].ID] = chanRef{guild: gp, ch: &gp.Channels[i]}
		}
	}
	return s
}

func fillMember(m Member) Member {
	if m.Username == "" {
		m.Username = "user" + m.ID
	}
	if m.Permissions == 0 {
		m.Permissions = DefaultPermissions
	}
	if m.Locale == "" {
		m.Locale = "en-US"
	}
	return m
}

// URL returns the server's base URL, "http://127.0.0.1:PORT" (the bot's
// DISCORD_API_BASE). REST lives under URL()+"/api/v9".
func (s *Server) URL() string { return s.url }

// GatewayURL returns the websocket URL that GET /api/v9/gateway announces.
func (s *Server) GatewayURL() string { return s.wsURL }

// AppID returns the application id in use.
func (s *Server) AppID() string { return s.opts.AppID }

// BotUserID returns the bot user's id in use.
func (s *Server) BotUserID() string { return s.opts.BotUserID }

// Guilds returns the guilds as announced (fixed at Listen), defaults filled in (including the
// bot's own member).
func (s *Server) Guilds() []Guild {
	out := make([]Guild, 0, len(s.guilds))
	for _, g := range s.guilds {
		c := *g
		c.Channels = append([]Channel(nil), g.Channels...)
		c.Members = append([]Member(nil), g.Members...)
		out = append(out, c)
	}
	return out
}

// Close drops every websocket, stops the HTTP server and waits for all of
// its goroutines, letting the requests in flight answer first. It is
// idempotent; discordtest.Start registers it with t.Cleanup. Waiters
// blocked in Wait, or in Pending.Response, go on until their context ends.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.releaseHoldsLocked()
	for c := range s.gw.conns {
		_ = c.ws.Close()
	}
	s.dropAllActiveLocked()
	s.notifyLocked()
	s.mu.Unlock()
	s.hs.close()
	s.wsWG.Wait()
}

// AddFile serves data at /files/<name> (no authorization needed, like the
// CDN) and returns its full URL. The content type is guessed from the name's
// extension. Adding a name again replaces the data.
func (s *Server) AddFile(name string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addFileLocked(name, "", data)
}

func (s *Server) addFileLocked(name, contentType string, data []byte) string {
	name = strings.TrimPrefix(name, "/")
	s.files[name] = storedFile{contentType: contentType, data: append([]byte(nil), data...)}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return s.url + "/files/" + strings.Join(parts, "/")
}

// File returns a file the server serves at /files/<name> (name unescaped,
// as in Message attachments' paths after /files/): its bytes, which the
// caller must not modify, and its content type. ok is false when there is
// no such file.
func (s *Server) File(name string) (data []byte, contentType string, ok bool) {
	s.mu.Lock()
	f, ok := s.files[strings.TrimPrefix(name, "/")]
	s.mu.Unlock()
	if !ok {
		return nil, "", false
	}
	return f.data, fileType(name, f.contentType), true
}

// fileType is a served file's content type: as stored, else guessed from
// the name's extension, else application/octet-stream.
func fileType(name, stored string) string {
	if stored != "" {
		return stored
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// ownHost reports whether a Host header names this server: its address,
// or localhost with its port.
func (s *Server) ownHost(host string) bool {
	own := strings.TrimPrefix(s.url, "http://")
	_, port, err := net.SplitHostPort(own)
	return err == nil && (host == own || strings.EqualFold(host, "localhost:"+port))
}

// FailNext makes the next REST request whose method equals method (""
// matches any) and whose path starts with pathPrefix fail with status and
// body, before any other handling (the request is still recorded, with
// Injected set). pathPrefix may include "/api/v9" or start after it
// ("/channels/6001/messages"). An empty body becomes a Discord-shaped one: for
// 429 {"message":"You are being rate limited.","retry_after":0.05,"global":false}
// (with Retry-After), otherwise {"message":"<status text>","code":0}.
// Injections queue up and each is used once.
func (s *Server) FailNext(method, pathPrefix string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{method: strings.ToUpper(method), prefix: pathPrefix, status: status, body: body})
}

// RateLimitNext makes the next REST request whose method equals method (""
// matches any) and whose path starts with pathPrefix answer 429 the way
// Discord does: body {"message","retry_after","global"} and the headers
// Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining: 0,
// X-RateLimit-Reset-After and X-RateLimit-Scope ("user", or "global"
// with X-RateLimit-Global: true when global is set). Like FailNext it is
// used once and the request is recorded with Injected set.
func (s *Server) RateLimitNext(method, pathPrefix string, retryAfter time.Duration, global bool) {
	secs := strconv.FormatFloat(retryAfter.Seconds(), 'f', 3, 64)
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
	h.Set("X-RateLimit-Limit", "5")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset-After", secs)
	h.Set("X-RateLimit-Scope", "user")
	if global {
		h.Set("X-RateLimit-Global", "true")
		h.Set("X-RateLimit-Scope", "global")
	}
	body := fmt.Sprintf(`{"message":"You are being rate limited.","retry_after":%s,"global":%t}`, secs, global)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{method: strings.ToUpper(method), prefix: pathPrefix,
		status: http.StatusTooManyRequests, body: body, header: h})
}

// Violations returns one line per request the server rejected the way
// Discord would for a client bug: invalid form bodies (50035) and empty
// messages (50006), double (40060), unknown or late (10062) callbacks,
// callback types that do not fit the interaction, follow-ups before the
// initial response or with an unknown token (10015), wrong application ids,
// unknown routes and missing authorization. Tests of a correct bot expect none.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// AuthViolations returns the REST requests that lacked a valid
// "Authorization: Bot <token>" header (they were answered 401).
func (s *Server) AuthViolations() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.authViolations...)
}

// Requests returns every REST request recorded so far, in arrival order
// (gateway frames and /files downloads are not included). Treat the JSON
// values as read-only.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Callbacks counts the interaction callbacks recorded: one per
// interaction the bot answered.
func (s *Server) Callbacks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if strings.Contains(r.Path, "/interactions/") && strings.HasSuffix(r.Path, "/callback") {
			n++
		}
	}
	return n
}

// newIDLocked returns a fresh snowflake: the current time in the upper bits,
// strictly greater than every id handed out before.
func (s *Server) newIDLocked() string {
	ms := s.opts.Now().UnixMilli() - discordEpoch
	id := uint64(ms) << 22
	if id <= s.lastID {
		id = s.lastID + 1
	}
	s.lastID = id
	return fmt.Sprint(id)
}

// notifyLocked wakes every waiter.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait blocks until cond (called with s.mu held) is true or ctx ends.
func (s *Server) wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok := cond()
		ch := s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Server) violationLocked(format string, a ...any) {
	s.violations = append(s.violations, fmt.Sprintf(format, a...))
}

// memberLocked finds a member of guildID (any guild when guildID is "").
func (s *Server) memberLocked(guildID, userID string) (Member, bool) {
	for _, g := range s.guilds {
		if guildID != "" && g.ID != guildID {
			continue
		}
		for _, m := range g.Members {
			if m.ID == userID {
				return m, true
			}
		}
	}
	return Member{}, false
}

// appPermsLocked is the bot's permission bitset in a channel.
func (s *Server) appPermsLocked(channelID string) int64 {
	if ref, ok := s.chanIdx[channelID]; ok && ref.ch.AppPermissions != 0 {
		return ref.ch.AppPermissions
	}
	return s.opts.AppPermissions
}
