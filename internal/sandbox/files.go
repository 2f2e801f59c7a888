package sandbox

import (
	"bytes"
	"image"
	_ "image/gif" // image sizes of attachments
	_ "image/jpeg"
	_ "image/png"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// file serves, at the page's own address, a file of the embedded server:
// an attachment the bot uploaded or a member attached. Images show inline
// as Discord shows them; anything else is a download, never a page of
// this origin (a member's upload is not trusted).
func (sb *Sandbox) file(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, ct, ok := sb.srv.File(name)
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	if !inlineImage(ct) {
		ct = "application/octet-stream"
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(name)}))
	}
	h.Set("Content-Type", ct)
	http.ServeContent(w, r, path.Base(name), time.Time{}, bytes.NewReader(data))
}

// inlineImage reports whether a content type is an image a browser shows
// without running anything (SVG can hold scripts).
func inlineImage(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// imageSize is the size in pixels of the image a page URL of localFile
// names (0, 0 when it is not one a browser shows inline): the page
// reserves its place, so the channel stays scrolled to the bottom when it
// loads.
func (sb *Sandbox) imageSize(pageURL string) (width, height int) {
	name, ok := strings.CutPrefix(pageURL, "/files/")
	if !ok {
		return 0, 0
	}
	if unescaped, err := url.PathUnescape(name); err == nil {
		name = unescaped
	}
	data, ct, ok := sb.srv.File(name)
	if !ok || !inlineImage(ct) {
		return 0, 0
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// localFile turns a URL of the embedded server's files into the page's
// own ("/files/attachments/…"); ok is false for any other URL.
func (sb *Sandbox) localFile(u string) (string, bool) {
	rest, ok := strings.CutPrefix(u, sb.srv.URL()+"/files/")
	if !ok {
		return "", false
	}
	return "/files/" + rest, true
}
