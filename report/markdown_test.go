package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func formatWith(t *testing.T, name string, run *Run) string {
	t.Helper()
	f, err := New(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Format(&buf, run); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestMarkdownGolden(t *testing.T) {
	run := &Run{Diagnostics: diag.Normalize(testDiagnostics(testBase)), Files: 7}
	checkGolden(t, "markdown/findings.md", []byte(formatWith(t, "markdown", run)))
	if got := formatWith(t, "markdown", &Run{Files: 3}); got != "### webhooklint: no findings in 3 files\n" {
		t.Errorf("clean: %q", got)
	}
}

func TestMarkdownCellsAndLimit(t *testing.T) {
	if got := cell("a|b\nc <script>"); got != `a\|b<br>c &lt;script&gt;` {
		t.Errorf("cell = %q", got)
	}
	if got := code("a`b|c"); got != "``a`b\\|c``" {
		t.Errorf("code = %q", got)
	}
	var ds []diag.Diagnostic
	for i := range markdownMaxRows + 5 {
		ds = append(ds, diag.Diagnostic{File: "f.yaml", Line: i + 1, Column: 1, Severity: diag.Warning, Rule: "r", Message: "m"})
	}
	out := formatWith(t, "markdown", &Run{Diagnostics: ds, Files: 1})
	if rows := strings.Count(out, "\n| 🟡 warning"); rows != markdownMaxRows || !strings.Contains(out, "…and 5 more") {
		t.Errorf("%d rows, tail %q", rows, out[len(out)-80:])
	}
}

func TestCounts(t *testing.T) {
	got := formatWith(t, "counts", &Run{Diagnostics: testDiagnostics(testBase), Files: 9})
	if got != "errors=3\nwarnings=2\ninfos=1\nfiles=9\n" {
		t.Errorf("counts = %q", got)
	}
}
