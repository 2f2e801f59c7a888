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
	out := yamlBank{Bank: b.Name, Exam: encodeExam(b.Exam), Questions: make([]yamlQuestion, len(b.Questions))}
	source := b.Questions[0].Source // Validate: at least one question
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
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("marshal bank %q: %w", clip(b.Name), err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("marshal bank %q: %w", clip(b.Name), err)
	}
	data := buf.Bytes()
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
