package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func textOutput(t *testing.T, color bool, ds []diag.Diagnostic, source func(string) []byte) string {
	t.Helper()
	f, err := New("text", Options{Color: color})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Format(&buf, &Run{Diagnostics: diag.Normalize(ds), Source: source}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestTextGolden(t *testing.T) {
	checkGolden(t, "text/findings.txt", []byte(textOutput(t, false, testDiagnostics(testBase), testSources.get)))
	checkGolden(t, "text/findings-color.txt", []byte(textOutput(t, true, testDiagnostics(testBase), testSources.get)))
}

func TestTextSnippetMarksTheSpan(t *testing.T) {
	out := textOutput(t, false, testDiagnostics(testBase), testSources.get)
	for _, want := range []string{
		// A tab before the value is copied so the caret lines up; "é"
		// counts as one column.
		" 7 | \t# é  failurePoli: Failé!\n   | \t                  ^~~~~~\n",
		" 12 |     timeoutSeconds: 30\n    |                     ^~\n",
		// A span over several lines is marked to the end of its first line.
		" 3 |   - c: |\n   |     ^~~~\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\n--- output:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n3 errors, 2 warnings, 1 info in 5 files\n") {
		t.Errorf("summary line wrong:\n%s", out)
	}
}

func TestTextWithoutSourcesOrColor(t *testing.T) {
	out := textOutput(t, false, testDiagnostics(testBase), nil)
	if strings.Contains(out, " | ") || strings.Contains(out, "\x1b[") {
		t.Errorf("snippet or color without source/color:\n%s", out)
	}
	// A position past the end of the line (stale source) prints no marker.
	d := diag.Diagnostic{File: "f.yaml", Line: 1, Column: 40, Severity: diag.Error, Rule: "r", Message: "m"}
	out = textOutput(t, false, []diag.Diagnostic{d}, func(string) []byte { return []byte("short\n") })
	if out != "f.yaml:1:40: error: m [r]\n\n1 error, 0 warnings in 1 file\n" {
		t.Errorf("out of range: %q", out)
	}
	if out := textOutput(t, true, nil, nil); out != "" {
		t.Errorf("no findings printed %q", out)
	}
}
