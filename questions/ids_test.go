package questions

import (
	"errors"
	"testing"
)

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want UserID
		ok   bool
	}{
		{"1", 1, true},
		{"123456789012345678", 123456789012345678, true},
		{"18446744073709551615", 18446744073709551615, true},
		{"18446744073709551616", 0, false}, // overflows
		{"0", 0, false},
		{"", 0, false},
		{"01", 0, false},
		{"+1", 0, false},
		{"-1", 0, false},
		{" 1", 0, false},
		{"1a", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseUserID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseUserID(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadID) {
			t.Errorf("ParseUserID(%q) error %v does not wrap ErrBadID", tc.in, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("UserID(%d).String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	// Each kind parses and prints the same way.
	if g, err := ParseGuildID("42"); err != nil || g != 42 || g.String() != "42" {
		t.Errorf("ParseGuildID(42) = %v, %v", g, err)
	}
	if c, err := ParseChannelID("43"); err != nil || c.String() != "43" {
		t.Errorf("ParseChannelID(43) = %v, %v", c, err)
	}
	if m, err := ParseMessageID("44"); err != nil || m.String() != "44" {
		t.Errorf("ParseMessageID(44) = %v, %v", m, err)
	}
	if p, err := ParsePostID("45"); err != nil || p.String() != "45" {
		t.Errorf("ParsePostID(45) = %v, %v", p, err)
	}
}
