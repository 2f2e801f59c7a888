package fakediscord

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fieldError is one entry of Discord's "errors" tree.
type fieldError struct {
	path []string
	code string
	msg  string
}

// formError is a 400 answer: code 50035 with field errors, or another code
// (50006 empty message, 50109 invalid JSON) with just a message.
type formError struct {
	code    int
	message string
	fields  []fieldError
}

func (e *formError) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", e.code, e.message)
	for _, f := range e.fields {
		fmt.Fprintf(&b, "; %s: %s", strings.Join(f.path, "."), f.msg)
	}
	return b.String()
}

// body renders {"message","code","errors":{path...:{"_errors":[…]}}}.
func (e *formError) body() []byte {
	o := map[string]any{"message": e.message, "code": e.code}
	if len(e.fields) > 0 {
		tree := map[string]any{}
		for _, f := range e.fields {
			node := tree
			for _, p := range f.path {
				next, ok := node[p].(map[string]any)
				if !ok {
					next = map[string]any{}
					node[p] = next
				}
				node = next
			}
			list, _ := node["_errors"].([]any)
			node["_errors"] = append(list, map[string]any{"code": f.code, "message": f.msg})
		}
		o["errors"] = tree
	}
	return mustJSON(o)
}

// checker collects field errors.
type checker struct{ errs []fieldError }

func (c *checker) add(code, msg string, path ...string) {
	c.errs = append(c.errs, fieldError{path: append([]string(nil), path...), code: code, msg: msg})
}

func (c *checker) maxLen(s string, n int, path ...string) {
	if utf8.RuneCountInString(s) > n {
		c.add("BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length.", n), path...)
	}
}

func (c *checker) lenRange(s string, lo, hi int, path ...string) {
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0 && lo > 0:
		c.add("BASE_TYPE_REQUIRED", "This field is required", path...)
	case n < lo || n > hi:
		c.add("BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between %d and %d in length.", lo, hi), path...)
	}
}

func (c *checker) maxItems(n, max int, path ...string) {
	if n > max {
		c.add("BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length.", max), path...)
	}
}

func (c *checker) result() *formError {
	if len(c.errs) == 0 {
		return nil
	}
	return &formError{code: 50035, message: "Invalid Form Body", fields: c.errs}
}

func idx(i int) string { return strconv.Itoa(i) }

type embedIn struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Fields      []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"fields"`
	Footer *struct {
		Text string `json:"text"`
	} `json:"footer"`
	Author *struct {
		Name string `json:"name"`
	} `json:"author"`
}

// validateMessage checks a message create or edit body the way Discord does
// for classic messages. create also requires some content (50006).
func validateMessage(obj map[string]json.RawMessage, nFiles int, create bool) *formError {
	var c checker
	var content string
	if raw := obj["content"]; isSet(raw) {
		if json.Unmarshal(raw, &content) != nil {
			c.add("STRING_TYPE_CONVERT", "Could not interpret value as string.", "content")
		}
		c.maxLen(content, 2000, "content")
	}
	var flags int64
	if raw := obj["flags"]; isSet(raw) {
		if json.Unmarshal(raw, &flags) != nil {
			c.add("NUMBER_TYPE_COERCE", "Value is not int.", "flags")
		}
	}
	nEmbeds := 0
	if raw := obj["embeds"]; isSet(raw) {
		var embeds []embedIn
		if json.Unmarshal(raw, &embeds) != nil {
			c.add("LIST_TYPE_CONVERT", "Could not interpret value as a list of embeds.", "embeds")
		}
		nEmbeds = len(embeds)
		checkEmbeds(&c, embeds)
	}
	nComps := 0
	if raw := obj["components"]; isSet(raw) {
		var comps []map[string]any
		if json.Unmarshal(raw, &comps) != nil {
			c.add("LIST_TYPE_CONVERT", "Could not interpret value as a list of components.", "components")
		}
		nComps = len(comps)
		if flags&flagComponentsV2 != 0 {
			if strings.TrimSpace(content) != "" || nEmbeds > 0 {
				c.add("MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
					"The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2", "content")
			}
			checkComponentsV2(&c, comps)
		} else {
			checkComponents(&c, comps)
		}
	}
	if raw := obj["allowed_mentions"]; isSet(raw) {
		var am struct {
			Parse []string `json:"parse"`
			Users []string `json:"users"`
			Roles []string `json:"roles"`
		}
		if json.Unmarshal(raw, &am) != nil {
			c.add("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType", "allowed_mentions")
		}
		for _, p := range am.Parse {
			if (p == "users" && len(am.Users) > 0) || (p == "roles" && len(am.Roles) > 0) {
				c.add("SET_TYPE_ALREADY_CONTAINS_VALUE", "parse and the explicit "+p+" list are mutually exclusive", "allowed_mentions", "parse")
			}
		}
	}
	if fe := c.result(); fe != nil {
		return fe
	}
	if create && strings.TrimSpace(content) == "" && nEmbeds == 0 && nComps == 0 && nFiles == 0 &&
		!isSet(obj["sticker_ids"]) && !isSet(obj["poll"]) {
		return &formError{code: 50006, message: "Cannot send an empty message"}
	}
	return nil
}

func checkEmbeds(c *checker, embeds []embedIn) {
	c.maxItems(len(embeds), 10, "embeds")
	total := 0
	count := func(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }
	for i, e := range embeds {
		p := []string{"embeds", idx(i)}
		c.maxLen(strings.TrimSpace(e.Title), 256, append(p, "title")...)
		c.maxLen(strings.TrimSpace(e.Description), 4096, append(p, "description")...)
		c.maxItems(len(e.Fields), 25, append(p, "fields")...)
		total += count(e.Title) + count(e.Description)
		for j, f := range e.Fields {
			fp := append(append([]string(nil), p...), "fields", idx(j))
			if strings.TrimSpace(f.Name) == "" {
				c.add("BASE_TYPE_REQUIRED", "This field is required", append(fp, "name")...)
			}
			if strings.TrimSpace(f.Value) == "" {
				c.add("BASE_TYPE_REQUIRED", "This field is required", append(fp, "value")...)
			}
			c.maxLen(strings.TrimSpace(f.Name), 256, append(fp, "name")...)
			c.maxLen(strings.TrimSpace(f.Value), 1024, append(fp, "value")...)
			total += count(f.Name) + count(f.Value)
		}
		if e.Footer != nil {
			c.maxLen(strings.TrimSpace(e.Footer.Text), 2048, append(p, "footer", "text")...)
			total += count(e.Footer.Text)
		}
		if e.Author != nil {
			c.maxLen(strings.TrimSpace(e.Author.Name), 256, append(p, "author", "name")...)
			total += count(e.Author.Name)
		}
	}
	if total > 6000 {
		c.add("MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000", "embeds")
	}
}

// str, num read loosely typed component fields.
func str(m map[string]any, k string) (string, bool) {
	v, ok := m[k].(string)
	return v, ok
}

func num(m map[string]any, k string) (float64, bool) {
	v, ok := m[k].(float64)
	return v, ok
}

func list(m map[string]any, k string) []map[string]any {
	raw, _ := m[k].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		if o, ok := r.(map[string]any); ok {
			out = append(out, o)
		} else {
			out = append(out, map[string]any{})
		}
	}
	return out
}

func checkComponents(c *checker, rows []map[string]any) {
	c.maxItems(len(rows), 5, "components")
	ids := map[string]bool{}
	for i, row := range rows {
		rp := []string{"components", idx(i)}
		if t, _ := num(row, "type"); t != 1 {
			c.add("UNION_TYPE_CHOICES", `Value of field "type" must be one of (1,).`, append(rp, "type")...)
			continue
		}
		kids := list(row, "components")
		if len(kids) == 0 {
			c.add("BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.", append(rp, "components")...)
		}
		c.maxItems(len(kids), 5, append(rp, "components")...)
		selects := 0
		for j, k := range kids {
			kp := append(append([]string(nil), rp...), "components", idx(j))
			t, _ := num(k, "type")
			switch int(t) {
			case 2:
				checkButton(c, k, ids, kp)
			case 3, 5, 6, 7, 8:
				selects++
				checkSelect(c, k, int(t), ids, kp)
			default:
				c.add("UNION_TYPE_CHOICES", `Value of field "type" must be one of (2, 3, 5, 6, 7, 8).`, append(kp, "type")...)
			}
		}
		if selects > 0 && len(kids) > 1 {
			c.add("COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width", append(rp, "components")...)
		}
	}
}

func checkCustomID(c *checker, k map[string]any, ids map[string]bool, p []string) {
	id, _ := str(k, "custom_id")
	c.lenRange(id, 1, 100, append(p, "custom_id")...)
	if id != "" {
		if ids[id] {
			c.add("COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated", append(p, "custom_id")...)
		}
		ids[id] = true
	}
}

func checkButton(c *checker, k map[string]any, ids map[string]bool, p []string) {
	label, _ := str(k, "label")
	c.maxLen(label, 80, append(p, "label")...)
	style, _ := num(k, "style")
	switch {
	case style == 5:
		u, _ := str(k, "url")
		c.lenRange(u, 1, 512, append(p, "url")...)
		if id, _ := str(k, "custom_id"); id != "" {
			c.add("BUTTON_COMPONENT_CUSTOM_ID_INVALID", "A link button cannot have a custom id", append(p, "custom_id")...)
		}
	case style >= 1 && style <= 4:
		checkCustomID(c, k, ids, p)
	case style == 6:
		// premium button: sku_id, no custom_id
	default:
		c.add("BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.", append(p, "style")...)
	}
}

func checkSelect(c *checker, k map[string]any, typ int, ids map[string]bool, p []string) {
	checkCustomID(c, k, ids, p)
	ph, _ := str(k, "placeholder")
	c.maxLen(ph, 150, append(p, "placeholder")...)
	minV, okMin := num(k, "min_values")
	if !okMin {
		minV = 1
	}
	maxV, okMax := num(k, "max_values")
	if !okMax {
		maxV = 1
	}
	if minV < 0 || minV > 25 {
		c.add("NUMBER_TYPE_MAX", "int value should be between 0 and 25.", append(p, "min_values")...)
	}
	if maxV < 1 || maxV > 25 {
		c.add("NUMBER_TYPE_MAX", "int value should be between 1 and 25.", append(p, "max_values")...)
	}
	if minV > maxV {
		c.add("SELECT_COMPONENT_MIN_VALUES_GREATER_THAN_MAX", "min_values must be less than or equal to max_values", append(p, "min_values")...)
	}
	if typ != 3 {
		return
	}
	opts := list(k, "options")
	if len(opts) == 0 {
		c.add("BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.", append(p, "options")...)
	}
	c.maxItems(len(opts), 25, append(p, "options")...)
	if int(maxV) > len(opts) && len(opts) > 0 {
		c.add("SELECT_COMPONENT_MAX_VALUES_EXCEEDS_OPTIONS", "max_values must be less than or equal to the number of options", append(p, "max_values")...)
	}
	for i, o := range opts {
		op := append(append([]string(nil), p...), "options", idx(i))
		label, _ := str(o, "label")
		value, _ := str(o, "value")
		desc, _ := str(o, "description")
		c.lenRange(label, 1, 100, append(op, "label")...)
		c.lenRange(value, 1, 100, append(op, "value")...)
		c.maxLen(desc, 100, append(op, "description")...)
	}
}

// checkComponentsV2 checks the 40-component cap and interactive components
// of a Components V2 message; layout is not checked.
func checkComponentsV2(c *checker, comps []map[string]any) {
	total := 0
	ids := map[string]bool{}
	var walk func(list []map[string]any, p []string)
	walk = func(items []map[string]any, p []string) {
		for i, k := range items {
			kp := append(append([]string(nil), p...), idx(i))
			total++
			t, _ := num(k, "type")
			switch int(t) {
			case 2:
				checkButton(c, k, ids, kp)
			case 3, 5, 6, 7, 8:
				checkSelect(c, k, int(t), ids, kp)
			case 1, 9, 10, 11, 12, 13, 14, 17:
			default:
				c.add("UNION_TYPE_CHOICES", "Unknown component type.", append(kp, "type")...)
			}
			walk(list(k, "components"), append(kp, "components"))
			if acc, ok := k["accessory"].(map[string]any); ok {
				walk([]map[string]any{acc}, append(kp, "accessory"))
			}
		}
	}
	walk(comps, []string{"components"})
	if total > 40 {
		c.add("BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length.", "components")
	}
}

// validateChoices checks an autocomplete result.
func validateChoices(data map[string]any) *formError {
	var c checker
	choices := list(data, "choices")
	c.maxItems(len(choices), 25, "data", "choices")
	for i, ch := range choices {
		p := []string{"data", "choices", idx(i)}
		name, _ := str(ch, "name")
		c.lenRange(name, 1, 100, append(p, "name")...)
		if v, ok := str(ch, "value"); ok {
			c.maxLen(v, 100, append(p, "value")...)
		}
	}
	return c.result()
}

// validateModal checks a modal callback's data the way Discord does for
// the classic modal shape: a title of 1–45 characters, a custom_id of
// 1–100, 1–5 action rows each holding exactly one text input (type 4) with
// a custom_id of 1–100 unique in the modal, style 1 (short) or 2
// (paragraph), a label of 1–45 characters, min_length 0–4000, max_length
// 1–4000 and not below min_length, a placeholder of at most 100 and a
// value of at most 4000 characters.
func validateModal(data map[string]any) *formError {
	var c checker
	id, _ := str(data, "custom_id")
	c.lenRange(id, 1, 100, "data", "custom_id")
	title, _ := str(data, "title")
	c.lenRange(title, 1, 45, "data", "title")
	rows := list(data, "components")
	if len(rows) == 0 {
		c.add("BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.", "data", "components")
	}
	c.maxItems(len(rows), 5, "data", "components")
	ids := map[string]bool{}
	for i, row := range rows {
		rp := []string{"data", "components", idx(i)}
		if t, _ := num(row, "type"); t != 1 {
			c.add("UNION_TYPE_CHOICES", `Value of field "type" must be one of (1,).`, append(rp, "type")...)
			continue
		}
		kids := list(row, "components")
		if len(kids) != 1 {
			c.add("BASE_TYPE_BAD_LENGTH", "Must be between 1 and 1 in length.", append(rp, "components")...)
		}
		for j, k := range kids {
			kp := append(append([]string(nil), rp...), "components", idx(j))
			if t, _ := num(k, "type"); t != 4 {
				c.add("UNION_TYPE_CHOICES", `Value of field "type" must be one of (4,).`, append(kp, "type")...)
				continue
			}
			checkCustomID(&c, k, ids, kp)
			if style, _ := num(k, "style"); style != 1 && style != 2 {
				c.add("BASE_TYPE_CHOICES", "Value must be one of (1, 2).", append(kp, "style")...)
			}
			label, _ := str(k, "label")
			c.lenRange(label, 1, 45, append(kp, "label")...)
			minLen, hasMin := num(k, "min_length")
			if hasMin && (minLen < 0 || minLen > 4000) {
				c.add("NUMBER_TYPE_MAX", "int value should be between 0 and 4000.", append(kp, "min_length")...)
			}
			if maxLen, ok := num(k, "max_length"); ok && (maxLen < 1 || maxLen > 4000 || maxLen < minLen) {
				c.add("NUMBER_TYPE_MAX", "int value should be between 1 and 4000.", append(kp, "max_length")...)
			}
			ph, _ := str(k, "placeholder")
			c.maxLen(ph, 100, append(kp, "placeholder")...)
			v, _ := str(k, "value")
			c.maxLen(v, 4000, append(kp, "value")...)
		}
	}
	return c.result()
}

var (
	cmdNameRE   = regexp.MustCompile(`^[-_'\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)
	maxCommands = 100
)

// validateCommands checks a bulk overwrite (or, with one element and
// prefix nil, a single create).
func validateCommands(cmds []map[string]any, prefix func(i int) []string) *formError {
	var c checker
	chat := 0
	seen := map[string]bool{}
	for i, cmd := range cmds {
		p := prefix(i)
		t, ok := num(cmd, "type")
		if !ok {
			t = 1
		}
		name, _ := str(cmd, "name")
		key := fmt.Sprintf("%v/%s", t, name)
		if seen[key] {
			c.add("APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique", append(p, "name")...)
		}
		seen[key] = true
		desc, _ := str(cmd, "description")
		if t == 1 {
			chat++
			checkName(&c, name, append(p, "name"))
			c.lenRange(desc, 1, 100, append(p, "description")...)
		} else {
			c.lenRange(name, 1, 32, append(p, "name")...)
		}
		total := utf8.RuneCountInString(name) + utf8.RuneCountInString(desc)
		total += checkOptions(&c, list(cmd, "options"), append(p, "options"), 0)
		if total > 8000 {
			c.add("APPLICATION_COMMAND_TOO_LARGE", "Command exceeds maximum size (8000)", p...)
		}
	}
	if chat > maxCommands {
		c.add("BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	return c.result()
}

func checkName(c *checker, name string, p []string) {
	if !cmdNameRE.MatchString(name) {
		c.add("APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid", p...)
	} else if strings.ToLower(name) != name {
		c.add("APPLICATION_COMMAND_INVALID_NAME", "Command name must be lowercase", p...)
	}
}

// checkOptions validates one level of options and returns the characters
// they count towards the 8000 limit.
func checkOptions(c *checker, opts []map[string]any, p []string, depth int) int {
	c.maxItems(len(opts), 25, p...)
	total := 0
	sawOptional, sawSub, sawValue := false, false, false
	for i, o := range opts {
		op := append(append([]string(nil), p...), idx(i))
		t, _ := num(o, "type")
		name, _ := str(o, "name")
		desc, _ := str(o, "description")
		checkName(c, name, append(op, "name"))
		c.lenRange(desc, 1, 100, append(op, "description")...)
		total += utf8.RuneCountInString(name) + utf8.RuneCountInString(desc)
		if t < 1 || t > 11 {
			c.add("BASE_TYPE_CHOICES", "Value must be one of {1, …, 11}.", append(op, "type")...)
		}
		if t == 1 || t == 2 {
			sawSub = true
			if (t == 2 && depth > 0) || (t == 1 && depth > 1) {
				c.add("APPLICATION_COMMAND_OPTION_INVALID_NESTING", "Sub-command nesting is too deep", append(op, "type")...)
			}
			total += checkOptions(c, list(o, "options"), append(op, "options"), depth+1)
			continue
		}
		sawValue = true
		req, _ := o["required"].(bool)
		if req && sawOptional {
			c.add("APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options", append(op, "required")...)
		}
		if !req {
			sawOptional = true
		}
		choices := list(o, "choices")
		c.maxItems(len(choices), 25, append(op, "choices")...)
		if auto, _ := o["autocomplete"].(bool); auto && len(choices) > 0 {
			c.add("APPLICATION_COMMAND_OPTION_CHOICES_AUTOCOMPLETE", "Autocomplete cannot be used with choices", append(op, "autocomplete")...)
		}
		for j, ch := range choices {
			cp := append(append([]string(nil), op...), "choices", idx(j))
			cn, _ := str(ch, "name")
			c.lenRange(cn, 1, 100, append(cp, "name")...)
			total += utf8.RuneCountInString(cn)
			if v, ok := str(ch, "value"); ok {
				c.maxLen(v, 100, append(cp, "value")...)
				total += utf8.RuneCountInString(v)
			}
		}
	}
	if sawSub && sawValue {
		c.add("APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Sub-commands cannot be mixed with other option types", p...)
	}
	return total
}
