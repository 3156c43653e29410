package gitops

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
)

// Substitution follows kustomize-controller's postBuild (drone/envsubst,
// not strict), as its documentation describes it.
func TestSubstitute(t *testing.T) {
	vars := map[string]Var{"a": {Value: "1"}, "empty": {Value: ""}}
	for _, c := range []struct{ in, want string }{
		{"x: ${a}", "x: 1"},
		{"x: ${missing}", "x: "},
		{"x: ${missing:=d}", "x: d"},
		{"x: ${missing:-d}", "x: d"},
		{"x: ${missing=d}", "x: d"},
		{"x: ${a:=d}", "x: 1"},
		{"x: ${empty:=d}", "x: d"},
		{"x: ${empty}", "x: "},
		{"x: $${a}", "x: ${a}"},
		{"x: $a", "x: $a"},
		{"x: ${#a}", "x: ${#a}"},
		{"x: ${a", "x: ${a"},
		{"${a}-${a}", "1-1"},
	} {
		if got, _ := Substitute(c.in, vars, nil); got != c.want {
			t.Errorf("Substitute(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A variable whose source is not known is left as written.
	if got, uses := Substitute("x: ${b}", vars, func(string) bool { return true }); got != "x: ${b}" || len(uses) != 0 {
		t.Errorf("unknown source: %q %v", got, uses)
	}
	if _, uses := Substitute("${a} ${missing}", vars, nil); !reflect.DeepEqual(uses, []Use{{Name: "a", Set: true}, {Name: "missing"}}) {
		t.Errorf("uses = %v", uses)
	}
}

func TestNormalizeURL(t *testing.T) {
	want := "github.com/example/fleet"
	for _, u := range []string{
		"https://github.com/example/fleet.git", "ssh://git@github.com/example/fleet", "git@github.com:example/fleet.git",
		"https://GitHub.com/example/fleet/", "ssh://git@github.com:22/example/fleet",
	} {
		if got := normalizeURL(u); got != want {
			t.Errorf("normalizeURL(%q) = %q, want %q", u, got, want)
		}
	}
	if normalizeURL("https://github.com/example/other") == want {
		t.Error("another repository matches")
	}
}

func TestArgoImage(t *testing.T) {
	for in, want := range map[string]map[string]any{
		"nginx:1.25":                   {"name": "nginx", "newTag": "1.25"},
		"nginx=registry.local/nginx:2": {"name": "nginx", "newName": "registry.local/nginx", "newTag": "2"},
		"registry:5000/app@sha256:abc": {"name": "registry:5000/app", "digest": "sha256:abc"},
	} {
		if got := argoImage(in); !reflect.DeepEqual(got, want) {
			t.Errorf("argoImage(%q) = %v, want %v", in, got, want)
		}
	}
}

// A folder without a kustomization gets the one Flux generates: every
// manifest below it, a subfolder with a kustomization as one resource,
// hidden folders left out; the entry's settings are set over it.
func TestGeneratedKustomization(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "a.yaml"), "kind: ConfigMap\n")
	testkit.WriteFile(t, filepath.Join(root, "sub/b.yml"), "kind: ConfigMap\n")
	testkit.WriteFile(t, filepath.Join(root, "base/kustomization.yaml"), "resources: []\n")
	testkit.WriteFile(t, filepath.Join(root, "base/c.yaml"), "kind: ConfigMap\n")
	testkit.WriteFile(t, filepath.Join(root, ".hidden/d.yaml"), "kind: ConfigMap\n")
	testkit.WriteFile(t, filepath.Join(root, "notes.txt"), "x")
	e := &Entry{Dir: root, Kustomization: Kustomization{Namespace: "prod", NamePrefix: "p-", Components: []string{"../comp"}}}
	text, generated, err := e.KustomizationText()
	if err != nil || !generated {
		t.Fatalf("generated=%v err=%v", generated, err)
	}
	for _, want := range []string{"- ./a.yaml", "- ./base\n", "- ./sub/b.yml", "namespace: prod", "namePrefix: p-", "- ../comp"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	for _, not := range []string{"hidden", "base/c.yaml", "notes.txt"} {
		if strings.Contains(string(text), not) {
			t.Errorf("%q should not be listed in\n%s", not, text)
		}
	}
}

// An ApplicationSet's list and Git directory generators give one
// Application each; the Git generator reads this repository's folders.
func TestApplicationSet(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "apps/one/cm.yaml"), "kind: ConfigMap\n")
	testkit.WriteFile(t, filepath.Join(root, "apps/two/cm.yaml"), "kind: ConfigMap\n")
	testkit.WriteFile(t, filepath.Join(root, "apps/skip/cm.yaml"), "kind: ConfigMap\n")
	set := testkit.WriteFile(t, filepath.Join(root, "argocd/appset.yaml"), `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: apps
  namespace: argocd
spec:
  generators:
    - git:
        repoURL: https://github.com/example/fleet.git
        revision: HEAD
        directories:
          - path: apps/*
          - path: apps/skip
            exclude: true
    - list:
        elements:
          - path: apps/one
            path.basename: listed
  template:
    metadata:
      name: '{{path.basename}}'
    spec:
      source:
        repoURL: https://github.com/example/fleet.git
        path: '{{path}}'
      destination:
        namespace: '{{path.basename}}'
`)
	read := func(f string) []byte { b, _ := os.ReadFile(f); return b }
	es := Find([]string{set}, read, Options{Repo: OpenRepository("", []string{"https://github.com/example/fleet"})})
	var got []string
	for _, e := range es {
		rel, _ := filepath.Rel(root, e.Dir)
		got = append(got, e.Name+" "+filepath.ToSlash(rel)+" "+e.DefaultNamespace)
	}
	want := []string{"one apps/one one", "two apps/two two", "listed apps/one listed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Entries of the wrong shape are read as far as they go, never a panic.
func TestFindHostile(t *testing.T) {
	root := t.TempDir()
	f := testkit.WriteFile(t, filepath.Join(root, "bad.yaml"), `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
spec: [1, 2]
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: x}
spec:
  sourceRef: {kind: GitRepository, name: flux-system}
  path: {a: b}
  postBuild: {substitute: [a], substituteFrom: {kind: ConfigMap}}
  patches: "x"
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart: {spec: {chart: ./nowhere, sourceRef: {kind: GitRepository, name: flux-system}}}
  valuesFrom: [{kind: ConfigMap, name: v, targetPath: ""}, 3]
  values: [1]
---
apiVersion: argoproj.io/v1alpha1
kind: Application
spec: {source: [1], sources: {a: 1}, destination: [x]}
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
spec:
  generators: [{list: {elements: [1, {a: [b]}]}}, {git: {directories: [{path: "[" }]}}]
  template: {spec: {source: {path: "{{a}}"}}}
---
kind: Kustomization
apiVersion: kustomize.toolkit.fluxcd.io/v1
metadata: &a {name: *a}
`)
	read := func(f string) []byte { b, _ := os.ReadFile(f); return b }
	for _, e := range Find([]string{f}, read, Options{}) {
		for _, p := range e.Problems {
			if p.At.Line == 0 || p.At.File != f {
				t.Errorf("%s: problem not positioned: %+v", e.Label(), p)
			}
		}
	}
}

// A kustomize patch of a HelmRelease or a Kustomization (an overlay's
// podinfo-values.yaml in fluxcd/flux2-kustomize-helm-example) is no
// entry: it names no chart or source.
func TestPatchesAreNoEntries(t *testing.T) {
	root := t.TempDir()
	f := testkit.WriteFile(t, filepath.Join(root, "apps/production/podinfo-values.yaml"), `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  values:
    replicaCount: 1
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: dev-team
  namespace: apps
spec:
  path: ./production
`)
	read := func(f string) []byte { b, _ := os.ReadFile(f); return b }
	if es := Find([]string{f}, read, Options{}); len(es) != 0 {
		t.Errorf("patches read as entries: %+v", es)
	}
}

// A multi-source Application (Argo CD's documented pattern: a chart from a
// Helm repository, its values from the Git repository through ref) reads
// `$values/...` at this repository's root; a ref to another repository or
// to no source is one note each; source is ignored when sources is set.
func TestArgoMultiSourceValues(t *testing.T) {
	root := t.TempDir()
	cache := t.TempDir()
	testkit.WriteFile(t, filepath.Join(cache, "guard-1.2.0/Chart.yaml"), "apiVersion: v2\nname: guard\nversion: 1.2.0\n")
	values := testkit.WriteFile(t, filepath.Join(root, "envs/prod/guard-values.yaml"), "replicaCount: 3\n")
	app := testkit.WriteFile(t, filepath.Join(root, "apps/guard.yaml"), `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: guard
  namespace: argocd
spec:
  source:
    repoURL: https://github.com/example/fleet.git
    path: ignored-when-sources-is-set
  sources:
    - repoURL: https://charts.example.com
      chart: guard
      targetRevision: 1.2.0
      helm:
        valueFiles:
          - $values/envs/prod/guard-values.yaml
          - $shared/guard.yaml
          - $nowhere/guard.yaml
    - repoURL: https://github.com/example/fleet.git
      targetRevision: HEAD
      ref: values
    - repoURL: https://github.com/example/shared.git
      ref: shared
  destination:
    namespace: guard-system
`)
	read := func(f string) []byte { b, _ := os.ReadFile(f); return b }
	es := Find([]string{app}, read, Options{Repo: OpenRepository("", []string{"https://github.com/example/fleet"}), ChartCache: cache})
	if len(es) != 1 {
		t.Fatalf("want one entry (the chart; the ref sources only hold values, source is ignored), got %d: %+v", len(es), es)
	}
	e := es[0]
	if e.How != Helm || e.Chart.Namespace != "guard-system" || !reflect.DeepEqual(e.Chart.ValuesFiles, []string{values}) {
		t.Errorf("want the chart rendered into guard-system with %s, got %v %q %q", values, e.How, e.Chart.Namespace, e.Chart.ValuesFiles)
	}
	var msgs []string
	for _, p := range e.Problems {
		msgs = append(msgs, fmt.Sprintf("%d: %s", p.At.Line, p.Msg))
	}
	want := []string{
		"17: Argo CD Application argocd/guard: values file $shared/guard.yaml is in https://github.com/example/shared.git, not available offline; the chart is linted without it",
		"18: Argo CD Application argocd/guard: values file $nowhere/guard.yaml names no source with ref nowhere; add ref: nowhere to the source that holds it",
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

// The Git files, matrix and merge generators, in the shapes of Argo CD's
// documentation: one config.json per cluster (a nested object, flattened
// to cluster.name), a matrix of Git directories and a list, a merge of two
// lists by a key, and a generator's values.
func TestApplicationSetGenerators(t *testing.T) {
	root := t.TempDir()
	for _, app := range []string{"apps/guard", "apps/audit"} {
		testkit.WriteFile(t, filepath.Join(root, app+"/cm.yaml"), "kind: ConfigMap\n")
	}
	testkit.WriteFile(t, filepath.Join(root, "cluster-config/engineering/dev/config.json"), `{"cluster": {"name": "engineering-dev", "address": "https://1.2.3.4"}, "tier": "dev"}`)
	testkit.WriteFile(t, filepath.Join(root, "cluster-config/engineering/prod/config.json"), `{"cluster": {"name": "engineering-prod", "address": "https://1.2.3.5"}, "tier": "prod"}`)
	testkit.WriteFile(t, filepath.Join(root, "cluster-config/engineering/skip/config.json"), `{"cluster": {"name": "skipped"}}`)
	testkit.WriteFile(t, filepath.Join(root, "cluster-config/list.yaml"), "- {cluster: {name: listed-a}}\n- {cluster: {name: listed-b}}\n")
	set := testkit.WriteFile(t, filepath.Join(root, "argocd/appsets.yaml"), `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: by-file, namespace: argocd}
spec:
  generators:
    - git:
        repoURL: https://github.com/example/fleet.git
        revision: HEAD
        files:
          - path: cluster-config/**/config.json
          - path: cluster-config/engineering/skip/*
            exclude: true
          - path: cluster-config/list.yaml
        values:
          ns: 'guard-{{cluster.name}}'
  template:
    metadata: {name: 'guard-{{cluster.name}}'}
    spec:
      source: {repoURL: https://github.com/example/fleet.git, path: apps/guard}
      destination: {namespace: '{{values.ns}}'}
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: matrix, namespace: argocd}
spec:
  goTemplate: true
  generators:
    - matrix:
        generators:
          - git:
              repoURL: https://github.com/example/fleet.git
              directories: [{path: apps/*}]
          - list:
              elements: [{env: staging}, {env: prod}]
  template:
    metadata: {name: '{{.path.basename}}-{{.env}}'}
    spec:
      source: {repoURL: https://github.com/example/fleet.git, path: '{{.path.path}}'}
      destination: {namespace: '{{.path.basename}}-{{.env}}'}
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: merged, namespace: argocd}
spec:
  generators:
    - merge:
        mergeKeys: [app]
        generators:
          - list:
              elements: [{app: guard, ns: guard-default}, {app: audit, ns: audit-default}]
          - list:
              elements: [{app: audit, ns: audit-override}, {app: other, ns: never}]
  template:
    metadata: {name: '{{app}}'}
    spec:
      source: {repoURL: https://github.com/example/fleet.git, path: 'apps/{{app}}'}
      destination: {namespace: '{{ns}}'}
`)
	read := func(f string) []byte { b, _ := os.ReadFile(f); return b }
	es := Find([]string{set}, read, Options{Repo: OpenRepository("", []string{"https://github.com/example/fleet"})})
	var got []string
	for _, e := range es {
		rel, _ := filepath.Rel(root, e.Dir)
		got = append(got, e.Name+" "+filepath.ToSlash(rel)+" "+e.DefaultNamespace)
	}
	want := []string{
		// Files in path order, as Argo CD sorts them.
		"guard-engineering-dev apps/guard guard-engineering-dev",
		"guard-engineering-prod apps/guard guard-engineering-prod",
		"guard-listed-a apps/guard guard-listed-a",
		"guard-listed-b apps/guard guard-listed-b",
		"audit-staging apps/audit audit-staging",
		"audit-prod apps/audit audit-prod",
		"guard-staging apps/guard guard-staging",
		"guard-prod apps/guard guard-prod",
		"guard apps/guard guard-default",
		"audit apps/audit audit-override",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Argo CD's file patterns: path.Match per folder, ** for any number.
func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"cluster-config/**/config.json", "cluster-config/a/b/config.json", true},
		{"cluster-config/**/config.json", "cluster-config/config.json", true},
		{"cluster-config/*/config.json", "cluster-config/a/b/config.json", false},
		{"**", "a/b", true},
		{"a/*.yaml", "a/b.yaml", true},
		{"a/*.yaml", "a/b/c.yaml", false},
		{"[", "[", false},
		// Many ** are as cheap as one.
		{strings.Repeat("**/", 200) + "x", strings.Repeat("a/", 200) + "y", false},
		{strings.Repeat("**/", 200) + "x", strings.Repeat("a/", 200) + "x", true},
	} {
		if got := globMatch([]string{c.pattern}, c.path); got != c.want {
			t.Errorf("%s ~ %s = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

// Generators nested past Argo CD's limit give nothing, and a matrix of two
// long lists stops at maxParamSets Applications.
func TestGeneratorBounds(t *testing.T) {
	root := t.TempDir()
	var els strings.Builder
	for i := range 150 {
		fmt.Fprintf(&els, "{n%d: x}, ", i)
	}
	nested := "{list: {elements: [{a: b}]}}"
	for range maxGeneratorNesting + 2 {
		nested = "{matrix: {generators: [" + nested + ", {list: {elements: [{c: d}]}}]}}"
	}
	set := testkit.WriteFile(t, filepath.Join(root, "appset.yaml"), `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: big, namespace: argocd}
spec:
  generators:
    - matrix:
        generators:
          - list: {elements: [`+els.String()+`]}
          - list: {elements: [`+els.String()+`]}
    - `+nested+`
  template:
    metadata: {name: app}
    spec:
      source: {repoURL: https://example.com/other.git, path: x}
`)
	read := func(f string) []byte { b, _ := os.ReadFile(f); return b }
	if n := len(Find([]string{set}, read, Options{})); n != maxParamSets {
		t.Errorf("got %d Applications, want the bound %d (and none of the too deeply nested matrix)", n, maxParamSets)
	}
}

// fieldPaths names each key and value of an object by the path kustomize
// locates (`spec.values.replicas`, `spec.dependsOn[0].name`); a key
// kustomize's paths cannot spell (it holds a dot) stands for its parent.
func TestFieldPaths(t *testing.T) {
	objs := readObjects("hr.yaml", []byte(`kind: HelmRelease
spec:
  dependsOn:
    - name: infra
  values:
    replicas: 2
    app.kubernetes.io/name: guard
`))
	paths := fieldPaths(objs[0].root)
	for _, c := range []struct {
		line, col int
		want      fieldPath
	}{
		{1, 1, fieldPath{path: "kind", key: true}},
		{3, 3, fieldPath{path: "spec.dependsOn", key: true}},
		{4, 7, fieldPath{path: "spec.dependsOn[0].name", key: true}}, // the entry, at its first key
		{4, 13, fieldPath{path: "spec.dependsOn[0].name"}},
		{6, 15, fieldPath{path: "spec.values.replicas"}},
		{7, 5, fieldPath{path: "spec.values"}},
	} {
		if got := paths[[2]int{c.line, c.col}]; got != c.want {
			t.Errorf("%d:%d = %+v, want %+v", c.line, c.col, got, c.want)
		}
	}
}

// dependsOn entries default to the entry's namespace; without dependsOn
// the spec key is where one would go; a Kustomization waits with wait or
// healthChecks, a HelmRelease unless install.disableWait.
func TestDependsOn(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "ks.yaml")
	text := `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  path: ./app
  sourceRef: {kind: GitRepository, name: flux-system}
  dependsOn:
    - name: infra
    - name: certs
      namespace: cert-manager
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: infra, namespace: flux-system}
spec:
  path: ./app
  wait: true
  sourceRef: {kind: GitRepository, name: flux-system}
`
	es := Find([]string{file}, func(string) []byte { return []byte(text) }, Options{})
	if len(es) != 2 {
		t.Fatalf("entries: %+v", es)
	}
	want := []Dependency{{Name: "flux-system/infra", At: diag.Span{File: file, Line: 8, Column: 7}}, {Name: "cert-manager/certs", At: diag.Span{File: file, Line: 9, Column: 7}}}
	if !reflect.DeepEqual(es[0].DependsOn, want) || es[0].DependsOnAt != (diag.Span{File: file, Line: 7, Column: 3}) || es[0].Waits {
		t.Errorf("apps: %+v at %+v, waits %v", es[0].DependsOn, es[0].DependsOnAt, es[0].Waits)
	}
	if len(es[1].DependsOn) != 0 || es[1].DependsOnAt != (diag.Span{File: file, Line: 15, Column: 1}) || !es[1].Waits {
		t.Errorf("infra: %+v at %+v, waits %v", es[1].DependsOn, es[1].DependsOnAt, es[1].Waits)
	}
}
