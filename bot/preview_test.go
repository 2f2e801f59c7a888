package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestPreviewText(t *testing.T) {
	t.Parallel()
	q := &questions.Question{
		ID: "AWS Cloud Practitioner#12", Bank: "AWS Cloud Practitioner", Number: 12,
		Stem: "Which services store objects?",
		Options: []questions.Option{
			{Letter: "A", Text: "Amazon S3", Correct: true, Rationale: "S3 is object storage."},
			{Letter: "B", Text: "Amazon EC2"},
			{Letter: "C", Text: "Amazon S3 Glacier", Correct: true, Rationale: "Glacier stores archives as objects."},
		},
		Explanation: "Object storage keeps data as objects in buckets or vaults.",
	}
	want := strings.Join([]string{
		"━━ message 1: posted ━━",
		"Pick **2** answers from the menu below · closes in 10 minutes · 0 answers so far",
		"== AWS Cloud Practitioner · Question 12 ==",
		"Which services store objects?",
		"",
		"**A.** Amazon S3",
		"**B.** Amazon EC2",
		"**C.** Amazon S3 Glacier",
		"[menu: Choose 2 answers]",
		"  A · Amazon S3",
		"  B · Amazon EC2",
		"  C · Amazon S3 Glacier",
		"",
		"━━ message 1: edited when the question closes ━━",
		"**Closed** now · 0 answers · 0 right (0%)",
		"== AWS Cloud Practitioner · Question 12 ==",
		"Which services store objects?",
		"",
		"**A.** Amazon S3",
		"**B.** Amazon EC2",
		"**C.** Amazon S3 Glacier",
		"== Answer: A, C ==",
		"Object storage keeps data as objects in buckets or vaults.",
		"-- ✅ A · 0 votes (0%) --",
		"`░░░░░░░░░░` S3 is object storage.",
		"-- ❌ B · 0 votes (0%) --",
		"`░░░░░░░░░░`",
		"-- ✅ C · 0 votes (0%) --",
		"`░░░░░░░░░░` Glacier stores archives as objects.",
		"[menu: Closed]",
		"  A · Amazon S3",
		"  B · Amazon EC2",
		"  C · Amazon S3 Glacier",
		"[button: Report a problem]",
		"",
	}, "\n")
	if got := PreviewText(q); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPreviewLongQuestion: the preview of a reveal that continues in
// further messages shows each, in order, marked, exactly as sent.
func TestPreviewLongQuestion(t *testing.T) {
	t.Parallel()
	q := longQuestion()
	got := PreviewText(q)
	p := previewPost(q)
	p.Closed, p.ClosedAt = true, p.ClosesAt
	r := closedReveal(p, q)
	if n := RevealMessageCount(q); n != 1+len(r.more) || n < 2 {
		t.Fatalf("RevealMessageCount %d, want the closing edit and its %d continuations (at least 2 messages)", n, len(r.more))
	}
	var wantHeads []string
	wantHeads = append(wantHeads, "━━ message 1: posted ━━", "━━ message 1: edited when the question closes ━━")
	for i := range r.more {
		wantHeads = append(wantHeads, fmt.Sprintf("━━ message %d: posted after it, a reply to message 1 ━━", i+2))
	}
	var heads []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "━━") {
			heads = append(heads, l)
		}
	}
	if strings.Join(heads, "\n") != strings.Join(wantHeads, "\n") {
		t.Errorf("message heads\n%s\nwant\n%s", strings.Join(heads, "\n"), strings.Join(wantHeads, "\n"))
	}
	// Every text, whole, in order: the stem and options in the post, then
	// again in its closing edit with the explanation and rationales.
	checkWhole(t, "preview", got, append(append(postTexts(q), postTexts(q)...), revealTexts(q)...))
	for i, m := range r.more {
		if !strings.Contains(got, m.Content) {
			t.Errorf("preview lacks continuation %d's line %q", i+2, m.Content)
		}
	}
}

func TestFlattenTimestamps(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"later", now.Add(10 * time.Minute), "closes in 10 minutes."},
		{"one minute", now.Add(time.Minute), "closes in 1 minute."},
		{"hours", now.Add(2 * time.Hour), "closes in 2 hours."},
		{"past", now.Add(-90 * time.Minute), "closes 90 minutes ago."},
		{"now", now, "closes now."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := flattenTimestamps("closes "+timestamp(tt.in, "R")+".", now); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got, want := flattenTimestamps(timestamp(now, "f"), now), "2025-01-01 12:00 UTC"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
