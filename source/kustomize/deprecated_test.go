package kustomize

import (
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// A deprecated field is found however its key is written, an escape in a
// double-quoted key included; a kustomization whose text cannot spell one
// is not decoded to look.
func TestDeprecationsHoweverSpelled(t *testing.T) {
	dir := testkit.Tree(t, map[string]string{
		"plain/kustomization.yaml":   "resources:\n- a.yaml\ncommonLabels:\n  app: a\n",
		"escaped/kustomization.yaml": "resources:\n- a.yaml\n\"\\x62ases\":\n- ../b\n",
		"quoted/kustomization.yaml":  "'vars': []\n",
		"clean/kustomization.yaml":   "resources:\n- a.yaml\nlabels:\n- pairs: {app: a}\n",
		"folded/kustomization.yaml":  "resources:\n- a.yaml\n? 'ba\n  ses'\n: []\n",
	})
	want := map[string]string{
		"plain":   "deprecated 'commonLabels': use 'labels' (`kustomize edit fix` rewrites most)",
		"escaped": "deprecated 'bases': use 'resources' (`kustomize edit fix` rewrites most)",
		"quoted":  "deprecated 'vars': use 'replacements' (`kustomize edit fix` rewrites most)",
		"clean":   "",
		"folded":  "",
	}
	for name, msg := range want {
		file := filepath.Join(dir, name, "kustomization.yaml")
		ws := deprecations(map[string]bool{file: true})
		switch {
		case msg == "" && len(ws) > 0:
			t.Errorf("%s: got %v, want none", name, ws)
		case msg != "" && (len(ws) != 1 || ws[0].Message != msg || ws[0].File != file):
			t.Errorf("%s: got %v, want %q", name, ws, msg)
		}
	}
}
