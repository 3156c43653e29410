package source

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// What an entry's build reads is kept between runs until one of those
// files changes: a kustomization that now lists a file makes the entry
// apply it, and the file is linted through the entry as a workspace found
// afresh lints it.
func TestWorkspaceKeepsReads(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"clusters/prod/app.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\n" +
			"spec: {path: ./app, targetNamespace: guarded, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"app/kustomization.yaml": "resources:\n  - service.yaml\n",
		"app/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata: {name: guard}\nspec: {ports: [{port: 443}]}\n",
		"app/extra.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: extra}\nwebhooks:\n- name: extra.example.com\n" +
			"  admissionReviewVersions: [v1]\n  sideEffects: None\n  failurePolicy: Fail\n  clientConfig: {service: {name: guard, namespace: guarded}}\n" +
			"  rules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	extra := filepath.Join(dir, "app", "extra.yaml")
	lintWith := func(w *Workspace) []string {
		t.Helper()
		res, err := Lint([]string{extra}, nil, "", lint.Options{Settings: rules.DefaultSettings()}, Options{Workspace: w, WholeUnits: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range res.Diagnostics {
			out = append(out, fmt.Sprintf("%s:%d:%d %s %s %s %s", d.File, d.Line, d.Column, d.Rule, d.Message, d.Origin, strings.Join(d.Units, ",")))
		}
		return out
	}
	w := NewWorkspace(dir, nil)
	before := lintWith(w)
	kept := w.kept
	if len(w.reads) == 0 {
		t.Fatal("no entry's reads were kept")
	}

	kust := filepath.Join(dir, "app", "kustomization.yaml")
	overlay.Set(kust, []byte("resources:\n  - service.yaml\n  - extra.yaml\n"))
	t.Cleanup(func() { overlay.Delete(kust) })
	w.Changed(kust)
	got := lintWith(w)
	if &w.kept[0] != &kept[0] {
		t.Error("an edit of a kustomization an entry builds found the entries again")
	}
	if want := lintWith(NewWorkspace(dir, nil)); !slices.Equal(got, want) {
		t.Errorf("after the kustomization's edit:\n got %q\nwant %q", got, want)
	}
	if slices.Equal(got, before) {
		t.Errorf("the file's findings did not change once the entry applies it: %q", got)
	}
}
