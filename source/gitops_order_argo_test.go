package source_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// A synthetic Argo CD layout (see the fixture's README): the guard webhook
// in sync wave -1, its backend in wave 1.
const argoWaves = "../testdata/gitops/argocd-sync-waves"

var argoWavesOptions = source.Options{RepoURLs: []string{"https://github.com/example/sync-waves.git"}}

// argoWavesTree copies the fixture with edits: in each file, every from
// replaced by to.
func argoWavesTree(t *testing.T, edits map[string][2]string) string {
	t.Helper()
	files := treeFiles(t, argoWaves)
	for name, e := range edits {
		if !strings.Contains(files[name], e[0]) {
			t.Fatalf("%s holds no %q", name, e[0])
		}
		files[name] = strings.ReplaceAll(files[name], e[0], e[1])
	}
	return testkit.Repo(t, files)
}

// The webhook registered in wave -1 rejects the creation of its own
// backend's Deployment in wave 1: one warning at its sync-wave annotation.
func TestArgoSyncWaveBeforeBackend(t *testing.T) {
	res := run(t, []string{argoWaves}, argoWavesOptions)
	ds := find(res.Diagnostics, rules.GitOpsOrderRule, "")
	if len(ds) != 1 || !strings.HasSuffix(filepath.ToSlash(ds[0].File), "guard/webhook.yaml") || ds[0].Line != 6 || ds[0].Column != 35 ||
		ds[0].Severity != diag.Warning {
		t.Fatalf("want one warning at the webhook's sync-wave (webhook.yaml:6:35):%s", dump(res.Diagnostics))
	}
	for _, want := range []string{`webhook "deployments.guard.example.com"`, "sync wave -1", `CREATE deployments "guard" of sync wave 1`, "move the webhook to sync wave 1 or later"} {
		if !strings.Contains(ds[0].Message, want) {
			t.Errorf("message %q does not say %q", ds[0].Message, want)
		}
	}
	// Outside Argo CD, sync waves mean nothing.
	if plain := run(t, []string{argoWaves}, source.Options{NoGitOps: true}); len(find(plain.Diagnostics, rules.GitOpsOrderRule, "")) > 0 {
		t.Errorf("without the Application, no ordering finding:%s", dump(plain.Diagnostics))
	}
}

// What Argo CD can sync: the webhook in its backend's wave (applied after
// the Deployment, kinds in order), failing open, intercepting nothing the
// later wave applies, a backend in an earlier wave, or a PostSync hook.
func TestArgoSyncWaveGood(t *testing.T) {
	for name, edits := range map[string]map[string][2]string{
		"same wave":       {"guard/webhook.yaml": {`sync-wave: "-1"`, `sync-wave: "1"`}},
		"fails open":      {"guard/webhook.yaml": {"failurePolicy: Fail", "failurePolicy: Ignore"}},
		"other resources": {"guard/webhook.yaml": {`resources: ["deployments"]`, `resources: ["statefulsets"]`}},
		"backend first":   {"guard/backend.yaml": {`sync-wave: "1"`, `sync-wave: "-2"`}},
		"PostSync hook": {"guard/webhook.yaml": {`argocd.argoproj.io/sync-wave: "-1"`,
			`argocd.argoproj.io/hook: PostSync`}},
	} {
		t.Run(name, func(t *testing.T) {
			root := argoWavesTree(t, edits)
			res := run(t, []string{root}, argoWavesOptions)
			if ds := find(res.Diagnostics, rules.GitOpsOrderRule, ""); len(ds) > 0 {
				t.Errorf("Argo CD syncs this, yet:%s", dump(ds))
			}
		})
	}
}

// A CRD whose conversion webhook's backend comes in a later wave fails the
// custom resources of the waves between at a version that needs
// conversion; at the storage version nothing is converted.
func TestArgoSyncWaveConversion(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: policies.guard.example.com
  annotations:
    argocd.argoproj.io/sync-wave: "-1"
spec:
  group: guard.example.com
  names: {kind: Policy, plural: policies, singular: policy, listKind: PolicyList}
  scope: Namespaced
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig:
        service: {name: guard, namespace: guard-system, path: /convert}
  versions:
    - name: v1beta1
      served: true
      storage: false
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: guard.example.com/VERSION
kind: Policy
metadata:
  name: deny
  namespace: guard-system
  annotations:
    argocd.argoproj.io/sync-wave: "1"
`
	for version, want := range map[string]int{"v1beta1": 1, "v1": 0} {
		root := argoWavesTree(t, map[string][2]string{
			"guard/webhook.yaml":       {"failurePolicy: Fail", "failurePolicy: Ignore"},
			"guard/kustomization.yaml": {"  - backend.yaml\n", "  - backend.yaml\n  - crd.yaml\n"},
		})
		if err := os.WriteFile(filepath.Join(root, "guard", "crd.yaml"), []byte(strings.Replace(crd, "VERSION", version, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		res := run(t, []string{root}, argoWavesOptions)
		ds := find(res.Diagnostics, rules.GitOpsOrderRule, "")
		if len(ds) != want {
			t.Fatalf("Policy at %s: want %d finding(s):%s", version, want, dump(res.Diagnostics))
		}
		if want == 1 && (!strings.HasSuffix(filepath.ToSlash(ds[0].File), "guard/crd.yaml") || ds[0].Line != 6 ||
			!strings.Contains(ds[0].Message, `conversion webhook of CRD policies.guard.example.com is called from sync wave -1 for Policy "deny"`)) {
			t.Errorf("want the finding at the CRD's sync-wave (crd.yaml:6):%s", dump(ds))
		}
	}
}
