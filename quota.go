package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/quizhost/quizhost/questions"
)

// readQuota reads the quota on each server's imported banks
// (QUIZHOST_QUOTA_BANKS, QUIZHOST_QUOTA_QUESTIONS and
// QUIZHOST_QUOTA_BANK_BYTES; questions.DefaultQuota for those unset; 0
// is no limit) and returns its problems.
func readQuota(getenv func(string) string) (questions.Quota, []string) {
	q := questions.DefaultQuota
	var problems []string
	count := func(name string, dst *int) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			problems = append(problems, fmt.Sprintf("%s %q: want a whole number, 0 for no limit", name, v))
			return
		}
		*dst = n
	}
	count("QUIZHOST_QUOTA_BANKS", &q.Banks)
	count("QUIZHOST_QUOTA_QUESTIONS", &q.Questions)
	if v := strings.TrimSpace(getenv("QUIZHOST_QUOTA_BANK_BYTES")); v != "" {
		n, err := parseBytes(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("QUIZHOST_QUOTA_BANK_BYTES %q: want bytes, or a size such as 512KiB or 20MiB (0 for no limit)", v))
		} else {
			q.Bytes = n
		}
	}
	return q, problems
}

// parseBytes parses a size: a whole number of bytes, optionally followed
// (after optional space, in any case) by B, KiB, MiB or GiB, which count
// in powers of 1024.
func parseBytes(s string) (int64, error) {
	num := strings.TrimRight(s, "BbIiKkMmGg ")
	unit := strings.ToLower(strings.TrimSpace(s[len(num):]))
	mult, ok := map[string]int64{"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", unit)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
