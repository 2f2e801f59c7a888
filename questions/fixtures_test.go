package questions

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in questions/testdata/golden")

// The fixtures written before a parser change parse to exactly the
// questions they parsed to when their golden file was written: the built-in
// bank and the aws-practice folder, every field of every question. Run with
// -update to rewrite the golden file after a change meant to alter them.
func TestFixturesParseAsBefore(t *testing.T) {
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, ps := Loader{Paths: []string{filepath.Join("testdata", "aws-practice")}}.Load()
	if err := ps.Err(); err != nil {
		t.Fatal(err)
	}
	var aws []Bank
	for _, b := range cat.Banks() {
		if b.Path != "" {
			aws = append(aws, *b)
		}
	}
	got, err := json.MarshalIndent(map[string]any{"builtin": builtin, "aws-practice": aws, "aws-practice problems": ps}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "golden", "fixtures.json")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the fixtures parse to other questions than %s (run with -update only if that is intended):\n%s", golden, firstDiff(string(got), string(want)))
	}
}

// firstDiff shows where two texts start to differ.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return "got:  …" + got[from:min(len(got), i+200)] + "\nwant: …" + want[from:min(len(want), i+200)]
}
