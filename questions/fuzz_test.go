package questions

import (
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
