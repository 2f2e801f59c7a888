package questions_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/quizhost/quizhost/questions"
)

func ExampleParse() {
	data := []byte(`Cloud Networking Practice Question 8
Select 1Which protocol does a browser use to resolve a host name before connecting?
- A
DNS
- B
ARP
Show answer and explanation
Correct answer: A
Explanation
Name resolution happens through DNS before any connection is opened.
- B. Incorrect.
ARP maps IP addresses to MAC addresses on a local link.
`)
	banks, err := questions.Parse("net.txt", data)
	if err != nil {
		log.Fatal(err)
	}
	q := banks[0].Questions[0]
	fmt.Println(q.ID)
	fmt.Println(q.Body())
	fmt.Println("correct:", strings.Join(q.Correct(), ", "))
	fmt.Println("why not B:", q.Options[1].Rationale)

	// A broken file: every problem, each with its line.
	_, err = questions.Parse("broken.gift", []byte("::a::Pick one {=x ~}\n\n::b::Pick {~x ~y}\n"))
	fmt.Println(err)
	// Output:
	// Cloud Networking Practice#8
	// Which protocol does a browser use to resolve a host name before connecting?
	//
	// **A.** DNS
	// **B.** ARP
	// correct: A
	// why not B: ARP maps IP addresses to MAC addresses on a local link.
	// broken.gift:1: answer B has no text
	// broken.gift:3: no right answer (mark it with = or a positive weight ~%50%)
}

func ExampleLoader() {
	dir, err := os.MkdirTemp("", "banks")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	yaml := `bank: Security Basics
questions:
  - id: tls-handshake
    question: What does a TLS handshake establish?
    options:
      - text: Shared session keys.
        correct: true
      - text: A TCP connection.
        why: TCP is set up before TLS starts.
`
	if err := os.WriteFile(filepath.Join(dir, "security.yaml"), []byte(yaml), 0o644); err != nil {
		log.Fatal(err)
	}

	catalogue, problems := questions.Loader{Paths: []string{dir}}.Load()
	if err := problems.Err(); err != nil {
		log.Fatal(err) // every error of every file, one per line
	}
	bank, _ := catalogue.Bank("security basics")
	fmt.Println(bank.Name, len(bank.Questions))
	q, _ := catalogue.Question("tls-handshake")
	fmt.Println(q.Stem, q.Correct())
	// Output:
	// Security Basics 1
	// What does a TLS handshake establish? [A]
}

// A question copied from a practice-exam site: the bank comes from the
// folder (for an import or a paste, the bank option); the site's vote is
// kept with the question.
func ExampleParseFile_practiceSite() {
	data := []byte(`Question #14 Topic 1
A company runs a batch job once a night for about 30 minutes. Which pricing model is the MOST cost-effective?
A. On-Demand Instances
B. Reserved Instances
C. Spot Instances Most Voted
Reveal Solution Hide Solution   Discussion   24
Suggested Answer: B
Community vote distribution
C (71%)
A (29%)
`)
	banks, problems := questions.ParseFile("AWS/clf.txt", data, questions.ParseOptions{DefaultBank: "AWS"})
	if err := problems.Err(); err != nil {
		log.Fatal(err)
	}
	q := banks[0].Questions[0]
	fmt.Println(q.ID, q.Correct(), q.Options[2].Text)
	if vote, ok := q.CommunityDisagrees(); ok {
		fmt.Printf("the site's visitors chose %s (%d%%)\n", strings.Join(vote.Letters, ""), vote.Percent)
	}
	// Output:
	// AWS#14 [B] Spot Instances
	// the site's visitors chose C (71%)
}
