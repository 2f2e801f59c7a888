package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

//go:embed assets
var assets embed.FS

// respondWait bounds how long an action waits for the bot's initial
// response: Discord's 3 s and a little.
const respondWait = 3500 * time.Millisecond

// maxAction bounds an action's request body (an attached bank file
// included): Discord's attachment limit for bots is 10 MiB, the bot's 1 MiB.
const maxAction = 12 << 20

func (sb *Sandbox) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /static/", cacheAssets(http.StripPrefix("/static/", http.FileServerFS(static))))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/channels/"+quizChannel+"?as="+simulatedMembers()[0].ID, http.StatusSeeOther)
	})
	mux.HandleFunc("GET /channels/{channel}", sb.page)
	mux.HandleFunc("GET /events", fromPage(sb.log, sb.events))
	mux.HandleFunc("POST /api/command", jsonAPI(sb.log, sb.command))
	mux.HandleFunc("POST /api/autocomplete", jsonAPI(sb.log, sb.autocomplete))
	mux.HandleFunc("POST /api/component", jsonAPI(sb.log, sb.component))
	mux.HandleFunc("POST /api/modal", jsonAPI(sb.log, sb.modal))
	mux.HandleFunc("POST /api/advance", jsonAPI(sb.log, sb.advance))
	mux.HandleFunc("GET /files/{name...}", sb.file)
	return securityHeaders(sb.hosts.guard(sb.log, mux))
}

// viewer resolves the ?as= member and the channel of a request; ok is false
// (and an error written) when either is unknown.
func viewer(w http.ResponseWriter, memberID, channelID string) (fakediscord.Member, bool) {
	if !knownChannel(channelID) {
		http.Error(w, "unknown channel", http.StatusNotFound)
		return fakediscord.Member{}, false
	}
	for _, m := range simulatedMembers() {
		if m.ID == memberID {
			return m, true
		}
	}
	http.Error(w, "unknown member", http.StatusBadRequest)
	return fakediscord.Member{}, false
}

func knownChannel(id string) bool {
	for _, c := range guild().Channels {
		if c.ID == id {
			return true
		}
	}
	return false
}

// page renders a channel as member ?as= sees it.
func (sb *Sandbox) page(w http.ResponseWriter, r *http.Request) {
	as := r.URL.Query().Get("as")
	if as == "" {
		as = simulatedMembers()[0].ID
	}
	m, ok := viewer(w, as, r.PathValue("channel"))
	if !ok {
		return
	}
	data := sb.pageData(r.PathValue("channel"), m, sb.clock.Now())
	var buf bytes.Buffer
	if err := sb.tmpl.Execute(&buf, data); err != nil {
		sb.log.Error("render page", "err", err)
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

// events streams one "change" event per change of the Discord server's
// state (coalesced while the page is slow to read), until the client goes
// or the sandbox stops.
func (sb *Sandbox) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	n := 0
	for {
		changed := sb.srv.Changed()
		sb.mu.Lock()
		jumped := sb.jumped
		sb.mu.Unlock()
		if _, err := fmt.Fprintf(w, "event: change\ndata: %d\n\n", n); err != nil {
			return
		}
		fl.Flush()
		n++
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-jumped:
		}
	}
}

// action is what the page posts for every interaction.
type action struct {
	Channel string `json:"channel"`
	As      string `json:"as"`
	// Command: the command name, the subcommand path and option values.
	Name    string        `json:"name"`
	Path    []string      `json:"path"`
	Options []actionValue `json:"options"`
	Focused string        `json:"focused"` // autocomplete: the option being typed
	// Component and modal.
	Message  string            `json:"message"`
	CustomID string            `json:"custom_id"`
	Values   []string          `json:"values"`
	Fields   map[string]string `json:"fields"`
}

type actionValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// File is an attachment's content (base64 in JSON).
	File []byte `json:"file"`
}

// outcome is what the page learns from an action.
type outcome struct {
	// Modal is the bot's modal (callback type 9): custom_id, title, components.
	Modal json.RawMessage `json:"modal,omitempty"`
	// Choices answer an autocomplete.
	Choices []*discordgo.ApplicationCommandOptionChoice `json:"choices,omitempty"`
	// Error is shown under the composer, as Discord shows "The application
	// did not respond".
	Error string `json:"error,omitempty"`
}

func (sb *Sandbox) readAction(w http.ResponseWriter, r *http.Request) (action, fakediscord.Member, bool) {
	var a action
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAction)).Decode(&a); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return a, fakediscord.Member{}, false
	}
	m, ok := viewer(w, a.As, a.Channel)
	return a, m, ok
}

func (sb *Sandbox) command(w http.ResponseWriter, r *http.Request) {
	a, m, ok := sb.readAction(w, r)
	if !ok {
		return
	}
	if why := sb.refusal(a.Name, m); why != "" {
		writeJSON(w, outcome{Error: why})
		return
	}
	opts, err := sb.buildOptions(a, "")
	if err != nil {
		writeJSON(w, outcome{Error: err.Error()})
		return
	}
	p := sb.srv.SlashCommand(guildID, a.Channel, m, a.Name, opts...)
	sb.mu.Lock()
	sb.calls[p.ID()] = call{userID: m.ID, command: "/" + strings.Join(append([]string{a.Name}, a.Path...), " ")}
	sb.mu.Unlock()
	writeJSON(w, sb.await(r.Context(), p))
}

func (sb *Sandbox) autocomplete(w http.ResponseWriter, r *http.Request) {
	a, m, ok := sb.readAction(w, r)
	if !ok {
		return
	}
	if why := sb.refusal(a.Name, m); why != "" {
		writeJSON(w, outcome{Error: why})
		return
	}
	opts, err := sb.buildOptions(a, a.Focused)
	if err != nil {
		writeJSON(w, outcome{Error: err.Error()})
		return
	}
	writeJSON(w, sb.await(r.Context(), sb.srv.Autocomplete(guildID, a.Channel, m, a.Name, opts...)))
}

func (sb *Sandbox) component(w http.ResponseWriter, r *http.Request) {
	a, m, ok := sb.readAction(w, r)
	if !ok {
		return
	}
	p := sb.srv.Component(guildID, a.Channel, m, a.Message, a.CustomID, a.Values...)
	sb.mu.Lock()
	sb.calls[p.ID()] = call{userID: m.ID}
	sb.mu.Unlock()
	writeJSON(w, sb.await(r.Context(), p))
}

func (sb *Sandbox) modal(w http.ResponseWriter, r *http.Request) {
	a, m, ok := sb.readAction(w, r)
	if !ok {
		return
	}
	p := sb.srv.ModalSubmit(guildID, a.Channel, m, a.Message, a.CustomID, a.Fields)
	sb.mu.Lock()
	sb.calls[p.ID()] = call{userID: m.ID}
	sb.mu.Unlock()
	writeJSON(w, sb.await(r.Context(), p))
}

// await waits for the bot's initial response to p.
func (sb *Sandbox) await(ctx context.Context, p *fakediscord.Pending) outcome {
	ctx, cancel := context.WithTimeout(ctx, respondWait)
	defer cancel()
	resp, err := p.Response(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return outcome{Error: "The application did not respond"}
	case err != nil:
		return outcome{Error: err.Error()}
	}
	switch resp.Type {
	case discordgo.InteractionResponseModal:
		return outcome{Modal: resp.Data}
	case discordgo.InteractionApplicationCommandAutocompleteResult:
		ch := resp.Choices
		if ch == nil {
			ch = []*discordgo.ApplicationCommandOptionChoice{}
		}
		return outcome{Choices: ch}
	}
	return outcome{}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// buildOptions turns the page's option values into typed options, using
// the registered command's definition for the types (the page is not
// trusted with them). focused names the option being typed, for
// autocomplete.
func (sb *Sandbox) buildOptions(a action, focused string) ([]fakediscord.Option, error) {
	defs, ok := commandOptions(sb.commands(), a.Name, a.Path)
	if !ok {
		return nil, fmt.Errorf("unknown command /%s", strings.Join(append([]string{a.Name}, a.Path...), " "))
	}
	var opts []fakediscord.Option
	for _, v := range a.Options {
		def, ok := defs[v.Name]
		if !ok {
			return nil, fmt.Errorf("unknown option %q", v.Name)
		}
		if v.Value == "" && v.File == nil && v.Name != focused {
			continue
		}
		o := fakediscord.Option{Name: v.Name, Type: def.Type, Focused: v.Name == focused}
		var err error
		switch def.Type {
		case discordgo.ApplicationCommandOptionInteger:
			var n int64
			n, err = strconv.ParseInt(strings.TrimSpace(v.Value), 10, 64)
			o.Value = n
		case discordgo.ApplicationCommandOptionNumber:
			var f float64
			f, err = strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
			o.Value = f
		case discordgo.ApplicationCommandOptionBoolean:
			var b bool
			b, err = strconv.ParseBool(v.Value)
			o.Value = b
		case discordgo.ApplicationCommandOptionAttachment:
			o.Value = fakediscord.Attachment{Filename: v.Value, Data: v.File}
		default:
			o.Value = v.Value
		}
		if err != nil {
			return nil, fmt.Errorf("option %s: %q is not a valid value", v.Name, v.Value)
		}
		opts = append(opts, o)
	}
	for i := len(a.Path) - 1; i >= 0; i-- {
		typ := discordgo.ApplicationCommandOptionSubCommand
		if i < len(a.Path)-1 {
			typ = discordgo.ApplicationCommandOptionSubCommandGroup
		}
		opts = []fakediscord.Option{{Name: a.Path[i], Type: typ, Options: opts}}
	}
	return opts, nil
}

// commandDef is the part of a registered command the page and the
// sandbox read. Registered commands come back as JSON from the server.
type commandDef struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Type        int         `json:"type"`
	Options     []optionDef `json:"options"`
	// DefaultMemberPermissions hides the command from members without
	// these permissions (a decimal string, or null).
	DefaultMemberPermissions *string `json:"default_member_permissions"`
}

type optionDef struct {
	Type         discordgo.ApplicationCommandOptionType `json:"type"`
	Name         string                                 `json:"name"`
	Description  string                                 `json:"description"`
	Required     bool                                   `json:"required,omitempty"`
	Autocomplete bool                                   `json:"autocomplete,omitempty"`
	Choices      []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	} `json:"choices,omitempty"`
	MinValue *float64    `json:"min_value,omitempty"`
	MaxValue *float64    `json:"max_value,omitempty"`
	Options  []optionDef `json:"options,omitempty"`
}

func decodeCommands(raw []map[string]any) []commandDef {
	b, _ := json.Marshal(raw)
	var defs []commandDef
	_ = json.Unmarshal(b, &defs)
	return defs
}

// commands is the registered global commands, decoded. Every page render
// and command reads them, and they change only when the bot registers
// them: the decoding is kept until the server's commands change. The
// result is shared: callers must not change it.
func (sb *Sandbox) commands() []commandDef {
	v := sb.srv.CommandsVersion()
	sb.mu.Lock()
	if sb.defs != nil && sb.defsVersion == v {
		defer sb.mu.Unlock()
		return sb.defs
	}
	sb.mu.Unlock()
	defs := decodeCommands(sb.srv.Commands("")) // as of v or later: a later change reads them again
	if defs == nil {
		defs = []commandDef{}
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.defs, sb.defsVersion = defs, v
	return defs
}

// commandOptions finds the value options of /name path... by name.
func commandOptions(defs []commandDef, name string, path []string) (map[string]optionDef, bool) {
	for _, c := range defs {
		if c.Name != name {
			continue
		}
		opts := c.Options
		for _, p := range path {
			found := false
			for _, o := range opts {
				if o.Name == p && (o.Type == discordgo.ApplicationCommandOptionSubCommand || o.Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
					opts, found = o.Options, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
		out := map[string]optionDef{}
		for _, o := range opts {
			out[o.Name] = o
		}
		return out, true
	}
	return nil, false
}

// leafCommand is one command as the composer offers it: "/quizadmin daily
// set" with its value options.
type leafCommand struct {
	Name        string      `json:"name"`
	Path        []string    `json:"path"`
	Label       string      `json:"label"`
	Description string      `json:"description"`
	Options     []optionDef `json:"options"`
}

// missing names the permissions of a command's default_member_permissions
// that member lacks ("Manage Server"), or returns "" when they may use it.
// Discord hides such a command from the member (the picker does not offer
// it and typing it sends plain text); administrators see every command.
func (c commandDef) missing(m fakediscord.Member) string {
	if c.DefaultMemberPermissions == nil || m.Permissions&discordgo.PermissionAdministrator != 0 {
		return ""
	}
	need, err := strconv.ParseInt(*c.DefaultMemberPermissions, 10, 64)
	if err != nil || need == 0 { // "0": administrators only
		return permissionNames(discordgo.PermissionAdministrator)
	}
	return permissionNames(need &^ m.Permissions)
}

// permissionNames names permission bits as Discord's server settings do.
func permissionNames(bits int64) string {
	known := []struct {
		bit  int64
		name string
	}{
		{discordgo.PermissionAdministrator, "Administrator"},
		{discordgo.PermissionManageGuild, "Manage Server"},
		{discordgo.PermissionManageChannels, "Manage Channels"},
		{discordgo.PermissionManageRoles, "Manage Roles"},
		{discordgo.PermissionManageMessages, "Manage Messages"},
		{discordgo.PermissionKickMembers, "Kick Members"},
		{discordgo.PermissionBanMembers, "Ban Members"},
	}
	var names []string
	for _, k := range known {
		if bits&k.bit != 0 {
			names = append(names, k.name)
			bits &^= k.bit
		}
	}
	if bits != 0 {
		names = append(names, fmt.Sprintf("permission bits %d", bits))
	}
	return strings.Join(names, ", ")
}

// refusal says why member may not use the registered command name, ""
// when they may (or no such command exists: buildOptions says so).
func (sb *Sandbox) refusal(name string, m fakediscord.Member) string {
	for _, c := range sb.commands() {
		if c.Name == name {
			return c.refusal(m)
		}
	}
	return ""
}

// refusal tells a member why they cannot use c, as the page shows it under
// the composer, and names a member who can; "" when they can.
func (c commandDef) refusal(m fakediscord.Member) string {
	need := c.missing(m)
	if need == "" {
		return ""
	}
	msg := fmt.Sprintf("/%s needs the %s permission, which %s does not have: Discord hides it from them.",
		c.Name, need, m.GlobalName)
	for _, o := range simulatedMembers() {
		if c.missing(o) == "" {
			return msg + " Act as " + o.GlobalName + " to use it."
		}
	}
	return msg
}

// hiddenCommand is a command Discord hides from the member, for the
// composer to explain when they type it anyway.
type hiddenCommand struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// hiddenCommands lists the registered commands member lacks a permission
// for.
func hiddenCommands(defs []commandDef, m fakediscord.Member) []hiddenCommand {
	out := []hiddenCommand{}
	for _, c := range defs {
		if why := c.refusal(m); why != "" && (c.Type == 0 || c.Type == 1) {
			out = append(out, hiddenCommand{Name: c.Name, Message: why})
		}
	}
	return out
}

// leafCommands flattens the registered slash commands that member may see
// (Discord hides a command whose default_member_permissions the member
// lacks, unless they are an administrator).
func leafCommands(defs []commandDef, m fakediscord.Member) []leafCommand {
	var out []leafCommand
	for _, c := range defs {
		if c.Type != 0 && c.Type != 1 {
			continue
		}
		if c.missing(m) != "" {
			continue
		}
		var walk func(path []string, desc string, opts []optionDef)
		walk = func(path []string, desc string, opts []optionDef) {
			var subs []optionDef
			for _, o := range opts {
				if o.Type == discordgo.ApplicationCommandOptionSubCommand || o.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
					subs = append(subs, o)
				}
			}
			if len(subs) == 0 {
				out = append(out, leafCommand{Name: c.Name, Path: path, Description: desc, Options: opts,
					Label: "/" + strings.Join(append([]string{c.Name}, path...), " ")})
				return
			}
			for _, s := range subs {
				walk(append(append([]string(nil), path...), s.Name), s.Description, s.Options)
			}
		}
		walk(nil, c.Description, c.Options)
	}
	return out
}

// pageURL is the page of channel as member.
func pageURL(channel, member string) string {
	return "/channels/" + channel + "?as=" + url.QueryEscape(member)
}

// assetVersion names this build's assets (every file /static/ serves,
// by name and content): the page asks for its script and style sheet as
// /static/<file>?v=<assetVersion>, so a browser keeps them between pages
// and reloads (channels) and still fetches them anew after an upgrade
// changed any of them.
var assetVersion = func() string {
	h := sha256.New()
	err := fs.WalkDir(assets, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(name)
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		panic(err) // embedded at build time
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}()

// cacheAssets lets browsers keep the assets: for a year when asked for as
// this build's version (the page's URLs), and otherwise (an old page's
// version, or none) only as long as their ETag, assetVersion, still
// matches, checked each time.
func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") == assetVersion {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("ETag", `"`+assetVersion+`"`)
		next.ServeHTTP(w, r)
	})
}

// parsePage parses the page's template from the embedded assets.
func parsePage() (*template.Template, error) {
	t, err := template.New("page.html").ParseFS(assets, "assets/page.html")
	if err != nil {
		return nil, fmt.Errorf("sandbox: page template: %w", err)
	}
	return t, nil
}
