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

// A bank folder holding the seed files, practice-site files and an Aiken
// file, as a study group collects them: validate loads every question and
// counts each. A file that looks like questions but holds none fails
// validate, at its line, instead of being skipped.
func TestValidateEveryShapeInOneFolder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "banks", "AWS Cloud Practitioner")
	copyFixtures(t, folder,
		"aws-practice/q12.txt", "aws-practice/q40.txt", "aws-practice/q7.txt", "aws-practice/q8.txt", "aws-practice/notes.txt",
		"practice-site/az-104.txt",  // bare titles: the folder's bank
		"practice-site/saa-c03.txt", // Bank: AWS Solutions Architect
		"aiken/python-basics.aiken") // no titles: the folder's bank
	t.Chdir(dir)
	code, out, errOut := runCLI(t, nil, "validate", "banks")
	if code != 0 {
		t.Fatalf("got exit %d, want 0\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{
		"AWS Cloud Practitioner: 9 questions from 6 files: 6 in banks/AWS Cloud Practitioner/\n",
		"AWS Solutions Architect: 3 questions from banks/AWS Cloud Practitioner/saa-c03.txt\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("got stdout\n%s\nwant it to contain %q", out, want)
		}
	}
	if want := "banks/AWS Cloud Practitioner/notes.txt: warning: not a question bank"; !strings.Contains(errOut, want) || !strings.Contains(errOut, "0 errors, 1 warning") {
		t.Errorf("got stderr\n%s\nwant only notes.txt's warning", errOut)
	}

	// Copied without its titles and options, a question is not skipped.
	lost := filepath.Join(folder, "lost.txt")
	if err := os.WriteFile(lost, []byte("Which service caches session state?\r\nSuggested Answer: B\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, nil, "validate", "banks")
	want := `banks/AWS Cloud Practitioner/lost.txt:2: "Suggested Answer: B" is part of a question, but no question can be read in this file. Closest format: practice-site`
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "1 error, 1 warning") {
		t.Errorf("got exit %d, stderr\n%s\nwant 1 and %q", code, errOut, want)
	}
}
