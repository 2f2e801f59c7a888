package questions

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The structured schema, for writing. Field order is the order written.
type yamlBank struct {
	Bank      string         `yaml:"bank"`
	Source    string         `yaml:"source,omitempty"`
	Exam      *yamlExam      `yaml:"exam,omitempty"`
	Questions []yamlQuestion `yaml:"questions"`
}

type yamlExam struct {
	Questions int    `yaml:"questions,omitempty"`
	Minutes   int    `yaml:"minutes,omitempty"`
	Pass      string `yaml:"pass,omitempty"`
	// Domains is a mapping (domain: weight) in the settings' order.
	Domains *yaml.Node `yaml:"domains,omitempty"`
}

// encodeExam is e as the exam block writes it; nil for nil.
func encodeExam(e *Exam) *yamlExam {
	if e == nil {
		return nil
	}
	out := &yamlExam{Questions: e.Questions, Minutes: e.Minutes}
	if !e.Pass.IsZero() {
		out.Pass = e.Pass.String()
	}
	if len(e.Domains) > 0 {
		out.Domains = &yaml.Node{Kind: yaml.MappingNode}
		for _, d := range e.Domains {
			out.Domains.Content = append(out.Domains.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: d.Name},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(d.Weight)})
		}
	}
	return out
}

type yamlQuestion struct {
	ID          string       `yaml:"id"`
	Number      int          `yaml:"number,omitempty"`
	Question    string       `yaml:"question"`
	Options     []yamlOption `yaml:"options"`
	Explanation string       `yaml:"explanation,omitempty"`
	Tags        []string     `yaml:"tags,omitempty,flow"`
	Source      string       `yaml:"source,omitempty"`
	Community   []yamlVote   `yaml:"community,omitempty,flow"`
}

type yamlVote struct {
	Answer  string `yaml:"answer"`
	Percent int    `yaml:"percent"`
}

type yamlOption struct {
	Text    string `yaml:"text"`
	Correct bool   `yaml:"correct,omitempty"`
	Why     string `yaml:"why,omitempty"`
}

// MarshalYAML writes b as a structured YAML bank file (the schema the
// README documents), for exporting a bank whatever format it came from.
// Every question gets an explicit id, so that the file keeps the
// questions' identity (stored answers, "already asked" history) even when
// it is reordered or its stems are edited; a number only when it differs
// from the question's position (the position is the default); a source
// common to all questions is written once, for the bank.
//
// Contract: when the error is nil, Parse("x.yaml", data) returns one bank
// equal to b in every field except Path and each question's Line (and a
// nil Tags for an empty one). When b could not come back so (it fails
// Validate, or has text with surrounding white space, letters out of
// order, a question of another bank, a Number below 1...), MarshalYAML
// returns an error saying why, and no data. b is not modified.
func MarshalYAML(b Bank) ([]byte, error) {
	if ps := Validate([]Bank{b}); len(ps) > 0 {
		return nil, fmt.Errorf("marshal bank %q: %w", clip(b.Name), ps)
	}
	data, err := EncodeYAML(b)
	if err != nil {
		return nil, err
	}
	// Hold to the contract by reading the result back.
	back, err := Parse("export.yaml", data)
	if err != nil {
		return nil, fmt.Errorf("marshal bank %q: the YAML does not read back: %w", clip(b.Name), err)
	}
	if len(back) != 1 {
		return nil, fmt.Errorf("marshal bank %q: the YAML reads back as %d banks", clip(b.Name), len(back))
	}
	if diff := bankDiff(b, back[0]); diff != "" {
		return nil, fmt.Errorf("marshal bank %q: the YAML would not read back unchanged: %s", clip(b.Name), diff)
	}
	return data, nil
}

// The YAML library keeps every event of a document until the document
// ends (some 280 bytes an event, about thirty a question) and copies them
// each time its queue grows: a bank of 2,000 questions encoded at once
// holds some 15 MiB of events at the end and allocates five times that on
// the way, most of what an import allocates. So encodeYAML writes the
// bank a question at a time, each question in the place and with the
// bytes the library gives it in the whole document (wholeYAML): most
// questions hold only plain text, which it writes itself (plainYAML);
// the library encodes the others, each as a bank of one question of its
// own, of which the question's lines are kept.

// encodeYAML writes out as MarshalYAML stores it: the bytes of
// wholeYAML(out), for a fraction of the memory and time (see above).
func encodeYAML(out yamlBank) ([]byte, error) {
	if len(out.Questions) == 0 {
		return wholeYAML(out) // "questions: []"
	}
	empty, err := wholeYAML(yamlBank{Bank: out.Bank, Source: out.Source, Exam: out.Exam, Questions: []yamlQuestion{}})
	if err != nil {
		return nil, err
	}
	head, ok := bytes.CutSuffix(empty, []byte(" []\n"))
	if !ok {
		return wholeYAML(out)
	}
	head = append(head, '\n') // "bank: …\n[source: …\n]questions:\n"
	buf := bytes.NewBuffer(make([]byte, 0, len(head)+600*len(out.Questions)))
	buf.Write(head)
	for i := range out.Questions {
		q := &out.Questions[i]
		if writePlainQuestion(buf, q) {
			continue
		}
		one := out
		one.Questions = out.Questions[i : i+1]
		data, err := wholeYAML(one)
		if err != nil {
			return nil, err
		}
		item, ok := bytes.CutPrefix(data, head)
		// A document the library ends early (after an open-ended scalar)
		// would not continue as the whole does: encode it whole.
		if !ok || !bytes.HasPrefix(item, []byte("  - ")) || bytes.HasSuffix(item, []byte("\n...\n")) {
			return wholeYAML(out)
		}
		buf.Write(item)
	}
	return buf.Bytes(), nil
}

// writePlainQuestion writes q as an item of the bank's questions, as the
// library would, when every text of q is plain (see plainYAML); it reports
// false, having written nothing, when one is not.
func writePlainQuestion(buf *bytes.Buffer, q *yamlQuestion) bool {
	if !plainYAML(q.ID, false) || !plainYAML(q.Question, false) ||
		(q.Explanation != "" && !plainYAML(q.Explanation, false)) || (q.Source != "" && !plainYAML(q.Source, false)) {
		return false
	}
	for _, o := range q.Options {
		if !plainYAML(o.Text, false) || (o.Why != "" && !plainYAML(o.Why, false)) {
			return false
		}
	}
	for _, t := range q.Tags {
		if !plainYAML(t, true) {
			return false
		}
	}
	for _, v := range q.Community {
		if !plainYAML(v.Answer, true) {
			return false
		}
	}
	buf.WriteString("  - id: ")
	buf.WriteString(q.ID)
	if q.Number != 0 {
		buf.WriteString("\n    number: ")
		buf.WriteString(strconv.Itoa(q.Number))
	}
	buf.WriteString("\n    question: ")
	buf.WriteString(q.Question)
	buf.WriteString("\n    options:")
	if len(q.Options) == 0 {
		buf.WriteString(" []")
	}
	for _, o := range q.Options {
		buf.WriteString("\n      - text: ")
		buf.WriteString(o.Text)
		if o.Correct {
			buf.WriteString("\n        correct: true")
		}
		if o.Why != "" {
			buf.WriteString("\n        why: ")
			buf.WriteString(o.Why)
		}
	}
	if q.Explanation != "" {
		buf.WriteString("\n    explanation: ")
		buf.WriteString(q.Explanation)
	}
	if len(q.Tags) > 0 {
		buf.WriteString("\n    tags: [")
		for i, t := range q.Tags {
			if i > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(t)
		}
		buf.WriteByte(']')
	}
	if q.Source != "" {
		buf.WriteString("\n    source: ")
		buf.WriteString(q.Source)
	}
	if len(q.Community) > 0 {
		buf.WriteString("\n    community: [")
		for i, v := range q.Community {
			if i > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString("{answer: ")
			buf.WriteString(v.Answer)
			buf.WriteString(", percent: ")
			buf.WriteString(strconv.Itoa(v.Percent))
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	buf.WriteByte('\n')
	return true
}

// plainYAML reports whether the library writes s, a string value of the
// bank file, as it is (a plain scalar): in block context (a mapping's
// value on its own line), or in flow context ([a, b], {k: v}) when flow
// is set. It answers for a conservative part of such strings only, which
// most bank text is in: printable ASCII starting with a letter and not
// ending with a space; neither ": " nor " #" (which start a value and a
// comment) and no ':' at the end; in flow context none of ,?[]{}:# at
// all; and not a word that reads as a boolean or null (y, yes, on, n, no,
// off, true, false, null, in any case). A string it says no to is left to
// the library.
func plainYAML(s string, flow bool) bool {
	if s == "" || !isASCIILetter(s[0]) || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c > 0x7e:
			return false
		case c == ':' && s[i+1] == ' ', c == '#' && s[i-1] == ' ':
			return false
		case flow && strings.IndexByte(",?[]{}:#", c) >= 0:
			return false
		}
	}
	if len(s) <= 5 {
		for _, w := range [...]string{"y", "yes", "on", "n", "no", "off", "true", "false", "null"} {
			if strings.EqualFold(s, w) {
				return false
			}
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// wholeYAML encodes out in one document.
func wholeYAML(out yamlBank) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeYAML returns the bytes MarshalYAML returns for b, without
// validating b or reading them back: for a bank MarshalYAML has accepted
// (the same bank always gives the same bytes), by a caller that would
// rather write them again than hold them meanwhile. b is not modified.
func EncodeYAML(b Bank) ([]byte, error) {
	out := yamlBank{Bank: b.Name, Exam: encodeExam(b.Exam), Questions: make([]yamlQuestion, len(b.Questions))}
	source := ""
	if len(b.Questions) > 0 {
		source = b.Questions[0].Source
	}
	for _, q := range b.Questions {
		if q.Source != source {
			source = ""
			break
		}
	}
	out.Source = source
	for i, q := range b.Questions {
		yq := yamlQuestion{ID: q.ID, Question: q.Stem, Explanation: q.Explanation, Tags: q.Tags}
		if q.Number != i+1 {
			yq.Number = q.Number
		}
		if source == "" {
			yq.Source = q.Source
		}
		yq.Options = make([]yamlOption, len(q.Options))
		for j, o := range q.Options {
			yq.Options[j] = yamlOption{Text: o.Text, Correct: o.Correct, Why: o.Rationale}
		}
		for _, v := range q.Community {
			yq.Community = append(yq.Community, yamlVote{Answer: strings.Join(v.Letters, ""), Percent: v.Percent})
		}
		out.Questions[i] = yq
	}
	data, err := encodeYAML(out)
	if err != nil {
		return nil, fmt.Errorf("marshal bank %q: %w", clip(b.Name), err)
	}
	return data, nil
}

// bankDiff names the first field in which a and b differ, ignoring Path,
// each question's Line, where the exam settings were read and the
// difference between nil and empty Tags; "" when there is none.
func bankDiff(a, b Bank) string {
	if a.Name != b.Name {
		return fmt.Sprintf("bank name %q would read back as %q", clip(a.Name), clip(b.Name))
	}
	if (a.Exam == nil) != (b.Exam == nil) || a.Exam != nil && !a.Exam.Equal(*b.Exam) {
		return "the exam settings would change"
	}
	if len(a.Questions) != len(b.Questions) {
		return fmt.Sprintf("%d questions would read back as %d", len(a.Questions), len(b.Questions))
	}
	for i := range a.Questions {
		p, q := &a.Questions[i], &b.Questions[i]
		field := questionDiff(p, q)
		if field != "" {
			return fmt.Sprintf("question %d (id %q): its %s would change", i+1, clip(p.ID), field)
		}
	}
	return ""
}
