package fakediscord

import (
	"encoding/json"
	"net/http"
)

// commandsRouteLocked serves /applications/{app}/commands[/{id}] and
// /applications/{app}/guilds/{guild}/commands[/{id}]; seg starts at {app}.
func (s *Server) commandsRouteLocked(req *Request, seg []string, _ map[string]json.RawMessage) (reply, bool) {
	app := seg[0]
	rest := seg[1:]
	guild := ""
	if len(rest) >= 3 && rest[0] == "guilds" {
		guild = rest[1]
		rest = rest[2:]
	}
	if len(rest) == 0 || rest[0] != "commands" || len(rest) > 2 {
		return reply{}, false
	}
	if app != s.opts.AppID || (guild != "" && s.guildIdx[guild] == nil) {
		s.violationLocked("%s %s: 50001 Missing Access (unknown application or guild)", req.Method, req.Path)
		return errReply(http.StatusForbidden, 50001, "Missing Access"), true
	}
	scope := s.commands[guild]
	if len(rest) == 1 {
		switch req.Method {
		case "GET":
			return jsonReply(200, nonNil(scope)), true
		case "PUT":
			cmds, ok := commandList(req.JSON)
			if !ok && json.Unmarshal(req.Body, &cmds) != nil {
				return s.rejectLocked(req, badJSON()), true
			}
			if fe := validateCommands(cmds, func(i int) []string { return []string{idx(i)} }); fe != nil {
				return s.rejectLocked(req, fe), true
			}
			out := make([]map[string]any, 0, len(cmds))
			for _, c := range cmds {
				out = append(out, s.stampCommandLocked(c, guild, scope))
			}
			s.commands[guild] = out
			s.commandsVersion++
			return jsonReply(200, out), true
		case "POST":
			var c map[string]any
			if json.Unmarshal(req.Body, &c) != nil {
				return s.rejectLocked(req, badJSON()), true
			}
			if fe := validateCommands([]map[string]any{c}, func(int) []string { return nil }); fe != nil {
				return s.rejectLocked(req, fe), true
			}
			stamped := s.stampCommandLocked(c, guild, scope)
			status := http.StatusCreated
			for i, old := range scope {
				if old["id"] == stamped["id"] {
					scope[i] = stamped
					status = http.StatusOK
				}
			}
			if status == http.StatusCreated {
				s.commands[guild] = append(scope, stamped)
			}
			s.commandsVersion++
			return jsonReply(status, stamped), true
		}
		return reply{}, false
	}
	id := rest[1]
	pos := -1
	for i, c := range scope {
		if c["id"] == id {
			pos = i
		}
	}
	if pos < 0 {
		return errReply(http.StatusNotFound, 10063, "Unknown application command"), true
	}
	switch req.Method {
	case "GET":
		return jsonReply(200, scope[pos]), true
	case "DELETE":
		s.commands[guild] = append(scope[:pos:pos], scope[pos+1:]...)
		s.commandsVersion++
		return noContent(), true
	case "PATCH":
		var patch map[string]any
		if json.Unmarshal(req.Body, &patch) != nil {
			return s.rejectLocked(req, badJSON()), true
		}
		merged := map[string]any{}
		for k, v := range scope[pos] {
			merged[k] = v
		}
		for k, v := range patch {
			merged[k] = v
		}
		if fe := validateCommands([]map[string]any{merged}, func(int) []string { return nil }); fe != nil {
			return s.rejectLocked(req, fe), true
		}
		merged["version"] = s.newIDLocked()
		scope[pos] = merged
		s.commandsVersion++
		return jsonReply(200, merged), true
	}
	return reply{}, false
}

// commandList is a list of command objects as parseBody decoded it
// (req.JSON), copied: the request is recorded as sent, and stamping
// changes the commands. ok is false for anything else (null, an element
// that is not an object), which is decoded from the body instead.
func commandList(v any) (cmds []map[string]any, ok bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	cmds = make([]map[string]any, len(list))
	for i, c := range list {
		if cmds[i], ok = cloneJSON(c).(map[string]any); !ok {
			return nil, false
		}
	}
	return cmds, true
}

// stampCommandLocked adds the fields Discord assigns. A command keeps its
// id when one with the same name and type already exists in the scope.
func (s *Server) stampCommandLocked(c map[string]any, guild string, scope []map[string]any) map[string]any {
	if _, ok := c["type"].(float64); !ok {
		c["type"] = float64(1)
	}
	id := ""
	for _, old := range scope {
		if old["name"] == c["name"] && old["type"] == c["type"] {
			id, _ = old["id"].(string)
		}
	}
	if id == "" {
		id = s.newIDLocked()
	}
	c["id"] = id
	c["application_id"] = s.opts.AppID
	c["version"] = s.newIDLocked()
	if guild != "" {
		c["guild_id"] = guild
	} else {
		delete(c, "guild_id")
	}
	if _, ok := c["default_member_permissions"]; !ok {
		c["default_member_permissions"] = nil
	}
	return c
}

func nonNil(v []map[string]any) []map[string]any {
	if v == nil {
		return []map[string]any{}
	}
	return v
}

// Commands returns a deep copy of the commands registered in a scope
// (guildID "" for global ones) with the fields the server assigned (id,
// application_id, version, guild_id). Numbers are float64.
func (s *Server) Commands(guildID string) []map[string]any {
	s.mu.Lock()
	raw := mustJSON(nonNil(s.commands[guildID]))
	s.mu.Unlock()
	var out []map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// CommandsVersion counts the changes to the registered commands, of every
// scope (a registration, creation, edit or deletion): a caller that keeps
// what it made of Commands need read them again only once it has changed.
func (s *Server) CommandsVersion() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commandsVersion
}

// commandIDLocked finds the id of a registered command by name, preferring
// the guild scope.
func (s *Server) commandIDLocked(guildID, name string) (id string, guildScoped bool) {
	for _, c := range s.commands[guildID] {
		if guildID != "" && c["name"] == name {
			id, _ = c["id"].(string)
			return id, true
		}
	}
	for _, c := range s.commands[""] {
		if c["name"] == name {
			id, _ = c["id"].(string)
			return id, false
		}
	}
	return "", false
}
