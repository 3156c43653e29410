package helm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// writeChart writes a chart of files, with a Chart.yaml, and returns its
// folder.
func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	files["Chart.yaml"] = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
	return testkit.Tree(t, files)
}

// A value the chart requires, or a fail for the default values, is a
// value to give: the error says which and how, at the action.
func TestRequiredAndFailSayWhatToGive(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"values.yaml": "a: {}\n",
		"templates/required.yaml": "kind: ConfigMap\nmetadata:\n  name: x\ndata:\n" +
			"  é: {{ b64enc (required \"give the certificate\" .Values.a.crtPEM | trim) }}\n",
		"templates/fail.yaml": "{{- if not .Values.b }}\n{{- fail \"set b\" }}\n{{- end }}\n",
		"templates/nil.yaml":  "kind: ConfigMap\ndata:\n  x: {{ .Values.a.b.c }}\n",
	})
	c, err := Render(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Error{}
	for _, e := range c.Skipped {
		got[filepath.Base(e.File)] = e
	}
	for name, want := range map[string]struct {
		line, col int
		needs     bool
		msg       string
	}{
		"required.yaml": {5, 17, true, `chart needs a.crtPEM: set it with --set or in .webhooklint.yaml`},
		"fail.yaml":     {2, 5, true, `chart fails with its default values ("set b"): set what it needs with --set or in .webhooklint.yaml`},
		"nil.yaml":      {3, 16, false, `cannot render chart c: at <.Values.a.b.c>: nil pointer evaluating interface {}.c`},
	} {
		e := got[name]
		if e == nil {
			t.Errorf("%s: not reported (%v)", name, c.Skipped)
			continue
		}
		if e.Line != want.line || e.Column != want.col || e.NeedsValue != want.needs || !strings.HasPrefix(e.Msg, want.msg) {
			t.Errorf("%s: %d:%d needs=%v %q\nwant %d:%d needs=%v %q", name, e.Line, e.Column, e.NeedsValue, e.Msg, want.line, want.col, want.needs, want.msg)
		}
	}
}

// A values schema error is at the values line that breaks it: the last
// values file that sets it, or says the --set flag did.
func TestSchemaErrorAtTheValuesLine(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"values.yaml":        "webhook:\n  timeout: 5\n  name: x\n",
		"values.schema.json": `{"type":"object","properties":{"webhook":{"type":"object","properties":{"timeout":{"type":"integer","maximum":30}}}}}`,
		"prod.yaml":          "# production\nwebhook:\n  timeout: 45\n",
		"other.yaml":         "webhook:\n  name: y\n",
		"templates/x.yaml":   "kind: ConfigMap\n",
	})
	for _, c := range []struct {
		opts Options
		file string
		line int
		col  int
		msg  string
	}{
		{Options{ValuesFiles: []string{filepath.Join(dir, "prod.yaml"), filepath.Join(dir, "other.yaml")}}, "prod.yaml", 3, 12,
			"values do not match chart c's values.schema.json: webhook.timeout: maximum: got 45, want 30"},
		{Options{Set: []string{"webhook.timeout=99"}}, "Chart.yaml", 1, 1,
			"values do not match chart c's values.schema.json: webhook.timeout: maximum: got 99, want 30 (set by --set webhook.timeout=99)"},
	} {
		_, err := Render(dir, c.opts)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		if filepath.Base(e.File) != c.file || e.Line != c.line || e.Column != c.col || e.Msg != c.msg || strings.Contains(e.Msg, "\n") {
			t.Errorf("%+v: %s:%d:%d %q\nwant %s:%d:%d %q", c.opts, e.File, e.Line, e.Column, e.Msg, c.file, c.line, c.col, c.msg)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte("webhook:\n  timeout: 31\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Render(dir, Options{})
	var e *Error
	if !errors.As(err, &e) || filepath.Base(e.File) != "values.yaml" || e.Line != 2 || e.Column != 12 {
		t.Errorf("chart's values.yaml: %v (%+v)", err, e)
	}
}
