package fakediscord

import (
	"encoding/json"
	"net/http"
)

// Direct messages. POST /users/@me/channels {"recipient_id"} opens (or
// returns the existing) DM channel with a member of any guild, as Discord
// does; messages posted in it are validated and recorded like channel
// messages. A member whose DMs are closed (CloseDMs) still gets a channel,
// but each message to it is refused with 403 code 50007, "Cannot send
// messages to this user", Discord's answer when a member turned off DMs
// from server members or blocked the bot. That refusal is Discord
// behaving normally, so it is not recorded as a violation.

// dms is the DM state of a Server (under its mu).
type dms struct {
	byUser   map[string]string // user id → DM channel id
	byChan   map[string]string // DM channel id → user id
	closedTo map[string]bool   // user ids whose DMs are closed
}

// CloseDMs makes every later message to userID's DM channel fail with 403
// code 50007.
func (s *Server) CloseDMs(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dmsLocked().closedTo[userID] = true
}

// DMChannel returns the id of the DM channel opened with userID, if the bot
// opened one.
func (s *Server) DMChannel(userID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.dmsLocked().byUser[userID]
	return id, ok
}

// DMs returns the messages the bot sent to userID in direct messages,
// oldest first.
func (s *Server) DMs(userID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dmsOfLocked(userID)
}

func (s *Server) dmsOfLocked(userID string) []Message {
	ch, ok := s.dmsLocked().byUser[userID]
	if !ok {
		return nil
	}
	var out []Message
	for _, m := range s.channelMsgs[ch] {
		out = append(out, s.snapshotLocked(m))
	}
	return out
}

func (s *Server) dmsLocked() *dms {
	if s.dm.byUser == nil {
		s.dm = dms{byUser: map[string]string{}, byChan: map[string]string{}, closedTo: map[string]bool{}}
	}
	return &s.dm
}

// openDMLocked serves POST /users/@me/channels.
func (s *Server) openDMLocked(req *Request, obj map[string]json.RawMessage) reply {
	var to string
	if obj == nil || json.Unmarshal(obj["recipient_id"], &to) != nil || to == "" {
		return s.rejectLocked(req, &formError{code: 50035, message: "Invalid Form Body",
			fields: []fieldError{{path: []string{"recipient_id"}, code: "BASE_TYPE_REQUIRED", msg: "This field is required"}}})
	}
	m, ok := s.memberLocked("", to)
	if !ok {
		return errReply(http.StatusBadRequest, 50033, "Invalid Recipient(s)")
	}
	d := s.dmsLocked()
	id, ok := d.byUser[to]
	if !ok {
		id = s.newIDLocked()
		d.byUser[to], d.byChan[id] = id, to
	}
	return jsonReply(200, map[string]any{"id": id, "type": 1, "last_message_id": nil, "flags": 0,
		"recipients": []any{userJSON(m)}})
}

// dmRouteLocked serves the routes of a DM channel: posting a message.
func (s *Server) dmRouteLocked(req *Request, cid, user string, rest []string, obj map[string]json.RawMessage) (reply, bool) {
	if len(rest) != 1 || rest[0] != "messages" || req.Method != "POST" {
		return reply{}, false
	}
	if s.dmsLocked().closedTo[user] {
		return errReply(http.StatusForbidden, 50007, "Cannot send messages to this user"), true
	}
	if obj == nil {
		return s.rejectLocked(req, badJSON()), true
	}
	if fe := validateMessage(obj, len(req.Files), true); fe != nil {
		return s.rejectLocked(req, fe), true
	}
	m := s.newMessageLocked(cid, obj, req.Files)
	return reply{status: 200, body: s.rawMessageLocked(m)}, true
}
