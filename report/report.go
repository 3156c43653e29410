// Package report prints diagnostics. Every format reads the same sorted,
// de-duplicated list; none of them reorders or filters it.
package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
)

// Run describes the lint run a report is about.
type Run struct {
	Diagnostics []diag.Diagnostic
	// Files, Configs (webhook configurations) and Policies (admission
	// policies and bindings) count what was linted, for summaries.
	Files, Configs, Policies int
	// Unchecked counts the sources the input names that were not read
	// (offline): the summaries say so, since a could-not-check notice is
	// info unless nothing else was checked.
	Unchecked int
	// FileNames lists the files linted, so formats that report per file
	// (junit, checkstyle) can show the clean ones too; may be nil.
	FileNames []string
	// Source returns a file's contents for snippets; nil disables them.
	Source func(file string) []byte
	// ToolVersion is webhooklint's version.
	ToolVersion string
	// ExitCode is the status the process exits with (SARIF records it).
	ExitCode int

	// Live says the diagnostics are about a live cluster's objects, not
	// files: the text format heads them by object, locates them by field
	// path and counts objects in its summary.
	Live bool
	// Excerpt, when set, shows the field a live finding names (as
	// kubectl get -o yaml would), under it in text and as "excerpt" in
	// JSON.
	Excerpt func(diag.Diagnostic) string
	// Notes and ResourceVersions are what a live run read with (stale or
	// restarted lists, checks skipped; each resource's list version), for
	// the JSON envelope.
	Notes            []string
	ResourceVersions map[string]string

	// Document is the answer of a run that is not a list of findings
	// (simulate's admission chains): the text and json formats print it
	// in its own shape, the other formats report Diagnostics, what it
	// found.
	Document Document
}

// Document is a run's own output, for people and for programs.
type Document interface {
	WriteText(w io.Writer) error
	WriteJSON(w io.Writer) error
}

// Formatter writes a run in one format.
type Formatter interface {
	Format(w io.Writer, run *Run) error
}

// FormatterFunc adapts a function to Formatter.
type FormatterFunc func(w io.Writer, run *Run) error

// Format calls f.
func (f FormatterFunc) Format(w io.Writer, run *Run) error { return f(w, run) }

// Options tune formatters that have any choices to make.
type Options struct {
	Color bool
	// BaseDir is the folder the github and sarif formats name files
	// relative to (the repository root); empty means the current folder.
	BaseDir string
}

var formats = map[string]func(Options) Formatter{}

// Register adds a named format; formats register themselves in init.
func Register(name string, f func(Options) Formatter) {
	if _, dup := formats[name]; dup {
		panic("report: duplicate format " + name)
	}
	formats[name] = f
}

// New returns the named formatter.
func New(name string, opts Options) (Formatter, error) {
	f, ok := formats[name]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	return f(opts), nil
}

// Names lists the registered formats.
func Names() []string {
	var out []string
	for n := range formats {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
