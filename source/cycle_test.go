package source_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// A kustomization that includes itself, directly or through others,
// cannot be built. Each kustomization of the cycle has one build error at
// the entry that starts the cycle, naming it, and the webhooks of the
// cycle's folders are linted one by one rather than dropped.
func TestKustomizationCycles(t *testing.T) {
	type want struct {
		line  int
		cycle string // as the message names it, from the working folder
	}
	for _, tc := range []struct {
		name   string
		kusts  map[string]string // folder → kustomization.yaml
		want   map[string]want   // folder → its cycle error; none for the others
		linted []string          // folders whose webhook.yaml must be linted
	}{{
		name: "two consume each other",
		kusts: map[string]string{
			"a": "resources:\n- webhook.yaml\n- ../b\n",
			"b": "resources:\n- ../a\n- webhook.yaml\n",
		},
		want: map[string]want{
			"a": {3, "a/kustomization.yaml -> b -> a"},
			"b": {2, "b/kustomization.yaml -> a -> b"},
		},
		linted: []string{"a", "b"},
	}, {
		name:   "lists itself",
		kusts:  map[string]string{"a": "resources:\n- webhook.yaml\n- .\n"},
		want:   map[string]want{"a": {3, "a/kustomization.yaml -> a"}},
		linted: []string{"a"},
	}, {
		name: "three in a ring",
		kusts: map[string]string{
			"a": "resources:\n- webhook.yaml\n- ../b\n",
			"b": "bases:\n- ../c\n",
			"c": "resources:\n- webhook.yaml\n- \"../a\"\n",
		},
		want: map[string]want{
			"a": {3, "a/kustomization.yaml -> b -> c -> a"},
			"b": {2, "b/kustomization.yaml -> c -> a -> b"},
			"c": {3, "c/kustomization.yaml -> a -> b -> c"},
		},
		linted: []string{"a", "c"},
	}, {
		name: "a component in a cycle",
		kusts: map[string]string{
			"a": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- webhook.yaml\ncomponents:\n- ../a\n",
		},
		want:   map[string]want{"a": {6, "a/kustomization.yaml -> a"}},
		linted: []string{"a"},
	}, {
		name: "a chain is no cycle",
		kusts: map[string]string{
			"a": "resources:\n- webhook.yaml\n- ../b\n",
			"b": "resources:\n- webhook.yaml\n",
		},
		linted: []string{"a", "b"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for dir, k := range tc.kusts {
				files[dir+"/kustomization.yaml"] = k
			}
			for _, dir := range tc.linted {
				files[dir+"/webhook.yaml"] = strings.ReplaceAll(timeoutWebhook, "NAME", dir)
			}
			root := testkit.Repo(t, files)
			t.Chdir(root)
			for _, args := range [][]string{{"."}, {filepath.Join(tc.linted[0], "webhook.yaml")}} {
				res := run(t, args, source.Options{})
				for _, dir := range slices.Sorted(maps.Keys(tc.kusts)) {
					got := find(res.Diagnostics, rules.KustomizeBuildRule, dir+"/kustomization.yaml")
					w, inCycle := tc.want[dir]
					if !inCycle {
						if len(got) != 0 {
							t.Errorf("%v: %s is in no cycle and has a build error:%s", args, dir, messages(got))
						}
						continue
					}
					if len(got) != 1 || got[0].Line != w.line || got[0].Column != 3 ||
						!strings.Contains(got[0].Message, "kustomization cycle "+w.cycle+":") ||
						!strings.Contains(got[0].Message, "linted alone") || strings.Contains(got[0].Message, "\n") {
						t.Errorf("%v: want one build error at %s/kustomization.yaml:%d:3 naming %q:%s%s",
							args, dir, w.line, w.cycle, dump(got), messages(got))
					}
				}
				if args[0] != "." {
					continue
				}
				for _, dir := range tc.linted {
					if got := timeoutsAt(res.Diagnostics, dir+"/webhook.yaml"); len(got) != 1 {
						t.Errorf("%v: %s/webhook.yaml is not linted (want its timeout-too-long):%s", args, dir, dump(res.Diagnostics))
					}
				}
			}
		})
	}
}

// timeoutWebhook fails closed with a 30 s timeout: linted, it has a
// timeout-too-long finding.
const timeoutWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: NAME
webhooks:
- name: NAME.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 30
  clientConfig:
    url: https://NAME.example.com/validate
  rules:
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["deployments"]
`
