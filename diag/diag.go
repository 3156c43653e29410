// Package diag defines the diagnostic every front end produces and every
// formatter prints, and the one ordering all output follows.
package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity orders findings; the zero value is not a valid severity.
type Severity int

const (
	Info Severity = iota + 1
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity accepts the names String returns.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// MarshalText makes severities print as words in JSON and YAML.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Object names the Kubernetes object a finding belongs to.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

// Diagnostic is one finding. Line and column numbers are 1-based; columns
// count Unicode code points. A diagnostic without a file (live cluster)
// has zero positions and is located by Object and Path alone.
type Diagnostic struct {
	Span
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
	// Path is the API field path, as the API server prints it
	// (webhooks[0].rules[1].operations[2]); empty for file-level findings.
	Path    string  `json:"path"`
	Object  *Object `json:"object,omitempty"`
	Webhook string  `json:"webhook,omitempty"`
	// Origin is set when the finding was mapped from rendered output back to
	// a source (a kustomize patch, a Helm template): it names where the
	// rendered object came from, for the reader's benefit.
	Origin string `json:"origin,omitempty"`
	// Related are other places that belong to the finding: the webhook a
	// finding located at its backend's field (where the fix goes) is about.
	Related []Related `json:"related,omitempty"`
	// Units names the deployment units a finding is in when its file is
	// read by several and only some of them have it (a base that one
	// overlay fixes): "kustomize build config/manifests".
	Units []string `json:"units,omitempty"`
	// Fixes are the changes that resolve the finding, where the right
	// change is known and the text allows it (see Fix).
	Fixes []Fix `json:"fixes,omitempty"`
	// DependsOnOverlay is set on findings made on a kustomize base linted
	// without its overlay that depend on what the overlay changes: they are
	// reported at info (see rules.Finding.DependsOnOverlay).
	DependsOnOverlay bool `json:"-"`
	// Unchecked is set on a notice that something the input names could
	// not be read offline (a remote chart, folder or kustomize reference),
	// so what it holds was not checked. Such notices of one rule are one
	// gap: the report folds them into one finding (rules.FoldUnchecked).
	Unchecked *Unchecked `json:"-"`
}

// Unchecked names what a could-not-check notice is about.
type Unchecked struct {
	Noun   string // what it is, singular: "chart", "folder", "remote reference"
	Name   string // short, for the folded finding's list: "dex"
	Source string // in full, for the folded finding's related location
}

// Related is a further location of a finding, with what it is.
type Related struct {
	Span
	Message string  `json:"message"`
	Path    string  `json:"path,omitempty"`
	Object  *Object `json:"object,omitempty"`
}

// Compare orders by file, line, column, rule, then everything else so that
// sorting is total and output is reproducible.
func Compare(a, b Diagnostic) int {
	if c := cmp.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Column, b.Column); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Rule, b.Rule); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(objectKey(a.Object), objectKey(b.Object)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Message, b.Message); c != 0 {
		return c
	}
	return cmp.Compare(b.Severity, a.Severity)
}

func objectKey(o *Object) string {
	if o == nil {
		return ""
	}
	return o.APIVersion + "/" + o.Kind + "/" + o.Namespace + "/" + o.Name
}

// Normalize sorts diagnostics and removes exact duplicates (same place,
// rule, path and message), keeping the most severe.
func Normalize(ds []Diagnostic) []Diagnostic {
	slices.SortFunc(ds, Compare)
	return slices.CompactFunc(ds, func(a, b Diagnostic) bool {
		return a.File == b.File && a.Line == b.Line && a.Column == b.Column &&
			a.Rule == b.Rule && a.Path == b.Path && a.Message == b.Message &&
			objectKey(a.Object) == objectKey(b.Object)
	})
}

// Count tallies diagnostics by severity.
type Count struct {
	Errors, Warnings, Infos int
}

// CountOf tallies ds.
func CountOf(ds []Diagnostic) Count {
	var c Count
	for _, d := range ds {
		switch d.Severity {
		case Error:
			c.Errors++
		case Warning:
			c.Warnings++
		case Info:
			c.Infos++
		}
	}
	return c
}

// AtLeast reports whether any diagnostic is at or above min.
func AtLeast(ds []Diagnostic, min Severity) bool {
	for _, d := range ds {
		if d.Severity >= min {
			return true
		}
	}
	return false
}
