package source_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// corpusDir is ../shared/corpus beside the repository root, or
// $WEBHOOKLINT_CORPUS (for checkouts that live elsewhere, like worktrees).
func corpusDir(t *testing.T) string {
	if d := os.Getenv("WEBHOOKLINT_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "corpus")
}

// separateFiles lints each file of a corpus folder on its own: the
// corpus gathers files of unrelated projects in one folder, which no
// deployment applies together (units.folders split in a configuration).
func separateFiles(dir string) source.Options {
	return source.Options{Folders: []source.FolderUnits{{Dir: dir, Split: true}}}
}

// Every raw template of the corpus, linted on its own, gets exactly one
// helm-template finding and no syntax or schema error.
func TestCorpusTemplates(t *testing.T) {
	dir := filepath.Join(corpusDir(t), "templates")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		res := run(t, []string{path}, separateFiles(dir))
		n := 0
		for _, d := range res.Diagnostics {
			switch d.Rule {
			case rules.HelmTemplateRule:
				n++
			case rules.YAMLSyntaxRule, rules.SchemaRule:
				t.Errorf("%s: %s at %d: %s", e.Name(), d.Rule, d.Line, d.Message)
			}
		}
		if n != 1 {
			t.Errorf("%s: %d helm-template findings, want 1:%s", e.Name(), n, dump(res.Diagnostics))
		}
	}
}

// Files of real/ that are kustomize patches or test assertions are
// partial objects: no finding about a field they do not state.
func TestCorpusPartialObjects(t *testing.T) {
	dir := filepath.Join(corpusDir(t), "real")
	for _, name := range []string{
		"3scale-ops__marin3r__config_webhook_custom_mutatingwebhookconfig_patch.yaml",
		"jaegertracing__jaeger-operator__config_webhook_deployment_inject_patch.yaml",
		"koordinator-sh__koordinator__config_webhook_patch_manifests.yaml",
		"openkruise__kruise__config_webhook_patch_manifests.yaml",
		"kubernetes-sigs__multi-tenancy__incubator_hnc_config_webhook_webhook_patch.yaml",
	} {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("corpus not available: %v", err)
		}
		res := run(t, []string{path}, separateFiles(dir))
		for _, d := range res.Diagnostics {
			if d.Severity >= 3 {
				t.Errorf("%s: error on a partial object: %s [%s] %s", name, d.Path, d.Rule, d.Message)
			}
		}
	}
}

// No file of real/ is a template, although some carry {{ }} in other
// objects' string data (Istio's injector ConfigMap, Knative's logging
// templates): none may get a helm-template finding.
func TestCorpusRealIsNotTemplates(t *testing.T) {
	dir := filepath.Join(corpusDir(t), "real")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	for _, e := range entries {
		res := run(t, []string{filepath.Join(dir, e.Name())}, separateFiles(dir))
		for _, d := range res.Diagnostics {
			if d.Rule == rules.HelmTemplateRule || d.Rule == rules.YAMLSyntaxRule {
				t.Errorf("%s:%d: %s [%s]", e.Name(), d.Line, d.Message, d.Rule)
			}
		}
	}
}
