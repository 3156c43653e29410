package source_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// loneWebhook is a configuration an install applies beside a Service it
// creates some other way (rules.Fragment).
const loneWebhook = "../testdata/sources/context/part-of-an-install/webhook.yaml"

// partOfAnInstall is the assumption's note, which says how to state it.
const partOfAnInstall = "assumed applied as written (no Service in the unit): name it in units.entries"

// A lone configuration without a Service is a part of an install: its
// self-deadlock is info, with the assumption and how to state it as a
// related location. units.entries naming its file or its folder, or a
// GitOps entry that installs the folder, gives that it is applied as
// written: a warning, with no assumption. A file units.entries names
// makes no kustomization a base: only a kustomization or chart folder
// does. The assumption is a related location where the finding is, in a
// kustomize build too (app/config.yaml).
func TestLoneConfigurationAppliedAsWritten(t *testing.T) {
	webhook := readFile(t, loneWebhook)
	files := map[string]string{
		"deploy/webhook.yaml":    webhook,
		"app/kustomization.yaml": "resources: [config.yaml]\n",
		"app/config.yaml":        webhook,
		"app/extra-webhook.yaml": webhook,
	}
	root := testkit.Repo(t, files)
	level := func(t *testing.T, res []diag.Diagnostic, file string, want diag.Severity) {
		t.Helper()
		got := find(res, "self-deadlock", file)
		if len(got) != 1 || got[0].Severity != want {
			t.Fatalf("%s: want one self-deadlock at %v:%s", file, want, dump(got))
		}
		assumed := len(got[0].Related) == 1 && got[0].Related[0].Message == partOfAnInstall &&
			got[0].Related[0].Span == got[0].Span
		if assumed != (want == diag.Info) {
			t.Errorf("%s: related %+v; want the assumption %q exactly when the finding is info", file, got[0].Related, partOfAnInstall)
		}
	}

	t.Run("assumed", func(t *testing.T) {
		res := run(t, []string{root}, source.Options{}).Diagnostics
		level(t, res, "deploy/webhook.yaml", diag.Info)
		level(t, res, "app/extra-webhook.yaml", diag.Info)
		level(t, res, "app/config.yaml", diag.Info) // located in the file, not the build
	})
	t.Run("file named", func(t *testing.T) {
		res := run(t, []string{root}, source.Options{Deployed: []string{
			filepath.Join(root, "deploy/webhook.yaml"), filepath.Join(root, "app/extra-webhook.yaml"),
		}}).Diagnostics
		level(t, res, "deploy/webhook.yaml", diag.Warning)
		level(t, res, "app/extra-webhook.yaml", diag.Warning)
		if got := find(res, rules.KustomizeBaseRule, ""); len(got) != 0 {
			t.Errorf("naming files made a kustomization a base:%s", dump(got))
		}
		level(t, res, "app/config.yaml", diag.Info)
	})
	t.Run("file named alone", func(t *testing.T) {
		file := filepath.Join(root, "deploy/webhook.yaml")
		res := run(t, []string{file}, source.Options{Deployed: []string{file}}).Diagnostics
		level(t, res, "deploy/webhook.yaml", diag.Warning)
	})
	t.Run("folder named", func(t *testing.T) {
		res := run(t, []string{root}, source.Options{Deployed: []string{filepath.Join(root, "deploy")}}).Diagnostics
		level(t, res, "deploy/webhook.yaml", diag.Warning)
		level(t, res, "app/extra-webhook.yaml", diag.Info)
	})
}

// A Flux Kustomization that installs the folder gives it too.
func TestLoneConfigurationInstalledByGitOps(t *testing.T) {
	webhook := readFile(t, loneWebhook)
	root := testkit.Repo(t, map[string]string{
		"deploy/webhook.yaml": webhook,
		"clusters/hooks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: hooks
  namespace: flux-system
spec:
  path: ./deploy
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	})
	got := find(run(t, []string{root}, source.Options{}).Diagnostics, "self-deadlock", "deploy/webhook.yaml")
	if len(got) != 1 || got[0].Severity != diag.Warning || len(got[0].Related) != 0 {
		t.Errorf("want one self-deadlock warning with no assumption:%s", dump(got))
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
