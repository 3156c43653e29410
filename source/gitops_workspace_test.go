package source

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

// The editor's workspace finds its entries once: an edit of a file they
// were not found from keeps them, an edit of an entry's file or of a
// file that now holds an entry finds them again.
func TestWorkspaceKeepsEntries(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/gitops/flux-kustomize-helm")); err != nil {
		t.Fatal(err)
	}
	w := NewWorkspace(dir, nil)
	webhook := filepath.Join(dir, "infrastructure", "controllers", "guard", "webhook.yaml")
	entry := filepath.Join(dir, "clusters", "production", "infrastructure.yaml")
	run := func() {
		t.Helper()
		if _, err := Lint([]string{webhook}, nil, "", lint.Options{Settings: rules.DefaultSettings()}, Options{Workspace: w, WholeUnits: true}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	first := w.kept
	if len(first) == 0 {
		t.Fatal("no entries found in the workspace")
	}
	if w.candidates[webhook] || !w.candidates[entry] {
		t.Errorf("candidates %v: want the entry's file, not the manifest", w.candidates)
	}

	edit := func(file, text string) {
		t.Helper()
		overlay.Set(file, []byte(text))
		t.Cleanup(func() { overlay.Delete(file) })
		w.Changed(file)
	}
	data, _ := os.ReadFile(webhook)
	edit(webhook, string(data)+"\n# edited\n")
	run()
	if &w.kept[0] != &first[0] {
		t.Error("an edit of a manifest found the entries again")
	}

	data, _ = os.ReadFile(entry)
	edit(entry, string(data)+"\n# edited\n")
	run()
	if &w.kept[0] == &first[0] {
		t.Error("an edit of an entry's file kept the entries found before it")
	}

	second := w.kept
	other := filepath.Join(dir, "apps", "production", "extra.yaml")
	edit(other, "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: extra, namespace: flux-system}\nspec: {path: ./apps/production, sourceRef: {kind: GitRepository, name: flux-system}}\n")
	run()
	if &w.kept[0] == &second[0] || !w.candidates[other] {
		t.Error("a buffer that now holds an entry was not read")
	}
}
