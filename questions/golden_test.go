package questions

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden from the parsers' output")

// goldenFile is what one file parses to, as the golden files keep it.
type goldenFile struct {
	File     string
	Banks    []Bank
	Problems []string
}

// TestGolden parses the fixtures of testdata (and the built-in banks) as
// the loader does, file by file with the folder's name as the default
// bank, and compares every bank, question and problem with
// testdata/golden/<dir>.json. A change to a parser that changes what an
// existing file means shows up here. Run with -update to rewrite the
// golden files after checking the change is wanted.
func TestGolden(t *testing.T) {
	dirs := []struct {
		name string
		fsys fs.FS
		root string
	}{
		{"aws-practice", os.DirFS("testdata"), "aws-practice"},
		{"practice-site", os.DirFS("testdata"), "practice-site"},
		{"aiken", os.DirFS("testdata"), "aiken"},
		{"builtin", builtinFS, "builtin"},
	}
	for _, d := range dirs {
		t.Run(d.name, func(t *testing.T) {
			var got []goldenFile
			err := fs.WalkDir(d.fsys, d.root, func(name string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				if _, ok := FormatOf(name); !ok {
					return nil
				}
				data, err := fs.ReadFile(d.fsys, name)
				if err != nil {
					return err
				}
				opt := ParseOptions{SkipNonBank: true, DefaultBank: filepath.Base(filepath.Dir(name))}
				banks, ps := ParseFile(name, data, opt)
				g := goldenFile{File: name, Banks: banks}
				for _, p := range ps {
					g.Problems = append(g.Problems, p.Error())
				}
				got = append(got, g)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, '\n')
			path := filepath.Join("testdata", "golden", d.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to write it)", err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("%s parses differently than %s records:\n%s", d.name, path, firstDiff(string(data), string(want)))
			}
		})
	}
}

// firstDiff shows the first line where got and want differ, with some
// context.
func firstDiff(got, want string) string {
	g, w := bytes.Split([]byte(got), []byte("\n")), bytes.Split([]byte(want), []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\ngot  %s\nwant %s", i+1, gl, wl)
		}
	}
	return "(no line differs)"
}
