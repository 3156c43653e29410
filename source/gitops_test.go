package source_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// The layout of fluxcd/flux2-kustomize-helm-example (see the fixture's
// README): Flux Kustomizations in clusters/production, a plain folder Flux
// generates a kustomization for, a HelmRelease of a vendored chart.
const fluxExample = "../testdata/gitops/flux-kustomize-helm"

// The layout of argoproj/argocd-example-apps: Applications in apps/, a
// kustomize application and a chart.
const argoExample = "../testdata/gitops/argocd-example-apps"

func at(ds []diag.Diagnostic, rule, suffix string, line int) *diag.Diagnostic {
	for i, d := range ds {
		if d.Rule == rule && strings.HasSuffix(filepath.ToSlash(d.File), suffix) && d.Line == line {
			return &ds[i]
		}
	}
	return nil
}

func hasRelated(d *diag.Diagnostic, suffix string, line int) bool {
	return slices.ContainsFunc(d.Related, func(r diag.Related) bool {
		return strings.HasSuffix(filepath.ToSlash(r.File), suffix) && r.Line == line
	})
}

// A value Flux substitutes that the API server rejects is an error at the
// substitute entry, with the manifest line as related location; linted
// without the Flux Kustomization, the same line is an unsubstituted
// placeholder.
func TestFluxSubstitutionIsJudgedAsApplied(t *testing.T) {
	res := run(t, []string{fluxExample}, source.Options{})
	d := at(res.Diagnostics, "timeout-range", "clusters/production/infrastructure.yaml", 16)
	if d == nil || d.Severity != diag.Error {
		t.Fatalf("want the timeout-range error at the substitute entry guard_timeout:%s", dump(res.Diagnostics))
	}
	if !hasRelated(d, "infrastructure/controllers/guard/webhook.yaml", 12) {
		t.Errorf("want the manifest's ${guard_timeout} line as related location: %+v", d.Related)
	}
	if !strings.Contains(d.Origin, "Flux Kustomization flux-system/infra-controllers") {
		t.Errorf("origin %q does not name the entry", d.Origin)
	}
	if ph := find(res.Diagnostics, rules.PlaceholderRule, "webhook.yaml"); len(ph) > 0 {
		t.Errorf("placeholders Flux fills are reported:%s", dump(ph))
	}

	plain := run(t, []string{fluxExample}, source.Options{NoGitOps: true})
	if at(plain.Diagnostics, rules.PlaceholderRule, "infrastructure/controllers/guard/webhook.yaml", 12) == nil {
		t.Errorf("without GitOps, want the placeholder on timeoutSeconds:%s", dump(plain.Diagnostics))
	}
	if len(find(plain.Diagnostics, "timeout-range", "")) > 0 {
		t.Errorf("without GitOps, no substituted value is judged:%s", dump(plain.Diagnostics))
	}
}

// A chart installed by a HelmRelease is rendered with the release's
// values, name and namespace, not its defaults, and a finding on a value
// the release sets is reported at that key of the HelmRelease.
func TestHelmReleaseValues(t *testing.T) {
	res := run(t, []string{fluxExample}, source.Options{})
	d := at(res.Diagnostics, "backend-availability", "apps/base/guard/release.yaml", 16)
	if d == nil {
		t.Fatalf("want backend-availability at the HelmRelease's replicas: 1:%s", dump(res.Diagnostics))
	}
	if d.Severity != diag.Warning {
		t.Errorf("a replica count the release chose is no chart default: severity %v", d.Severity)
	}
	if !hasRelated(d, "charts/guard/templates/deployment.yaml", 7) {
		t.Errorf("want the template line as related location: %+v", d.Related)
	}
	if d.Object == nil || d.Object.Name != "policy-system-policy" || d.Object.Namespace != "policy-system" {
		t.Errorf("release name and namespace are not the HelmRelease's: %+v", d.Object)
	}
	remote := at(res.Diagnostics, rules.GitOpsSourceRule, "apps/base/guard/release.yaml", 31)
	// Info: the run checked the repository's own webhooks.
	if remote == nil || remote.Severity != diag.Info || !strings.Contains(remote.Message, "not available offline") {
		t.Errorf("want one info on the remote chart's sourceRef:%s", dump(res.Diagnostics))
	}
	// With its defaults (3 replicas, failing open) the chart has none of it.
	plain := run(t, []string{fluxExample}, source.Options{NoGitOps: true})
	if len(find(plain.Diagnostics, "backend-availability", "")) > 0 {
		t.Errorf("the chart's defaults give no backend finding:%s", dump(plain.Diagnostics))
	}
}

// A changed entry file named on its own (pre-commit) reports what its
// build installs; a manifest named on its own is linted through the entry
// the configuration names (units.gitops.entries), not as a loose file
// with a placeholder.
func TestGitOpsFilesNamedAlone(t *testing.T) {
	entry := filepath.Join(fluxExample, "clusters/production/infrastructure.yaml")
	res := run(t, []string{entry}, source.Options{})
	if at(res.Diagnostics, "timeout-range", "clusters/production/infrastructure.yaml", 16) == nil {
		t.Errorf("want the substituted timeout judged:%s", dump(res.Diagnostics))
	}
	file := filepath.Join(fluxExample, "infrastructure/controllers/guard/webhook.yaml")
	alone := run(t, []string{file}, source.Options{})
	if len(find(alone.Diagnostics, rules.PlaceholderRule, "webhook.yaml")) == 0 {
		t.Fatalf("alone, the manifest's placeholder is reported:%s", dump(alone.Diagnostics))
	}
	vars := filepath.Join(fluxExample, "clusters/production/cluster-vars.yaml")
	res = run(t, []string{file}, source.Options{GitOpsFiles: []string{entry, vars}})
	if ph := find(res.Diagnostics, rules.PlaceholderRule, "webhook.yaml"); len(ph) > 0 {
		t.Errorf("a manifest an entry substitutes is not a loose file:%s", dump(ph))
	}
}

// An Argo CD Application renders its chart with valuesObject into
// destination.namespace, and builds its kustomize source with namePrefix;
// an Application of another repository is not read.
func TestArgoApplications(t *testing.T) {
	so := source.Options{RepoURLs: []string{"https://github.com/example/argocd-example-apps"}}
	res := run(t, []string{argoExample}, so)
	d := at(res.Diagnostics, "backend-availability", "apps/guestbook.yaml", 31)
	if d == nil || d.Object == nil || d.Object.Namespace != "guestbook-helm" {
		t.Fatalf("want backend-availability at valuesObject replicaCount, in namespace guestbook-helm:%s", dump(res.Diagnostics))
	}
	// A multi-source Application: its values file, named through the ref
	// of its second source, is where this deployment sets one replica.
	if d := at(res.Diagnostics, "backend-availability", "envs/prod/guestbook.yaml", 1); d == nil || d.Object == nil || d.Object.Namespace != "guestbook-prod" {
		t.Errorf("want backend-availability at the $values file's replicaCount, in namespace guestbook-prod:%s", dump(res.Diagnostics))
	}
	if len(find(res.Diagnostics, "unresolved-reference", "")) > 0 {
		t.Errorf("the Service namePrefix names is in the build:%s", dump(res.Diagnostics))
	}
	plain := run(t, []string{argoExample}, source.Options{NoGitOps: true})
	if len(find(plain.Diagnostics, "unresolved-reference", "guestbook-webhook.yaml")) == 0 {
		t.Errorf("without the Application, the prefixed Service name is unresolved:%s", dump(plain.Diagnostics))
	}
	other := run(t, []string{argoExample}, source.Options{})
	if len(find(other.Diagnostics, "backend-availability", "apps/guestbook.yaml")) > 0 {
		t.Errorf("an Application of another repository is built:%s", dump(other.Diagnostics))
	}
	// The three entries naming two folders of another repository are one
	// gap: one notice at the first, the others its related locations,
	// counting both; info, as the run checked the webhooks of the
	// repository's own folders.
	notes := find(other.Diagnostics, rules.GitOpsSourceRule, "")
	if len(notes) != 1 || !strings.HasSuffix(notes[0].File, "apps/guestbook-prod.yaml") || notes[0].Severity != diag.Info ||
		!strings.HasPrefix(notes[0].Message, "3 GitOps entries name 2 folders that are not available offline (argocd-example-apps/helm-guestbook, argocd-example-apps/kustomize-guestbook); ") ||
		other.Unchecked != 2 {
		t.Fatalf("want one gitops-source info for the three entries naming two folders of other repositories, 2 not checked (got %d):%s", other.Unchecked, dump(other.Diagnostics))
	}
	var rel []string
	for _, r := range notes[0].Related {
		rel = append(rel, filepath.Base(r.File)+":"+itoa(r.Line))
	}
	if strings.Join(rel, " ") != "guestbook.yaml:9 guestbook.yaml:26" {
		t.Errorf("want the other two sources as related locations; got %q:%s", rel, dump(notes))
	}
	// The editor server shows each file its own.
	whole := run(t, []string{argoExample}, source.Options{WholeUnits: true})
	if len(find(whole.Diagnostics, rules.GitOpsSourceRule, "apps/guestbook.yaml")) != 2 || len(find(whole.Diagnostics, rules.GitOpsSourceRule, "apps/guestbook-prod.yaml")) != 1 {
		t.Errorf("with WholeUnits, want one gitops-source note per source of another repository:%s", dump(whole.Diagnostics))
	}
}

// A folder Flux cannot build (a file that is no Kubernetes object in the
// kustomization it generates) is a positioned error on the entry, and its
// files are linted one by one.
func TestFluxGeneratedBuildFails(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(".git/HEAD", "ref: refs/heads/main\n")
	mk("clusters/app.yaml", `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app
  namespace: flux-system
spec:
  path: ./app
  sourceRef:
    kind: GitRepository
    name: flux-system
`)
	mk("app/settings.yaml", "replicas: 1\n")
	res := run(t, []string{root}, source.Options{})
	ds := find(res.Diagnostics, rules.KustomizeBuildRule, "clusters/app.yaml")
	if len(ds) != 1 || ds[0].Line != 2 || !strings.HasPrefix(ds[0].Message, "Flux Kustomization flux-system/app: ") {
		t.Errorf("want one kustomize-build error on the entry's kind line:%s", dump(res.Diagnostics))
	}
}

// A HelmRelease's postRenderers (the shape of Flux's documentation: a
// JSON 6902 patch and a strategic-merge patch under kustomize.patches,
// and images) change the rendered objects before they are linted, and a
// finding on a field a patch set is reported at that patch, with the
// template line as related location.
func TestHelmReleasePostRenderers(t *testing.T) {
	chart, err := os.ReadDir(filepath.Join(fluxExample, "charts/guard/templates"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"charts/guard/Chart.yaml":  "apiVersion: v2\nname: guard\nversion: 0.1.0\n",
		"charts/guard/values.yaml": "replicas: 3\nfailurePolicy: Ignore\n",
		"apps/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: policy
  namespace: policy-system
spec:
  chart:
    spec:
      chart: ./charts/guard
      sourceRef: {kind: GitRepository, name: flux-system}
  values:
    failurePolicy: Fail
  postRenderers:
    - kustomize:
        patches:
          - target: {kind: ValidatingWebhookConfiguration}
            patch: |
              - op: replace
                path: /webhooks/0/timeoutSeconds
                value: 45
          - patch: |
              apiVersion: apps/v1
              kind: Deployment
              metadata: {name: policy, namespace: policy-system}
              spec: {replicas: 1}
        images:
          - name: example.com/guard
            newTag: "2.0"
`,
	}
	for _, e := range chart {
		data, err := os.ReadFile(filepath.Join(fluxExample, "charts/guard/templates", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files["charts/guard/templates/"+e.Name()] = string(data)
	}
	root := testkit.Repo(t, files)
	res := run(t, []string{root}, source.Options{})
	timeout := at(res.Diagnostics, "timeout-range", "apps/release.yaml", 16)
	if timeout == nil || timeout.Severity != diag.Error {
		t.Fatalf("want the server's timeout-range error at the JSON 6902 patch:%s", dump(res.Diagnostics))
	}
	if !hasRelated(timeout, "charts/guard/templates/webhook.yaml", 12) {
		t.Errorf("want the template line as related location: %+v", timeout.Related)
	}
	if !strings.Contains(timeout.Origin, "postRenderers[0].kustomize.patches[0]") {
		t.Errorf("origin %q does not name the patch", timeout.Origin)
	}
	if at(res.Diagnostics, "backend-availability", "apps/release.yaml", 21) == nil {
		t.Errorf("want the 1 replica the strategic-merge patch sets reported at it:%s", dump(res.Diagnostics))
	}
	// Without postRenderers the chart renders 3 replicas and timeout 5.
	files["apps/release.yaml"] = files["apps/release.yaml"][:strings.Index(files["apps/release.yaml"], "  postRenderers:")]
	plain := run(t, []string{testkit.Repo(t, files)}, source.Options{})
	if len(find(plain.Diagnostics, "timeout-range", "")) > 0 || slices.ContainsFunc(find(plain.Diagnostics, "backend-availability", ""), func(d diag.Diagnostic) bool {
		return strings.Contains(d.Message, "1 replica")
	}) {
		t.Errorf("without postRenderers, no timeout or replica finding:%s", dump(plain.Diagnostics))
	}
}

// An editor's unsaved HelmRelease (the language server's overlay) is the
// entry linted: its values, not the disk's.
func TestGitOpsEntryFromOverlay(t *testing.T) {
	release, err := filepath.Abs(filepath.Join(fluxExample, "apps/base/guard/release.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(release)
	if err != nil {
		t.Fatal(err)
	}
	overlay.Set(release, []byte(strings.Replace(string(disk), "replicas: 1", "replicas: 3", 1)))
	defer overlay.Delete(release)
	res := run(t, []string{fluxExample}, source.Options{})
	if d := at(res.Diagnostics, "backend-availability", "apps/base/guard/release.yaml", 16); d != nil {
		t.Errorf("the unsaved buffer sets 3 replicas, yet the disk's 1 is reported:%s", dump(res.Diagnostics))
	}
}

// A HelmRelease in a folder a Flux Kustomization builds is rendered as
// the build outputs it: clusters/staging applies apps/staging, whose
// patch gives the base's release 2 replicas and a 45 s timeout (the
// layout of flux2-kustomize-helm-example's apps/staging). The server's
// error on that timeout is reported at the patch line that set it, and
// the base's 1-replica warning only in the production build.
func TestHelmReleaseBuiltByOverlay(t *testing.T) {
	res := run(t, []string{fluxExample}, source.Options{})
	d := at(res.Diagnostics, "timeout-range", "apps/staging/guard-values.yaml", 9)
	if d == nil || d.Severity != diag.Error {
		t.Fatalf("want the timeout-range error at the staging patch's timeoutSeconds:%s", dump(res.Diagnostics))
	}
	if !hasRelated(d, "charts/guard/templates/webhook.yaml", 12) {
		t.Errorf("want the template line as related location: %+v", d.Related)
	}
	if !strings.Contains(d.Origin, "clusters/staging/apps.yaml") {
		t.Errorf("origin %q does not name the build the release comes from", d.Origin)
	}
	one := at(res.Diagnostics, "backend-availability", "apps/base/guard/release.yaml", 16)
	if one == nil || len(one.Units) != 1 || !strings.Contains(one.Units[0], "clusters/production/apps.yaml") {
		t.Errorf("want the 1-replica warning only in the production build:%s", dump(res.Diagnostics))
	}
	// The base's file alone is no entry of its own any more: the release
	// is what the builds output, not what the base writes.
	for _, d := range res.Diagnostics {
		if strings.Contains(d.Origin, "Flux HelmRelease flux-system/policy") && !strings.Contains(d.Origin, "built by") {
			t.Errorf("a finding of the base's HelmRelease as written: %s %s", d.Origin, d.Message)
		}
	}
}
