package fakediscord

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds a recorded request body.
const maxBody = 64 << 20

// Request is one REST request the server received, with the reply it gave.
type Request struct {
	Index  int    // position in Requests()
	Method string // "GET", "POST", …
	Path   string // the full path, e.g. "/api/v9/channels/6001/messages"
	// Route is Path without the "/api/vN" prefix, e.g. "/channels/6001/messages".
	Route  string
	Query  url.Values
	Header http.Header
	Body   []byte // the raw body
	// JSON is the decoded JSON body, or for multipart bodies the decoded
	// payload_json part (nil when there is none). Numbers are float64.
	JSON  any
	Files []File // multipart file parts (files[n])
	// Status and Response are what the server answered.
	Status   int
	Response []byte
	Injected bool // answered by FailNext
	At       time.Time
}

// File is an uploaded multipart file part.
type File struct {
	Field       string // form field name, e.g. "files[0]"
	Name        string // file name
	ContentType string
	Data        []byte
}

type reply struct {
	status int
	body   []byte
	header http.Header
}

func jsonReply(status int, v any) reply {
	return reply{status: status, body: mustJSON(v)}
}

func errReply(status, code int, msg string) reply {
	return jsonReply(status, map[string]any{"message": msg, "code": code})
}

func noContent() reply { return reply{status: http.StatusNoContent} }

func notFound() reply { return errReply(http.StatusNotFound, 0, "404: Not Found") }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.OwnHostOnly && !s.ownHost(r.Host) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMisdirectedRequest)
		_, _ = w.Write(mustJSON(map[string]any{"message": "421: Misdirected Request: host " + strconv.Quote(r.Host) +
			" is not this server's", "code": 0}))
		return
	}
	p := r.URL.Path
	switch {
	case p == "/ws" || p == "/ws/":
		s.serveGateway(w, r)
		return
	case strings.HasPrefix(p, "/files/"):
		s.serveFile(w, r)
		return
	}
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n < maxBody {
		buf.Grow(int(n) + bytes.MinRead) // the body in one allocation (ReadFrom wants room to see its end)
	}
	_, _ = buf.ReadFrom(io.LimitReader(r.Body, maxBody))
	body := buf.Bytes()
	req := Request{
		Method: r.Method,
		Path:   p,
		Route:  p,
		Query:  r.URL.Query(),
		Header: r.Header.Clone(),
		Body:   body,
		At:     s.opts.Now(),
	}
	for _, v := range []string{"/api/v9", "/api/v10"} {
		if strings.HasPrefix(p, v+"/") {
			req.Route = strings.TrimPrefix(p, v)
		}
	}
	msgObj := parseBody(&req, r.Header.Get("Content-Type"))
	s.hold(r, &req)

	s.mu.Lock()
	rep := s.handleLocked(&req, msgObj)
	req.Status = rep.status
	req.Response = rep.body
	req.Index = len(s.requests)
	s.requests = append(s.requests, req)
	s.notifyLocked()
	s.mu.Unlock()

	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	if rep.status != http.StatusNoContent {
		_, _ = w.Write(rep.body)
	}
}

// parseBody fills req.JSON and req.Files and returns the body as a JSON
// object of raw fields (nil if it is not one).
func parseBody(req *Request, contentType string) map[string]json.RawMessage {
	mt, params, _ := mime.ParseMediaType(contentType)
	var jsonPart []byte
	switch {
	case mt == "multipart/form-data":
		mr := multipart.NewReader(bytes.NewReader(req.Body), params["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			data, _ := io.ReadAll(part)
			name := part.FormName()
			if name == "payload_json" {
				jsonPart = data
			} else if part.FileName() != "" || strings.HasPrefix(name, "files[") {
				req.Files = append(req.Files, File{Field: name, Name: part.FileName(),
					ContentType: part.Header.Get("Content-Type"), Data: data})
			}
		}
	case len(req.Body) > 0:
		jsonPart = req.Body
	}
	if len(jsonPart) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(jsonPart, &v) == nil {
		req.JSON = v
	}
	if _, ok := v.(map[string]any); !ok {
		return nil // not an object (a command list, say): no fields to read
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(jsonPart, &obj) != nil {
		return nil
	}
	return obj
}

// cloneJSON is a deep copy of v, a value decoded from JSON into any.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneJSON(e)
		}
		return s
	}
	return v
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/files/")
	s.mu.Lock()
	f, ok := s.files[name]
	s.mu.Unlock()
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"404: Not Found","code":0}`))
		return
	}
	w.Header().Set("Content-Type", fileType(name, f.contentType))
	w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
	if r.Method == http.MethodGet {
		_, _ = w.Write(f.data)
	}
}

func (s *Server) handleLocked(req *Request, obj map[string]json.RawMessage) reply {
	auth := req.Header.Get("Authorization")
	authOK := strings.HasPrefix(auth, "Bot ") && len(auth) > len("Bot ")
	if s.opts.Token != "" {
		authOK = auth == "Bot "+s.opts.Token
	}
	if !authOK {
		s.authViolations = append(s.authViolations, *req)
		s.violationLocked("%s %s: missing or invalid Authorization header", req.Method, req.Path)
		return errReply(http.StatusUnauthorized, 0, "401: Unauthorized")
	}
	for i, f := range s.failures {
		if (f.method == "" || f.method == req.Method) &&
			(strings.HasPrefix(req.Path, f.prefix) || strings.HasPrefix(req.Route, f.prefix)) {
			s.failures = append(s.failures[:i:i], s.failures[i+1:]...)
			req.Injected = true
			return injected(f)
		}
	}
	if req.Route == req.Path { // not under /api/v9 or /api/v10
		s.violationLocked("%s %s: unknown route", req.Method, req.Path)
		return notFound()
	}
	seg := strings.Split(strings.Trim(req.Route, "/"), "/")
	m := req.Method
	var rep reply
	handled := true
	switch {
	case len(seg) == 1 && seg[0] == "gateway" && m == "GET",
		len(seg) == 2 && seg[0] == "gateway" && seg[1] == "bot" && m == "GET":
		rep = jsonReply(200, s.gatewayBotLocked())
	case len(seg) == 3 && seg[0] == "users" && seg[1] == "@me" && seg[2] == "channels" && m == "POST":
		rep = s.openDMLocked(req, obj)
	case len(seg) == 2 && seg[0] == "users" && m == "GET":
		rep = s.userLocked(seg[1])
	case len(seg) >= 2 && seg[0] == "guilds" && m == "GET":
		rep, handled = s.guildRouteLocked(seg[1], seg[2:])
	case len(seg) >= 3 && seg[0] == "applications":
		rep, handled = s.commandsRouteLocked(req, seg[1:], obj)
	case len(seg) == 4 && seg[0] == "interactions" && seg[3] == "callback" && m == "POST":
		rep = s.callbackLocked(req, seg[1], seg[2], obj)
	case len(seg) >= 3 && seg[0] == "webhooks":
		rep, handled = s.webhookRouteLocked(req, seg[1], seg[2], seg[3:], obj)
	case len(seg) >= 2 && seg[0] == "channels":
		rep, handled = s.channelRouteLocked(req, seg[1], seg[2:], obj)
	default:
		handled = false
	}
	if !handled {
		s.violationLocked("%s %s: unknown route", req.Method, req.Path)
		return notFound()
	}
	return rep
}

func injected(f failure) reply {
	body := f.body
	h := http.Header{}
	if f.header != nil {
		return reply{status: f.status, body: []byte(body), header: f.header.Clone()}
	}
	if body == "" {
		if f.status == http.StatusTooManyRequests {
			body = `{"message":"You are being rate limited.","retry_after":0.05,"global":false}`
		} else {
			body = string(mustJSON(map[string]any{"message": http.StatusText(f.status), "code": 0}))
		}
	}
	if f.status == http.StatusTooManyRequests {
		var ra struct {
			RetryAfter float64 `json:"retry_after"`
		}
		_ = json.Unmarshal([]byte(body), &ra)
		h.Set("Retry-After", strconv.Itoa(int(ra.RetryAfter+0.999)))
	}
	return reply{status: f.status, body: []byte(body), header: h}
}

func (s *Server) userLocked(id string) reply {
	if id == "@me" || id == s.opts.BotUserID {
		return jsonReply(200, s.botUserJSON())
	}
	if m, ok := s.memberLocked("", id); ok {
		return jsonReply(200, userJSON(m))
	}
	return errReply(404, 10013, "Unknown User")
}

func (s *Server) guildRouteLocked(gid string, rest []string) (reply, bool) {
	g := s.guildIdx[gid]
	switch {
	case len(rest) == 0:
		if g == nil {
			return errReply(404, 10004, "Unknown Guild"), true
		}
		gj := s.guildCreateJSON(g)
		for _, k := range []string{"channels", "members", "joined_at", "member_count", "large", "unavailable"} {
			delete(gj, k)
		}
		return jsonReply(200, gj), true
	case len(rest) == 1 && rest[0] == "channels":
		if g == nil {
			return errReply(404, 10004, "Unknown Guild"), true
		}
		out := make([]map[string]any, 0, len(g.Channels))
		for i := range g.Channels {
			out = append(out, channelJSON(g, &g.Channels[i]))
		}
		return jsonReply(200, out), true
	case len(rest) == 2 && rest[0] == "members":
		if g == nil {
			return errReply(404, 10004, "Unknown Guild"), true
		}
		if m, ok := s.memberLocked(gid, rest[1]); ok {
			return jsonReply(200, memberJSON(m, false)), true
		}
		return errReply(404, 10013, "Unknown User"), true
	}
	return reply{}, false
}

func (s *Server) channelRouteLocked(req *Request, cid string, rest []string, obj map[string]json.RawMessage) (reply, bool) {
	if user, isDM := s.dmsLocked().byChan[cid]; isDM {
		return s.dmRouteLocked(req, cid, user, rest, obj)
	}
	ref, ok := s.chanIdx[cid]
	unknown := errReply(404, 10003, "Unknown Channel")
	switch {
	case len(rest) == 0 && req.Method == "GET":
		if !ok {
			return unknown, true
		}
		return jsonReply(200, channelJSON(ref.guild, ref.ch)), true
	case len(rest) == 1 && rest[0] == "messages" && (req.Method == "POST" || req.Method == "GET"):
		if !ok {
			return unknown, true
		}
		if req.Method == "GET" {
			out := []json.RawMessage{}
			list := s.channelMsgs[cid]
			for i := len(list) - 1; i >= 0 && len(out) < 50; i-- {
				if m := list[i]; !m.deleted && m.flags&flagEphemeral == 0 {
					out = append(out, s.rawMessageLocked(m))
				}
			}
			return jsonReply(200, out), true
		}
		if obj == nil {
			return s.rejectLocked(req, badJSON()), true
		}
		if fe := validateMessage(obj, len(req.Files), true); fe != nil {
			return s.rejectLocked(req, fe), true
		}
		replyTo, fe := s.replyToLocked(cid, obj)
		if fe != nil {
			return s.rejectLocked(req, fe), true
		}
		m := s.newMessageLocked(cid, obj, req.Files)
		if replyTo != "" {
			m.typ, m.replyTo = 19, replyTo // REPLY
		}
		return reply{status: 200, body: s.rawMessageLocked(m)}, true
	case len(rest) == 2 && rest[0] == "messages":
		if !ok {
			return unknown, true
		}
		m := s.messages[rest[1]]
		if m == nil || m.channelID != cid || m.deleted || m.flags&flagEphemeral != 0 {
			return errReply(404, 10008, "Unknown Message"), true
		}
		return s.messageMethodLocked(req, m, obj)
	}
	return reply{}, false
}

// replyToLocked reads a new channel message's message_reference the way
// Discord does for a reply: the message it names must be in the same
// channel (a channel_id or guild_id given must match), else the request is
// refused with "Unknown message" unless fail_if_not_exists is false, when
// the message is sent as no reply. It returns the replied message's ID, or
// "" for none.
func (s *Server) replyToLocked(cid string, obj map[string]json.RawMessage) (string, *formError) {
	raw := obj["message_reference"]
	if !isSet(raw) {
		return "", nil
	}
	var ref struct {
		Type            int     `json:"type"`
		MessageID       *string `json:"message_id"`
		ChannelID       string  `json:"channel_id"`
		GuildID         string  `json:"guild_id"`
		FailIfNotExists *bool   `json:"fail_if_not_exists"`
	}
	if json.Unmarshal(raw, &ref) != nil || ref.MessageID == nil || ref.Type != 0 {
		return "", &formError{code: 50035, message: "Invalid Form Body", fields: []fieldError{{
			path: []string{"message_reference"}, code: "MODEL_TYPE_CONVERT", msg: "Only dictionaries may be used in a ModelType"}}}
	}
	m := s.messages[*ref.MessageID]
	ok := m != nil && !m.deleted && m.channelID == cid && m.flags&flagEphemeral == 0 &&
		(ref.ChannelID == "" || ref.ChannelID == cid) && (ref.GuildID == "" || ref.GuildID == m.guildID)
	switch {
	case ok:
		return m.id, nil
	case ref.FailIfNotExists != nil && !*ref.FailIfNotExists:
		return "", nil
	}
	return "", &formError{code: 50035, message: "Invalid Form Body", fields: []fieldError{{
		path: []string{"message_reference"}, code: "REPLIES_UNKNOWN_MESSAGE", msg: "Unknown message"}}}
}

// messageMethodLocked serves GET, PATCH and DELETE of one message, through
// the channel or the webhook routes alike.
func (s *Server) messageMethodLocked(req *Request, m *message, obj map[string]json.RawMessage) (reply, bool) {
	switch req.Method {
	case "GET":
		return reply{status: 200, body: s.rawMessageLocked(m)}, true
	case "PATCH":
		if obj == nil {
			return s.rejectLocked(req, badJSON()), true
		}
		if fe := validateMessage(obj, len(req.Files), false); fe != nil {
			return s.rejectLocked(req, fe), true
		}
		s.editMessageLocked(m, obj, req.Files)
		return reply{status: 200, body: s.rawMessageLocked(m)}, true
	case "DELETE":
		m.deleted = true
		return noContent(), true
	}
	return reply{}, false
}

func (s *Server) webhookRouteLocked(req *Request, app, token string, rest []string, obj map[string]json.RawMessage) (reply, bool) {
	it := s.byToken[token]
	if len(rest) != 0 && (len(rest) != 2 || rest[0] != "messages") {
		return reply{}, false
	}
	if it == nil || app != s.opts.AppID {
		s.violationLocked("%s %s: 10015 Unknown Webhook (application id or interaction token not known)", req.Method, req.Path)
		return errReply(404, 10015, "Unknown Webhook"), true
	}
	if len(rest) == 0 {
		if req.Method != "POST" {
			return reply{}, false
		}
		if it.response == nil {
			s.violationLocked("%s %s: 10015 Unknown Webhook (follow-up before the initial response)", req.Method, req.Path)
			return errReply(404, 10015, "Unknown Webhook"), true
		}
		if obj == nil {
			return s.rejectLocked(req, badJSON()), true
		}
		if fe := validateMessage(obj, len(req.Files), true); fe != nil {
			return s.rejectLocked(req, fe), true
		}
		m := s.newMessageLocked(it.channelID, obj, req.Files)
		m.webhook = true
		m.token = token
		m.interactionID = it.id
		m.userID = it.userID
		it.followups = append(it.followups, m)
		if req.Query.Get("wait") != "true" {
			return noContent(), true
		}
		return reply{status: 200, body: s.rawMessageLocked(m)}, true
	}
	var m *message
	if rest[1] == "@original" {
		m = it.original
	} else if cand := s.messages[rest[1]]; cand != nil && (cand.token == token || cand == it.original) {
		m = cand
	}
	if m == nil || m.deleted {
		return errReply(404, 10008, "Unknown Message"), true
	}
	return s.messageMethodLocked(req, m, obj)
}

// rejectLocked answers a form error and records it as a violation.
func (s *Server) rejectLocked(req *Request, fe *formError) reply {
	s.violationLocked("%s %s: %s", req.Method, req.Path, fe.String())
	return reply{status: http.StatusBadRequest, body: fe.body()}
}

func badJSON() *formError {
	return &formError{code: 50109, message: "The request body contains invalid JSON."}
}
