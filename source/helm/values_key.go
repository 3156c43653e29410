package helm

import (
	"path/filepath"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/lazy"
)

// valuesRef matches a reference to a chart value in a template action:
// .Values.webhook.replicas, $.Values.replicaCount.
var valuesRef = lazy.Regexp(`\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)

// ValuesSetting is where a value a template line reads is set: the last
// values file (of the chart's values.yaml and the values files given, in
// order) that sets the key.
type ValuesSetting struct {
	Key       string // dotted, as the template reads it: webhook.replicas
	diag.Span        // the value's first character
}

// ValuesAt finds the value that the template action on line (1-based) of
// source reads, and where it is set. A line reading several values names
// the first; false when it reads none, or no values file sets it.
func ValuesAt(chartDir string, valuesFiles []string, source []byte, line int) (ValuesSetting, bool) {
	key, ok := ValuesKeyAt(source, line)
	if !ok {
		return ValuesSetting{}, false
	}
	files := append([]string{filepath.Join(chartDir, "values.yaml")}, valuesFiles...)
	for i := len(files) - 1; i >= 0; i-- {
		if l, c, ok := valuesKeyLine(files[i], strings.Split(key, ".")); ok {
			return ValuesSetting{Key: key, Span: diag.Point(files[i], l, c)}, true
		}
	}
	return ValuesSetting{}, false
}

// ValuesKeyAt returns the first chart value (dotted) that the template
// action on line (1-based) of source reads.
func ValuesKeyAt(source []byte, line int) (string, bool) {
	lines := strings.Split(string(source), "\n")
	if line < 1 || line > len(lines) {
		return "", false
	}
	m := valuesRef().FindStringSubmatch(lines[line-1])
	if m == nil {
		return "", false
	}
	return strings.TrimPrefix(m[1], "."), true
}
