package questions

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The structured schema, for writing. Field order is the order written.
type yamlBank struct {
	Bank      string         `yaml:"bank"`
	Source    string         `yaml:"source,omitempty"`
	Questions []yamlQuestion `yaml:"questions"`
}

type yamlQuestion struct {
	ID          string       `yaml:"id"`
	Number      int          `yaml:"number,omitempty"`
	Question    string       `yaml:"question"`
	Options     []yamlOption `yaml:"options"`
	Explanation string       `yaml:"explanation,omitempty"`
	Tags        []string     `yaml:"tags,omitempty,flow"`
	Source      string       `yaml:"source,omitempty"`
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
	out := yamlBank{Bank: b.Name, Questions: make([]yamlQuestion, len(b.Questions))}
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
// each question's Line and the difference between nil and empty Tags; ""
// when there is none.
func bankDiff(a, b Bank) string {
	if a.Name != b.Name {
		return fmt.Sprintf("bank name %q would read back as %q", clip(a.Name), clip(b.Name))
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
