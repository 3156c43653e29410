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
	d := diag.Diagnostic{Span: diag.Span{File: "f.yaml", Line: 1, Column: 40}, Severity: diag.Error, Rule: "r", Message: "m"}
	out = textOutput(t, false, []diag.Diagnostic{d}, func(string) []byte { return []byte("short\n") })
	if out != "f.yaml:1:40: error: m [r]\n\n1 error, 0 warnings in 1 file\n" {
		t.Errorf("out of range: %q", out)
	}
	if out := textOutput(t, true, nil, nil); out != "\x1b[1mno webhook configuration or admission policy in 0 files\x1b[0m\n" {
		t.Errorf("no findings: printed %q, want only the bold summary", out)
	}
}

// A run without findings says what it linted, so that a clean run and a
// run on a folder without webhooks read differently.
func TestTextCleanSummary(t *testing.T) {
	f, err := New("text", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Files: 12, Configs: 3}, "no findings in 3 webhook configurations, 12 files\n"},
		{Run{Files: 1, Configs: 1, Policies: 1}, "no findings in 1 webhook configuration, 1 admission policy or binding, 1 file\n"},
		{Run{Files: 2, Policies: 2}, "no findings in 2 admission policies and bindings, 2 files\n"},
		{Run{Files: 4}, "no webhook configuration or admission policy in 4 files\n"},
	} {
		var buf bytes.Buffer
		if err := f.Format(&buf, &tc.run); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("%+v: %q, want %q", tc.run, buf.String(), tc.want)
		}
	}
}

// The sources a run could not read are counted in the summaries, since the
// notices saying so are info unless nothing else was checked; a run that
// read everything prints what it printed before.
func TestSummaryCountsUnchecked(t *testing.T) {
	ds := []diag.Diagnostic{{Span: diag.Span{File: "apps/a.yaml", Line: 1, Column: 1}, Severity: diag.Info, Rule: "gitops-source", Message: "m"}}
	for _, tc := range []struct {
		format, want, without string
	}{
		{"text", "\n0 errors, 0 warnings, 1 info in 1 file; 11 sources not checked (offline)\n", "; 11 sources"},
		{"markdown", "### webhooklint: 0 errors, 0 warnings, 1 info in 1 file; 11 sources not checked (offline)\n", "not checked"},
		{"json", `"infos": 1,
    "unchecked": 11
  },`, `"unchecked"`},
		{"sarif", `"properties": {
        "unchecked": 11
      }`, `"unchecked"`},
	} {
		if out := formatWith(t, tc.format, &Run{Diagnostics: ds, Files: 1, Unchecked: 11}); !strings.Contains(out, tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.format, tc.want, out)
		}
		if out := formatWith(t, tc.format, &Run{Diagnostics: ds, Files: 1}); strings.Contains(out, tc.without) {
			t.Errorf("%s: nothing unchecked, yet %q in\n%s", tc.format, tc.without, out)
		}
	}
}
