package questions

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// checkFuzz asserts what every parser promises for any input: sound
// questions only, problems naming the file and a line inside it, the same
// answer twice, and no structural problem left for Validate to find when
// the parser found none (only Discord's length limits remain to check).
func checkFuzz(t *testing.T, path string, data []byte, parse func() ([]Bank, Problems)) {
	banks, ps := parse()
	checkInvariants(t, banks, ps)
	// Every parser counts lines alike: "\n", "\r\n" and a lone "\r" each
	// end one.
	normalised := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	maxLine := strings.Count(normalised, "\n") + 1
	for _, p := range ps {
		if p.Path != path || p.Line < 0 || p.Line > maxLine {
			t.Errorf("got problem %v, want path %s and a line in 0..%d", p, path, maxLine)
		}
	}
	again, ps2 := parse()
	if !reflect.DeepEqual(banks, again) || !reflect.DeepEqual(ps, ps2) {
		t.Error("got different results from the same input")
	}
	if len(ps) > 0 {
		return
	}
	if len(banks) == 0 {
		t.Error("got no banks and no problems")
	}
	vps := Validate(banks)
	for _, p := range vps {
		if !strings.Contains(p.Msg, " characters") && !strings.Contains(p.Msg, " bytes") {
			t.Errorf("the parser accepted what Validate refuses: %v", p)
		}
	}
	if len(vps) == 0 {
		for _, b := range banks {
			checkRoundTrip(t, b)
		}
	}
}

// textSeeds are the seeds of FuzzParseText and FuzzMarshalYAML.
var textSeeds = [][]byte{
	lines(docExample...),
	lines(q2("B Question 1")...),
	[]byte("\uFEFFB Question 1\r\nSelect 2 Two?\r\n- A\r\na\r\n- B\r\nb\r\nCorrect answers: A B\r\nExplanation\r\n- A. Correct. x\r\n- B. Correct.\r\nCorrect. y"),
	[]byte("B Question 1\nSelect 110 servers\n- A\nQ Question 2\n- B\nb\nShow answer and explanation\nCorrect answer: a\n"),
	[]byte("x\nB Question 1\nB Question 2\nSelect 1\n\n- A\n\n- C\nCorrect answers: A, C, Z\nExplanation\n- Q. Incorrect.\nB Question 2\n"),
	[]byte("B Question 99999999999\nSelect 0\n- Z\nCorrect answer:\nCorrect answer: B7\n"),
	[]byte("B Question 1\rSelect 1 \"yes\": no #x\r- A\r~\r- B\r- [b]\rCorrect answer: A\rExplanation\r  null\r\r\r- A. Correct.\r'quoted'\rC Question 3\rSelect 1|\r- A\r>\r- B\r&a *a\rCorrect answer: B\r"),
	// Issue 8: title variants, bare and glued titles, code blocks, a lost question.
	[]byte("AWS Cloud Practitioner - Question #12 of 65\nSelect 1Q?\n```\n    x\n```\n- A\na\n- B\nb\nCorrect answer: A\nExplanation\ny.Question 13\nSelect 1R?\n- A\na\n- B\nb\nCorrect answer: BAWS Cloud Practitioner Question 14\nSelect 1S?\n- A\na\n- B\nb\nShow answer and explanation\nCorrect answer: A\n- B. Incorrect.Azure\u00a0Question 2\nSelect 1\n- A\n- A\n"),
	[]byte("question 1\nSelect 1```\n- A\nNet Question 2\nSelect 2\n- A\na\n- B\nb\n- A\nCorrect answers: A B\nSelect 1\nExplanation\n```x\nN Question 3\nSelect 1\n"),
	// Issue 18: the practice-site shape, Aiken, one-line options, Bank: lines.
	lines(issueExample...),
	[]byte("\uFEFFBank: Net\r\nQuestion #1\u00a0Topic 1\r\nWhich? (Select TWO)\r\nA) a Most Voted\r\n(B) b\r\nC.\r\nc\r\nReveal Solution Hide Solution   Discussion   3\r\nCorrect Answer: AC 🗳️\r\nReference:\r\nhttps://x\r\nCommunity vote distribution\r\nAC (60%)B\r\n40%\r\nOther\r\n100%\r\nQuestion #1Topic 2\r\nQ?\r\nA. a\r\nB. b\r\nAnswer: B"),
	[]byte("Q?\nA. a\nB. b\nANSWER: A, B\nExplanation: x\n\nR?\n\nmore\nA) a\nB) b\nanswer: b\nCommunity vote distribution\nB 180%\nE (3%)\nBank:\nBank: Two\nS?\nA. a\nA. b\nANSWER: Z\n"),
	[]byte("Net Question 1\nSelect 1Q?\nA. a\nB. b\nCorrect answer: B\n- B. Correct.\nx\nC (1%)Bank: Two\nQuestion #: 2\nTopic #: 1\nQ?\n(A) a\n(B) b\nSuggested Answer: BAQuestion 3\nOtherQuestion 4\n"),
	[]byte("Notes\nSuggested Answer: B\n- A\nA. x\nB. y\n"),
}

func FuzzParseText(f *testing.F) {
	for _, s := range textSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, "f.txt", data, func() ([]Bank, Problems) { return ParseText("f.txt", data) })
		checkCapped(t, "f.txt", data, 2)
	})
}

// FuzzParseAiken reads the text seeds as *.aiken files: untitled,
// whatever their lines look like.
func FuzzParseAiken(f *testing.F) {
	for _, s := range textSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, "f.aiken", data, func() ([]Bank, Problems) {
			return ParseFile("f.aiken", data, ParseOptions{DefaultBank: "B"})
		})
		checkCapped(t, "f.aiken", data, 2)
	})
}

func FuzzParseStructured(f *testing.F) {
	f.Add(yamlExample, false)
	f.Add(jsonExample, true)
	f.Add([]byte("bank: B\nquestions:\n- question: Q?\n  options: [a, {text: b, correct: yes}]\n  number: 1.5\n"), false)
	f.Add([]byte("bank: &a B\nquestions: *a\n---\nx: 1\n"), false)
	f.Add([]byte("bank: B\nquestions:\n- {question: Q, select: 3, options: [{text: a, correct: true}, {text: b, correct: true}]}\n- {id: B#1, question: Q, options: [{text: a, correct: true}, {text: b}]}\n"), false)
	f.Add([]byte(`{"bank": "B", "questions": [{"question": "Q?", "number": 2, "tags": ["x", ""], "options": [{"text": "a", "correct": true}, {"text": "b"}]}, {"number": 2}]}`), true)
	f.Add([]byte(`{"bank": 1, "questions": {}, "bank": "x"}  [`), true)
	f.Add([]byte("\uFEFF[1, 2, {\"a\": null}]"), true)
	f.Add([]byte("\r000"), false) // a lone CR: YAML counted it as a line break, the others did not
	f.Add([]byte("\u2028000: [\u0085"), false)
	// The empty value of "---" was on line 2.
	f.Add([]byte("---"), false)
	// A null number left the question without an ID.
	f.Add([]byte(`{"bank":0,"questions":[{"number" ,"question":0,"options":[{"text":0,"correct":true},{"text":0}]}]}`), false)
	f.Add([]byte(strings.Repeat("[", 40)), true)
	f.Add([]byte(strings.Repeat("[", 40)), false)
	f.Add([]byte("bank: B\nquestions:\n- question: Q?\n  options: [{text: a, correct: true}, {text: b}]\n  community: [{answer: BA, percent: 50}, {answer: b, percent: 60}, {answer: [1], percent: x}, 3]\n"), false)
	f.Add([]byte(`{"bank": "B", "questions": [{"question": "Q?", "options": [{"text": "a", "correct": true}, {"text": "b"}], "community": [{"answer": "A", "percent": 100}]}]}`), true)
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		format, path := FormatYAML, "f.yaml"
		if isJSON {
			format, path = FormatJSON, "f.json"
		}
		checkFuzz(t, path, data, func() ([]Bank, Problems) { return ParseStructured(path, data, format) })
		checkCapped(t, path, data, 2)
	})
}

func FuzzParseGIFT(f *testing.F) {
	f.Add([]byte("::Latency 1::Which? {\n  ~%50%CDN #Edge.\n  ~%-100%CPU #No.\n  ~%50%Replicas\n  ####Closer is faster.\n}\n\n::DNS::Which protocol? {=DNS ~ARP ~SMTP}\n"))
	f.Add([]byte("// c\n$CATEGORY: $course$/top/Net\n\nTF {T#no#yes}\n\n::a\\:b::[html]x \\{y\\} {=a\\=b ~c\\#d #e\\n f}\n"))
	f.Add([]byte("::s::{=a =b}\n\n::n::{#3:1}\n\n::m::{=a -> b =c -> d}\n\n::e::{}\n\n::w::x {=a ~b} y\n\nplain\n"))
	f.Add([]byte("::u::open {=a ~b\n\n::t::{~%x%a ~%200%b}\n\n::t::{~ ~}\n\n::\n"))
	f.Add([]byte("{=a ~b ~c ~d ~e ~f ~g ~h ~i ~j ~k ~l ~m ~n ~o ~p ~q ~r ~s ~t ~u ~v ~w ~x ~y ~z}\n}\n{\n"))
	f.Add([]byte("$CATEGORY: $course$/top/X\n::a::[html]<p>Q <b>x</b></p><pre>  a\n    b &lt;</pre>{\n\t=<p>a</p>#<p>w</p>\n\t=b\n\t~<br/>c\n\t####<ul><li>x</li></ul>\n}\n::b::[moodle]R\nS{TRUE#[html]<i>x#y}\nT {=a ~b}\n\n::c::{}\n"))
	f.Add([]byte("::p::<pre><code>x</pre></code><!--{=a ~b}\n\n::q::[html]<a <b>{~%50%<ol><li>x ~%50%y ~z}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, "f.gift", data, func() ([]Bank, Problems) { return ParseGIFT("f.gift", data) })
		checkCapped(t, "f.gift", data, 2)
	})
}

// tableSeeds are the seeds of FuzzParseTable: the fixtures, and tables
// that broke or nearly broke the parser.
func tableSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, f := range []string{"sheets-export.csv", "excel-semicolon.csv", "sheet-copy.tsv", "anki-notes.txt"} {
		data, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return append(seeds,
		[]byte("sep=;\nquestion;a;b;answer\nQ?;x;y;B\n"),
		[]byte("\uFEFFquestion,options,answer,explanation a\nQ?,\"A. x\nB. y\",x,\"why\n  not:\n    so\"\n"),
		[]byte("Title,,\n,,\nQuestion - max 120 characters,Answer 1 - x,Answer 2 - y,Correct answer(s)\nQ?,1,2,\"1,2\"\nQ?,1,2,2\n"),
		[]byte("#separator:pipe\n#html:true\n#columns:Question|A|B|Answer|Deck|Tags\n#tags:t\n<b>Q</b>|<i>x</i>|y|0 1|A::B::C|u v\n# a comment\n"),
		[]byte("#separator:tab\n#html:true\n#guid column:1\n#notetype column:2\n#deck column:3\n#tags column:15\ng\tAllInOne (kprim, mc, sc)\tD::E\tQ\t\t2\ta\tb\t\t\t\t1 0 0 0 0\t\t\tt\n"),
		[]byte("question,a,b,answer,number,id,bank\nQ?,x,y,A,1,,B\nR?,x,y,B,1,,B\nS?,x,y,A,,i,\nT?,x,y,A,,i,\n\"U,x,y\n"),
		[]byte("question\ta\tb\tc\tanswer\n\"x\"\"\ty\"\t1\t2\t3\t3\n5\" floppy\t\t\tz\tC\n"),
		// Options empty but for the header: a question with none was kept.
		[]byte(";Q;A(0;;Answer;\n;00;;0;00"),
	)
}

func FuzzParseTable(f *testing.F) {
	for _, s := range tableSeeds(f) {
		f.Add(s, uint8(0))
	}
	f.Add([]byte("Question\tA\tB\tAnswer\nQ?\tx\ty\tB\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		format, path := []Format{FormatCSV, FormatTSV, FormatText}[kind%3], []string{"f.csv", "f.tsv", "f.txt"}[kind%3]
		checkFuzz(t, path, data, func() ([]Bank, Problems) {
			return parseTable(path, data, format, ParseOptions{DefaultBank: "D", SkipNonBank: kind&4 != 0})
		})
		checkCapped(t, path, data, 2)
	})
}
