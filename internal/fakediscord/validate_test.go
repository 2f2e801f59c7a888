package fakediscord

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateModal(t *testing.T) {
	t.Parallel()
	input := func(extra string) string {
		return `{"type":1,"components":[{"type":4,"custom_id":"text","style":2,"label":"Questions"` + extra + `}]}`
	}
	modal := func(title string, rows ...string) string {
		return `{"custom_id":"m","title":"` + title + `","components":[` + strings.Join(rows, ",") + `]}`
	}
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"paragraph", modal("Paste", input(`,"max_length":4000,"value":"`+strings.Repeat("v", 4000)+`"`)), true},
		{"five rows", modal("Paste", input(""), strings.Replace(input(""), `"text"`, `"b"`, 1), strings.Replace(input(""), `"text"`, `"c"`, 1),
			strings.Replace(input(""), `"text"`, `"d"`, 1), strings.Replace(input(""), `"text"`, `"e"`, 1)), true},
		{"title 45", modal(strings.Repeat("t", 45), input("")), true},
		{"title 46", modal(strings.Repeat("t", 46), input("")), false},
		{"no rows", modal("Paste"), false},
		{"six rows", modal("Paste", input(""), input(""), input(""), input(""), input(""), input("")), false},
		{"label 46", modal("Paste", strings.Replace(input(""), `"Questions"`, `"`+strings.Repeat("l", 46)+`"`, 1)), false},
		{"max_length 4001", modal("Paste", input(`,"max_length":4001`)), false},
		{"value 4001", modal("Paste", input(`,"value":"`+strings.Repeat("v", 4001)+`"`)), false},
		{"style 3", modal("Paste", strings.Replace(input(""), `"style":2`, `"style":3`, 1)), false},
		{"button in a modal", modal("Paste", `{"type":1,"components":[{"type":2,"style":1,"label":"x","custom_id":"b"}]}`), false},
		{"two inputs in a row", modal("Paste", `{"type":1,"components":[{"type":4,"custom_id":"a","style":1,"label":"A"},{"type":4,"custom_id":"b","style":1,"label":"B"}]}`), false},
		{"duplicate custom_id", modal("Paste", input(""), input("")), false},
		{"custom_id 101", `{"custom_id":"` + strings.Repeat("c", 101) + `","title":"t","components":[` + input("") + `]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data map[string]any
			if err := json.Unmarshal([]byte(tt.body), &data); err != nil {
				t.Fatal(err)
			}
			fe := validateModal(data)
			if got := fe == nil; got != tt.ok {
				t.Errorf("valid = %v (%v), want %v", got, fe, tt.ok)
			}
		})
	}
}

func TestValidateMessage(t *testing.T) {
	t.Parallel()
	row := func(comps string) string { return `[{"type":1,"components":[` + comps + `]}]` }
	sel := func(extra string) string {
		return `{"type":3,"custom_id":"s","options":[{"label":"A","value":"A"},{"label":"B","value":"B"}]` + extra + `}`
	}
	tests := []struct {
		name string
		body string
		want int // 0 ok, else code
	}{
		{"plain", `{"content":"hi"}`, 0},
		{"empty", `{"content":"  "}`, 50006},
		{"content 2000", `{"content":"` + strings.Repeat("é", 2000) + `"}`, 0},
		{"content 2001", `{"content":"` + strings.Repeat("é", 2001) + `"}`, 50035},
		{"11 embeds", `{"embeds":[` + strings.TrimSuffix(strings.Repeat(`{"title":"t"},`, 11), ",") + `]}`, 50035},
		{"description 4097", `{"embeds":[{"description":"` + strings.Repeat("d", 4097) + `"}]}`, 50035},
		{"26 fields", `{"embeds":[{"fields":[` + strings.TrimSuffix(strings.Repeat(`{"name":"n","value":"v"},`, 26), ",") + `]}]}`, 50035},
		{"field value 1025", `{"embeds":[{"fields":[{"name":"n","value":"` + strings.Repeat("v", 1025) + `"}]}]}`, 50035},
		{"footer 2049", `{"embeds":[{"footer":{"text":"` + strings.Repeat("f", 2049) + `"}}]}`, 50035},
		{"total 6001", `{"embeds":[{"description":"` + strings.Repeat("d", 4000) + `"},{"description":"` + strings.Repeat("d", 2001) + `"}]}`, 50035},
		{"total 6000", `{"embeds":[{"title":"` + strings.Repeat("t", 200) + `","description":"` + strings.Repeat("d", 3800) + `"},{"fields":[{"name":"n","value":"` + strings.Repeat("v", 999) + `"},{"name":"` + strings.Repeat("n", 100) + `","value":"` + strings.Repeat("é", 900) + `"}]}]}`, 0},
		{"total 6001 over titles and fields", `{"embeds":[{"title":"` + strings.Repeat("t", 201) + `","description":"` + strings.Repeat("d", 3800) + `"},{"fields":[{"name":"n","value":"` + strings.Repeat("v", 999) + `"},{"name":"` + strings.Repeat("n", 100) + `","value":"` + strings.Repeat("é", 900) + `"}]}]}`, 50035},
		{"10 embeds", `{"embeds":[` + strings.TrimSuffix(strings.Repeat(`{"title":"t"},`, 10), ",") + `]}`, 0},
		{"select ok", `{"components":` + row(sel(`,"min_values":1,"max_values":2`)) + `}`, 0},
		{"6 rows", `{"components":[` + strings.TrimSuffix(strings.Repeat(`{"type":1,"components":[{"type":2,"style":1,"label":"x","custom_id":"b"}]},`, 6), ",") + `]}`, 50035},
		{"max > options", `{"components":` + row(sel(`,"max_values":3`)) + `}`, 50035},
		{"min > max", `{"components":` + row(sel(`,"min_values":2,"max_values":1`)) + `}`, 50035},
		{"empty custom_id", `{"components":` + row(`{"type":2,"style":1,"label":"x","custom_id":""}`) + `}`, 50035},
		{"custom_id 101", `{"components":` + row(`{"type":2,"style":1,"label":"x","custom_id":"`+strings.Repeat("c", 101)+`"}`) + `}`, 50035},
		{"button label 81", `{"components":` + row(`{"type":2,"style":1,"custom_id":"b","label":"`+strings.Repeat("l", 81)+`"}`) + `}`, 50035},
		{"option label 101", `{"components":` + row(`{"type":3,"custom_id":"s","options":[{"label":"`+strings.Repeat("l", 101)+`","value":"A"}]}`) + `}`, 50035},
		{"26 options", `{"components":` + row(`{"type":3,"custom_id":"s","options":[`+strings.TrimSuffix(strings.Repeat(`{"label":"A","value":"A"},`, 26), ",")+`]}`) + `}`, 50035},
		{"unknown type", `{"components":` + row(`{"type":99}`) + `}`, 50035},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.body), &obj); err != nil {
				t.Fatal(err)
			}
			fe := validateMessage(obj, 0, true)
			got := 0
			if fe != nil {
				got = fe.code
			}
			if got != tt.want {
				t.Errorf("got %d (%v), want %d", got, fe, tt.want)
			}
		})
	}
}
