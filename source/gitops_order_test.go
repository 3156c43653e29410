package source_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// The layout of fluxcd/flux2-kustomize-helm-example's infrastructure
// (see the fixture's README): infra-controllers applies the guard backend
// and its CRD, infra-configs its fail-closed webhook and a Policy.
const fluxOrdering = "../testdata/gitops/flux-ordering"

// orderingTree copies the fixture into a temporary repository, with the
// files of edits written over it (removed when empty).
func orderingTree(t *testing.T, edits map[string]string) string {
	t.Helper()
	files := treeFiles(t, fluxOrdering)
	for name, text := range edits {
		files[name] = text
		if text == "" {
			delete(files, name)
		}
	}
	return testkit.Repo(t, files)
}

// treeFiles reads the files below dir, by slash-separated relative path.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// infrastructure is clusters/production/infrastructure.yaml with what
// infra-controllers and infra-configs add to their specs.
func infrastructure(controllers, configs string) string {
	ks := func(name, path, extra string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
			"\n  namespace: flux-system\nspec:\n" + extra + "  interval: 1h\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  path: " +
			path + "\n  prune: true\n"
	}
	return ks("infra-controllers", "./infrastructure/controllers", controllers) + "---\n" + ks("infra-configs", "./infrastructure/configs", configs)
}

// lineOf is the line of the n-th (from 1) line of text that has s.
func lineOf(text, s string, n int) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			if n--; n == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// ordering returns the gitops-order findings of a run, and fails on any
// at another file than the entries'.
func ordering(t *testing.T, res []diag.Diagnostic) []diag.Diagnostic {
	t.Helper()
	ds := find(res, rules.GitOpsOrderRule, "")
	for _, d := range ds {
		if !strings.HasSuffix(filepath.ToSlash(d.File), "clusters/production/infrastructure.yaml") {
			t.Errorf("a gitops-order finding off the entries' file:%s", dump(ds))
		}
	}
	return ds
}

// Without dependsOn, the webhook and the Policy of infra-configs may be
// applied before the guard pods and the Policy CRD of infra-controllers:
// one finding at infra-configs' spec, naming the entry to depend on.
func TestFluxOrderWithoutDependsOn(t *testing.T) {
	res := run(t, []string{fluxOrdering}, source.Options{})
	ds := ordering(t, res.Diagnostics)
	if len(ds) != 1 || ds[0].Line != 21 || ds[0].Column != 1 || ds[0].Severity != diag.Warning {
		t.Fatalf("want one warning at infra-configs' spec (line 21):%s", dump(res.Diagnostics))
	}
	for _, want := range []string{"Kustomization infra-controllers", `webhook "guard.example.com"`, "and 1 more", "add it to dependsOn"} {
		if !strings.Contains(ds[0].Message, want) {
			t.Errorf("message %q does not say %q", ds[0].Message, want)
		}
	}
	if ds[0].Origin != "Flux Kustomization flux-system/infra-configs" {
		t.Errorf("origin %q is not the entry", ds[0].Origin)
	}
	if len(ds[0].Units) > 0 {
		t.Errorf("the finding names its entry: no only-in line %v", ds[0].Units)
	}
	if plain := run(t, []string{fluxOrdering}, source.Options{NoGitOps: true}); len(find(plain.Diagnostics, rules.GitOpsOrderRule, "")) > 0 {
		t.Errorf("without GitOps entries, no ordering finding:%s", dump(plain.Diagnostics))
	}
}

// Depending on infra-controllers orders the CRD, but a Kustomization
// without wait is Ready once applied, before the guard pods answer; with
// wait: true nothing is left.
func TestFluxOrderWait(t *testing.T) {
	dep := "  dependsOn:\n    - name: infra-controllers\n"
	text := infrastructure("", dep)
	root := orderingTree(t, map[string]string{"clusters/production/infrastructure.yaml": text})
	ds := ordering(t, run(t, []string{root}, source.Options{}).Diagnostics)
	if len(ds) != 1 || ds[0].Line != lineOf(text, "dependsOn:", 1) || !strings.Contains(ds[0].Message, "Ready before its pods; set wait: true on it") ||
		strings.Contains(ds[0].Message, "more") {
		t.Fatalf("want one wait finding at infra-configs' dependsOn, the CRD being ordered:%s", dump(ds))
	}
	root = orderingTree(t, map[string]string{"clusters/production/infrastructure.yaml": infrastructure("  wait: true\n", dep)})
	if ds := ordering(t, run(t, []string{root}, source.Options{}).Diagnostics); len(ds) > 0 {
		t.Errorf("ordered and waited for, yet:%s", dump(ds))
	}
	// healthChecks make Flux wait too.
	hc := "  healthChecks:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: guard\n      namespace: guard-system\n"
	root = orderingTree(t, map[string]string{"clusters/production/infrastructure.yaml": infrastructure(hc, dep)})
	if ds := ordering(t, run(t, []string{root}, source.Options{}).Diagnostics); len(ds) > 0 {
		t.Errorf("healthChecks wait for the backend, yet:%s", dump(ds))
	}
}

// The backend depending on the webhook's entry is the order reversed:
// adding a dependsOn would make a cycle, so the advice is to move the
// webhook.
func TestFluxOrderReversed(t *testing.T) {
	root := orderingTree(t, map[string]string{"clusters/production/infrastructure.yaml": infrastructure("  dependsOn:\n    - name: infra-configs\n", "")})
	ds := ordering(t, run(t, []string{root}, source.Options{}).Diagnostics)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "depends on this entry") {
		t.Fatalf("want one reversed-order finding:%s", dump(ds))
	}
}

// A dependsOn cycle and a name no entry has are findings, not a hang:
// Flux applies none of the entries that wait.
func TestFluxOrderCycleAndMissing(t *testing.T) {
	done := make(chan struct{})
	var ds []diag.Diagnostic
	text := infrastructure("  dependsOn:\n    - name: infra-configs\n",
		"  dependsOn:\n    - name: infra-controllers\n    - name: infra-configs\n    - name: cert-manager\n")
	go func() {
		defer close(done)
		root := orderingTree(t, map[string]string{"clusters/production/infrastructure.yaml": text})
		ds = ordering(t, run(t, []string{root}, source.Options{}).Diagnostics)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("a dependsOn cycle hangs the run")
	}
	var cycles, self, missing int
	for _, d := range ds {
		switch {
		case strings.Contains(d.Message, "cycle flux-system/infra-controllers -> flux-system/infra-configs -> flux-system/infra-controllers"):
			cycles++
			if want := lineOf(text, "- name: infra-configs", 1); d.Line != want {
				t.Errorf("the cycle is reported at infra-controllers' dependsOn entry (line %d): %d", want, d.Line)
			}
		case strings.Contains(d.Message, "cycle flux-system/infra-configs -> flux-system/infra-configs"):
			self++
		case strings.Contains(d.Message, "dependsOn flux-system/cert-manager names no Flux Kustomization"):
			missing++
			if want := lineOf(text, "- name: cert-manager", 1); d.Line != want {
				t.Errorf("the missing name is reported at its entry (line %d): %d", want, d.Line)
			}
		}
	}
	if cycles != 1 || self != 1 || missing != 1 {
		t.Errorf("want one cycle, one self-dependency and one missing name:%s", dump(ds))
	}
	// Named alone, the file's siblings are not read: a name may be defined
	// where the run did not look.
	alone := orderingTree(t, map[string]string{"clusters/production/infrastructure.yaml": infrastructure("", "  dependsOn:\n    - name: cert-manager\n")})
	res := run(t, []string{filepath.Join(alone, "clusters/production/infrastructure.yaml")}, source.Options{})
	for _, d := range ordering(t, res.Diagnostics) {
		if strings.Contains(d.Message, "names no") {
			t.Errorf("a file named alone reports a missing dependency:%s", dump(res.Diagnostics))
		}
	}
}

// A backend installed by a HelmRelease that infra-controllers applies is
// ready before infra-configs only when infra-controllers waits: its
// dependsOn alone orders the HelmRelease's creation, not its pods.
func TestFluxOrderHelmReleaseBackend(t *testing.T) {
	edits := map[string]string{
		"infrastructure/controllers/guard/deployment.yaml": "",
		"infrastructure/controllers/guard/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: guard
  namespace: flux-system
spec:
  interval: 1h
  releaseName: guard
  targetNamespace: guard-system
  chart:
    spec:
      chart: ./charts/guard
      sourceRef:
        kind: GitRepository
        name: flux-system
`,
	}
	// flux bootstrap writes Flux's CRDs next to gotk-sync.yaml: the
	// HelmRelease's CRD comes with the Kustomization that applies it, no
	// dependsOn needed.
	edits["clusters/production/flux-system/gotk-components.yaml"] = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: helmreleases.helm.toolkit.fluxcd.io
spec:
  group: helm.toolkit.fluxcd.io
  names: {kind: HelmRelease, plural: helmreleases, singular: helmrelease, listKind: HelmReleaseList}
  scope: Namespaced
  versions:
    - name: v2
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	chart := filepath.Join(fluxExample, "charts/guard")
	err := filepath.WalkDir(chart, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(chart, p)
		edits["charts/guard/"+filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dep := "  dependsOn:\n    - name: infra-controllers\n"
	edits["clusters/production/infrastructure.yaml"] = infrastructure("", dep)
	ds := ordering(t, run(t, []string{orderingTree(t, edits)}, source.Options{}).Diagnostics)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "Kustomization infra-controllers applies HelmRelease guard, backend of") {
		t.Fatalf("want the Kustomization that applies the HelmRelease to wait:%s", dumpMessages(ds))
	}
	edits["clusters/production/infrastructure.yaml"] = infrastructure("  wait: true\n", dep)
	if ds := ordering(t, run(t, []string{orderingTree(t, edits)}, source.Options{}).Diagnostics); len(ds) > 0 {
		t.Errorf("infra-controllers waits for the release, yet:%s", dumpMessages(ds))
	}
}

func dumpMessages(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("\n  " + d.File + ": " + d.Message)
	}
	return b.String()
}

// The layout of fluxcd/flux2-multi-tenancy: each cluster applies kyverno
// (with healthChecks on its Deployment) and kyverno-policies, which
// depends on it in staging and, here, not in production. Entries are
// compared within their cluster: only production's kyverno-policies has
// a finding, and it names production's kyverno.
func TestFluxOrderMultiTenancy(t *testing.T) {
	cluster := func(ordered bool) string {
		dep := ""
		if ordered {
			dep = "  dependsOn:\n    - name: kyverno\n"
		}
		return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: kyverno
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./infrastructure/kyverno
  prune: true
  healthChecks:
    - apiVersion: apps/v1
      kind: Deployment
      name: kyverno
      namespace: kyverno
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: kyverno-policies
  namespace: flux-system
spec:
` + dep + `  interval: 15m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./infrastructure/kyverno-policies
  prune: true
`
	}
	sync := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n" +
			"  interval: 10m\n  path: ./clusters/" + name + "\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	}
	files := map[string]string{
		"clusters/staging/flux-system/gotk-sync.yaml":    sync("staging"),
		"clusters/staging/infrastructure.yaml":           cluster(true),
		"clusters/production/flux-system/gotk-sync.yaml": sync("production"),
		"clusters/production/infrastructure.yaml":        cluster(false),
		"infrastructure/kyverno/crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterpolicies.kyverno.io
spec:
  group: kyverno.io
  names: {kind: ClusterPolicy, plural: clusterpolicies, singular: clusterpolicy, listKind: ClusterPolicyList}
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`,
		"infrastructure/kyverno/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: kyverno-svc\n  namespace: kyverno\nspec:\n  selector: {app: kyverno}\n  ports: [{port: 443, targetPort: 9443}]\n",
		"infrastructure/kyverno-policies/disallow-latest-tag.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-latest-tag
spec:
  validationFailureAction: Enforce
`,
	}
	root := testkit.Repo(t, files)
	res := run(t, []string{root}, source.Options{})
	ds := find(res.Diagnostics, rules.GitOpsOrderRule, "")
	if len(ds) != 1 || !strings.HasSuffix(filepath.ToSlash(ds[0].File), "clusters/production/infrastructure.yaml") ||
		!strings.Contains(ds[0].Message, "Kustomization kyverno applies CRD clusterpolicies.kyverno.io of ClusterPolicy disallow-latest-tag") {
		t.Fatalf("want one finding, on production's kyverno-policies:%s", dumpMessages(res.Diagnostics))
	}
}

// Hostile dependsOn lists (a string, scalar items, a long chain that
// closes into a cycle) give positioned findings, never a panic or a hang.
func TestFluxOrderHostileDependsOn(t *testing.T) {
	var b strings.Builder
	const n = 60
	for i := range n {
		next := (i + 1) % n
		b.WriteString("---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: k" + itoa(i) +
			"\n  namespace: flux-system\nspec:\n  path: ./app\n  sourceRef: {kind: GitRepository, name: flux-system}\n  dependsOn:\n    - name: k" + itoa(next) + "\n")
	}
	b.WriteString(`---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: odd, namespace: flux-system}
spec:
  path: ./app
  sourceRef: {kind: GitRepository, name: flux-system}
  dependsOn: infra
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: scalars, namespace: flux-system}
spec:
  path: ./app
  sourceRef: {kind: GitRepository, name: flux-system}
  dependsOn: [infra, {name: []}]
`)
	root := testkit.Repo(t, map[string]string{
		"clusters/ks.yaml":   b.String(),
		"app/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n",
	})
	done := make(chan []diag.Diagnostic)
	go func() { done <- run(t, []string{root}, source.Options{}).Diagnostics }()
	var ds []diag.Diagnostic
	select {
	case ds = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("a long dependsOn chain hangs the run")
	}
	var cycles, missing int
	for _, d := range find(ds, rules.GitOpsOrderRule, "clusters/ks.yaml") {
		if d.Line < 1 || d.Column < 1 {
			t.Errorf("unpositioned: %+v", d)
		}
		switch {
		case strings.Contains(d.Message, "cycle flux-system/k0 -> flux-system/k1 -> "):
			cycles++
		case strings.Contains(d.Message, "names no Flux Kustomization"):
			missing++
		}
	}
	if cycles != 1 || missing != 2 {
		t.Errorf("want the chain's one cycle and the scalar entries' two missing names:%s", dumpMessages(ds))
	}
}
