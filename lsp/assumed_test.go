package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// An editor shows a finding that holds only under an assumption as the
// command line reports it (one engine: lint.LintUnit's inContext): at
// information, with the assumption and how to state it as related
// information at the finding.
func TestAssumptionAsOnTheCommandLine(t *testing.T) {
	data, err := os.ReadFile("../testdata/sources/context/part-of-an-install/webhook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	webhook, text := filepath.Join(dir, "webhook.yaml"), string(data)
	if err := os.WriteFile(webhook, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	c.initialize(dir)
	uri := pathURI(webhook)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
	got := c.waitDiagnostics(uri, "webhook diagnostics", func(ds []diagnostic) bool { return hasRule(ds, "self-deadlock") })
	if want := commandLine(t, webhook); !slices.Equal(keys(got), want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", keys(got), want)
	}
	const information = 3 // LSP DiagnosticSeverity
	for _, d := range got {
		if d.Code != "self-deadlock" {
			continue
		}
		want := "assumed applied as written (no Service in the unit): name it in units.entries"
		if d.Severity != information || len(d.RelatedInformation) != 1 || d.RelatedInformation[0].Message != want ||
			d.RelatedInformation[0].Location.URI != uri || d.RelatedInformation[0].Location.Range != d.Range {
			t.Errorf("self-deadlock: severity %d, related %+v; want information with %q at the finding", d.Severity, d.RelatedInformation, want)
		}
	}
}
