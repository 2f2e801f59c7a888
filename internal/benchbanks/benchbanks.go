// Package benchbanks makes bank files for benchmarks and tests of imports:
// realistic banks of a given size, and the hostile file of issue 19, built
// to cost a parser memory. Only tests and the bench/ commands import it.
package benchbanks

import (
	"fmt"
	"strings"
)

// Realistic is a YAML bank named name of about size bytes (never more):
// questions of about 540 bytes, as a practice exam has them (a two-line
// stem, four options, one correct, a two-sentence explanation), each with
// an id unique to the bank. Banks of another edition have the same
// questions with other explanations: importing one over the other updates
// every question.
func Realistic(name string, edition, size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "bank: %s\nquestions:\n", name)
	options := []string{"Object storage with lifecycle rules", "Block volumes attached to one instance",
		"A file system shared across zones", "A deep archive retrieved within hours"}
	for i := 0; ; i++ {
		var q strings.Builder
		fmt.Fprintf(&q, "- id: %s-%d\n  question: Which storage would a team pick for workload %d of %s, given that it needs durable storage and low latency for its reads?\n  options:\n",
			strings.ToLower(strings.ReplaceAll(name, " ", "-")), i+1, i+1, name)
		for j, o := range options {
			fmt.Fprintf(&q, "  - text: %s\n", o)
			if j == i%len(options) {
				q.WriteString("    correct: true\n")
			}
		}
		fmt.Fprintf(&q, "  explanation: The right answer keeps the data durable and close to the workload (edition %d). The others trade away latency, cost or durability, which this workload cannot give up.\n", edition)
		if b.Len()+q.Len() > size {
			return []byte(b.String())
		}
		b.WriteString(q.String())
	}
}

// Hostile is issue 19's JSON file of about size bytes (never more): one
// bank of questions that are each a single unknown field,
// {"bank":"X","questions":[{"zz":1},…]}, three problems a question.
func Hostile(size int) []byte {
	const head, item, tail = `{"bank":"X","questions":[`, `{"zz":1},`, `{"zz":1}]}`
	n := (size - len(head) - len(tail)) / len(item)
	return []byte(head + strings.Repeat(item, n) + tail)
}
