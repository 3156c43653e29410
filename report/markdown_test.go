package report

import (
	"bytes"
	"fmt"
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
	// Every finding is listed while the summary stays below what GitHub
	// takes (1 MiB): 2,000 findings fit, 20,000 do not.
	for _, n := range []int{2000, 20000} {
		var ds []diag.Diagnostic
		for i := range n {
			ds = append(ds, diag.Diagnostic{Span: diag.Span{File: "deploy/webhooks.yaml", Line: i + 1, Column: 1}, Severity: diag.Warning, Rule: "timeout-too-long",
				Message: "webhook fails closed after timeoutSeconds 30: a stalled backend holds each request 30 s, then rejects it; set 10 or less, or fail open"})
		}
		out := formatWith(t, "markdown", &Run{Diagnostics: ds, Files: 1})
		rows := strings.Count(out, "\n| 🟡 warning")
		if len(out) > 1<<20 {
			t.Errorf("%d findings: a %d-byte summary", n, len(out))
		}
		switch {
		case n == 2000 && (rows != n || strings.Contains(out, "more")):
			t.Errorf("%d findings: %d rows", n, rows)
		case n == 20000 && (rows == n || !strings.Contains(out, fmt.Sprintf("…and %d more", n-rows))):
			t.Errorf("%d findings: %d rows, tail %q", n, rows, out[len(out)-200:])
		}
	}
}

func TestCounts(t *testing.T) {
	got := formatWith(t, "counts", &Run{Diagnostics: testDiagnostics(testBase), Files: 9, Unchecked: 4})
	if got != "errors=3\nwarnings=2\ninfos=1\nfiles=9\nunchecked=4\n" {
		t.Errorf("counts = %q", got)
	}
}
