package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// gitopsWorkspace copies a GitOps fixture of testdata/gitops into a folder
// of its own (edits go to the server's overlay, which every reader in the
// process shares) and starts a server on it with options so.
func gitopsWorkspace(t *testing.T, fixture string, so source.Options) (*client, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "gitops", fixture))); err != nil {
		t.Fatal(err)
	}
	c := startServerWith(t, Config{Version: "test", Setup: func(string) (*Setup, error) {
		return &Setup{Lint: lint.Options{Settings: rules.DefaultSettings()}, Sources: so}, nil
	}})
	c.initialize(dir)
	t.Cleanup(func() {
		c.call("shutdown", nil)
		c.notify("exit", nil)
	})
	return c, dir
}

// workspaceFindings is what `webhooklint DIR` finds in file, as the editor
// shows it (rule, range, severity, message).
func workspaceFindings(t *testing.T, dir, file string, so source.Options) []string {
	t.Helper()
	res, err := source.Lint([]string{dir}, nil, "", lint.Options{Settings: rules.DefaultSettings()}, so)
	if err != nil {
		t.Fatal(err)
	}
	data, err := overlay.ReadFile(file) // the buffers, as the command line would read them saved
	if err != nil {
		t.Fatal(err)
	}
	return editorView(res.Diagnostics, file, data)
}

// editorView is how the editor shows the findings of ds in file, whose
// text is data: rule, range, severity and message, sorted.
func editorView(ds []diag.Diagnostic, file string, data []byte) []string {
	ls := splitLines(string(data))
	out := []string{}
	for _, d := range ds {
		if abs, _ := filepath.Abs(d.File); abs == file {
			l := toLSP(d, func(string) lines { return ls }, encUTF16)
			out = append(out, keyOf(l)+" "+l.Message)
		}
	}
	slices.Sort(out)
	return out
}

func shown(ds []diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, keyOf(d)+" "+d.Message)
	}
	slices.Sort(out)
	return out
}

func openFile(t *testing.T, c *client, file string) string {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	uri := pathURI(file)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": string(text)}})
	return uri
}

// edit replaces the first from in the open buffer of file (not saved).
func edit(t *testing.T, c *client, file string, version int, from, to string) {
	t.Helper()
	text, err := overlay.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), from) {
		t.Fatalf("%s holds no %q", file, from)
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": pathURI(file), "version": version},
		"contentChanges": []map[string]any{{"text": strings.Replace(string(text), from, to, 1)}},
	})
}

// A file a Flux Kustomization applies with ${var} substitution is linted
// with the value Flux fills: the placeholder warnings of the file alone
// give way to the server's error at the substitute entry, as `webhooklint
// WORKSPACE` reports it. Editing the entry's value moves it.
func TestGitOpsFluxSubstitution(t *testing.T) {
	c, dir := gitopsWorkspace(t, "flux-kustomize-helm", source.Options{})
	webhook := filepath.Join(dir, "infrastructure", "controllers", "guard", "webhook.yaml")
	entry := filepath.Join(dir, "clusters", "production", "infrastructure.yaml")
	wURI := openFile(t, c, webhook)
	eURI := pathURI(entry)

	got := c.waitDiagnostics(eURI, "the substituted timeout's error at the entry", func(ds []diagnostic) bool { return hasRule(ds, "timeout-range") })
	if want := workspaceFindings(t, dir, entry, source.Options{}); !slices.Equal(shown(got), want) {
		t.Errorf("%s:\n got %q\nwant %q", entry, shown(got), want)
	}
	got = c.waitDiagnostics(wURI, "webhook.yaml diagnostics", func([]diagnostic) bool { return true })
	if want := workspaceFindings(t, dir, webhook, source.Options{}); !slices.Equal(shown(got), want) {
		t.Errorf("%s:\n got %q\nwant %q", webhook, shown(got), want)
	}
	if hasRule(got, "placeholder") {
		t.Errorf("webhook.yaml is linted without the entry's substitutions: %q", shown(got))
	}

	// The entry, edited in its buffer: a timeout the server accepts.
	openFile(t, c, entry)
	edit(t, c, entry, 2, `guard_timeout: "45"`, `guard_timeout: "5"`)
	got = c.waitDiagnostics(eURI, "the entry's diagnostics after the edit", func(ds []diagnostic) bool { return !hasRule(ds, "timeout-range") })
	if want := workspaceFindings(t, dir, entry, source.Options{}); !slices.Equal(shown(got), want) {
		t.Errorf("%s after the edit:\n got %q\nwant %q", entry, shown(got), want)
	}
}

// A chart template a HelmRelease installs is linted with the release's
// values, per cluster overlay, as `webhooklint WORKSPACE` lints it; editing
// the HelmRelease's values changes the template's findings.
func TestGitOpsHelmReleaseValues(t *testing.T) {
	c, dir := gitopsWorkspace(t, "flux-kustomize-helm", source.Options{})
	deployment := filepath.Join(dir, "charts", "guard", "templates", "deployment.yaml")
	release := filepath.Join(dir, "apps", "base", "guard", "release.yaml")
	dURI := openFile(t, c, deployment)
	got := c.waitDiagnostics(dURI, "the template's findings", func(ds []diagnostic) bool { return hasRule(ds, "backend-availability") })
	if want := workspaceFindings(t, dir, deployment, source.Options{}); !slices.Equal(shown(got), want) {
		t.Errorf("%s:\n got %q\nwant %q", deployment, shown(got), want)
	}
	// Open, the release's file shows what each of its entries finds (the
	// remote chart of its other HelmRelease too).
	rURI := openFile(t, c, release)
	got = c.waitDiagnostics(rURI, "the release's findings", func(ds []diagnostic) bool {
		return hasRule(ds, "backend-availability") && hasRule(ds, "gitops-source")
	})
	if want := workspaceFindings(t, dir, release, source.Options{}); !slices.Equal(shown(got), want) {
		t.Errorf("%s:\n got %q\nwant %q", release, shown(got), want)
	}

	// Three replicas in the release: the production cluster's build no
	// longer runs one, and the template's finding is no longer staging's
	// alone.
	before := shown(c.waitDiagnostics(dURI, "the template's findings", func([]diagnostic) bool { return true }))
	edit(t, c, release, 2, "replicas: 1", "replicas: 3")
	got = c.waitDiagnostics(dURI, "the template's findings after the edit", func(ds []diagnostic) bool { return !slices.Equal(shown(ds), before) && len(ds) > 1 })
	if want := workspaceFindings(t, dir, deployment, source.Options{}); !slices.Equal(shown(got), want) {
		t.Errorf("%s after the edit:\n got %q\nwant %q", deployment, shown(got), want)
	}
	c.waitDiagnostics(rURI, "the release's findings after the edit", func(ds []diagnostic) bool { return !hasRule(ds, "backend-availability") })
}

// A chart an Argo CD Application renders is linted in the Application's
// destination namespace; changing it in the Application's buffer changes
// the template's finding.
func TestGitOpsArgoNamespace(t *testing.T) {
	so := source.Options{RepoURLs: []string{"https://github.com/example/argocd-example-apps"}}
	c, dir := gitopsWorkspace(t, "argocd-example-apps", so)
	webhook := filepath.Join(dir, "helm-guestbook", "templates", "webhook.yaml")
	app := filepath.Join(dir, "apps", "guestbook.yaml")
	wURI := openFile(t, c, webhook)
	inNamespace := func(ns string) func([]diagnostic) bool {
		return func(ds []diagnostic) bool {
			return slices.ContainsFunc(ds, func(d diagnostic) bool {
				return d.Code == "self-deadlock" && strings.Contains(d.Message, `"`+ns+`"`)
			})
		}
	}
	got := c.waitDiagnostics(wURI, "the self-deadlock in the Application's namespace", inNamespace("guestbook-helm"))
	if want := workspaceFindings(t, dir, webhook, so); !slices.Equal(shown(got), want) {
		t.Errorf("%s:\n got %q\nwant %q", webhook, shown(got), want)
	}

	openFile(t, c, app)
	edit(t, c, app, 2, "namespace: guestbook-helm", "namespace: guestbook-edited")
	got = c.waitDiagnostics(wURI, "the self-deadlock in the edited namespace", inNamespace("guestbook-edited"))
	if want := workspaceFindings(t, dir, webhook, so); !slices.Equal(shown(got), want) {
		t.Errorf("%s after the edit:\n got %q\nwant %q", webhook, shown(got), want)
	}
}

// The Applications of an ApplicationSet's Git generators follow what the
// generators read, which the linted files do not hold: a files generator's
// JSON file edited in its buffer, and a folder a directories generator
// matches made on disk (which the client reports), each change the
// Applications the workspace builds.
func TestGitOpsApplicationSetGenerators(t *testing.T) {
	so := source.Options{RepoURLs: []string{"https://github.com/example/argocd-example-apps"}}
	c, dir := gitopsWorkspace(t, "argocd-example-apps", so)
	appSet := func(name, generator, namespace string) string {
		return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ` + name + `
  namespace: argocd
spec:
  generators:
    - git:
        repoURL: https://github.com/example/argocd-example-apps.git
        revision: HEAD
` + generator + `
  template:
    metadata:
      name: '` + name + `-{{path.basename}}'
    spec:
      project: default
      source:
        repoURL: https://github.com/example/argocd-example-apps.git
        targetRevision: HEAD
        path: helm-guestbook
        helm:
          valuesObject:
            replicaCount: 1
            failurePolicy: Fail
      destination:
        server: https://kubernetes.default.svc
        namespace: '` + namespace + `'
`
	}
	files := map[string]string{
		"appsets/files.yaml":   appSet("by-file", "        files:\n          - path: \"envs/*/config.json\"", "{{namespace}}"),
		"appsets/dirs.yaml":    appSet("by-dir", "        directories:\n          - path: \"regions/*\"", "region-{{path.basename}}"),
		"envs/qa/config.json":  `{"namespace": "guestbook-qa"}` + "\n",
		"regions/eu/README.md": "a region\n",
	}
	c.writeFiles(dir, files)
	webhook := filepath.Join(dir, "helm-guestbook", "templates", "webhook.yaml")
	wURI := openFile(t, c, webhook)
	inNamespaces := func(nss ...string) func([]diagnostic) bool {
		return func(ds []diagnostic) bool {
			for _, ns := range nss {
				if !slices.ContainsFunc(ds, func(d diagnostic) bool {
					return d.Code == "self-deadlock" && strings.Contains(d.Message, `"`+ns+`"`)
				}) {
					return false
				}
			}
			return true
		}
	}
	got := c.waitDiagnostics(wURI, "the self-deadlocks of both ApplicationSets", inNamespaces("guestbook-qa", "region-eu"))
	if want := workspaceFindings(t, dir, webhook, so); !slices.Equal(shown(got), want) {
		t.Errorf("%s:\n got %q\nwant %q", webhook, shown(got), want)
	}

	params := filepath.Join(dir, "envs", "qa", "config.json")
	openFile(t, c, params)
	edit(t, c, params, 2, "guestbook-qa", "guestbook-edited")
	got = c.waitDiagnostics(wURI, "the self-deadlock in the edited parameter's namespace", inNamespaces("guestbook-edited"))
	if want := workspaceFindings(t, dir, webhook, so); !slices.Equal(shown(got), want) {
		t.Errorf("%s after the edit:\n got %q\nwant %q", webhook, shown(got), want)
	}
	if inNamespaces("guestbook-qa")(got) {
		t.Errorf("the Application of the parameter before the edit is still linted: %q", shown(got))
	}

	if err := os.Mkdir(filepath.Join(dir, "regions", "us"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.diskChanged(fileCreated, filepath.Join(dir, "regions", "us"))
	edit(t, c, webhook, 2, "pods.guestbook.example.com", "pods.guestbook.example.com") // any edit lints again
	got = c.waitDiagnostics(wURI, "the self-deadlock of the new region's Application", inNamespaces("region-eu", "region-us"))
	if want := workspaceFindings(t, dir, webhook, so); !slices.Equal(shown(got), want) {
		t.Errorf("%s after the new folder:\n got %q\nwant %q", webhook, shown(got), want)
	}
}

// The other Flux entries of a cluster are linted only when the ordering
// step compares what they apply: a webhook file opened alone, whose
// backend another entry applies, still gets its entry's ordering finding
// as `webhooklint WORKSPACE` reports it.
func TestGitOpsOrderingPeers(t *testing.T) {
	c, dir := gitopsWorkspace(t, "flux-ordering", source.Options{})
	webhook := filepath.Join(dir, "infrastructure", "configs", "webhook.yaml")
	entry := filepath.Join(dir, "clusters", "production", "infrastructure.yaml")
	openFile(t, c, webhook)
	got := c.waitDiagnostics(pathURI(entry), "the entry's ordering finding", func(ds []diagnostic) bool { return hasRule(ds, "gitops-order") })
	order := func(ds []string) []string {
		return slices.DeleteFunc(ds, func(d string) bool { return !strings.HasPrefix(d, "gitops-order ") })
	}
	want := order(workspaceFindings(t, dir, entry, source.Options{}))
	if len(want) == 0 {
		t.Fatalf("webhooklint %s reports no ordering finding in %s", dir, entry)
	}
	if got := order(shown(got)); !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", entry, got, want)
	}
}
