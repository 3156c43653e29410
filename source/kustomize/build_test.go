package kustomize

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
)

const kubebuilder = "../../testdata/sources/kubebuilder/config"

func TestLocateKubebuilder(t *testing.T) {
	b, err := RunAs(filepath.Join(kubebuilder, "default"), nil)
	if err != nil {
		t.Fatal(err)
	}
	val := b.Find("ValidatingWebhookConfiguration", "project-validating-webhook-configuration", "")
	mut := b.Find("MutatingWebhookConfiguration", "project-mutating-webhook-configuration", "")
	if val == nil || mut == nil {
		var names []string
		for _, o := range b.Objects {
			names = append(names, o.Kind+"/"+o.Name)
		}
		t.Fatalf("webhook configurations not built; got %v", names)
	}
	if !strings.HasSuffix(val.Origin, "webhook/manifests.yaml") {
		t.Errorf("origin = %q", val.Origin)
	}
	if strings.Contains(string(val.YAML), originAnnotation) {
		t.Error("the origin annotation webhooklint asked for leaks into the linted object")
	}
	cases := []struct {
		o         *Object
		path      string
		file      string
		line, col int
		by        string
	}{
		// Strategic-merge patch in the overlay, matched by webhook name:
		// the merge moved vdeployment (second in manifests.yaml) to
		// webhooks[0] of the built object.
		{val, "webhooks[0].failurePolicy", "default/webhook_failurepolicy_patch.yaml", 7, 18, "patch"},
		// JSON6902 patch file, at the operation's value.
		{val, "webhooks[0].timeoutSeconds", "default/webhook_timeout_patch.json", 2, 68, "patch"},
		// Patch in the base kustomization, under a list it replaces.
		{val, "webhooks[1].namespaceSelector.matchExpressions[0].operator", "webhook/patch_manifests.yaml", 10, 17, "patch"},
		// Inline JSON6902 patch inside the kustomization file.
		{mut, "webhooks[0].reinvocationPolicy", "default/kustomization.yaml", 29, 14, "patch"},
		// Annotation from the CA injection patch.
		{val, "metadata.annotations[cert-manager.io/inject-ca-from]", "default/webhookcainjection_patch.yaml", 14, 37, "patch"},
		// Not patched: the resource file.
		{val, "webhooks[0].sideEffects", "webhook/manifests.yaml", 72, 16, "resource"},
		{val, "webhooks[0].rules[0].operations[1]", "webhook/manifests.yaml", 69, 7, "resource"},
		// Missing field: its closest written ancestor (the webhook).
		{val, "webhooks[0].matchConditions", "webhook/manifests.yaml", 53, 3, "resource"},
		// The patch names the webhook but does not own what it merges.
		{mut, "webhooks[0].sideEffects", "webhook/manifests.yaml", 26, 16, "resource"},
		// Whole object: its kind.
		{val, "", "webhook/manifests.yaml", 29, 1, "resource"},
	}
	for _, c := range cases {
		got := b.Locate(c.o, c.path, false)
		if !strings.HasSuffix(got.File, filepath.FromSlash(c.file)) || got.Line != c.line || got.Column != c.col || got.By != c.by {
			t.Errorf("%s %s: got %s:%d:%d by %s, want %s:%d:%d by %s", c.o.Name, c.path, got.File, got.Line, got.Column, got.By, c.file, c.line, c.col, c.by)
		}
	}
}

// An unknown field is reported on its key, a bad value on the value.
func TestLocateAtKey(t *testing.T) {
	b, err := RunAs(filepath.Join(kubebuilder, "default"), nil)
	if err != nil {
		t.Fatal(err)
	}
	val := b.Find("ValidatingWebhookConfiguration", "project-validating-webhook-configuration", "")
	key := b.Locate(val, "webhooks[0].timeoutSecond", true)
	value := b.Locate(val, "webhooks[0].timeoutSecond", false)
	if key.Line != 8 || key.Column != 3 || value.Line != 8 || value.Column != 18 || key.By != "patch" {
		t.Errorf("key %+v, value %+v", key, value)
	}
}

func TestConsumed(t *testing.T) {
	b, err := RunAs(filepath.Join(kubebuilder, "default"), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, patches, kusts := b.tree.files()
	for _, want := range []string{"webhook/manifests.yaml", "webhook/service.yaml", "manager/manager.yaml", "certmanager/certificate.yaml"} {
		if !hasSuffix(res, want) {
			t.Errorf("resource %s not consumed: %v", want, res)
		}
	}
	for _, want := range []string{"webhook/patch_manifests.yaml", "default/webhook_failurepolicy_patch.yaml", "default/webhook_timeout_patch.json", "default/webhookcainjection_patch.yaml"} {
		if !hasSuffix(patches, want) {
			t.Errorf("patch %s not consumed: %v", want, patches)
		}
	}
	if len(kusts) != 4 {
		t.Errorf("kustomizations = %v", kusts)
	}
}

func hasSuffix(m map[string]bool, s string) bool {
	for k := range m {
		if strings.HasSuffix(k, filepath.FromSlash(s)) {
			return true
		}
	}
	return false
}

// recorder is a loopback HTTP server that counts the requests it gets and
// answers each with a valid manifest, so a fetch would succeed silently.
func recorder(t *testing.T) (url string, requests *atomic.Int64) {
	t.Helper()
	requests = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.WriteString(w, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fetched\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

// No field of a kustomization makes a build reach the network: each
// remote reference is a positioned problem and the build does not run.
func TestRemoteReferencesAreReportedNotFetched(t *testing.T) {
	url, requests := recorder(t)
	ref := url + "/x.yaml"
	local := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
	cases := []struct {
		name, kustomization string
		files               map[string]string
		line                int
	}{
		{"resources", "resources:\n- local.yaml\n- REF\n", nil, 3},
		{"bases", "bases:\n- REF\n", nil, 2},
		{"components", "components:\n- REF\n", nil, 2},
		{"git resource", "resources:\n- local.yaml\n- github.com/example/repo//config?ref=v1\n", nil, 3},
		{"ssh resource", "resources:\n- git@github.com:example/repo.git//config\n", nil, 2},
		{"configurations", "resources:\n- local.yaml\nconfigurations:\n- REF\n", nil, 4},
		{"crds", "resources:\n- local.yaml\ncrds:\n- REF\n", nil, 4},
		{"transformers", "resources:\n- local.yaml\ntransformers:\n- REF\n", nil, 4},
		{"generators", "resources:\n- local.yaml\ngenerators:\n- REF\n", nil, 4},
		{"validators", "resources:\n- local.yaml\nvalidators:\n- REF\n", nil, 4},
		{"replacements path", "resources:\n- local.yaml\nreplacements:\n- path: REF\n", nil, 4},
		{"patchesStrategicMerge", "resources:\n- local.yaml\npatchesStrategicMerge:\n- REF\n", nil, 4},
		{"patches path", "resources:\n- local.yaml\npatches:\n- path: REF\n", nil, 4},
		{"patchesJson6902 path", "resources:\n- local.yaml\npatchesJson6902:\n- target: {kind: Namespace, name: a, version: v1}\n  path: REF\n", nil, 5},
		{"configMapGenerator files", "resources:\n- local.yaml\nconfigMapGenerator:\n- name: c\n  files:\n  - REF\n", nil, 6},
		{"configMapGenerator envs", "resources:\n- local.yaml\nconfigMapGenerator:\n- name: c\n  envs:\n  - REF\n", nil, 6},
		{"secretGenerator files", "resources:\n- local.yaml\nsecretGenerator:\n- name: s\n  files:\n  - key=REF\n", nil, 6},
		{"secretGenerator env", "resources:\n- local.yaml\nsecretGenerator:\n- name: s\n  env: REF\n", nil, 5},
		{"openapi path", "resources:\n- local.yaml\nopenapi:\n  path: REF\n", nil, 4},
		{"in a base", "resources:\n- base\n", map[string]string{"base/kustomization.yaml": "resources:\n- REF\n"}, 2},
		{"in a transformer configuration", "resources:\n- local.yaml\ntransformers:\n- t.yaml\n", map[string]string{
			"t.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: REF\ntarget:\n  kind: Namespace\n",
		}, 5},
		{"in a generator kustomization", "resources:\n- local.yaml\ngenerators:\n- gen\n", map[string]string{
			"gen/kustomization.yaml": "resources:\n- g.yaml\n",
			"gen/g.yaml":             "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: g\nfiles:\n- REF\n",
		}, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, "kustomization.yaml"), strings.ReplaceAll(c.kustomization, "REF", ref))
			testkit.WriteFile(t, filepath.Join(dir, "local.yaml"), local)
			for name, text := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				testkit.WriteFile(t, p, strings.ReplaceAll(text, "REF", ref))
			}
			before := requests.Load()
			_, err := RunAs(dir, nil)
			if n := requests.Load() - before; n != 0 {
				t.Fatalf("the build made %d requests to the loopback server", n)
			}
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Fatalf("got %v, want one problem", err)
			}
			if ps[0].Line != c.line || !strings.Contains(ps[0].Msg, "offline") {
				t.Errorf("got %s, want line %d and why", ps[0].Error(), c.line)
			}
		})
	}
}

// Data that looks like a URL (an annotation, a literal, an inline patch
// value) is not a reference: the build runs.
func TestURLsInDataAreNotReferences(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "kustomization.yaml"), `resources:
- local.yaml
commonAnnotations:
  docs: https://example.com/docs
configMapGenerator:
- name: c
  literals:
  - url=https://example.com
patches:
- target: {kind: Namespace}
  patch: '[{"op": "add", "path": "/metadata/labels", "value": {"home": "https.example.com"}}]'
`)
	testkit.WriteFile(t, filepath.Join(dir, "local.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n")
	b, err := RunAs(dir, nil)
	if err != nil || len(b.Objects) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestBuildErrorIsReturned(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "kustomization.yaml"), "resources:\n- missing.yaml\n")
	if _, err := RunAs(dir, nil); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("got %v", err)
	}
}

// bomb is a kilobyte of YAML whose aliases expand to 10^levels nodes.
func bomb(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// An alias bomb in any kustomize input is a positioned problem found
// before kustomize or the patch table expands it.
func TestAliasBombsInInputsAreRefused(t *testing.T) {
	cases := []struct {
		name, kustomization, file string
	}{
		{"resource", "resources:\n- bomb.yaml\n", "bomb.yaml"},
		{"patch file", "resources:\n- local.yaml\npatches:\n- path: bomb.yaml\n", "bomb.yaml"},
		{"strategic-merge patch", "resources:\n- local.yaml\npatchesStrategicMerge:\n- bomb.yaml\n", "bomb.yaml"},
		{"crd file", "resources:\n- local.yaml\ncrds:\n- bomb.yaml\n", "bomb.yaml"},
		{"kustomization", "resources:\n- local.yaml\nx:\n" + strings.SplitN(bomb(9), "data:\n", 2)[1], "kustomization.yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, "kustomization.yaml"), c.kustomization)
			testkit.WriteFile(t, filepath.Join(dir, "local.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n")
			testkit.WriteFile(t, filepath.Join(dir, "bomb.yaml"), bomb(9))
			_, err := RunAs(dir, nil)
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Fatalf("got %v, want one problem", err)
			}
			if filepath.Base(ps[0].File) != c.file || ps[0].Line < 2 || !strings.Contains(ps[0].Msg, "alias") {
				t.Errorf("got %s", ps[0].Error())
			}
		})
	}
}

// A file below the bound is built as usual.
func TestModestAliasesAreBuilt(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "kustomization.yaml"), "resources:\n- ok.yaml\n")
	testkit.WriteFile(t, filepath.Join(dir, "ok.yaml"), bomb(3))
	if b, err := RunAs(dir, nil); err != nil || len(b.Objects) != 1 {
		t.Fatalf("got %v", err)
	}
}

// A kustomization that brings its own OpenAPI schema (a merge key for a
// custom resource's list) builds with it, and only it: a build without one,
// of the same resource and patch, gets kustomize's default (the list is
// replaced), before, after and beside it, as `kustomize build` does.
func TestOwnSchemaStaysItsOwn(t *testing.T) {
	// The patch merges item a by its name, so item b stays.
	keepsB := func(dir string) bool {
		t.Helper()
		b, err := RunAs(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(b.Objects) == 1 && strings.Contains(string(b.Objects[0].YAML), "name: b")
	}
	const own, plain = "testdata/openapi/own", "testdata/openapi/default"
	for i, tc := range []struct {
		dir  string
		want bool
	}{{plain, false}, {own, true}, {plain, false}, {own, true}} {
		if got := keepsB(tc.dir); got != tc.want {
			t.Fatalf("build %d of %s: item b kept %v, want %v", i, tc.dir, got, tc.want)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					Warm()
					if keepsB(plain) {
						t.Error("a build beside one with its own schema used that schema")
						return
					}
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 40 {
		if !keepsB(own) {
			t.Fatalf("build %d of %s lost its schema beside other builds", i, own)
		}
	}
}

// A patch whose target names objects with a regular expression locates
// the fields it sets on the objects it matches, and only on those.
func TestLocateTargetPattern(t *testing.T) {
	dir := testkit.Tree(t, map[string]string{
		"kustomization.yaml": `resources:
- hooks.yaml
patches:
- target: {kind: ValidatingWebhookConfiguration, name: "app-(a|b)"}
  patch: |-
    - op: replace
      path: /webhooks/0/timeoutSeconds
      value: 3
`,
		"hooks.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: app-a
webhooks:
- name: a.example.com
  timeoutSeconds: 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: app-c
webhooks:
- name: c.example.com
  timeoutSeconds: 5
`,
	})
	b, err := RunAs(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Location{
		"app-a": {Span: diag.LineSpan(filepath.Join(dir, "kustomization.yaml"), 8, 14, 15), By: "patch"},
		"app-c": {Span: diag.LineSpan(filepath.Join(dir, "hooks.yaml"), 15, 19, 20), By: "resource"},
	} {
		o := b.Find("ValidatingWebhookConfiguration", name, "")
		if o == nil {
			t.Fatalf("%s not built", name)
		}
		if got := b.Locate(o, "webhooks[0].timeoutSeconds", false); got != want {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
}

// A built object's fields, decoded from the JSON kustomize printed its
// YAML from, are those of the YAML read back, and so are those of an
// object whose text was replaced after the build.
func TestFieldsAsPrinted(t *testing.T) {
	b, err := RunAs(filepath.Join(kubebuilder, "default"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range b.Objects {
		if i == 0 {
			o.SetYAML([]byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: replaced}\n"))
		}
		var want map[string]any
		if err := sigsyaml.Unmarshal(o.YAML, &want); err != nil {
			t.Fatal(err)
		}
		if got := o.Fields(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s: fields\n%v\nwant\n%v", o.Kind, o.Name, got, want)
		}
	}
}
