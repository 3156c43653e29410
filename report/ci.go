package report

import (
	"encoding/xml"
	"io"
	"path/filepath"
	"slices"

	"github.com/webhooklint/webhooklint/diag"
)

// The CI report formats (junit, gitlab, checkstyle) are read by servers
// that link findings to files of the checkout, so they name files relative
// to the checkout root, which is where CI runs webhooklint.

// ciBase resolves an empty base directory to the current directory.
func ciBase(base string) string {
	if base == "" {
		base = "."
	}
	if abs, err := filepath.Abs(base); err == nil {
		return abs
	}
	return base
}

// ciFile names a diagnostic's file for a CI report: relative to base when
// below it, absolute otherwise; a finding without a file (a live object)
// is named by its object, since these formats need a name.
func ciFile(base string, d diag.Diagnostic) string {
	if d.File == "" {
		if n := objectName(d.Object); n != "" {
			return n
		}
		return "-"
	}
	rel, _ := relativeTo(base, d.File)
	return rel
}

// ciFileGroup is the findings of one file, in the canonical order.
type ciFileGroup struct {
	name     string
	isFile   bool // false for a group of live objects' findings
	findings []diag.Diagnostic
}

// groupByFile groups the run's findings by CI file name and adds the
// linted files without findings, so a clean file shows up as passing.
// Groups are sorted by name.
func groupByFile(base string, run *Run) []ciFileGroup {
	byName := map[string]*ciFileGroup{}
	var order []string
	add := func(name string, isFile bool) *ciFileGroup {
		g, ok := byName[name]
		if !ok {
			g = &ciFileGroup{name: name, isFile: isFile}
			byName[name] = g
			order = append(order, name)
		}
		return g
	}
	for _, f := range run.FileNames {
		rel, _ := relativeTo(base, f)
		add(rel, true)
	}
	for _, d := range sortedDiagnostics(run.Diagnostics) {
		g := add(ciFile(base, d), d.File != "")
		g.findings = append(g.findings, d)
	}
	slices.Sort(order)
	out := make([]ciFileGroup, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out
}

// sortedDiagnostics returns ds in the canonical order, leaving ds alone:
// ds itself when it is sorted already, as a run's findings come, so that a
// report of a hundred thousand is not copied. Callers must not modify it.
func sortedDiagnostics(ds []diag.Diagnostic) []diag.Diagnostic {
	if slices.IsSortedFunc(ds, diag.Compare) {
		return ds
	}
	sorted := slices.Clone(ds)
	slices.SortStableFunc(sorted, diag.Compare)
	return sorted
}

// writeXML writes doc as an indented XML document with its declaration and
// a final newline, as the XML report formats print it.
func writeXML(w io.Writer, doc any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
