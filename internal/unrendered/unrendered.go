// Package unrendered recognizes template source that was never rendered:
// Helm chart templates, other Go text/template files and sed/mustache
// placeholder files. Such a file is not a broken manifest; reporting YAML
// syntax errors or schema errors on it would be noise, so the linter reports
// one finding that says what the file is and how to lint what it produces.
//
// Helm is claimed only on evidence: the file sits under templates/ of a
// directory with a Chart.yaml, or its actions use objects only Helm provides
// (.Values, .Release, .Chart, .Capabilities, .Files, include "…"). Functions
// such as toYaml are no evidence: Go programs register them too. Anything
// else is called a template with placeholders, because Go programs (operator
// bindata, e2e frameworks) and sed scripts use the same {{ }} syntax.
package unrendered

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Kind says what sort of template a file is.
type Kind int

const (
	// HelmChart is a template inside a chart (templates/ next to Chart.yaml).
	HelmChart Kind = iota + 1
	// HelmLike uses Helm's objects or functions but no chart was found.
	HelmLike
	// Generic is any other template: Go text/template, mustache, sed markers.
	Generic
)

// Template describes an unrendered template found in a file.
type Template struct {
	Kind Kind
	// Chart is the chart directory for HelmChart.
	Chart string
	// Action is the first template action, quoted in the message.
	Action string
	// Line and Column locate Action (1-based, columns in code points).
	Line, Column int
	// HelmHint is the Helm-only construct that made the file HelmLike.
	HelmHint string
}

var (
	// action finds {{ … }} on one line; an action left open at the end of
	// a line still counts from its {{.
	action = lazy.Regexp(`\{\{(?:[^{}]|\}[^}])*(?:\}\}|$)`)
	// goAction is a Go text/template action rather than a mustache or sed
	// marker: it starts with a field (.X), a variable ($x), a string, or a
	// keyword/function followed by arguments.
	goAction = lazy.Regexp(`^\{\{-?\s*(?:[.$"(]|(?:if|else|end|range|with|define|template|block|include|tpl|toYaml|default|required|quote|printf)\b)`)
	// helmHint matches what only Helm provides to a template.
	helmHint = lazy.Regexp(`\$?\.(?:Values|Release|Chart|Capabilities|Files)\b|\binclude\s+"`)
)

// InFile reports whether a file whose YAML did not parse is a template.
// Any {{ in such a file makes it one: the action is what broke the parse
// (or at least explains it better than the parser would).
func InFile(path string, data []byte) (Template, bool) {
	line, col, act := firstAction(data, false)
	if act == "" {
		return Template{}, false
	}
	return classify(path, data, line, col, act), true
}

// InDocument reports whether a document that parsed is still a template:
// it holds Go template actions (not just a {{name}} marker, which the
// placeholder rule reports on the field it sits in). Callers pass only the
// text of webhook configuration documents: other objects legitimately carry
// {{ }} in their data (an injector's template ConfigMap).
func InDocument(path string, doc []byte) (Template, bool) {
	line, col, act := firstAction(doc, true)
	if act == "" {
		return Template{}, false
	}
	return classify(path, doc, line, col, act), true
}

// UnderChart reports whether path is inside a chart's templates/ directory
// and returns the chart directory. Such a file is a Helm template even when
// it happens to parse as YAML.
func UnderChart(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	dir := filepath.Dir(abs)
	for d := dir; ; {
		if filepath.Base(d) == "templates" {
			chart := filepath.Dir(d)
			if isFile(filepath.Join(chart, "Chart.yaml")) {
				return relIfShorter(chart), true
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func isFile(p string) bool {
	fi, err := overlay.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// relIfShorter prints a chart directory the way the user would type it.
func relIfShorter(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && len(r) < len(p) {
		return r
	}
	return p
}

// valueAction is an action that produces a value (a field, a variable or
// a mustache name), the most telling one to quote: `{{ .Namespace }}`
// says more than `{{- define "x" }}`.
var valueAction = lazy.Regexp(`^\{\{-?\s*(?:[.$]|[A-Za-z_][A-Za-z0-9_]*\s*\}\})`)

// firstAction finds the first value-producing action, or else the first
// action of any kind.
func firstAction(data []byte, goOnly bool) (line, col int, act string) {
	for _, wantValue := range []bool{true, false} {
		for i, l := range bytes.Split(data, []byte{'\n'}) {
			for _, loc := range action().FindAllIndex(l, -1) {
				a := string(l[loc[0]:loc[1]])
				if goOnly && !goAction().MatchString(a) {
					continue
				}
				if wantValue && !valueAction().MatchString(a) {
					continue
				}
				return i + 1, utf8.RuneCount(l[:loc[0]]) + 1, strings.TrimSpace(a)
			}
		}
	}
	return 0, 0, ""
}

func classify(path string, data []byte, line, col int, act string) Template {
	t := Template{Kind: Generic, Action: act, Line: line, Column: col}
	if chart, ok := UnderChart(path); ok {
		t.Kind, t.Chart = HelmChart, chart
		return t
	}
	// Look for Helm-only constructs inside actions only: prose or data
	// outside {{ }} proves nothing.
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		for _, a := range action().FindAll(l, -1) {
			if m := helmHint().Find(a); m != nil {
				t.Kind, t.HelmHint = HelmLike, strings.TrimSpace(strings.TrimSuffix(string(m), `"`))
				return t
			}
		}
	}
	return t
}

// Message is the one finding reported for the template.
func (t Template) Message() string {
	switch t.Kind {
	case HelmChart:
		return fmt.Sprintf("unrendered Helm template of chart %s, not linted as YAML: lint the chart with `webhooklint --helm %s`",
			t.Chart, t.Chart)
	case HelmLike:
		return fmt.Sprintf("unrendered Helm template (it uses `%s`), not linted as YAML: lint its chart with `webhooklint --helm <chart dir>`, or lint the output of `helm template`",
			t.HelmHint)
	}
	return fmt.Sprintf("unrendered template: placeholders such as %s must be substituted before the file can be linted; lint the generated manifest instead",
		quote(t.Action))
}

func quote(a string) string {
	const max = 60
	if utf8.RuneCountInString(a) > max {
		r := []rune(a)
		a = string(r[:max]) + "…"
	}
	return "`" + a + "`"
}
