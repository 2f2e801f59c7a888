package questions

import (
	"path/filepath"
	"strings"
)

// Format is a bank file format.
type Format string

// The bank formats quizhost reads.
const (
	FormatText  Format = "txt"   // exam text, *.txt
	FormatYAML  Format = "yaml"  // structured, *.yaml and *.yml
	FormatJSON  Format = "json"  // structured, *.json
	FormatGIFT  Format = "gift"  // Moodle GIFT, *.gift
	FormatAiken Format = "aiken" // Moodle Aiken, *.aiken
	FormatCSV   Format = "csv"   // a table, *.csv
	FormatTSV   Format = "tsv"   // a table, *.tsv
)

// FormatOf returns the format a file name's extension means, and false for
// any other file.
func FormatOf(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt":
		return FormatText, true
	case ".yaml", ".yml":
		return FormatYAML, true
	case ".json":
		return FormatJSON, true
	case ".gift":
		return FormatGIFT, true
	case ".aiken":
		return FormatAiken, true
	case ".csv":
		return FormatCSV, true
	case ".tsv":
		return FormatTSV, true
	}
	return "", false
}
