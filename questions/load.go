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
	"slices"
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

// MaxFileSize is the largest bank file read, in bytes.
const MaxFileSize = 16 << 20

// MaxLoadProblems is how many problems start-up and validate list for one
// bank file before a summary of the rest ("…and 52,000 more problems, not
// listed"): more than anyone reads, and a bound on the memory a broken
// file costs (a 15 MiB file of half a million broken questions took 12 s
// and 400 MB to list in full).
const MaxLoadProblems = 1000

// Loader loads the question catalogue: the built-in banks and the bank
// files at Paths. Its zero value loads the built-in banks only. Start-up
// and "quizhost validate" both load through it, so they give one verdict.
type Loader struct {
	// Paths are bank files, or directories searched recursively for *.txt,
	// *.aiken, *.yaml, *.yml, *.json, *.gift, *.csv and *.tsv files (directories and files whose
	// names start with "." are skipped; links to files are read, links to
	// directories are not followed). A file reached twice (named twice,
	// inside a named directory too, or through a link) is read once.
	Paths []string
}

// BankFileTypes lists the file names a directory search reads, for
// messages.
const BankFileTypes = "*.txt, *.aiken, *.yaml, *.yml, *.json, *.gift, *.csv, *.tsv"

// Load reads the built-in banks and the files at Paths into a Catalogue.
// Files are read in sorted path order, so a bank named by several files
// (see NewCatalogue) holds its questions in that order. An exam text or
// Aiken or table file gets ParseOptions.DefaultBank = the name of the
// folder holding it. A file named exam.yaml (ExamFileName, in any case) is
// no bank: it gives the exam settings of the bank of the bank files beside
// it, those directly in its folder. With a bank: field it is the bank of
// those files it names; without, they must hold one bank. A bank gets its
// exam settings once: from one exam.yaml, or a structured bank's exam
// block.
//
// ps is every problem found: each file's errors and warnings, a question
// ID defined twice (both places), a bank named like the built-in bank
// (refused, see CheckBankName), a path that cannot be read (an error), a
// directory with no bank file (a warning), and a file that is not a
// question bank at all (skipped with a warning: a stray notes.txt,
// package.json or docker-compose.yml; see ParseOptions.SkipNonBank), named
// or found alike. The load is good when ps.Err() is nil; otherwise the
// catalogue holds only what loaded cleanly, for reporting, and must not be
// served. The catalogue is never nil. Load is safe to call from several
// goroutines.
func (l Loader) Load() (c *Catalogue, ps Problems) {
	builtin, err := Builtin()
	if err != nil {
		var bps Problems
		if !errors.As(err, &bps) {
			bps = Problems{{Path: "builtin", Msg: err.Error()}}
		}
		ps = append(ps, bps...)
	}
	all, fps := bankFiles(l.Paths)
	ps = append(ps, fps...)
	var files []bankFile
	var exams []examFile
	for _, f := range all {
		if !isExamFile(f.path) {
			files = append(files, f)
			continue
		}
		data, err := readFile(f.path)
		if err != nil {
			ps = append(ps, Problem{Path: f.path, Msg: fsMessage(err)})
			continue
		}
		ef, eps := parseExamFile(f.path, data)
		ps = append(ps, eps...)
		if ef.exam != nil {
			exams = append(exams, ef)
		}
	}
	sets := [][]Bank{builtin}
	for _, r := range parseFiles(files) {
		ps = append(ps, r.probs...)
		var keep []Bank
		for _, b := range r.banks {
			if err := checkBankName(builtin, b.Name); err != nil {
				ps.add(b.Path, firstLine(&b), "%s", err.Error())
				continue
			}
			keep = append(keep, b)
		}
		sets = append(sets, keep)
	}
	applyExamFiles(exams, files, sets, &ps)
	c, cps := NewCatalogue(sets...)
	return c, append(ps, cps...)
}

// bankFile is a file to read, its path as reached.
type bankFile struct {
	path string
}

// bankFiles expands paths into the bank files to read, each once, in
// sorted path order; problems are paths that cannot be read (errors) and
// directories with no bank file (warnings).
func bankFiles(paths []string) ([]bankFile, Problems) {
	var files []bankFile
	var ps Problems
	seen := map[string]bool{} // the real path of each file
	addFile := func(name string) {
		key, err := filepath.Abs(name)
		if err == nil {
			if real, err := filepath.EvalSymlinks(key); err == nil {
				key = real
			}
		}
		if seen[key] {
			return
		}
		seen[key] = true
		files = append(files, bankFile{path: name})
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			ps.add(p, 0, "%s", fsMessage(err))
			continue
		}
		if !info.IsDir() {
			addFile(p)
			continue
		}
		n, errs := 0, len(ps)
		err = filepath.WalkDir(p, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				ps.add(name, 0, "%s", fsMessage(err))
				if d != nil && d.IsDir() && name != p {
					return filepath.SkipDir
				}
				return nil
			}
			hidden := name != p && strings.HasPrefix(d.Name(), ".")
			if d.IsDir() {
				if hidden {
					return filepath.SkipDir
				}
				return nil
			}
			if _, ok := FormatOf(name); !ok || hidden { // exam.yaml is *.yaml
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 { // a link to a file is read; to a directory, not followed
				if info, err := os.Stat(name); err != nil || !info.Mode().IsRegular() {
					return nil
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			n++
			addFile(name)
			return nil
		})
		if err != nil {
			ps.add(p, 0, "%s", fsMessage(err))
		}
		if n == 0 && len(ps) == errs {
			ps.warn(p, 0, "no bank files (%s) in this folder", BankFileTypes)
		}
	}
	slices.SortStableFunc(files, func(a, b bankFile) int { return strings.Compare(a.path, b.path) })
	return files, ps
}

// fsMessage is a file-system error without its path, which the problem
// names already.
func fsMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// folderBank is the default bank of an exam text file: the name of the
// folder holding it, from its absolute path ("" at the root).
func folderBank(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(abs)
	if dir == filepath.Dir(dir) { // the root, or a volume's root
		return ""
	}
	return filepath.Base(dir)
}

type fileResult struct {
	banks []Bank
	probs Problems
}

// parseFiles reads and parses files in parallel; results are in the order
// of files.
func parseFiles(files []bankFile) []fileResult {
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

func parseFile(f bankFile) fileResult {
	data, err := readFile(f.path)
	if err != nil {
		return fileResult{probs: Problems{{Path: f.path, Msg: fsMessage(err)}}}
	}
	// Other files collect among the banks; an operator's file lists at
	// most MaxLoadProblems problems, then a summary of the rest.
	opt := ParseOptions{SkipNonBank: true, MaxProblems: MaxLoadProblems}
	switch format, _ := FormatOf(f.path); format {
	case FormatText, FormatAiken, FormatCSV, FormatTSV:
		opt.DefaultBank = folderBank(f.path)
	}
	banks, ps := parse(f.path, data, opt)
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
