package questions

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// builtinFS holds the built-in bank, compiled into the binary so that a
// fresh install has questions to ask.
//
//go:embed builtin/*.txt
var builtinFS embed.FS

// Builtin parses the built-in banks. Problems are reported against
// "builtin/<file>"; the banks' Path is "" (they have no file on disk). An
// error means the binary was built with a broken bank, which the package's
// tests prevent.
func Builtin() ([]Bank, error) {
	entries, err := fs.Glob(builtinFS, "builtin/*.txt")
	if err != nil {
		return nil, fmt.Errorf("built-in banks: %w", err)
	}
	var banks []Bank
	var ps Problems
	for _, name := range entries {
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("built-in banks: %w", err)
		}
		bs, fileProbs := parse(path.Clean(name), data, ParseOptions{})
		ps = append(ps, fileProbs...)
		for _, b := range bs {
			b.Path = ""
			banks = append(banks, b)
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return banks, nil
}

// MaxFileSize is the largest bank file the loader reads.
const MaxFileSize = 16 << 20

// Loader loads the question catalogue: the built-in banks and the bank
// files at Path. Its zero value loads the built-in banks only.
type Loader struct {
	// Path is a bank file, or a directory searched recursively for *.txt,
	// *.yaml, *.yml, *.json and *.gift files (directories and files whose
	// names start with "." are skipped; links to files are read, links to
	// directories are not followed). "" means none.
	Path string
}

// Load reads Path and the built-in banks into a Catalogue. It refuses the
// whole load if anything is wrong: the error is then Problems naming every
// problem of every file, including bank names and question IDs defined
// twice, or a wrapped file-system error when Path itself cannot be read
// (test with errors.Is(err, fs.ErrNotExist)). Load is safe to call from
// several goroutines.
func (l Loader) Load() (*Catalogue, error) {
	builtin, err := Builtin()
	if err != nil {
		return nil, fmt.Errorf("load questions: %w", err)
	}
	sets := [][]Bank{builtin}
	var ps Problems
	if l.Path != "" {
		files, err := bankFiles([]string{l.Path})
		if err != nil {
			return nil, fmt.Errorf("load questions: %w", err)
		}
		for _, r := range parseFiles(files) {
			ps = append(ps, r.probs...)
			sets = append(sets, r.banks)
		}
	}
	c, cps := NewCatalogue(sets...)
	ps = append(ps, cps...)
	if len(ps) > 0 {
		return nil, ps
	}
	return c, nil
}

// LoadFiles parses bank files, each path a file or a directory searched as
// Loader.Path is, for "quizhost validate". It returns every bank read, in
// the order of the files (sorted within a directory), and, as Problems,
// every problem of every file, including bank names and question IDs
// defined twice across the files. A named file of another type is a
// problem; a path that cannot be read is a wrapped file-system error.
func LoadFiles(paths ...string) ([]Bank, error) {
	files, err := bankFiles(paths)
	if err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	var banks []Bank
	var ps Problems
	sets := make([][]Bank, 0, len(files))
	for _, r := range parseFiles(files) {
		banks = append(banks, r.banks...)
		ps = append(ps, r.probs...)
		sets = append(sets, r.banks)
	}
	_, cps := NewCatalogue(sets...)
	ps = append(ps, cps...)
	return banks, ps.Err()
}

// bankFiles expands paths into the bank files to read, in order.
func bankFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			hidden := name != p && strings.HasPrefix(d.Name(), ".")
			if d.IsDir() {
				if hidden {
					return filepath.SkipDir
				}
				return nil
			}
			if _, ok := FormatOf(name); !ok || hidden {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 { // a link to a file is read; to a directory, not followed
				if info, err := os.Stat(name); err != nil || !info.Mode().IsRegular() {
					return nil
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			files = append(files, name)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

type fileResult struct {
	banks []Bank
	probs Problems
}

// parseFiles reads and parses files in parallel; results are in the order
// of files.
func parseFiles(files []string) []fileResult {
	out := make([]fileResult, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				out[i] = parseFile(files[i])
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func parseFile(name string) fileResult {
	data, err := readFile(name)
	if err != nil {
		return fileResult{probs: Problems{{Path: name, Msg: err.Error()}}}
	}
	banks, ps := parse(name, data, ParseOptions{})
	return fileResult{banks: banks, probs: ps}
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, errors.New("the file is larger than 16 MiB")
	}
	return data, nil
}
