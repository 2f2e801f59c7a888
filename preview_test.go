package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPreviewCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	folder := awsFolder(t, dir)
	code, out, errOut := runCLI(t, nil, "preview", folder)
	if code != 0 {
		t.Fatalf("got exit %d, want 0; stderr %q", code, errOut)
	}
	for _, w := range []string{
		"######## AWS Cloud Practitioner#12 (" + filepath.Join(folder, "q12.txt") + ":1)\n━━ message 1: posted ━━\n",
		"== AWS Cloud Practitioner · Question 40 ==\nWhich AWS service stores objects (question 40)?\n\n**A.** Amazon S3\n**B.** Amazon EC2\n",
		"[menu: Choose your answer]\n  A · Amazon S3\n  B · Amazon EC2\n",
		"━━ message 1: edited when the question closes ━━\n",
		"== Answer: A ==\nS3 is the object store.\n-- ✅ A · 0 votes (0%) --\n`░░░░░░░░░░` S3 stores objects in buckets.\n-- ❌ B · 0 votes (0%) --\n`░░░░░░░░░░` EC2 runs virtual machines.\n",
		"Which S3 storage class is cheapest?",
		"-- ✅ A · 0 votes (0%) --\n`░░░░░░░░░░` Made for rarely read archives.\n-- ❌ B · 0 votes (0%) --\n`░░░░░░░░░░` The most expensive to store.\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("got preview\n%s\nwant it to contain\n%s", out, w)
		}
	}
	if n := strings.Count(out, "\n━━ message 1: posted ━━\n"); n != 4 {
		t.Errorf("got %d questions previewed, want 4", n)
	}
	if strings.Contains(out, "quizhost Sample") {
		t.Error("got the built-in bank previewed, want only the named folder's questions")
	}
	if !strings.Contains(errOut, "notes.txt: warning:") {
		t.Errorf("got stderr %q, want the stray note's warning", errOut)
	}
	// Errors are reported and fail.
	os.WriteFile(filepath.Join(folder, "broken.txt"), []byte("AWS Cloud Practitioner Question 1\nSelect 1Pick.\n- A\nyes\nCorrect answer: A\n"), 0o600)
	if code, _, errOut := runCLI(t, nil, "preview", folder); code != 1 || !strings.Contains(errOut, "broken.txt:") {
		t.Errorf("got exit %d, stderr %q, want 1 naming broken.txt", code, errOut)
	}
}
