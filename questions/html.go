package questions

import (
	"html"
	"strconv"
	"strings"
)

// htmlToMarkdown turns the HTML of a GIFT [html] or [moodle] text into
// the Discord markdown the bot posts: <b>/<strong> become **bold**,
// <i>/<em> *italics*, <u> __underline__, <s>/<del> ~~strike~~, <code>
// `code`, <pre> a fenced code block keeping its lines and indentation,
// <br> a line break, <p>/<div>/headings paragraphs, <ul>/<ol> lists "- "
// and "1. "; character references (&lt; &amp; &#39; &nbsp;…) are decoded;
// other tags are dropped, keeping their text (but not that of <script>
// and <style>). Outside <pre>, runs of white space are one space, as a
// browser shows them; with lineBreaks ([moodle], Moodle's auto-format) a
// line break in the source is a line break too. Text is not escaped: a
// "*" in the HTML is a "*" in the markdown.
func htmlToMarkdown(s string, lineBreaks bool) string {
	c := htmlConverter{lineBreaks: lineBreaks}
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			c.text(s)
			break
		}
		c.text(s[:lt])
		s = s[lt:]
		if strings.HasPrefix(s, "<!--") {
			end := strings.Index(s, "-->")
			if end < 0 {
				break
			}
			s = s[end+3:]
			continue
		}
		gt := strings.IndexByte(s, '>')
		name, closing, ok := tagName(s, gt)
		if !ok {
			c.text("<") // not a tag: "a < b"
			s = s[1:]
			continue
		}
		c.tag(name, closing)
		s = s[gt+1:]
	}
	c.flushPre()
	return strings.TrimSpace(c.b.String())
}

// tagName parses the tag s[:gt+1] ("<b>", "</p>", "<br/>", "<a href=…>").
func tagName(s string, gt int) (name string, closing, ok bool) {
	if gt < 2 {
		return "", false, false
	}
	t := s[1:gt]
	if strings.HasPrefix(t, "/") {
		closing, t = true, t[1:]
	}
	i := 0
	for i < len(t) && (t[i] >= 'a' && t[i] <= 'z' || t[i] >= 'A' && t[i] <= 'Z' || i > 0 && t[i] >= '0' && t[i] <= '9') {
		i++
	}
	if i == 0 || i < len(t) && t[i] != ' ' && t[i] != '/' && t[i] != '\t' && t[i] != '\n' {
		return "", false, false
	}
	return strings.ToLower(t[:i]), closing, true
}

type htmlConverter struct {
	b          strings.Builder
	lineBreaks bool
	pre        int // depth of <pre>
	preText    strings.Builder
	skip       int   // depth of <script>/<style>
	lists      []int // open lists: -1 for <ul>, else the next number of an <ol>
	space      bool  // a space is pending before the next text
}

func (c *htmlConverter) text(s string) {
	if s == "" || c.skip > 0 {
		return
	}
	s = html.UnescapeString(s)
	if c.pre > 0 {
		c.preText.WriteString(s)
		return
	}
	for i, part := range strings.Split(s, "\n") {
		if i > 0 {
			if c.lineBreaks {
				c.lineBreak()
			} else {
				c.space = true
			}
		}
		words := strings.Fields(strings.ReplaceAll(part, "\u00a0", " "))
		if len(part) > 0 && len(words) == 0 {
			c.space = true
			continue
		}
		if len(part) > 0 && isHTMLSpace(part[0]) {
			c.space = true
		}
		for j, w := range words {
			if j > 0 || c.space {
				c.writeSpace()
			}
			c.b.WriteString(w)
			c.space = false
		}
		if len(part) > 0 && isHTMLSpace(part[len(part)-1]) {
			c.space = true
		}
	}
}

func isHTMLSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\f' }

// writeSpace writes one space unless the output is at the start of a line.
func (c *htmlConverter) writeSpace() {
	if out := c.b.String(); out != "" && !strings.HasSuffix(out, "\n") && !strings.HasSuffix(out, " ") {
		c.b.WriteByte(' ')
	}
}

// inline writes a markdown marker where text goes.
func (c *htmlConverter) inline(marker string, closing bool) {
	if c.pre > 0 || c.skip > 0 {
		return
	}
	if !closing && c.space {
		c.writeSpace()
		c.space = false
	}
	c.b.WriteString(marker)
}

func (c *htmlConverter) lineBreak() {
	c.space = false
	out := c.b.String()
	if out == "" {
		return
	}
	c.trimTrailingSpace()
	c.b.WriteByte('\n')
}

func (c *htmlConverter) paragraph() {
	c.space = false
	out := c.b.String()
	if out == "" || strings.HasSuffix(out, "\n\n") {
		return
	}
	c.trimTrailingSpace()
	if strings.HasSuffix(c.b.String(), "\n") {
		c.b.WriteByte('\n')
		return
	}
	c.b.WriteString("\n\n")
}

func (c *htmlConverter) trimTrailingSpace() {
	out := c.b.String()
	if t := strings.TrimRight(out, " "); len(t) != len(out) {
		c.b.Reset()
		c.b.WriteString(t)
	}
}

// flushPre writes the text of a <pre> as a fenced code block.
func (c *htmlConverter) flushPre() {
	if c.preText.Len() == 0 {
		return
	}
	code := strings.Trim(c.preText.String(), "\n")
	c.preText.Reset()
	c.paragraph()
	c.b.WriteString("```\n")
	for _, l := range strings.Split(code, "\n") {
		c.b.WriteString(strings.TrimRight(l, " \t\r"))
		c.b.WriteByte('\n')
	}
	c.b.WriteString("```")
	c.paragraph()
}

func (c *htmlConverter) tag(name string, closing bool) {
	switch name {
	case "script", "style":
		if closing {
			c.skip = max(0, c.skip-1)
		} else {
			c.skip++
		}
		return
	}
	if c.skip > 0 {
		return
	}
	if c.pre > 0 && name != "pre" {
		if name == "br" {
			c.preText.WriteByte('\n')
		}
		return // tags inside <pre> (<code>, <span>) are dropped
	}
	switch name {
	case "pre":
		if closing {
			c.pre = max(0, c.pre-1)
			if c.pre == 0 {
				c.flushPre()
			}
		} else {
			c.pre++
		}
	case "br":
		c.lineBreak()
	case "p", "div", "blockquote", "table":
		c.paragraph()
	case "tr":
		if closing {
			c.lineBreak()
		}
	case "td", "th":
		if !closing {
			c.space = true
		}
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if !closing {
			c.paragraph()
		}
		c.inline("**", closing)
		if closing {
			c.paragraph()
		}
	case "b", "strong":
		c.inline("**", closing)
	case "i", "em":
		c.inline("*", closing)
	case "u":
		c.inline("__", closing)
	case "s", "strike", "del":
		c.inline("~~", closing)
	case "code", "tt", "kbd":
		c.inline("`", closing)
	case "ul", "ol":
		if closing {
			if len(c.lists) > 0 {
				c.lists = c.lists[:len(c.lists)-1]
			}
			if len(c.lists) == 0 {
				c.paragraph()
			}
			return
		}
		if len(c.lists) == 0 {
			c.paragraph()
		}
		n := -1
		if name == "ol" {
			n = 1
		}
		c.lists = append(c.lists, n)
	case "li":
		if closing {
			return
		}
		c.lineBreak()
		depth := len(c.lists)
		c.b.WriteString(strings.Repeat("  ", max(0, depth-1)))
		if depth > 0 && c.lists[depth-1] > 0 {
			c.b.WriteString(strconv.Itoa(c.lists[depth-1]) + ". ")
			c.lists[depth-1]++
		} else {
			c.b.WriteString("- ")
		}
	}
}
