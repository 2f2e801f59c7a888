package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixtures copies files of questions/testdata into folder.
func copyFixtures(t *testing.T, folder string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("questions", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, filepath.Base(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A bank folder holding the seed files, practice-site files, an Aiken
// file, a spreadsheet's CSV export and a Moodle GIFT export, as a study
// group collects them: validate loads every question and counts each. A file that looks like questions but holds none fails
// validate, at its line, instead of being skipped.
func TestValidateEveryShapeInOneFolder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "banks", "AWS Cloud Practitioner")
	copyFixtures(t, folder,
		"aws-practice/q12.txt", "aws-practice/q40.txt", "aws-practice/q7.txt", "aws-practice/q8.txt", "aws-practice/notes.txt",
		"practice-site/az-104.txt",  // bare titles: the folder's bank
		"practice-site/saa-c03.txt", // Bank: AWS Solutions Architect
		"aiken/python-basics.aiken", // no titles: the folder's bank
		"sheets-export.csv",         // no bank column: the folder's bank
		"moodle-export.gift")        // $CATEGORY: $course$/top/Default for Python Basics/…
	t.Chdir(dir)
	code, out, errOut := runCLI(t, nil, "validate", "banks")
	if code != 0 {
		t.Fatalf("got exit %d, want 0\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{
		"AWS Cloud Practitioner: 12 questions from 7 files: 7 in banks/AWS Cloud Practitioner/\n",
		"AWS Solutions Architect: 3 questions from banks/AWS Cloud Practitioner/saa-c03.txt\n",
		"Python Basics: 5 questions from banks/AWS Cloud Practitioner/moodle-export.gift\n",
		"ok: 3 banks, 20 questions; 0 errors, 7 warnings\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("got stdout\n%s\nwant it to contain %q", out, want)
		}
	}
	// The warnings: notes.txt is not a bank, the GIFT export's five
	// question types quizhost does not ask, and the CSV's unfenced code.
	if want := "banks/AWS Cloud Practitioner/notes.txt: warning: not a question bank"; !strings.Contains(errOut, want) {
		t.Errorf("got stderr\n%s\nwant notes.txt's warning", errOut)
	}

	// Copied without its titles and options, a question is not skipped.
	lost := filepath.Join(folder, "lost.txt")
	if err := os.WriteFile(lost, []byte("Which service caches session state?\r\nSuggested Answer: B\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, nil, "validate", "banks")
	want := `banks/AWS Cloud Practitioner/lost.txt:2: "Suggested Answer: B" is part of a question, but no question can be read in this file. Closest format: practice-site`
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(out, "1 error, 7 warnings") {
		t.Errorf("got exit %d, stderr\n%s\nwant 1 and %q", code, errOut, want)
	}
}
