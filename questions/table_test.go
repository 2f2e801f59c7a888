package questions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// opts builds options from "text" and "*text" (correct).
func opts(texts ...string) []Option {
	out := make([]Option, len(texts))
	for i, t := range texts {
		text, correct := strings.CutPrefix(t, "*")
		out[i] = Option{Letter: Letter(i), Text: text, Correct: correct}
	}
	return out
}

// The fixtures are written as their sources write them: a Google Sheets
// CSV download (CRLF, multi-line quoted cells, no final newline), a
// European Excel "CSV UTF-8" (byte-order mark, semicolons), a range of
// cells copied from a spreadsheet (tabs, quoted multi-line cells) and an
// Anki "Notes in Plain Text" export of the multiple-choice add-on's note
// type (#key:value lines, HTML, no header row).
func TestParseTableFixtures(t *testing.T) {
	tests := []struct {
		file     string
		want     []Question
		warnings []string
	}{
		{"sheets-export.csv", []Question{
			{ID: ContentID("sheets-export", `Which AWS service is "serverless" compute?`), Number: 1, Line: 2,
				Stem:    `Which AWS service is "serverless" compute?`,
				Options: opts("Amazon EC2", "*AWS Lambda", "Amazon EBS", "Amazon VPC"), Tags: []string{"Compute"},
				Explanation: "Lambda runs functions without servers to manage, billed per request."},
			{ID: ContentID("sheets-export", "Which TWO of the following reduce latency for users far from the origin? (Choose two.)"), Number: 2, Line: 3,
				Stem:        "Which TWO of the following reduce latency for users far from the origin? (Choose two.)",
				Options:     opts("*A CDN such as CloudFront", "Doubling the origin's CPU", "*Read replicas in regions near the users", "A bigger TCP buffer on the clients"),
				Explanation: "Both move content or data closer to the user; CPU and buffers do not shorten the round trip.", Tags: []string{"Networking", "Performance"}},
			{ID: ContentID("sheets-export", "What does this print?\n```\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n```\n\nprint(g(3))"), Number: 3, Line: 4,
				Stem:    "What does this print?\n```\ndef g(n):\n    if n == 0:\n        return 1\n    return n * g(n - 1)\n```\n\nprint(g(3))",
				Options: opts("1", "3", "*6", "9"), Explanation: "g(3) = 3 * 2 * 1 * g(0) = 6.", Tags: []string{"Python"}},
		}, []string{"testdata/sheets-export.csv:5: warning: 4 lines of code written without a ``` fence are posted as a code block, keeping their indentation; put a line ``` before and after them to say so"}},
		{"excel-semicolon.csv", []Question{
			{ID: "net-01", Number: 1, Line: 2, Stem: "Welches Protokoll löst Hostnamen auf?", Options: opts("*DNS", "ARP", "SMTP"),
				Explanation: "DNS übersetzt Namen in Adressen; das geschieht vor dem Verbindungsaufbau.", Tags: []string{"Netzwerk"}},
			{ID: "net-02", Number: 2, Line: 3, Stem: `Welche Ports sind "well known"? (Zwei Antworten)`, Options: opts("*22; SSH", "*443; HTTPS", "65000"),
				Explanation: "Ports unter 1024 sind registriert.", Tags: []string{"Netzwerk"}},
		}, nil},
		{"sheet-copy.tsv", []Question{
			{ID: ContentID("sheet-copy", "Which S3 storage class is cheapest for data read once a year?"), Number: 1, Line: 2,
				Stem:        "Which S3 storage class is cheapest for data read once a year?",
				Options:     opts("S3 Standard", "S3 Standard-IA", "*S3 Glacier Deep Archive", "S3 One Zone-IA"),
				Explanation: "Deep Archive costs least to store; retrieval takes hours.", Tags: []string{"Storage"}},
			{ID: ContentID("sheet-copy", "Which of these are true of an IAM role?\nPick two."), Number: 2, Line: 3,
				Stem:        "Which of these are true of an IAM role?\nPick two.",
				Options:     opts("It has long-term access keys", "*It can be assumed by an EC2 instance", "*It gives temporary credentials", "It belongs to one user"),
				Explanation: `A role hands out temporary credentials to whoever assumes it, "a person" or a service.`, Tags: []string{"Security"}},
		}, nil},
		{"anki-notes.txt", []Question{
			{ID: "b.Hq3)fV}w", Number: 1, Line: 7, Stem: "Which S3 storage class costs least for data read **once a year**?",
				Options:     opts("S3 Standard", "*S3 Glacier Deep Archive", "Amazon EBS gp3", "Amazon EFS Standard"),
				Explanation: "Deep Archive is the cheapest class;\na retrieval takes hours.", Tags: []string{"exam-2024", "s3", "Storage"},
				Source: "https://aws.amazon.com/s3/storage-classes/"},
			{ID: "q9N:e&4kLm", Number: 2, Line: 8, Stem: "Which \"serverless\" services run code without servers to manage?\nPick two.",
				Options:     opts("*AWS Lambda", "Amazon EC2", "*AWS Fargate", "Amazon Lightsail"),
				Explanation: "Lambda runs functions; Fargate runs containers. Both bill per use.", Tags: []string{"exam-2024", "Compute"}},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/" + tt.file
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			banks, ps := ParseFile(path, data, ParseOptions{})
			if err := ps.Err(); err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if got := problemStrings(ps.Warnings()); !reflect.DeepEqual(got, append([]string{}, tt.warnings...)) {
				t.Errorf("got warnings %q, want %q", got, tt.warnings)
			}
			bank := strings.TrimSuffix(tt.file, filepath.Ext(tt.file))
			if tt.file == "anki-notes.txt" {
				bank = "AWS Cloud Practitioner"
			}
			for i := range tt.want {
				tt.want[i].Bank = bank
			}
			want := []Bank{{Name: bank, Path: path, Questions: tt.want}}
			if !reflect.DeepEqual(banks, want) {
				t.Errorf("got %s\nwant %s", dump(banks), dump(want))
			}
		})
	}
}

// What a table may look like besides the fixtures, and what each row
// becomes.
func TestParseTableShapes(t *testing.T) {
	type row struct {
		id, bank, stem string
		options        []Option
		number         int
	}
	tests := []struct {
		name     string
		path     string
		data     string
		opt      ParseOptions
		want     []row
		warnings []string
	}{
		{"Excel's sep= line", "b.csv", "sep=;\nquestion;A;B;answer\nQ?;x, y;z;B\n", ParseOptions{},
			[]row{{ContentID("b", "Q?"), "b", "Q?", opts("x, y", "*z"), 1}}, nil},
		{"a template's title rows above the header (Kahoot)", "kahoot.csv",
			"Quiz template,,,,,,,\nAdd questions and answers.,,,,,,,\n,,,,,,,\n" +
				",Question - max 120 characters,Answer 1 - max 75 characters,Answer 2 - max 75 characters,Answer 3 - max 75 characters,Answer 4 - max 75 characters,\"Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs\",Correct answer(s) - choose at least one\n" +
				"1,What is 2 + 2?,3,4,5,6,20,2\n2,Which are even?,2,3,4,5,30,\"1,3\"\n", ParseOptions{},
			[]row{{ContentID("kahoot", "What is 2 + 2?"), "kahoot", "What is 2 + 2?", opts("3", "*4", "5", "6"), 1},
				{ContentID("kahoot", "Which are even?"), "kahoot", "Which are even?", opts("*2", "3", "*4", "5"), 2}},
			[]string{`kahoot.csv:4: warning: column "Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs" is not one quizhost reads (question, A, B, …, answer, explanation, topic, id, bank, number); it is ignored`}},
		{"an options column, one a line, lettered, the answer its text", "b.csv",
			"Question,Options,Correct answer\nPick one.,\"A. Red\nB. Green\nC. Blue\",green\n", ParseOptions{},
			[]row{{ContentID("b", "Pick one."), "b", "Pick one.", opts("Red", "*Green", "Blue"), 1}}, nil},
		{"an options column separated by |, two answer texts", "b.csv",
			"question,choices,answer\nPick two.,Red | Green | Blue,Red | Blue\n", ParseOptions{},
			[]row{{ContentID("b", "Pick two."), "b", "Pick two.", opts("*Red", "Green", "*Blue"), 1}}, nil},
		{"rationale columns", "b.csv",
			"question,option_a,option_b,answer,Explanation A,Option B rationale\nQ?,x,y,a,Right.,Wrong.\n", ParseOptions{},
			[]row{{ContentID("b", "Q?"), "b", "Q?", []Option{{Letter: "A", Text: "x", Correct: true, Rationale: "Right."}, {Letter: "B", Text: "y", Rationale: "Wrong."}}, 1}}, nil},
		{"bank and number columns, several banks", "b.csv",
			"bank,number,question,choice 1,choice 2,answer\nNet,7,Q?,x,y,A\nSec,7,R?,x,y,B\nNet,8,S?,x,y,\"A,B\"\n", ParseOptions{},
			[]row{{"Net#7", "Net", "Q?", opts("*x", "y"), 7}, {"Net#8", "Net", "S?", opts("*x", "*y"), 8}, {"Sec#7", "Sec", "R?", opts("x", "*y"), 7}}, nil},
		{"letters run together, lower case, with and", "b.csv",
			"question,a,b,c,answer\nQ1?,x,y,z,BC\nQ2?,x,y,z,b and c\nQ3?,x,y,z,(A)\n", ParseOptions{},
			[]row{{ContentID("b", "Q1?"), "b", "Q1?", opts("x", "*y", "*z"), 1}, {ContentID("b", "Q2?"), "b", "Q2?", opts("x", "*y", "*z"), 2},
				{ContentID("b", "Q3?"), "b", "Q3?", opts("*x", "y", "z"), 3}}, nil},
		{"a bare quote in an unquoted cell", "b.csv", "question,a,b,answer\nWhich disk is 3.5\" wide?,floppy,tape,A\n", ParseOptions{},
			[]row{{ContentID("b", `Which disk is 3.5" wide?`), "b", `Which disk is 3.5" wide?`, opts("*floppy", "tape"), 1}}, nil},
		{"the default bank, a blank row, trailing empty cells", "b.tsv", "Question\tA\tB\tC\tAnswer\t\t\nQ?\tx\ty\t\tA\t\t\n\t\t\t\t\t\t\n", ParseOptions{DefaultBank: "Folder"},
			[]row{{ContentID("Folder", "Q?"), "Folder", "Q?", opts("*x", "y"), 1}}, nil},
		{"tab-separated text pasted", "pasted text.txt", "Question\tA\tB\tAnswer\nQ?\tx\ty\tB\n", ParseOptions{DefaultBank: "Paste"},
			[]row{{ContentID("Paste", "Q?"), "Paste", "Q?", opts("x", "*y"), 1}}, nil},
		{"Excel's Unicode Text: UTF-16 saved as .txt", "sheet.txt", string(notepadUnicode("Question\tA\tB\tAnswer\nQ?\tx\ty\tB\n")), ParseOptions{DefaultBank: "Sheet"},
			[]row{{ContentID("Sheet", "Q?"), "Sheet", "Q?", opts("x", "*y"), 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile(tt.path, []byte(tt.data), tt.opt)
			if err := ps.Err(); err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if got := problemStrings(ps.Warnings()); !reflect.DeepEqual(got, append([]string{}, tt.warnings...)) {
				t.Errorf("got warnings %q, want %q", got, tt.warnings)
			}
			var got []row
			for _, b := range banks {
				for _, q := range b.Questions {
					got = append(got, row{q.ID, q.Bank, q.Stem, q.Options, q.Number})
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// Every mistake in a table is reported at its line, the row's (or the
// cell's, for a cell spanning lines); a header that names no question
// shows how to write one.
func TestParseTableErrors(t *testing.T) {
	const example = "for example:\n    question,A,B,C,D,answer,explanation\n    Which port does HTTPS use?,22,80,443,8080,C,HTTPS listens on 443."
	tests := []struct {
		name string
		path string
		data string
		opt  ParseOptions
		want []string
	}{
		{"a flashcard export: no header", "cards.csv", "term,definition\nDNS,resolves names\n", ParseOptions{},
			[]string{"cards.csv:1: not a question bank: no header row names the columns; the first row must, " + example}},
		{"a flashcard export in a bank folder", "cards.csv", "term,definition\nDNS,resolves names\n", ParseOptions{SkipNonBank: true},
			[]string{"cards.csv: warning: not a question bank: no header row names a question column (question, A, B, …, answer); if it holds other data, move it out of the bank folder"}},
		{"questions without a header row, even in a bank folder", "q.csv", "What is 2+2?,3,4,B\nWhat is 3+3?,6,7,A\n", ParseOptions{SkipNonBank: true},
			[]string{"q.csv:1: this row looks like a question (a cell ending in ? and an answer letter) but the table has no header row; the first row must name the columns, " + example}},
		{"European Excel's semicolons without a header row, in a bank folder", "q.csv", "What is 2+2?;3;4;B\r\nWhat is 3+3?;6;7;A", ParseOptions{SkipNonBank: true},
			[]string{"q.csv:1: this row looks like a question (a cell ending in ? and an answer letter) but the table has no header row; the first row must name the columns, " + strings.ReplaceAll(example, ",", ";")}},
		{"a sheet's rows copied without their header and saved as text, in a bank folder", "q.txt", "What is 2+2?\t3\t4\t5\tB\nWhat is 3+3?\t6\t7\t8\tA\n", ParseOptions{SkipNonBank: true},
			[]string{"q.txt:1: this row looks like a question (a cell ending in ? and an answer letter) but the table has no header row; the first row must name the columns, for example (cells separated by tabs):\n    question\tA\tB\tC\tD\tanswer\texplanation\n    Which port does HTTPS use?\t22\t80\t443\t8080\tC\tHTTPS listens on 443."}},
		{"an answer column but no question column, even in a bank folder", "b.tsv", "Text\tA\tB\tAnswer\nQ?\tx\ty\tA\n", ParseOptions{SkipNonBank: true},
			[]string{"b.tsv:1: this header row names no question column; name the columns, for example (cells separated by tabs):\n    question\tA\tB\tC\tD\tanswer\texplanation\n    Which port does HTTPS use?\t22\t80\t443\t8080\tC\tHTTPS listens on 443."}},
		{"no answer column", "b.csv", "question,a,b\nQ?,x,y\n", ParseOptions{},
			[]string{"b.csv:1: no answer column (answer: the letters of the correct options, B or B,C); " + example}},
		{"columns with a gap, twice, and both kinds of options", "b.csv", "question,stem,a,c,options,answer,colour\nQ?,x,y,z,w,A,red\n", ParseOptions{},
			[]string{
				`b.csv:1: columns "question" and "stem" name the same thing; keep one`,
				`b.csv:1: warning: column "colour" is not one quizhost reads (question, A, B, …, answer, explanation, topic, id, bank, number); it is ignored`,
				"b.csv:1: both an options column and option columns (A, B, …); keep one",
				"b.csv:1: the option columns skip B (they must run A, B, C, … without gaps)",
			}},
		{"each row's mistakes at its line", "b.csv",
			"question,a,b,c,answer,number\n" +
				"\"Two\nlines\",x,y,z,D,1\n" + // line 2: D is not an option
				",x,y,z,A,2\n" + // line 4: no question
				"Q?,x,,z,A,3\n" + // line 5: B empty before C
				"R?,x,y,z,,4\n" + // line 6: no answer
				"S?,x,y,z,A,four\n" + // line 7: number
				"T?,x,y,z,A,5,extra\n" + // line 8: a cell beyond the header
				"U?,2,3,4,2,6\n" + // line 9: ambiguous
				"V?,x,y,z,maybe,7\n", // line 10: unreadable answer
			ParseOptions{},
			[]string{
				"b.csv:2: answer letter D is not an option (options are A–C)",
				"b.csv:4: the row has no question text",
				"b.csv:5: option B is empty, but an option after it is not",
				`b.csv:6: the row has no answer (column "answer")`,
				`b.csv:7: number "four" is not a whole number from 1 to 1000000000`,
				"b.csv:8: cell 7 has text, but the header names no column 7",
				`b.csv:9: answer "2" can be read as option numbers (B) and as the text of an option (A); write the letters instead`,
				`b.csv:10: answer "maybe" is neither option letters (B, or B,C) nor option numbers (2) nor the text of an option`,
			}},
		{"an unclosed quote", "b.csv", "question,a,b,answer\nQ?,x,y,A\n\"R?,x,y,A\n", ParseOptions{},
			[]string{`b.csv:3: a quoted cell is not closed, or has a " that is not doubled (write "" for a quote inside quotes)`}},
		{"a header and no rows", "b.csv", "question,a,b,answer\n", ParseOptions{},
			[]string{"b.csv: no questions: the file has a header row but no question rows"}},
		{"an empty file", "b.csv", "\n\n", ParseOptions{}, []string{"b.csv: not a question bank: the file is empty"}},
		{"pasted without a bank", "pasted text.txt", "Question\tA\tB\tAnswer\nQ?\tx\ty\tB\n", ParseOptions{},
			[]string{"pasted text.txt:2: the row names no bank: add a bank column, or give the bank option"}},
		{"an Anki export of an unknown note type", "notes.txt", "#separator:tab\n#html:false\nWhat is DNS?\tName resolution\n", ParseOptions{},
			[]string{"notes.txt:3: this Anki export does not name its columns: add a line #columns: naming them after the #separator line (question, A, B, …, answer), or export a note type quizhost knows (AllInOne (kprim, mc, sc))"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			banks, ps := ParseFile(tt.path, []byte(tt.data), tt.opt)
			if got := problemStrings(ps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			checkInvariants(t, banks, ps)
		})
	}
}

// An answer cell reads as letters, option numbers, one 0 or 1 per option,
// or option texts; a cell that reads two ways that disagree is refused.
func TestResolveAnswer(t *testing.T) {
	options := []string{"Red", "Green", "Blue", "3"}
	tests := []struct {
		cell string
		want string // the letters, or a part of the message
	}{
		{"B", "B"}, {"b", "B"}, {"B, C", "B, C"}, {"B;C", "B, C"}, {"BC", "B, C"}, {"B and C", "B, C"}, {"B.", "B"}, {"(C)", "C"},
		{"2", "B"}, {"1,3", "A, C"}, {"0 1 0 1", "B, D"}, {"green", "B"}, {"Red | Blue", "A, C"}, {"Red\nBlue", "A, C"},
		{"E", "answer letter E is not an option (options are A–D)"},
		{"3", `answer "3" can be read as option numbers (C) and as the text of an option (D)`},
		{"BB", "neither"}, {"1,1", "neither"}, {"0 0 0 0", "neither"}, {"Purple", "neither"}, {"bc", "neither"},
	}
	for _, tt := range tests {
		set, msg := resolveAnswer(tt.cell, options)
		got := msg
		if msg == "" {
			got = lettersOf(set)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("resolveAnswer(%q) = %q, want %q", tt.cell, got, tt.want)
		}
	}
}

func TestClassifyColumn(t *testing.T) {
	tests := []struct {
		name   string
		kind   tableKind
		option int
	}{
		{"Question", tcQuestion, -1}, {" question text ", tcQuestion, -1}, {"Question - max 120 characters", tcQuestion, -1},
		{"A", tcOption, 0}, {"e", tcOption, 4}, {"Option A", tcOption, 0}, {"option_b", tcOption, 1}, {"Choice 3", tcOption, 2},
		{"Answer 4 - max 75 characters", tcOption, 3}, {"Q_5", tcOption, 4}, {"opt-c", tcOption, 2}, {"Z", tcUnknown, -1},
		{"Options", tcOptions, -1}, {"Answer", tcAnswer, -1}, {"Correct answer(s) - choose at least one", tcAnswer, -1},
		{"Answers", tcAnswer, -1}, {"Explanation", tcExplanation, -1}, {"Extra 1", tcExplanation, -1},
		{"Explanation A", tcRationale, 0}, {"rationale_b", tcRationale, 1}, {"Option C Feedback", tcRationale, 2}, {"feedback 2", tcRationale, 1},
		{"Topic", tcTopic, -1}, {"Tags", tcTopic, -1}, {"ID", tcID, -1}, {"Deck", tcBank, -1}, {"#", tcNumber, -1}, {"No.", tcNumber, -1},
		{"Source", tcSource, -1}, {"Title", tcIgnored, -1}, {"", tcEmpty, -1}, {"Time limit", tcUnknown, -1},
	}
	for _, tt := range tests {
		c := classifyColumn(tt.name)
		if c.kind != tt.kind || tt.kind == tcOption && c.option != tt.option || tt.kind == tcRationale && c.option != tt.option {
			t.Errorf("classifyColumn(%q) = %d option %d, want %d option %d", tt.name, c.kind, c.option, tt.kind, tt.option)
		}
	}
}

// Text pasted or saved as .txt is read as a table only when its first line
// is a header naming a question, an answer and options, or a question row
// without one (to be refused, not skipped), or when it is an Anki export;
// exam text and prose never are.
func TestLooksLikeTable(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"Question\tA\tB\tAnswer\nQ?\tx\ty\tA\n", true},
		{"\uFEFF\n\nquestion,options,answer\n", true},
		{"question;a;b;c;correct\n", true},
		{"#separator:tab\n#html:true\nx\ty\n", true},
		{string(notepadUnicode("Question\tA\tB\tAnswer\n")), true},
		{"What is 2+2?\t3\t4\t5\tB\n", true},
		{"Which is prime?,4,6,7,C\n", true},
		{"Is it?\tyes\tB\n", false},
		{"We met on Monday, Tuesday? No, A, then left\n", false},
		{"Notes on DNS, resolvers, caching\n", false},
		{"Question\tAnswer\n", false},
		{"Question\tA\tB\n", false},
		{"AWS Question 1\nSelect 1\tQ?\n- A\na\tb\n- B\nb\nCorrect answer: A\n", false},
		{"Question 1\tof 3\nSelect 1Q?\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := looksLikeTable([]byte(tt.data)); got != tt.want {
			t.Errorf("looksLikeTable(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

// In a bank folder, a table without a bank column joins the folder's bank,
// and another tool's CSV is skipped with a warning.
func TestTablesInABankFolder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"Net/q.csv":         "question,a,b,answer\nQ?,x,y,A\n",
		"Net/more.tsv":      "question\ta\tb\tanswer\nR?\tx\ty\tB\n",
		"Net/readings.csv":  "date,temperature\n2024-01-01,3\n",
		"Net/unicode.txt":   string(notepadUnicode("question\ta\tb\tanswer\nS?\tx\ty\tA\n")),
		"Net/exam text.txt": goodText,
	})
	cat, ps := Loader{Paths: []string{dir}}.Load()
	if err := ps.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "Net", "readings.csv") + ": warning: not a question bank: no header row names a question column (question, A, B, …, answer); if it holds other data, move it out of the bank folder"}
	if got := problemStrings(ps); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	b, ok := cat.Bank("Net")
	if !ok {
		t.Fatal("no bank Net")
	}
	var stems []string
	for _, q := range b.Questions {
		stems = append(stems, q.Stem)
	}
	if want := []string{"Which?", "R?", "Q?", "S?"}; !reflect.DeepEqual(stems, want) {
		t.Errorf("got stems %q, want %q", stems, want)
	}
}

// An Anki export may name its columns in a #columns: line; its tags are
// separated by spaces, #tags: adds tags to every note, the deck's last
// level is a topic, and lines starting with # are comments.
func TestParseAnkiColumns(t *testing.T) {
	data := "#separator:pipe\n#html:true\n#columns:Question|A|B|Answers|Deck|Tags\n#tags:t\n" +
		"<b>Q</b>?|<i>x</i>|y|0 1|A::B::C|u v\n# a comment\n"
	banks, ps := ParseFile("notes.txt", []byte(data), ParseOptions{})
	if len(ps) != 0 {
		t.Fatalf("got %v, want no problem", ps)
	}
	want := []Bank{{Name: "A", Path: "notes.txt", Questions: []Question{{ID: ContentID("A", "**Q**?"), Bank: "A", Number: 1, Line: 5,
		Stem: "**Q**?", Options: []Option{{Letter: "A", Text: "*x*"}, {Letter: "B", Text: "y", Correct: true}}, Tags: []string{"u", "v", "t", "C"}}}}}
	if !reflect.DeepEqual(banks, want) {
		t.Errorf("got %s\nwant %s", dump(banks), dump(want))
	}
}
