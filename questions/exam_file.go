package questions

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Reading exam settings from files: the exam block of a structured bank
// (YAML, JSON), and an exam.yaml beside the files of a bank of any other
// format. Both have the same fields:
//
//	exam:
//	  questions: 65                 # 1 to MaxExamQuestions
//	  minutes: 90                   # 1 to MaxExamMinutes
//	  pass: 700 of 100-1000         # or 70%, 700/1000 (see ParsePassMark)
//	  domains:                      # tag: weight in percent, summing to 100
//	    Cloud Concepts: 24
//	    Security and Compliance: 30
//
// An exam.yaml has them at its top level, and may name its bank (bank:).

// ExamFileName is the name of the file that gives the exam settings of the
// bank of the files beside it (see Loader). The loader reads no bank from
// a file of that name.
const ExamFileName = "exam.yaml"

// examFields are the fields of exam settings.
var examFields = []string{"questions", "minutes", "pass", "domains"}

// exam decodes the exam block at k; nil when k is absent or null (or a
// problem left nothing to decode).
func (d *sdecoder) exam(k *skey) *Exam {
	if k == nil || k.val.kind == snNull {
		return nil
	}
	f := d.fields(k.val, "the exam settings", examFields...)
	if f == nil {
		return nil
	}
	return d.examFields(k.val, f)
}

// examFields decodes the exam settings fields f of the mapping n.
func (d *sdecoder) examFields(n *snode, f map[string]*skey) *Exam {
	e := &Exam{Path: d.path, Line: n.line}
	if k := f["questions"]; k != nil && k.val.kind == snList {
		d.problem(k.val.line, "questions in the exam settings is how many questions an attempt has (a whole number); a bank's questions go at its top level")
	} else if k != nil {
		e.Questions = max(d.integer(k, 1, MaxExamQuestions), 0)
	}
	if k := f["minutes"]; k != nil {
		e.Minutes = max(d.integer(k, 1, MaxExamMinutes), 0)
	}
	if k := f["pass"]; k != nil && k.val.kind != snNull {
		if k.val.kind >= snMap || k.val.kind == snBool || k.val.kind == snOther {
			d.problem(k.val.line, "pass must be a pass mark: %s", passSyntax)
		} else if p, err := ParsePassMark(k.val.value, PassMark{}); err != nil {
			d.problem(k.val.line, "%s", err.Error())
		} else {
			e.Pass = p
		}
	}
	if k := f["domains"]; k != nil && k.val.kind != snNull {
		if k.val.kind != snMap {
			d.problem(k.val.line, "domains must be a mapping of each domain (a tag of the questions) to its weight in percent, e.g. Security: 30")
		} else {
			for _, dk := range k.val.keys {
				// A weight that is not a whole number stays 0, which
				// checkExam reports.
				w, err := strconv.Atoi(dk.val.value)
				if dk.val.kind != snInt || err != nil {
					w = 0
				}
				e.Domains = append(e.Domains, Domain{Name: strings.TrimSpace(dk.name), Weight: w, Line: dk.line})
			}
		}
	}
	return e // checked by validate, as every bank is (checkExam)
}

// examFile is an exam.yaml read: its settings and the bank it names ("":
// the bank of the files beside it).
type examFile struct {
	path string
	bank string
	line int // of bank:
	exam *Exam
}

// parseExamFile reads an exam.yaml.
func parseExamFile(path string, data []byte) (examFile, Problems) {
	data, ps := prepare(path, data, 0)
	if ps != nil {
		return examFile{}, ps
	}
	root, ps := yamlTree(path, data, ParseOptions{})
	if len(ps.Errors()) > 0 {
		return examFile{}, ps
	}
	if root == nil {
		ps.add(path, 0, "the file is empty: an %s gives the exam settings of the bank beside it (questions, minutes, pass, domains)", ExamFileName)
		return examFile{}, ps
	}
	d := &sdecoder{path: path, probs: ps, lenient: true}
	if root.kind == snMap {
		for _, k := range root.keys {
			if k.name == "exam" {
				// A bank's exam: block copied as it is.
				d.problem(k.line, "an %s has its fields at its top level, not under exam: (a bank's exam: block copied here): remove the exam: line and unindent questions, minutes, pass and domains", ExamFileName)
				return examFile{}, d.probs
			}
		}
	}
	f := d.fields(root, "the exam settings", append([]string{"bank"}, examFields...)...)
	if f == nil {
		return examFile{}, d.probs
	}
	out := examFile{path: path, exam: d.examFields(root, f)}
	checkExam(out.exam, d.problem)
	if k := f["bank"]; k != nil {
		out.bank, out.line = d.str(k), k.line
		if out.bank == "" {
			d.problem(k.line, "bank must name a bank (leave it out for the bank of the files beside this one)")
		}
	}
	d.probs.sortByLine()
	if len(d.probs.Errors()) > 0 {
		return examFile{}, d.probs
	}
	return out, d.probs
}

// isExamFile reports whether name is an exam.yaml (its base name, in any
// case).
func isExamFile(name string) bool { return strings.EqualFold(filepath.Base(name), ExamFileName) }

// applyExamFiles gives each exam.yaml's settings to its bank in sets (one
// slice of banks per file, as files lists them): the bank it names, which
// must be one of the banks of the bank files in its folder (those directly
// in it), or without a name the one bank those files hold. A bank whose
// settings its own file gives already (an exam block), or another
// exam.yaml, is a problem.
func applyExamFiles(exams []examFile, files []bankFile, sets [][]Bank, ps *Problems) {
	for _, ef := range exams {
		dir := filepath.Clean(filepath.Dir(ef.path))
		type at struct{ set, bank int }
		var beside []at
		names := map[string]string{} // lower case → as spelled
		var order []string
		for i, f := range files {
			if filepath.Clean(filepath.Dir(f.path)) != dir {
				continue
			}
			for j, b := range sets[i+1] {
				beside = append(beside, at{i + 1, j})
				key := strings.ToLower(b.Name)
				if _, ok := names[key]; !ok {
					names[key] = b.Name
					order = append(order, b.Name)
				}
			}
		}
		target := ef.bank
		switch {
		case len(order) == 0:
			ps.add(ef.path, 0, "no bank beside this %s: it gives the exam settings of the bank of the files in its folder", ExamFileName)
			continue
		case target == "" && len(order) > 1:
			ps.add(ef.path, 0, "the files beside this %s hold %d banks (%s): name the one it is for with bank:", ExamFileName, len(order), clip(strings.Join(order, ", ")))
			continue
		case target == "":
			target = order[0]
		case names[strings.ToLower(target)] == "":
			ps.add(ef.path, ef.line, "bank %q is not a bank of the files beside this %s (they hold %s)", clip(target), ExamFileName, clip(strings.Join(order, ", ")))
			continue
		}
		var first *Bank
		for _, a := range beside {
			b := &sets[a.set][a.bank]
			if !strings.EqualFold(b.Name, target) {
				continue
			}
			if b.Exam != nil {
				ps.add(ef.path, ef.exam.Line, "bank %q has exam settings already, at %s:%d; give them once", clip(b.Name), b.Exam.Path, b.Exam.Line)
				first = nil
				break
			}
			if first == nil {
				first = b
			}
		}
		if first != nil {
			first.Exam = ef.exam
		}
	}
}
