package helm

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/lazy"
	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Helm's errors are rewritten here into one line that says what to do,
// located at the line that causes them: the template action of a value
// the chart requires, the values file line a schema rejects.

// execMsg is the text a template's own error carries (required, fail).
var execMsg = lazy.Regexp(`execution error at \([^)]*\): (.*)$`)

// requiredKey finds the value a `required "msg" .Values.a.b` action reads.
var requiredKey = lazy.Regexp(`^required\s+(?:"(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `)\s+\(?\s*\.Values\.([A-Za-z0-9_.\-]+)`)

// needsValue turns the error of a template that stopped on purpose —
// `required` without its value, `fail` — into a warning that says which
// value to give and how. It reports whether it did.
func needsValue(e *Error, msg string) bool {
	action := actionAt(e.File, e.Line, e.Column)
	isRequired, isFail := wordAt(action, "required"), wordAt(action, "fail")
	if !isRequired && !isFail {
		return false
	}
	text := msg
	if m := execMsg().FindStringSubmatch(msg); m != nil {
		text = m[1]
	}
	switch {
	case isRequired:
		// The chart's own text is on the snippet's line; it is said only
		// when the value it asks for is not known.
		needs := fmt.Sprintf("a value (%q)", text)
		if m := requiredKey().FindStringSubmatch(action); m != nil {
			needs = m[1]
		}
		e.Msg = fmt.Sprintf("chart needs %s: set it with --set or in .webhooklint.yaml", needs)
	default:
		e.Msg = fmt.Sprintf("chart fails with its default values (%q): set what it needs with --set or in .webhooklint.yaml", text)
	}
	e.NeedsValue = true
	return true
}

// columnOf turns the 0-based byte offset of a template position into the
// 1-based column, in characters, of findings.
func columnOf(file string, line, off int) int {
	text := lineOf(file, line)
	if off > len(text) {
		return off + 1
	}
	return utf8.RuneCountInString(text[:off]) + 1
}

func lineOf(file string, line int) string {
	data, err := overlay.ReadDiskFile(file)
	if err != nil || line < 1 {
		return ""
	}
	lines := bytes.Split(data, []byte("\n"))
	if line > len(lines) {
		return ""
	}
	return string(lines[line-1])
}

// actionAt returns the template text from line:col to the end of that line.
func actionAt(file string, line, col int) string {
	runes := []rune(lineOf(file, line))
	if col < 1 || col > len(runes) {
		return ""
	}
	return string(runes[col-1:])
}

func wordAt(s, word string) bool {
	rest, ok := strings.CutPrefix(s, word)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '(')
}

// tidyTemplateMessage shortens Go template's error text to what the user
// needs once the location is the finding's: "template: c/templates/x:3:5:
// executing "c/templates/x" at <.Values.a.b>: nil pointer …" becomes
// "at <.Values.a.b>: nil pointer …".
func tidyTemplateMessage(msg string) string {
	msg = regexp.MustCompile(`(?:template: )?[^\s:]+:\d+(?::\d+)?:? executing "[^"]*" at `).ReplaceAllString(msg, "at ")
	msg = regexp.MustCompile(`execution error at \([^)]*\): `).ReplaceAllString(msg, "")
	return msg
}

// schemaViolation is one line of Helm's values schema error:
// "- at '/webhook/timeout': maximum: got 99, want 30" under "chart:".
var schemaViolation = lazy.Regexp(`^- at '([^']*)': (.*)$`)

// schemaError locates Helm's "values don't meet the specifications of the
// schema(s)" error at the values line of its first violation: the last
// values file (--values, then the chart's values.yaml) that sets that key.
// It returns nil for any other error.
func schemaError(dir, chartName string, valuesFiles []string, setFlags []string, err error) *Error {
	text := err.Error()
	if !strings.Contains(text, "values don't meet the specifications of the schema") {
		return nil
	}
	var problems []string
	var firstPath []string
	sub := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := schemaViolation().FindStringSubmatch(line); m != nil {
			path := pointer(m[1])
			if sub != "" && sub != chartName {
				path = append([]string{sub}, path...)
			}
			if firstPath == nil {
				firstPath = path
			}
			problems = append(problems, strings.Join(path, ".")+": "+m[2])
			continue
		}
		if c, ok := strings.CutSuffix(line, ":"); ok && !strings.Contains(c, " ") {
			sub = c
		}
	}
	if len(problems) == 0 {
		return nil
	}
	e := &Error{Span: diag.Span{File: filepath.Join(dir, "Chart.yaml"), Line: 1, Column: 1},
		Msg: fmt.Sprintf("values do not match chart %s's values.schema.json: %s", chartName, strings.Join(problems, "; "))}
	key := strings.Join(firstPath, ".")
	for _, s := range setFlags {
		if k, _, _ := strings.Cut(s, "="); k == key {
			e.Msg += " (set by --set " + s + ")"
			return e
		}
	}
	files := append([]string{filepath.Join(dir, "values.yaml")}, valuesFiles...)
	for i := len(files) - 1; i >= 0; i-- {
		if line, col, ok := valuesKeyLine(files[i], firstPath); ok {
			e.File, e.Line, e.Column = files[i], line, col
			break
		}
	}
	return e
}

// pointer splits a JSON pointer into its keys.
func pointer(p string) []string {
	var out []string
	for _, s := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if s != "" {
			out = append(out, strings.NewReplacer("~1", "/", "~0", "~").Replace(s))
		}
	}
	return out
}

// valuesKeyLine finds where a values file sets the key path: the value's line
// and column, or its key's when the value is a collection.
func valuesKeyLine(file string, path []string) (line, col int, ok bool) {
	data, err := overlay.ReadDiskFile(file)
	if err != nil {
		return 0, 0, false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 0, 0, false
	}
	n := doc.Content[0]
	var at *yaml.Node
	for _, k := range path {
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					at, next = n.Content[i], n.Content[i+1]
				}
			}
			if next == nil {
				return 0, 0, false
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(n.Content) {
				return 0, 0, false
			}
			at, n = n.Content[i], n.Content[i]
		default:
			return 0, 0, false
		}
	}
	if n.Kind == yaml.ScalarNode {
		return n.Line, n.Column, true
	}
	if at != nil {
		return at.Line, at.Column, true
	}
	return 0, 0, false
}
