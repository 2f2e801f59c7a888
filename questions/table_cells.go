package questions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The cells of a table row that need reading: tags, an options cell, the
// answer.

// appendTags appends the non-empty, trimmed tags not already in tags.
func appendTags(tags []string, add []string) []string {
	for _, t := range add {
		if t = strings.TrimSpace(t); t != "" && !contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

// splitOptions splits an options cell: one option a line, or separated by
// "|"; a prefix "A. " or "A) " is dropped when the options carry them in
// order.
func splitOptions(cell string, html bool) []string {
	if html {
		cell = htmlToMarkdown(cell, false)
	}
	var parts []string
	if strings.Contains(cell, "\n") {
		parts = strings.Split(cell, "\n")
	} else {
		parts = strings.Split(cell, "|")
	}
	var out []string
	for _, o := range parts {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	lettered := len(out) > 0
	for i, o := range out {
		if i >= MaxOptions || len(o) < 3 || o[:1] != Letter(i) || (o[1] != '.' && o[1] != ')') || o[2] != ' ' {
			lettered = false
			break
		}
	}
	if lettered {
		for i, o := range out {
			out[i] = strings.TrimSpace(o[3:])
		}
	}
	return out
}

// resolveAnswer reads an answer cell against the options: letters ("B",
// "b", "B, C", "B and C", "BC"), option numbers ("2", "1,3"), one 0 or 1
// per option ("0 1 0 0"), or option texts (one a line or separated by
// "|"). It returns which options are correct, or a message when the cell
// reads none of these ways or two ways that disagree.
func resolveAnswer(cell string, options []string) ([]bool, string) {
	n := len(options)
	tokens := strings.FieldsFunc(cell, func(r rune) bool { return strings.ContainsRune(",;|/&", r) || unicode.IsSpace(r) })
	var words []string
	for _, t := range tokens {
		t = strings.Trim(t, ".()")
		if t != "" && !strings.EqualFold(t, "and") {
			words = append(words, t)
		}
	}
	type reading struct {
		what string
		set  []bool
	}
	var readings []reading
	var letterErr string
	add := func(what string, idx []int) {
		set := make([]bool, n)
		for _, i := range idx {
			if i < 0 || i >= n || set[i] {
				return
			}
			set[i] = true
		}
		for _, r := range readings {
			if slices.Equal(r.set, set) {
				return
			}
		}
		readings = append(readings, reading{what, set})
	}
	// Letters.
	var letters []int
	allLetters := len(words) > 0
	for _, w := range words {
		if len(w) == 1 && unicode.IsLetter(rune(w[0])) && w[0] < 0x80 {
			letters = append(letters, int(unicode.ToUpper(rune(w[0]))-'A'))
		} else {
			allLetters = false
		}
	}
	if !allLetters && len(words) == 1 && len(words[0]) > 1 && len(words[0]) <= MaxOptions && strings.ToUpper(words[0]) == words[0] && strings.Trim(words[0], Letters+"Z") == "" {
		letters, allLetters = nil, true
		for _, c := range words[0] {
			letters = append(letters, int(c-'A'))
		}
	}
	if allLetters {
		for _, i := range letters {
			if i >= n {
				letterErr = fmt.Sprintf("answer letter %c is not an option (options are %s)", rune('A'+i), letterRange(n))
			}
		}
		add("letters", letters)
	}
	// Option numbers, and one 0 or 1 per option.
	var numbers []int
	allNumbers, binary := len(words) > 0, len(words) >= n && n >= 2
	for i, w := range words {
		if !allDigits(w) { // first: Atoi's error for a word allocates
			allNumbers, binary = false, false
			break
		}
		v, err := strconv.Atoi(w)
		if err != nil {
			allNumbers, binary = false, false
			break
		}
		numbers = append(numbers, v-1)
		if w != "0" && w != "1" || i >= n && w != "0" {
			binary = false
		}
	}
	if allNumbers {
		add("option numbers", numbers)
	}
	if binary {
		var idx []int
		for i, w := range words[:n] {
			if w == "1" {
				idx = append(idx, i)
			}
		}
		if len(idx) > 0 {
			add("one 0 or 1 per option", idx)
		}
	}
	// Option texts.
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	var normOptions []string // norm of each option, made at the first textOf
	textOf := func(s string) int {
		if normOptions == nil {
			normOptions = make([]string, len(options))
			for i, o := range options {
				normOptions[i] = norm(o)
			}
		}
		ns := norm(s)
		for i, o := range normOptions {
			if o == ns {
				return i
			}
		}
		return -1
	}
	if i := textOf(cell); i >= 0 {
		add("the text of an option", []int{i})
	} else {
		sep := "|"
		if strings.Contains(cell, "\n") {
			sep = "\n"
		}
		if parts := strings.Split(cell, sep); len(parts) > 1 {
			var idx []int
			for _, part := range parts {
				if i := textOf(part); i >= 0 {
					idx = append(idx, i)
				} else {
					idx = nil
					break
				}
			}
			if idx != nil {
				add("the texts of options", idx)
			}
		}
	}
	switch len(readings) {
	case 1:
		return readings[0].set, ""
	case 0:
		if letterErr != "" {
			return nil, letterErr
		}
		return nil, fmt.Sprintf("answer %q is neither option letters (B, or B,C) nor option numbers (2) nor the text of an option", clip(cell))
	}
	return nil, fmt.Sprintf("answer %q can be read as %s (%s) and as %s (%s); write the letters instead", clip(cell),
		readings[0].what, lettersOf(readings[0].set), readings[1].what, lettersOf(readings[1].set))
}

// lettersOf names the options a set marks: "B, C".
func lettersOf(set []bool) string {
	var ls []string
	for i, ok := range set {
		if ok {
			ls = append(ls, Letter(i))
		}
	}
	return strings.Join(ls, ", ")
}
