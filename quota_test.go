package main

import (
	"strings"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestReadQuota(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		want     questions.Quota
		problems []string
	}{
		{"defaults", nil, questions.Quota{Banks: 50, Questions: 20_000, Bytes: 20 << 20}, nil},
		{"every bound set", map[string]string{"QUIZHOST_QUOTA_BANKS": "10", "QUIZHOST_QUOTA_QUESTIONS": " 500 ", "QUIZHOST_QUOTA_BANK_BYTES": "512KiB"},
			questions.Quota{Banks: 10, Questions: 500, Bytes: 512 << 10}, nil},
		{"no limits", map[string]string{"QUIZHOST_QUOTA_BANKS": "0", "QUIZHOST_QUOTA_QUESTIONS": "0", "QUIZHOST_QUOTA_BANK_BYTES": "0"}, questions.Quota{}, nil},
		{"plain bytes", map[string]string{"QUIZHOST_QUOTA_BANK_BYTES": "1048576"}, questions.Quota{Banks: 50, Questions: 20_000, Bytes: 1 << 20}, nil},
		{"bytes with a space and a unit in any case", map[string]string{"QUIZHOST_QUOTA_BANK_BYTES": "2 gib"}, questions.Quota{Banks: 50, Questions: 20_000, Bytes: 2 << 30}, nil},
		{"every problem at once", map[string]string{"QUIZHOST_QUOTA_BANKS": "-1", "QUIZHOST_QUOTA_QUESTIONS": "lots", "QUIZHOST_QUOTA_BANK_BYTES": "20MB"},
			questions.DefaultQuota, []string{`QUIZHOST_QUOTA_BANKS "-1"`, `QUIZHOST_QUOTA_QUESTIONS "lots"`, `QUIZHOST_QUOTA_BANK_BYTES "20MB": want bytes, or a size such as 512KiB or 20MiB`}},
		{"a size too large", map[string]string{"QUIZHOST_QUOTA_BANK_BYTES": "99999999999GiB"}, questions.DefaultQuota, []string{"QUIZHOST_QUOTA_BANK_BYTES"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := readQuota(func(k string) string { return tt.env[k] })
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %d like %q", problems, len(tt.problems), tt.problems)
			}
			for i, p := range problems {
				if !strings.Contains(p, tt.problems[i]) {
					t.Errorf("problem %q, want it to say %q", p, tt.problems[i])
				}
			}
			if len(problems) == 0 && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
