package sandbox

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"testing"
)

// postWithFiles posts a message with files to #quiz as the bot would,
// straight to the embedded server.
func postWithFiles(t *testing.T, sb *Sandbox, files []upload) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("payload_json", `{"content":"files","allowed_mentions":{"parse":[]}}`)
	for i, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="files[%d]"; filename=%q`, i, f.name))
		h.Set("Content-Type", f.contentType)
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(f.data)
	}
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, sb.Server().URL()+"/api/v9/channels/"+quizChannel+"/messages", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+sb.token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("post files: got %d %s", resp.StatusCode, b)
	}
}

type upload struct {
	name, contentType string
	data              []byte
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAttachmentsFromThePage: a message's files are linked at the page's
// own address, never at the embedded server's port; an image shows
// inline with its size reserved, is served as an image, and anything else
// is served as a download.
func TestAttachmentsFromThePage(t *testing.T) {
	sb := startSandbox(t, testBank)
	pic := pngOf(t, 80, 60)
	postWithFiles(t, sb, []upload{
		{"chart.png", "image/png", pic},
		{"bank.html", "text/html", []byte("<script>alert(1)</script>")},
	})
	_, page := webRequest{}.do(t, sb, http.MethodGet, "/channels/"+quizChannel+"?as=7001", "")
	if strings.Contains(page, sb.Server().URL()) {
		t.Errorf("the page links the embedded server's address %s; want only its own", sb.Server().URL())
	}
	img := regexp.MustCompile(`<img src="(/files/attachments/\d+/chart\.png)" alt="chart\.png" width="80" height="60">`).FindStringSubmatch(page)
	if img == nil {
		t.Fatalf("the page: want chart.png shown inline with its size, from /files/…; got no such <img> in\n%s", page)
	}
	file := regexp.MustCompile(`<a class="attachment" href="(/files/attachments/\d+/bank\.html)" download="bank\.html">`).FindStringSubmatch(page)
	if file == nil {
		t.Fatalf("the page: want bank.html as a download chip from /files/…; got none in\n%s", page)
	}

	tests := []struct {
		name, path, wantType, wantDisposition string
		want                                  []byte
	}{
		{"the image", img[1], "image/png", "", pic},
		{"the page-like file", file[1], "application/octet-stream", `attachment; filename=bank.html`, []byte("<script>alert(1)</script>")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(sb.URL() + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != http.StatusOK || !bytes.Equal(b, tt.want) {
				t.Fatalf("GET %s: got %d and %d bytes, want 200 and the %d bytes uploaded", tt.path, resp.StatusCode, len(b), len(tt.want))
			}
			if h.Get("Content-Type") != tt.wantType || h.Get("Content-Disposition") != tt.wantDisposition ||
				h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
				t.Errorf("GET %s: got Content-Type %q, Content-Disposition %q, X-Content-Type-Options %q, CSP %q; want %q, %q, nosniff and a sandbox",
					tt.path, h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("X-Content-Type-Options"),
					h.Get("Content-Security-Policy"), tt.wantType, tt.wantDisposition)
			}
		})
	}
	if status, _ := (webRequest{}).do(t, sb, http.MethodGet, "/files/attachments/1/missing.png", ""); status != http.StatusNotFound {
		t.Errorf("an unknown file: got %d, want 404", status)
	}
}
