package sandbox

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quizhost/quizhost/internal/fakediscord"
)

// pageData is everything page.html shows.
type pageData struct {
	Guild      string
	Channel    channelView
	Channels   []channelView
	As         memberView
	Members    []memberView
	Messages   []messageView
	Violations []string
	// Commands is the composer's list for this member, as JSON.
	Commands template.JS
	// Hidden is the commands Discord hides from this member, with why, as
	// JSON: the composer explains when they are typed anyway.
	Hidden template.JS
	// Clock is the sandbox's time, for the Advance time panel.
	Clock clockView
	// Directory names channels and members for the composer's pickers.
	Directory template.JS
	// Assets is the version the page asks for its script and style sheet
	// as (assetVersion).
	Assets string
}

type channelView struct {
	ID, Name, Href string
	Active         bool
}

type memberView struct {
	ID, Name, Username, Href string
	Initial, Color           string
	Manager, Active          bool
}

// messageView is one message as Discord lays it out.
type messageView struct {
	ID string
	// Key changes whenever the message does, so the page replaces only
	// messages that changed (an open select menu elsewhere stays open).
	Key string
	// Caller and Command head a reply to a command: "Alice used /quiz ask".
	Caller, Command string
	CallerColor     string
	Time, Full      string
	Ephemeral       bool
	Loading         bool
	Edited          bool
	Content         template.HTML
	Embeds          []embedView
	Rows            [][]componentView
	Attachments     []attachmentView
}

type embedView struct {
	Color       string
	Title       template.HTML
	Description template.HTML
	Fields      []fieldView
	// Image is the embed's image at the page's address ("" for none, or
	// one elsewhere: the page loads nothing from the internet), and its
	// size in pixels (0 when unknown).
	Image                   string
	ImageWidth, ImageHeight int
	Footer                  template.HTML
}

type fieldView struct {
	Name, Value template.HTML
	Inline      bool
}

// componentView is a button or a select menu.
type componentView struct {
	Button, Select bool
	CustomID       string
	Label          string
	Emoji          string
	Style          string // primary, secondary, success, danger, link
	URL            string
	Disabled       bool
	Placeholder    string
	Min, Max       int
	Options        []optionView
}

type optionView struct {
	Label, Value, Description, Emoji string
	Default                          bool
}

type attachmentView struct {
	Name, URL string
	Size      string
	Image     bool // shown inline, as Discord shows image attachments
	// Width and Height are an image's size in pixels (0 when unknown).
	Width, Height int
}

// rawComponent is a message component as the bot sent it.
type rawComponent struct {
	Type        int                    `json:"type"`
	Components  []rawComponent         `json:"components"`
	CustomID    string                 `json:"custom_id"`
	Label       string                 `json:"label"`
	Style       int                    `json:"style"`
	Disabled    bool                   `json:"disabled"`
	URL         string                 `json:"url"`
	Emoji       *struct{ Name string } `json:"emoji"`
	Placeholder string                 `json:"placeholder"`
	MinValues   *int                   `json:"min_values"`
	MaxValues   int                    `json:"max_values"`
	Options     []struct {
		Label       string                 `json:"label"`
		Value       string                 `json:"value"`
		Description string                 `json:"description"`
		Emoji       *struct{ Name string } `json:"emoji"`
		Default     bool                   `json:"default"`
	} `json:"options"`
}

// buttonStyle names a button style as the stylesheet does.
func buttonStyle(n int) string {
	switch n {
	case 1:
		return "primary"
	case 3:
		return "success"
	case 4:
		return "danger"
	case 5:
		return "link"
	}
	return "secondary"
}

func (sb *Sandbox) pageData(channel string, as fakediscord.Member, now time.Time) pageData {
	g := guild()
	d := pageData{Guild: g.Name, Assets: assetVersion}
	for _, c := range g.Channels {
		cv := channelView{ID: c.ID, Name: c.Name, Href: pageURL(c.ID, as.ID), Active: c.ID == channel}
		d.Channels = append(d.Channels, cv)
		if cv.Active {
			d.Channel = cv
		}
	}
	names, colors := map[string]string{}, map[string]string{}
	for i, m := range simulatedMembers() {
		mv := memberView{ID: m.ID, Name: m.GlobalName, Username: m.Username, Href: pageURL(channel, m.ID),
			Initial: m.GlobalName[:1], Color: avatarColor(i),
			Manager: m.Permissions&(1<<5) != 0, Active: m.ID == as.ID}
		d.Members = append(d.Members, mv)
		names[m.ID], colors[m.ID] = m.GlobalName, mv.Color
		if mv.Active {
			d.As = mv
		}
	}
	chans := map[string]string{}
	for _, c := range g.Channels {
		chans[c.ID] = c.Name
	}
	sb.mu.Lock()
	calls := make(map[string]call, len(sb.calls))
	for k, v := range sb.calls {
		calls[k] = v
	}
	sb.mu.Unlock()
	md := markdown{members: names, channels: chans, now: now}
	for _, m := range sb.srv.Messages(channel) {
		if m.Deleted || (m.Ephemeral() && m.UserID != as.ID) {
			continue
		}
		mv := messageView{ID: m.ID, Key: fmt.Sprintf("%s.%d", m.ID, m.Edits), Ephemeral: m.Ephemeral(),
			Loading: m.Loading(), Edited: m.Edits > 0 && !m.EditedAt.IsZero() && !m.Original,
			Time: clockTime(m.CreatedAt, now), Full: m.CreatedAt.Format("Monday, 2 January 2006 15:04"),
			Content: md.render(m.Content)}
		if c, ok := calls[m.InteractionID]; ok && m.Original && c.command != "" {
			mv.Caller, mv.Command, mv.CallerColor = names[c.userID], c.command, colors[c.userID]
		}
		for _, e := range m.Embeds {
			ev := embedView{Color: fmt.Sprintf("#%06x", e.Color), Title: md.inline(e.Title), Description: md.render(e.Description)}
			if e.Color == 0 {
				ev.Color = "#1e1f22"
			}
			for _, f := range e.Fields {
				ev.Fields = append(ev.Fields, fieldView{Name: md.inline(f.Name), Value: md.render(f.Value), Inline: f.Inline})
			}
			if e.Footer != nil {
				ev.Footer = md.inline(e.Footer.Text)
			}
			mv.Embeds = append(mv.Embeds, ev)
		}
		mv.Rows = componentRows(m.RawComponents)
		// An attachment an embed shows as its image ("attachment://name")
		// is shown there only, as Discord does.
		files := map[string]string{}
		for _, a := range m.Attachments {
			if u, ok := sb.localFile(a.URL); ok {
				files[a.Filename] = u
			}
		}
		inEmbed := map[string]bool{}
		for i, e := range m.Embeds {
			if e.Image == nil {
				continue
			}
			ev := &mv.Embeds[i]
			if name, ok := strings.CutPrefix(e.Image.URL, "attachment://"); ok && files[name] != "" {
				ev.Image, inEmbed[name] = files[name], true
			} else if u, ok := sb.localFile(e.Image.URL); ok {
				ev.Image = u
			}
			ev.ImageWidth, ev.ImageHeight = sb.imageSize(ev.Image)
		}
		for _, a := range m.Attachments {
			if inEmbed[a.Filename] {
				continue
			}
			u, ok := files[a.Filename]
			if !ok {
				continue // not a file of the embedded server: nothing to show
			}
			av := attachmentView{Name: a.Filename, URL: u, Size: byteSize(a.Size), Image: inlineImage(a.ContentType)}
			av.Width, av.Height = sb.imageSize(u)
			mv.Attachments = append(mv.Attachments, av)
		}
		d.Messages = append(d.Messages, mv)
	}
	d.Violations = sb.srv.Violations()
	registered := sb.commands()
	cmds, _ := json.Marshal(leafCommands(registered, as))
	d.Commands = template.JS(cmds)
	hidden, _ := json.Marshal(hiddenCommands(registered, as))
	d.Hidden = template.JS(hidden)
	d.Clock = sb.clockView(now)
	type entry struct{ ID, Name string }
	dir := struct {
		Channels []entry `json:"channels"`
		Members  []entry `json:"members"`
	}{}
	for _, c := range g.Channels {
		dir.Channels = append(dir.Channels, entry{c.ID, c.Name})
	}
	for _, m := range simulatedMembers() {
		dir.Members = append(dir.Members, entry{m.ID, m.GlobalName})
	}
	b, _ := json.Marshal(dir)
	d.Directory = template.JS(b)
	return d
}

// avatarColor is the i-th member's avatar colour, as Discord's default avatars.
func avatarColor(i int) string {
	return [...]string{"#5865f2", "#3ba55c", "#faa61a", "#ed4245"}[i%4]
}

func componentRows(raw json.RawMessage) [][]componentView {
	var rows []rawComponent
	_ = json.Unmarshal(raw, &rows)
	var out [][]componentView
	for _, r := range rows {
		items := r.Components
		if r.Type != 1 { // a top-level component outside a row
			items = []rawComponent{r}
		}
		var row []componentView
		for _, c := range items {
			cv := componentView{CustomID: c.CustomID, Label: c.Label, Disabled: c.Disabled, URL: c.URL}
			if c.Emoji != nil {
				cv.Emoji = c.Emoji.Name
			}
			switch c.Type {
			case 2:
				cv.Button, cv.Style = true, buttonStyle(c.Style)
			case 3, 5, 6, 7, 8:
				cv.Select, cv.Placeholder, cv.Min, cv.Max = true, c.Placeholder, 1, c.MaxValues
				if c.MinValues != nil {
					cv.Min = *c.MinValues
				}
				if cv.Max == 0 {
					cv.Max = 1
				}
				if cv.Placeholder == "" {
					cv.Placeholder = "Make a selection"
				}
				for _, o := range c.Options {
					ov := optionView{Label: o.Label, Value: o.Value, Description: o.Description, Default: o.Default}
					if o.Emoji != nil {
						ov.Emoji = o.Emoji.Name
					}
					cv.Options = append(cv.Options, ov)
				}
			default:
				continue
			}
			row = append(row, cv)
		}
		if len(row) > 0 {
			out = append(out, row)
		}
	}
	return out
}

// clockTime is a message's time as Discord shows it beside the author:
// "Today at 15:04", "Yesterday at 15:04", else "01/12/2026 15:04".
func clockTime(t, now time.Time) string {
	sameDay := func(a, b time.Time) bool {
		y1, m1, d1 := a.Date()
		y2, m2, d2 := b.Date()
		return y1 == y2 && m1 == m2 && d1 == d2
	}
	switch {
	case sameDay(t, now):
		return "Today at " + t.Format("15:04")
	case sameDay(t, now.AddDate(0, 0, -1)):
		return "Yesterday at " + t.Format("15:04")
	}
	return t.Format("02/01/2006 15:04")
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// markdown renders the subset of Discord's markdown the bot writes: bold,
// italics, underline, strike-through, inline code and code blocks, quotes,
// headings and subtext, links, mentions, channel links and timestamps.
// Everything else is escaped text.
type markdown struct {
	members, channels map[string]string
	now               time.Time
}

var (
	reBold      = regexp.MustCompile(`\*\*(.+?)\*\*`)
	reUnderline = regexp.MustCompile(`__(.+?)__`)
	reItalic    = regexp.MustCompile(`\*([^*\s][^*]*?)\*`)
	reStrike    = regexp.MustCompile(`~~(.+?)~~`)
	reLink      = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^\s)]+)\)`)
	reUser      = regexp.MustCompile(`&lt;@!?(\d+)&gt;`)
	reRole      = regexp.MustCompile(`&lt;@&amp;(\d+)&gt;`)
	reChannel   = regexp.MustCompile(`&lt;#(\d+)&gt;`)
	reTime      = regexp.MustCompile(`&lt;t:(-?\d+)(?::([tTdDfFR]))?&gt;`)
	reEveryone  = regexp.MustCompile(`@(everyone|here)\b`)
)

// render renders a message body or embed description: blocks, then
// inline formatting.
func (md markdown) render(s string) template.HTML {
	var b strings.Builder
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "```") {
			var code []string
			j := i + 1
			for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
				code = append(code, lines[j])
			}
			if j < len(lines) {
				b.WriteString(`<pre class="codeblock"><code>` + html.EscapeString(strings.Join(code, "\n")) + `</code></pre>`)
				i = j
				continue
			}
		}
		switch {
		case strings.HasPrefix(line, "> "):
			b.WriteString(`<div class="quote">` + string(md.inline(line[2:])) + `</div>`)
			continue
		case strings.HasPrefix(line, "-# "):
			b.WriteString(`<div class="subtext">` + string(md.inline(line[3:])) + `</div>`)
			continue
		case strings.HasPrefix(line, "### "):
			b.WriteString(`<div class="h3">` + string(md.inline(line[4:])) + `</div>`)
			continue
		case strings.HasPrefix(line, "## "):
			b.WriteString(`<div class="h2">` + string(md.inline(line[3:])) + `</div>`)
			continue
		case strings.HasPrefix(line, "# "):
			b.WriteString(`<div class="h1">` + string(md.inline(line[2:])) + `</div>`)
			continue
		}
		b.WriteString(string(md.inline(line)))
		if i < len(lines)-1 {
			b.WriteString("<br>")
		}
	}
	return template.HTML(b.String())
}

// inline renders one line's inline formatting; code spans are left as
// they are.
func (md markdown) inline(s string) template.HTML {
	var b strings.Builder
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString(`<code>` + html.EscapeString(p) + `</code>`)
			continue
		}
		if i%2 == 1 { // an unmatched backtick
			b.WriteString("`")
		}
		b.WriteString(md.formatText(html.EscapeString(p)))
	}
	return template.HTML(b.String())
}

func (md markdown) formatText(t string) string {
	t = reLink.ReplaceAllString(t, `<a href="$2" target="_blank" rel="noopener">$1</a>`)
	t = reBold.ReplaceAllString(t, `<strong>$1</strong>`)
	t = reUnderline.ReplaceAllString(t, `<u>$1</u>`)
	t = reItalic.ReplaceAllString(t, `<em>$1</em>`)
	t = reStrike.ReplaceAllString(t, `<s>$1</s>`)
	t = reUser.ReplaceAllStringFunc(t, func(m string) string {
		id := reUser.FindStringSubmatch(m)[1]
		name, ok := md.members[id]
		if !ok {
			name = "unknown-user"
		}
		return `<span class="mention">@` + html.EscapeString(name) + `</span>`
	})
	t = reRole.ReplaceAllString(t, `<span class="mention">@role</span>`)
	t = reChannel.ReplaceAllStringFunc(t, func(m string) string {
		id := reChannel.FindStringSubmatch(m)[1]
		name, ok := md.channels[id]
		if !ok {
			name = "unknown"
		}
		return `<span class="mention">#` + html.EscapeString(name) + `</span>`
	})
	t = reEveryone.ReplaceAllString(t, `<span class="mention">@$1</span>`)
	t = reTime.ReplaceAllStringFunc(t, func(m string) string {
		sm := reTime.FindStringSubmatch(m)
		sec, _ := strconv.ParseInt(sm[1], 10, 64)
		style := sm[2]
		if style == "" {
			style = "f"
		}
		at := time.Unix(sec, 0)
		return fmt.Sprintf(`<time class="ts" data-t="%d" data-s="%s" title="%s">%s</time>`, sec, style,
			at.Format("Monday, 2 January 2006 15:04"), html.EscapeString(discordTime(at, style, md.now)))
	})
	return t
}

// discordTime formats a <t:…:style> timestamp as Discord does in en-GB.
func discordTime(t time.Time, style string, now time.Time) string {
	switch style {
	case "t":
		return t.Format("15:04")
	case "T":
		return t.Format("15:04:05")
	case "d":
		return t.Format("02/01/2006")
	case "D":
		return t.Format("2 January 2006")
	case "F":
		return t.Format("Monday, 2 January 2006 15:04")
	case "R":
		return relative(t, now)
	}
	return t.Format("2 January 2006 15:04")
}

// relative is "in 5 minutes", "3 hours ago"; the page's script keeps it
// current (assets/app.js has the same rules).
func relative(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	future := d > 0
	if !future {
		d = -d
	}
	var n int
	var unit string
	switch s := int(d.Seconds()); {
	case s < 45:
		if future {
			return "in a few seconds"
		}
		return "a few seconds ago"
	case s < 60:
		n, unit = s, "second"
	case s < 3600:
		n, unit = (s+30)/60, "minute"
	case s < 86400:
		n, unit = (s+1800)/3600, "hour"
	case s < 30*86400:
		n, unit = (s+43200)/86400, "day"
	case s < 365*86400:
		n, unit = s/(30*86400), "month"
	default:
		n, unit = s/(365*86400), "year"
	}
	if n != 1 {
		unit += "s"
	}
	if future {
		return fmt.Sprintf("in %d %s", n, unit)
	}
	return fmt.Sprintf("%d %s ago", n, unit)
}
