package fakediscord

import (
	"encoding/json"
	"mime"
	"path"
	"time"

	"github.com/bwmarrin/discordgo"
)

const (
	flagSuppressEmbeds = 1 << 2
	flagEphemeral      = 1 << 6
	flagLoading        = 1 << 7
	flagComponentsV2   = 1 << 15
)

const timestampLayout = "2006-01-02T15:04:05.000000-07:00"

// message is a message as the server holds it. Embeds, components and
// allowed_mentions are kept as the raw JSON the bot sent, so they are echoed
// back exactly.
type message struct {
	id, channelID, guildID string
	typ                    int
	content                string
	tts                    bool
	embeds                 json.RawMessage
	components             json.RawMessage
	allowedMentions        json.RawMessage
	flags                  int64
	attachments            []attachment
	created                time.Time
	edited                 time.Time
	edits                  int
	token                  string // interaction token that created it
	interactionID          string
	userID                 string // who made that interaction
	webhook                bool
	original               bool
	deleted                bool
	// replyTo is the message this one replies to (its message_reference);
	// "" for none.
	replyTo string

	// The message as served (raw) and as a snapshot (snap), made once for
	// the state they were made of (cachedAt): tests wait on a message by
	// looking at it after every change to the server, most of them
	// changes to other messages.
	cachedAt msgState
	raw      json.RawMessage
	snap     *Message
}

// msgState is what of a message can change once the request that created
// it is answered: an edit (any change of its content, embeds, components,
// attachments or flags counts one), its deletion. The rest is set while
// it is created, under the same lock, before anyone can look.
type msgState struct {
	edits   int
	deleted bool
}

func (m *message) state() msgState { return msgState{edits: m.edits, deleted: m.deleted} }

// cacheLocked drops what was made of an earlier state of m.
func (m *message) cacheLocked() {
	if st := m.state(); st != m.cachedAt {
		m.cachedAt, m.raw, m.snap = st, nil, nil
	}
}

type attachment struct {
	ID, Filename, ContentType, URL string
	Size                           int
}

// Message is a snapshot of a message the bot created, through any route.
// Snapshots of a message taken while it did not change share their
// decoded values and JSON: treat them as read-only.
type Message struct {
	ID, ChannelID, GuildID string
	Content                string
	// Embeds and Components are decoded with discordgo's own types
	// (components as pointers: *discordgo.ActionsRow, *discordgo.SelectMenu,
	// *discordgo.Button). RawEmbeds and RawComponents are the JSON as sent.
	Embeds        []*discordgo.MessageEmbed
	Components    []discordgo.MessageComponent
	RawEmbeds     json.RawMessage
	RawComponents json.RawMessage
	Flags         discordgo.MessageFlags
	// AllowedMentions is nil when the bot sent none; Parse is nil for
	// "parse":null and empty for "parse":[].
	AllowedMentions    *discordgo.MessageAllowedMentions
	RawAllowedMentions json.RawMessage
	Attachments        []*discordgo.MessageAttachment // files uploaded with it, served by the server
	// InteractionID is the interaction whose token created the message
	// (callback, @original or follow-up); "" for channel messages.
	InteractionID string
	// UserID is the member whose interaction created the message: the only
	// one who sees it when it is ephemeral. "" for channel messages.
	UserID    string
	Original  bool // the interaction's @original response
	Webhook   bool // a follow-up made through the webhook route
	Deleted   bool
	Edits     int // successful edits so far
	CreatedAt time.Time
	EditedAt  time.Time // zero until edited
	// Reference is the message this one replies to, as Discord serves a
	// reply's message_reference; nil when it is no reply.
	Reference *discordgo.MessageReference
	// JSON is the message object as the server serves it.
	JSON json.RawMessage
}

// Ephemeral reports whether the message has the EPHEMERAL flag.
func (m Message) Ephemeral() bool { return m.Flags&flagEphemeral != 0 }

// Loading reports whether the message is still a deferred "thinking…"
// placeholder (LOADING flag, cleared by the first edit).
func (m Message) Loading() bool { return m.Flags&flagLoading != 0 }

func (s *Server) newMessageLocked(channelID string, obj map[string]json.RawMessage, files []File) *message {
	m := &message{id: s.newIDLocked(), channelID: channelID, created: s.opts.Now(),
		embeds: json.RawMessage("[]"), components: json.RawMessage("[]")}
	if ref, ok := s.chanIdx[channelID]; ok {
		m.guildID = ref.guild.ID
	}
	var content string
	_ = json.Unmarshal(obj["content"], &content)
	m.content = content
	_ = json.Unmarshal(obj["tts"], &m.tts)
	if isSet(obj["embeds"]) {
		m.embeds = obj["embeds"]
	}
	if isSet(obj["components"]) {
		m.components = obj["components"]
	}
	if isSet(obj["allowed_mentions"]) {
		m.allowedMentions = obj["allowed_mentions"]
	}
	var flags int64
	_ = json.Unmarshal(obj["flags"], &flags)
	m.flags = flags & (flagSuppressEmbeds | flagEphemeral | flagComponentsV2)
	m.attachments = s.storeFilesLocked(files)
	s.messages[m.id] = m
	s.channelMsgs[channelID] = append(s.channelMsgs[channelID], m)
	s.allMsgs = append(s.allMsgs, m)
	return m
}

// editMessageLocked applies a PATCH body: present fields replace, null
// clears (as Discord documents for message edits), absent fields stay.
func (s *Server) editMessageLocked(m *message, obj map[string]json.RawMessage, files []File) {
	if raw, ok := obj["content"]; ok {
		var c string
		_ = json.Unmarshal(raw, &c)
		m.content = c
	}
	if raw, ok := obj["embeds"]; ok {
		m.embeds = json.RawMessage("[]")
		if isSet(raw) {
			m.embeds = raw
		}
	}
	if raw, ok := obj["components"]; ok {
		m.components = json.RawMessage("[]")
		if isSet(raw) {
			m.components = raw
		}
	}
	if raw, ok := obj["allowed_mentions"]; ok {
		m.allowedMentions = nil
		if isSet(raw) {
			m.allowedMentions = raw
		}
	}
	if raw, ok := obj["flags"]; ok && isSet(raw) {
		var f int64
		_ = json.Unmarshal(raw, &f)
		m.flags = m.flags&^flagSuppressEmbeds | f&flagSuppressEmbeds
	}
	if raw, ok := obj["attachments"]; ok {
		var keep []struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(raw, &keep)
		ids := map[string]bool{}
		for _, k := range keep {
			var id string
			if json.Unmarshal(k.ID, &id) != nil {
				id = string(k.ID)
			}
			ids[id] = true
		}
		kept := m.attachments[:0:0]
		for _, a := range m.attachments {
			if ids[a.ID] {
				kept = append(kept, a)
			}
		}
		m.attachments = kept
	}
	m.attachments = append(m.attachments, s.storeFilesLocked(files)...)
	m.flags &^= flagLoading
	m.edits++
	m.edited = s.opts.Now()
}

func (s *Server) storeFilesLocked(files []File) []attachment {
	var out []attachment
	for _, f := range files {
		id := s.newIDLocked()
		ct := f.ContentType
		if ct == "" || ct == "application/octet-stream" {
			if g := mime.TypeByExtension(path.Ext(f.Name)); g != "" {
				ct = g
			}
		}
		u := s.addFileLocked("attachments/"+id+"/"+f.Name, ct, f.Data)
		out = append(out, attachment{ID: id, Filename: f.Name, ContentType: ct, URL: u, Size: len(f.Data)})
	}
	return out
}

func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

func (s *Server) messageJSONLocked(m *message) map[string]any {
	atts := make([]map[string]any, 0, len(m.attachments))
	for _, a := range m.attachments {
		atts = append(atts, map[string]any{"id": a.ID, "filename": a.Filename, "size": a.Size,
			"url": a.URL, "proxy_url": a.URL, "content_type": a.ContentType})
	}
	o := map[string]any{
		"id":               m.id,
		"channel_id":       m.channelID,
		"type":             m.typ,
		"content":          m.content,
		"timestamp":        m.created.UTC().Format(timestampLayout),
		"edited_timestamp": nil,
		"tts":              m.tts,
		"mention_everyone": false,
		"mentions":         []any{},
		"mention_roles":    []any{},
		"attachments":      atts,
		"embeds":           m.embeds,
		"components":       m.components,
		"pinned":           false,
		"flags":            m.flags,
		"author":           s.botUserJSON(),
	}
	if m.guildID != "" {
		o["guild_id"] = m.guildID
	}
	if !m.edited.IsZero() {
		o["edited_timestamp"] = m.edited.UTC().Format(timestampLayout)
	}
	if m.token != "" {
		o["webhook_id"] = s.opts.AppID
		o["application_id"] = s.opts.AppID
	}
	if ref := s.messages[m.replyTo]; ref != nil {
		o["message_reference"] = map[string]any{"type": 0, "message_id": ref.id, "channel_id": ref.channelID, "guild_id": ref.guildID}
	}
	return o
}

// rawMessageLocked is messageJSONLocked encoded: the body of a REST reply
// that returns m. The caller must not modify it.
func (s *Server) rawMessageLocked(m *message) json.RawMessage {
	m.cacheLocked()
	if m.raw == nil {
		m.raw = mustJSON(s.messageJSONLocked(m))
	}
	return m.raw
}

// snapshotLocked is m as a Message. Snapshots of one state of a message
// share their decoded values (Embeds, Components, AllowedMentions,
// Attachments, Reference) and JSON: read-only, as Request.JSON is.
func (s *Server) snapshotLocked(m *message) Message {
	raw := s.rawMessageLocked(m) // renews the cache for m's state
	if m.snap != nil {
		return *m.snap
	}
	out := Message{
		ID: m.id, ChannelID: m.channelID, GuildID: m.guildID, Content: m.content,
		RawEmbeds: m.embeds, RawComponents: m.components, RawAllowedMentions: m.allowedMentions,
		Flags: discordgo.MessageFlags(m.flags), InteractionID: m.interactionID, UserID: m.userID, Original: m.original,
		Webhook: m.webhook, Deleted: m.deleted, Edits: m.edits, CreatedAt: m.created, EditedAt: m.edited,
		JSON: raw,
	}
	_ = json.Unmarshal(m.embeds, &out.Embeds)
	out.Components = decodeComponents(m.components)
	if ref := s.messages[m.replyTo]; ref != nil {
		out.Reference = &discordgo.MessageReference{MessageID: ref.id, ChannelID: ref.channelID, GuildID: ref.guildID}
	}
	if m.allowedMentions != nil {
		out.AllowedMentions = &discordgo.MessageAllowedMentions{}
		_ = json.Unmarshal(m.allowedMentions, out.AllowedMentions)
	}
	for _, a := range m.attachments {
		out.Attachments = append(out.Attachments, &discordgo.MessageAttachment{ID: a.ID, URL: a.URL, ProxyURL: a.URL,
			Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	m.snap = &out
	return out
}

// decodeComponents decodes a components array with discordgo; elements it
// cannot decode are left out.
func decodeComponents(raw json.RawMessage) []discordgo.MessageComponent {
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	out := make([]discordgo.MessageComponent, 0, len(parts))
	for _, p := range parts {
		if c, err := discordgo.MessageComponentFromJSON(p); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// Message returns the message messageID of channelID as the server holds it
// (deleted and ephemeral messages included; see Message.Deleted).
func (s *Server) Message(channelID, messageID string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[messageID]
	if m == nil || m.channelID != channelID {
		return Message{}, false
	}
	return s.snapshotLocked(m), true
}

// Messages returns every message created in channelID, oldest first,
// including ephemeral, interaction and deleted ones.
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, 0, len(s.channelMsgs[channelID]))
	for _, m := range s.channelMsgs[channelID] {
		out = append(out, s.snapshotLocked(m))
	}
	return out
}

// AllMessages returns every message the bot created, in any channel (direct
// messages included), oldest first, in their current state (see Messages).
func (s *Server) AllMessages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, 0, len(s.allMsgs))
	for _, m := range s.allMsgs {
		out = append(out, s.snapshotLocked(m))
	}
	return out
}
