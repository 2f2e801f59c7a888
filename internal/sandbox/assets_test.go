package sandbox

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestAssetsCached: the page asks for its script and style sheet by this
// build's version, which browsers may keep for a year; asked for by
// another version or none, they are checked each time (304 while the
// ETag matches) so that a page from before an upgrade gets the new ones.
func TestAssetsCached(t *testing.T) {
	sb := startSandbox(t, testBank)
	get := func(t *testing.T, path, ifNoneMatch string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, sb.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}

	page, err := io.ReadAll(get(t, "/channels/"+quizChannel+"?as=7001", "").Body)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, m := range regexp.MustCompile(`(?:href|src)="(/static/[^"]+)"`).FindAllStringSubmatch(string(page), -1) {
		urls = append(urls, m[1])
	}
	want := []string{"/static/style.css?v=" + assetVersion, "/static/app.js?v=" + assetVersion}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Fatalf("the page's assets: got %q, want %q", urls, want)
	}

	etag := `"` + assetVersion + `"`
	tests := []struct {
		name, path, ifNoneMatch string
		status                  int
		cacheControl            string
	}{
		{"the page's script", want[1], "", http.StatusOK, "public, max-age=31536000, immutable"},
		{"the page's style sheet", want[0], "", http.StatusOK, "public, max-age=31536000, immutable"},
		{"no version", "/static/app.js", "", http.StatusOK, "no-cache"},
		{"an old page's version", "/static/app.js?v=0123456789ab", "", http.StatusOK, "no-cache"},
		{"checked, unchanged", "/static/style.css?v=0123456789ab", etag, http.StatusNotModified, "no-cache"},
		{"checked, changed", "/static/app.js", `"0123456789ab"`, http.StatusOK, "no-cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := get(t, tt.path, tt.ifNoneMatch)
			if resp.StatusCode != tt.status || resp.Header.Get("Cache-Control") != tt.cacheControl || resp.Header.Get("ETag") != etag {
				t.Errorf("GET %s: got %d, Cache-Control %q, ETag %q; want %d, %q, %s", tt.path, resp.StatusCode,
					resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"), tt.status, tt.cacheControl, etag)
			}
			if tt.status == http.StatusOK {
				body, err := io.ReadAll(resp.Body)
				if err != nil || len(body) == 0 {
					t.Errorf("GET %s: got %d bytes, %v", tt.path, len(body), err)
				}
			}
		})
	}
}
