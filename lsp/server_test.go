package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// splitExample writes the repository's example as two files of one
// folder unit: the backend (Namespace, Service, Deployment) and the
// webhook configuration.
func splitExample(t *testing.T) (dir, backend, webhook string) {
	t.Helper()
	data, err := os.ReadFile("../examples/webhooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	cut := strings.Index(text, "# Fails closed")
	if cut < 0 {
		t.Fatal("examples/webhooks.yaml changed: no webhook comment to split at")
	}
	dir = t.TempDir()
	backend, webhook = filepath.Join(dir, "backend.yaml"), filepath.Join(dir, "webhook.yaml")
	if err := os.WriteFile(backend, []byte(strings.TrimSuffix(text[:cut], "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(webhook, []byte(text[cut:]), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, backend, webhook
}

// key is what the editor shows of a finding: rule, range, severity.
func keyOf(d diagnostic) string {
	return fmt.Sprintf("%s %d:%d-%d:%d %d", d.Code, d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character, d.Severity)
}

// commandLine is what `webhooklint FILE` finds in file, as diagnostics.
func commandLine(t *testing.T, file string) []string {
	t.Helper()
	res, err := source.Lint([]string{file}, nil, "", lint.Options{Settings: rules.DefaultSettings()}, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	ls := splitLines(string(data))
	var out []string
	for _, d := range res.Diagnostics {
		if d.File == file {
			out = append(out, keyOf(toLSP(d, func(string) lines { return ls }, encUTF16)))
		}
	}
	slices.Sort(out)
	return out
}

func keys(ds []diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, keyOf(d))
	}
	slices.Sort(out)
	return out
}

func TestDiagnosticsFollowEdits(t *testing.T) {
	dir, backend, webhook := splitExample(t)
	c := startServer(t)
	c.initialize(dir)
	text, _ := os.ReadFile(webhook)
	wURI, bURI := pathURI(webhook), pathURI(backend)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": wURI, "languageId": "yaml", "version": 1, "text": string(text)}})

	// The webhook's own findings are the command line's, and the backend
	// file, not open, gets the findings located at the Deployment.
	want := commandLine(t, webhook)
	got := c.waitDiagnostics(wURI, "webhook diagnostics", func(ds []diagnostic) bool { return len(ds) > 0 })
	if !slices.Equal(keys(got), want) {
		t.Errorf("webhook.yaml diagnostics:\n got %q\nwant %q", keys(got), want)
	}
	for _, d := range got {
		if d.CodeDescription == nil || !strings.Contains(d.CodeDescription.Href, d.Code) {
			t.Errorf("%s: codeDescription %v does not link to the rule's doc", d.Code, d.CodeDescription)
		}
	}
	bds := c.waitDiagnostics(bURI, "backend diagnostics", func(ds []diagnostic) bool { return hasRule(ds, "backend-availability") })
	related := false
	for _, d := range bds {
		for _, r := range d.RelatedInformation {
			related = related || r.Location.URI == wURI
		}
	}
	if !related {
		t.Errorf("backend findings name no related location in webhook.yaml: %+v", bds)
	}

	// Failing open (an unsaved, incremental edit in webhook.yaml) takes
	// the fail-closed finding off the backend file.
	line := slices.Index(strings.Split(string(text), "\n"), "  failurePolicy: Fail")
	if line < 0 {
		t.Fatal("no failurePolicy line")
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": wURI, "version": 2},
		"contentChanges": []map[string]any{{
			"range": lspRange{Start: position{line, 17}, End: position{line, 21}}, "text": "Ignore"}},
	})
	c.waitDiagnostics(bURI, "backend diagnostics after failing open", func(ds []diagnostic) bool { return !hasRule(ds, "backend-availability") })

	// Closing the buffer reverts to the disk, where it still fails closed.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": wURI}})
	c.waitDiagnostics(bURI, "backend diagnostics after closing", func(ds []diagnostic) bool { return hasRule(ds, "backend-availability") })

	if resp := c.call("shutdown", nil); resp.Error != nil {
		t.Fatalf("shutdown: %s", resp.Error.Message)
	}
	c.notify("exit", nil)
	if code := <-c.exited; code != 0 {
		t.Errorf("exit status %d after shutdown, want 0", code)
	}
}

func TestSuppressAction(t *testing.T) {
	c, uri, _ := openExample(t)
	actions := codeActionsFor(t, c, uri, "side-effects-value")
	// The suppression comes after the finding's fixes.
	i := slices.IndexFunc(actions, func(a codeAction) bool { return strings.HasPrefix(a.Title, "Suppress ") })
	if i < 0 || i != len(actions)-1 {
		t.Fatalf("code actions %+v: want the suppression last", actions)
	}
	edits := actions[i].Edit.Changes[uri]
	if len(edits) != 1 || !strings.Contains(edits[0].NewText, "# webhooklint:ignore side-effects-value -- ") {
		t.Fatalf("edit %+v does not write the suppression comment", edits)
	}
	// Applied as an editor does, the edit removes the finding and adds none.
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"range": edits[0].Range, "text": edits[0].NewText}},
	})
	after := c.waitDiagnostics(uri, "diagnostics without side-effects-value", func(ds []diagnostic) bool { return !hasRule(ds, "side-effects-value") })
	// What the root cause hid may show now (dry-run-side-effects), but no
	// error and no finding on the suppression itself.
	for _, d := range after {
		if d.Severity == severityError || strings.Contains(d.Code, "suppression") {
			t.Errorf("after suppressing: %s: %s", keyOf(d), d.Message)
		}
	}
}

func TestSeverityMapping(t *testing.T) {
	for s, want := range map[diag.Severity]int{diag.Error: severityError, diag.Warning: severityWarning, diag.Info: severityInformation} {
		if got := severity(s); got != want {
			t.Errorf("severity(%v) = %d, want %d", s, got, want)
		}
	}
}

// A safe fix is a preferred quickfix whose edit, applied to the buffer,
// removes its finding.
func TestFixAction(t *testing.T) {
	c, uri, _ := openExample(t)
	actions := codeActionsFor(t, c, uri, "review-versions-order")
	var fix *codeAction
	for i := range actions {
		if actions[i].IsPreferred {
			fix = &actions[i]
		}
	}
	if fix == nil {
		t.Fatalf("no preferred (safe) fix among %+v", actions)
	}
	edits := fix.Edit.Changes[uri]
	// Edits of one change apply to the text as it was: send them last
	// first, as editors apply them.
	var changes []map[string]any
	for i := len(edits) - 1; i >= 0; i-- {
		changes = append(changes, map[string]any{"range": edits[i].Range, "text": edits[i].NewText})
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": changes})
	c.waitDiagnostics(uri, "diagnostics without review-versions-order", func(ds []diagnostic) bool {
		return !hasRule(ds, "review-versions-order")
	})
}

// openExample starts a server on the split example and opens its
// webhook file, as an editor does.
func openExample(t *testing.T) (c *client, uri string, text []byte) {
	t.Helper()
	dir, _, webhook := splitExample(t)
	c = startServer(t)
	c.initialize(dir)
	text, _ = os.ReadFile(webhook)
	uri = pathURI(webhook)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": string(text)}})
	return c, uri, text
}

// codeActionsFor waits for a finding of rule in uri and returns the code
// actions the server offers for it.
func codeActionsFor(t *testing.T, c *client, uri, rule string) []codeAction {
	t.Helper()
	ds := c.waitDiagnostics(uri, rule, func(ds []diagnostic) bool { return hasRule(ds, rule) })
	var target diagnostic
	for _, d := range ds {
		if d.Code == rule {
			target = d
		}
	}
	resp := c.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": target.Range,
		"context": map[string]any{"diagnostics": []diagnostic{target}}})
	if resp.Error != nil {
		t.Fatalf("codeAction: %s", resp.Error.Message)
	}
	var actions []codeAction
	if err := json.Unmarshal(resp.Result, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}
