package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/quizhost/quizhost/questions"
)

func TestPreviewText(t *testing.T) {
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
		"POSTED",
		"Pick **2** answers · closes in 10 minutes · 0 answers so far",
		"== AWS Cloud Practitioner · Question 12 ==",
		"Which services store objects?",
		"",
		"**A.** Amazon S3",
		"**B.** Amazon EC2",
		"**C.** Amazon S3 Glacier",
		"-- How to answer --",
		"Pick **2** answers from the menu below · closes in 10 minutes",
		"[menu: Choose 2 answers]",
		"  A · Amazon S3",
		"  B · Amazon EC2",
		"  C · Amazon S3 Glacier",
		"",
		"REVEALED",
		"== Answer: A, C ==",
		"Object storage keeps data as objects in buckets or vaults.",
		"-- ✅ A --",
		"S3 is object storage.",
		"-- ❌ B --",
		"—",
		"-- ✅ C --",
		"Glacier stores archives as objects.",
		"",
	}, "\n")
	if got := PreviewText(q); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFlattenTimestamps(t *testing.T) {
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
