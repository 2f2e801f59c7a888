package fakediscord

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Option is one option of a slash command or autocomplete interaction.
//
// SUB_COMMAND and SUB_COMMAND_GROUP options carry Options and no Value.
// Value options carry Value, normalised per type:
//   - USER (6), CHANNEL (7), ROLE (8), MENTIONABLE (9): a snowflake string
//     (a Member or Channel value is accepted too); the object goes into
//     data.resolved (known members and channels as configured, others made up).
//   - ATTACHMENT (11): an Attachment, or the name of a file added with
//     AddFile; the server assigns an attachment id (the option's value) and
//     puts the attachment, with a url on this server, in resolved.attachments.
//   - INTEGER (4), NUMBER (10): any Go number; STRING (3): string; BOOLEAN (5): bool.
//
// Focused marks the option being typed in an autocomplete interaction.
type Option struct {
	Name    string
	Type    discordgo.ApplicationCommandOptionType
	Value   any
	Focused bool
	Options []Option
}

// Attachment is the value of an ATTACHMENT option. The file is served at
// /files/attachments/<id>/<Filename>. ContentType defaults from the extension
// (else text/plain); Size defaults to len(Data) and may be set larger to test
// size checks without the bytes.
type Attachment struct {
	Filename    string
	ContentType string
	Data        []byte
	Size        int
}

type interaction struct {
	id, token          string
	typ                int
	userID             string // the member or user who made it
	guildID, channelID string
	messageID          string // the component's message
	toShard            int    // 1 + the shard it is sent to whatever its guild (DispatchToShard); 0: its guild's
	payload            []byte
	deliveredAt        time.Time
	response           *Response
	original           *message
	followups          []*message
}

// Response is the initial callback the bot made for an interaction.
type Response struct {
	// Type is the callback type (4 message, 5 deferred, 6 deferred update,
	// 7 update message, 8 autocomplete result, 9 modal).
	Type discordgo.InteractionResponseType
	// Data is the raw "data" object (nil when absent).
	Data json.RawMessage
	// Decoded parts of Data.
	Content         string
	Flags           discordgo.MessageFlags
	Embeds          []*discordgo.MessageEmbed
	Components      []discordgo.MessageComponent
	AllowedMentions *discordgo.MessageAllowedMentions
	Choices         []*discordgo.ApplicationCommandOptionChoice
	CustomID, Title string // modal
	Files           []File
	At              time.Time
	// Latency is the time from the interaction reaching the client to the
	// callback arriving.
	Latency time.Duration
}

// Pending is an interaction the server dispatched; it gives access to the
// bot's answers. Safe for concurrent use.
type Pending struct {
	s  *Server
	it *interaction
}

// ID returns the interaction id ("" for a Dispatch payload without one).
func (p *Pending) ID() string { return p.it.id }

// Token returns the interaction token.
func (p *Pending) Token() string { return p.it.token }

// Payload returns the INTERACTION_CREATE d object as sent.
func (p *Pending) Payload() json.RawMessage { return append(json.RawMessage(nil), p.it.payload...) }

// Delivered reports whether the interaction was written to a client yet.
func (p *Pending) Delivered() bool {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	return !p.it.deliveredAt.IsZero()
}

// Responded returns the initial callback if the bot made one.
func (p *Pending) Responded() (Response, bool) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if p.it.response == nil {
		return Response{}, false
	}
	return *p.it.response, true
}

// Response waits for the initial callback until ctx ends (then it returns
// ctx's error).
func (p *Pending) Response(ctx context.Context) (Response, error) {
	var r Response
	err := p.s.wait(ctx, func() bool {
		if p.it.response != nil {
			r = *p.it.response
			return true
		}
		return false
	})
	return r, err
}

// Original returns the message @original refers to: the reply created by a
// type 4 or 5 callback, or for type 6 and 7 the component's message. ok is
// false before such a callback (or when the component's message is unknown).
func (p *Pending) Original() (Message, bool) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if p.it.original == nil {
		return Message{}, false
	}
	return p.s.snapshotLocked(p.it.original), true
}

// Followups returns the follow-up messages created with this interaction's
// token, oldest first (edits and deletions reflected).
func (p *Pending) Followups() []Message {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	out := make([]Message, 0, len(p.it.followups))
	for _, m := range p.it.followups {
		out = append(out, p.s.snapshotLocked(m))
	}
	return out
}

// SlashCommand dispatches a CHAT_INPUT command interaction (type 2) from
// user in channelID of guildID (guildID "" makes it a bot-DM interaction with
// "user" instead of "member"). name is the command; subcommands and groups
// are Options of type SUB_COMMAND / SUB_COMMAND_GROUP holding their own
// Options. data.id is the registered command's id when one exists by that
// name. user is completed from the guild's member list (username,
// permissions) when fields are empty.
func (s *Server) SlashCommand(guildID, channelID string, user Member, name string, options ...Option) *Pending {
	return s.commandInteraction(2, guildID, channelID, user, name, options)
}

// Autocomplete dispatches an APPLICATION_COMMAND_AUTOCOMPLETE interaction
// (type 4), shaped like SlashCommand. The option with Focused set is the one
// being typed; when none is, the last value option is marked focused.
func (s *Server) Autocomplete(guildID, channelID string, user Member, name string, options ...Option) *Pending {
	if !markFocused(options) {
		options = append([]Option(nil), options...)
		focusLast(options)
	}
	return s.commandInteraction(4, guildID, channelID, user, name, options)
}

func markFocused(opts []Option) bool {
	for _, o := range opts {
		if o.Focused || markFocused(o.Options) {
			return true
		}
	}
	return false
}

// focusLast sets Focused on the last value option, descending into the last
// subcommand; it copies the slices it changes.
func focusLast(opts []Option) {
	if len(opts) == 0 {
		return
	}
	last := &opts[len(opts)-1]
	if last.Type == discordgo.ApplicationCommandOptionSubCommand || last.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
		last.Options = append([]Option(nil), last.Options...)
		focusLast(last.Options)
		return
	}
	last.Focused = true
}

func (s *Server) commandInteraction(typ int, guildID, channelID string, user Member, name string, options []Option) *Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := newResolved()
	data := map[string]any{"name": name, "type": 1}
	cmdID, guildScoped := s.commandIDLocked(guildID, name)
	if cmdID == "" {
		cmdID = s.newIDLocked()
	}
	data["id"] = cmdID
	if guildScoped {
		data["guild_id"] = guildID
	}
	data["options"] = s.buildOptionsLocked(guildID, options, res)
	if r := res.json(); r != nil {
		data["resolved"] = r
	}
	return s.interactionLocked(typ, guildID, channelID, user, data, nil)
}

// Component dispatches a MESSAGE_COMPONENT interaction (type 3) for the
// component customID on messageID. The interaction's "message" is the
// message as the server holds it (components included), or a minimal
// stand-in when the server does not know it. component_type is taken from
// the stored component with that custom_id; otherwise it is 3 (string
// select) when values are given and 2 (button) when not. values are sent for
// selects only.
func (s *Server) Component(guildID, channelID string, user Member, messageID, customID string, values ...string) *Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	var msgJSON any
	ctype := 2
	if len(values) > 0 {
		ctype = 3
	}
	if m := s.messages[messageID]; m != nil {
		msgJSON = s.rawMessageLocked(m)
		if t, ok := findComponentType(m.components, customID); ok {
			ctype = t
		}
	} else {
		msgJSON = map[string]any{"id": messageID, "channel_id": channelID, "type": 0, "content": "", "flags": 0,
			"timestamp": s.opts.Now().UTC().Format(timestampLayout), "edited_timestamp": nil,
			"author": s.botUserJSON(), "embeds": []any{}, "components": []any{}, "attachments": []any{},
			"mentions": []any{}, "mention_roles": []any{}}
	}
	data := map[string]any{"custom_id": customID, "component_type": ctype}
	if ctype != 2 {
		if values == nil {
			values = []string{}
		}
		data["values"] = values
	}
	p := s.interactionLocked(3, guildID, channelID, user, data, msgJSON)
	p.it.messageID = messageID
	return p
}

// ModalSubmit dispatches a MODAL_SUBMIT interaction (type 5) for the modal
// customID with text inputs fields (text input custom_id → value, one action
// row each, in sorted key order). messageID, when not "", is the message
// whose component opened the modal (it is attached as "message").
func (s *Server) ModalSubmit(guildID, channelID string, user Member, messageID, customID string, fields map[string]string) *Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([]any, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, map[string]any{"type": 1, "components": []any{
			map[string]any{"type": 4, "custom_id": k, "value": fields[k]}}})
	}
	data := map[string]any{"custom_id": customID, "components": rows}
	var msgJSON any
	if m := s.messages[messageID]; m != nil {
		msgJSON = s.rawMessageLocked(m)
	}
	p := s.interactionLocked(5, guildID, channelID, user, data, msgJSON)
	p.it.messageID = messageID
	return p
}

// Dispatch sends raw verbatim as the d of an INTERACTION_CREATE frame, for
// forged or malformed payloads. When raw is a JSON object with string "id"
// and "token", the server registers the interaction so callbacks and
// webhooks with that token work (type, guild_id, channel_id and message.id
// are read when present). Invalid JSON is sent as is (discordgo then fails
// to decode the whole frame).
func (s *Server) Dispatch(raw json.RawMessage) *Pending { return s.dispatchRaw(raw, -1) }

// DispatchToShard is Dispatch to the session of shard, whatever the
// interaction's guild: what Discord never does, for tests of a deployment
// whose processes disagree with Discord about which servers they serve
// (the interaction is queued while that shard has no ready session).
func (s *Server) DispatchToShard(shard int, raw json.RawMessage) *Pending {
	return s.dispatchRaw(raw, shard)
}

func (s *Server) dispatchRaw(raw json.RawMessage, shard int) *Pending {
	var head struct {
		ID        string `json:"id"`
		Token     string `json:"token"`
		Type      int    `json:"type"`
		GuildID   string `json:"guild_id"`
		ChannelID string `json:"channel_id"`
		Message   struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	_ = json.Unmarshal(raw, &head)
	it := &interaction{id: head.ID, token: head.Token, typ: head.Type, guildID: head.GuildID,
		channelID: head.ChannelID, messageID: head.Message.ID, payload: append([]byte(nil), raw...)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if shard >= 0 && shard < len(s.gw.shards) {
		it.toShard = shard + 1
	}
	if it.id != "" && it.token != "" {
		s.interactions[it.id] = it
		s.byToken[it.token] = it
	}
	s.dispatchLocked("INTERACTION_CREATE", it.payload, it)
	return &Pending{s: s, it: it}
}

func (s *Server) interactionLocked(typ int, guildID, channelID string, user Member, data map[string]any, msg any) *Pending {
	id := s.newIDLocked()
	token := "itoken-" + id
	if m, ok := s.memberLocked(guildID, user.ID); ok {
		if user.Username == "" {
			user.Username = m.Username
		}
		if user.GlobalName == "" {
			user.GlobalName = m.GlobalName
		}
		if user.Nick == "" {
			user.Nick = m.Nick
		}
		if user.Permissions == 0 {
			user.Permissions = m.Permissions
		}
		if user.Locale == "" {
			user.Locale = m.Locale
		}
	}
	user = fillMember(user)
	guildLocale := "en-US"
	if g := s.guildIdx[guildID]; g != nil {
		guildLocale = g.Locale
	}
	d := map[string]any{
		"id":                    id,
		"application_id":        s.opts.AppID,
		"type":                  typ,
		"token":                 token,
		"version":               1,
		"channel_id":            channelID,
		"locale":                user.Locale,
		"entitlements":          []any{},
		"app_permissions":       strconv.FormatInt(s.appPermsLocked(channelID), 10),
		"data":                  data,
		"attachment_size_limit": 10 << 20,
	}
	if guildID != "" {
		d["guild_id"] = guildID
		d["guild_locale"] = guildLocale
		d["context"] = 0
		d["authorizing_integration_owners"] = map[string]any{"0": guildID}
		d["member"] = memberJSON(user, true)
	} else {
		d["context"] = 1
		d["authorizing_integration_owners"] = map[string]any{"0": "0"}
		d["user"] = userJSON(user)
	}
	if msg != nil {
		d["message"] = msg
	}
	it := &interaction{id: id, token: token, typ: typ, guildID: guildID, channelID: channelID,
		userID: user.ID, payload: mustJSON(d)}
	s.interactions[id] = it
	s.byToken[token] = it
	s.dispatchLocked("INTERACTION_CREATE", it.payload, it)
	return &Pending{s: s, it: it}
}

func findComponentType(raw json.RawMessage, customID string) (int, bool) {
	var comps []map[string]any
	if json.Unmarshal(raw, &comps) != nil {
		return 0, false
	}
	var walk func([]map[string]any) (int, bool)
	walk = func(items []map[string]any) (int, bool) {
		for _, c := range items {
			if id, _ := str(c, "custom_id"); id == customID && id != "" {
				t, _ := num(c, "type")
				return int(t), true
			}
			if t, ok := walk(list(c, "components")); ok {
				return t, true
			}
			if acc, ok := c["accessory"].(map[string]any); ok {
				if t, ok := walk([]map[string]any{acc}); ok {
					return t, true
				}
			}
		}
		return 0, false
	}
	return walk(comps)
}

type resolved struct {
	users, members, channels, roles, attachments map[string]any
}

func newResolved() *resolved {
	return &resolved{users: map[string]any{}, members: map[string]any{}, channels: map[string]any{},
		roles: map[string]any{}, attachments: map[string]any{}}
}

func (r *resolved) json() map[string]any {
	out := map[string]any{}
	for k, v := range map[string]map[string]any{"users": r.users, "members": r.members,
		"channels": r.channels, "roles": r.roles, "attachments": r.attachments} {
		if len(v) > 0 {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (s *Server) buildOptionsLocked(guildID string, opts []Option, res *resolved) []map[string]any {
	out := make([]map[string]any, 0, len(opts))
	for _, o := range opts {
		m := map[string]any{"name": o.Name, "type": int(o.Type)}
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
			m["options"] = s.buildOptionsLocked(guildID, o.Options, res)
			out = append(out, m)
			continue
		case discordgo.ApplicationCommandOptionUser:
			m["value"] = s.resolveUserLocked(guildID, o.Value, res)
		case discordgo.ApplicationCommandOptionChannel:
			m["value"] = s.resolveChannelLocked(o.Value, res)
		case discordgo.ApplicationCommandOptionRole:
			id := fmt.Sprint(o.Value)
			res.roles[id] = map[string]any{"id": id, "name": "role-" + id, "permissions": "0", "position": 1,
				"color": 0, "hoist": false, "managed": false, "mentionable": true}
			m["value"] = id
		case discordgo.ApplicationCommandOptionMentionable:
			id := fmt.Sprint(o.Value)
			if _, ok := s.memberLocked(guildID, id); ok {
				m["value"] = s.resolveUserLocked(guildID, id, res)
			} else {
				res.roles[id] = map[string]any{"id": id, "name": "role-" + id, "permissions": "0", "position": 1}
				m["value"] = id
			}
		case discordgo.ApplicationCommandOptionAttachment:
			m["value"] = s.resolveAttachmentLocked(o.Value, res)
		default:
			m["value"] = o.Value
		}
		if o.Focused {
			m["focused"] = true
		}
		out = append(out, m)
	}
	return out
}

func (s *Server) resolveUserLocked(guildID string, v any, res *resolved) string {
	var mem Member
	switch x := v.(type) {
	case Member:
		mem = x
	default:
		mem.ID = fmt.Sprint(v)
	}
	if known, ok := s.memberLocked(guildID, mem.ID); ok && mem.Username == "" {
		mem = known
	}
	mem = fillMember(mem)
	res.users[mem.ID] = userJSON(mem)
	if guildID != "" {
		mj := memberJSON(mem, true)
		delete(mj, "user")
		res.members[mem.ID] = mj
	}
	return mem.ID
}

func (s *Server) resolveChannelLocked(v any, res *resolved) string {
	var c Channel
	switch x := v.(type) {
	case Channel:
		c = x
	default:
		c.ID = fmt.Sprint(v)
	}
	o := map[string]any{"id": c.ID, "type": c.Type, "name": c.Name,
		"permissions": strconv.FormatInt(s.appPermsLocked(c.ID), 10)}
	if ref, ok := s.chanIdx[c.ID]; ok {
		o = channelJSON(ref.guild, ref.ch)
		o["permissions"] = strconv.FormatInt(s.appPermsLocked(c.ID), 10)
	} else if c.Name == "" {
		o["name"] = "channel-" + c.ID
	}
	res.channels[c.ID] = o
	return c.ID
}

func (s *Server) resolveAttachmentLocked(v any, res *resolved) string {
	var a Attachment
	switch x := v.(type) {
	case Attachment:
		a = x
	case *Attachment:
		a = *x
	default:
		a.Filename = fmt.Sprint(v)
		if f, ok := s.files[a.Filename]; ok {
			a.Data = f.data
			a.ContentType = f.contentType
		}
	}
	id := s.newIDLocked()
	if a.ContentType == "" {
		a.ContentType = mime.TypeByExtension(path.Ext(a.Filename))
	}
	if a.ContentType == "" {
		a.ContentType = "text/plain; charset=utf-8"
	}
	if a.Size == 0 {
		a.Size = len(a.Data)
	}
	var u string
	if _, isName := v.(string); isName {
		u = s.url + "/files/" + a.Filename
	} else {
		u = s.addFileLocked("attachments/"+id+"/"+a.Filename, a.ContentType, a.Data)
	}
	res.attachments[id] = map[string]any{"id": id, "filename": a.Filename, "size": a.Size, "url": u,
		"proxy_url": u, "content_type": a.ContentType, "ephemeral": true}
	return id
}

// callbackLocked serves POST /interactions/{id}/{token}/callback.
func (s *Server) callbackLocked(req *Request, id, token string, obj map[string]json.RawMessage) reply {
	it := s.interactions[id]
	unknown := errReply(http.StatusNotFound, 10062, "Unknown interaction")
	if it == nil || it.token != token || it.deliveredAt.IsZero() {
		s.violationLocked("%s %s: 10062 Unknown interaction", req.Method, req.Path)
		return unknown
	}
	if it.response != nil {
		s.violationLocked("%s %s: 40060 Interaction has already been acknowledged", req.Method, req.Path)
		return errReply(http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
	}
	if d := s.opts.CallbackDeadline; d > 0 && req.At.Sub(it.deliveredAt) > d {
		s.violationLocked("%s %s: 10062 Unknown interaction (callback %v after delivery, deadline %v)",
			req.Method, req.Path, req.At.Sub(it.deliveredAt).Round(time.Millisecond), d)
		return unknown
	}
	if obj == nil {
		return s.rejectLocked(req, badJSON())
	}
	var typ int
	if json.Unmarshal(obj["type"], &typ) != nil {
		return s.rejectLocked(req, &formError{code: 50035, message: "Invalid Form Body",
			fields: []fieldError{{path: []string{"type"}, code: "BASE_TYPE_REQUIRED", msg: "This field is required"}}})
	}
	dataRaw := obj["data"]
	var data map[string]json.RawMessage
	_ = json.Unmarshal(dataRaw, &data)
	if data == nil {
		data = map[string]json.RawMessage{}
	}
	// The data as values, for the checks that read it (autocomplete
	// results, modals): decoded only for those.
	dataAny := func() map[string]any {
		var v map[string]any
		_ = json.Unmarshal(dataRaw, &v)
		return v
	}

	allowed := false
	switch typ {
	case 4, 5:
		allowed = it.typ == 2 || it.typ == 3 || it.typ == 5
	case 6, 7:
		allowed = it.typ == 3 || (it.typ == 5 && it.messageID != "")
	case 8:
		allowed = it.typ == 4
	case 9:
		allowed = it.typ == 2 || it.typ == 3
	}
	if !allowed {
		return s.rejectLocked(req, &formError{code: 50035, message: "Invalid Form Body",
			fields: []fieldError{{path: []string{"type"}, code: "INTERACTION_RESPONSE_TYPE_INVALID",
				msg: fmt.Sprintf("Callback type %d is not valid for interaction type %d", typ, it.typ)}}})
	}
	var fe *formError
	switch typ {
	case 4:
		fe = validateMessage(data, len(req.Files), true)
	case 7:
		fe = validateMessage(data, len(req.Files), false)
	case 8:
		fe = validateChoices(map[string]any{"data": nil, "choices": dataAny()["choices"]})
	case 9:
		fe = validateModal(dataAny())
	}
	if fe != nil {
		prefixed := *fe
		prefixed.fields = nil
		for _, f := range fe.fields {
			if len(f.path) > 0 && f.path[0] != "data" {
				f.path = append([]string{"data"}, f.path...)
			}
			prefixed.fields = append(prefixed.fields, f)
		}
		return s.rejectLocked(req, &prefixed)
	}

	resp := &Response{Type: discordgo.InteractionResponseType(typ), At: req.At, Latency: req.At.Sub(it.deliveredAt), Files: req.Files}
	if isSet(dataRaw) {
		resp.Data = append(json.RawMessage(nil), dataRaw...)
	}
	_ = json.Unmarshal(data["content"], &resp.Content)
	_ = json.Unmarshal(data["flags"], &resp.Flags)
	_ = json.Unmarshal(data["embeds"], &resp.Embeds)
	resp.Components = decodeComponents(data["components"])
	if isSet(data["allowed_mentions"]) {
		resp.AllowedMentions = &discordgo.MessageAllowedMentions{}
		_ = json.Unmarshal(data["allowed_mentions"], resp.AllowedMentions)
	}
	_ = json.Unmarshal(data["choices"], &resp.Choices)
	_ = json.Unmarshal(data["custom_id"], &resp.CustomID)
	_ = json.Unmarshal(data["title"], &resp.Title)
	it.response = resp

	switch typ {
	case 4:
		m := s.newMessageLocked(it.channelID, data, req.Files)
		s.markOriginal(m, it)
	case 5:
		var flags int64
		_ = json.Unmarshal(data["flags"], &flags)
		m := s.newMessageLocked(it.channelID, map[string]json.RawMessage{}, nil)
		m.flags = flags&flagEphemeral | flagLoading
		s.markOriginal(m, it)
	case 6, 7:
		if m := s.messages[it.messageID]; m != nil && !m.deleted {
			if typ == 7 {
				s.editMessageLocked(m, data, req.Files)
			}
			it.original = m
		}
	}
	return noContent()
}

func (s *Server) markOriginal(m *message, it *interaction) {
	m.original = true
	m.token = it.token
	m.interactionID = it.id
	m.userID = it.userID
	if it.typ == 2 {
		m.typ = 20 // CHAT_INPUT_COMMAND
	}
	it.original = m
}
