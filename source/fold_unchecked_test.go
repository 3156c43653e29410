package source_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// The remote references of a run are one kustomize-build finding, at the
// first, counting the references and the repositories they name and
// pointing at the others; one the configuration suppresses leaves the
// count; the editor server (WholeUnits) has each file's own. The run
// checked nothing else, so it is a warning.
func TestUncheckedFoldedOncePerRun(t *testing.T) {
	dir := t.TempDir()
	refs := map[string]string{
		"a": "https://github.com/fluxcd/flux2/releases/download/v2.7.5/install.yaml",
		"b": "github.com/metal3-io/ip-address-manager/config/default?ref=main",
		"c": "https://raw.githubusercontent.com/fluxcd/flux2/v2.4.0/manifests/openshift/scc.yaml",
		"d": "https://example.com/x/install.yaml",
	}
	for k, ref := range refs {
		if err := os.MkdirAll(filepath.Join(dir, k), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, k, "kustomization.yaml"), []byte("resources:\n- "+ref+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suppressD := func(ds []diag.Diagnostic) []diag.Diagnostic {
		return slices.DeleteFunc(ds, func(d diag.Diagnostic) bool { return strings.HasSuffix(d.File, "d/kustomization.yaml") })
	}
	res := run(t, []string{dir}, source.Options{Suppress: suppressD})
	got := find(res.Diagnostics, rules.KustomizeBuildRule, "")
	if len(got) != 1 {
		t.Fatalf("want one kustomize-build finding; got%s", dump(res.Diagnostics))
	}
	d := got[0]
	want := "3 remote references into 2 sources are not downloaded (fluxcd/flux2, metal3-io/ip-address-manager); webhooklint builds offline, " +
		"so their kustomizations' files are linted alone; vendor them, or lint `kustomize build | webhooklint -`"
	if !strings.HasSuffix(d.File, "a/kustomization.yaml") || d.Line != 2 || d.Severity != diag.Warning || d.Message != want {
		t.Errorf("want the count at a/kustomization.yaml:2, a warning:\n%s\ngot%s", want, dump(got))
	}
	if res.Unchecked != 2 {
		t.Errorf("want 2 sources not checked (fluxcd/flux2, metal3-io/ip-address-manager), got %d", res.Unchecked)
	}
	var rel []string
	for _, r := range d.Related {
		rel = append(rel, filepath.Base(filepath.Dir(r.File))+":"+itoa(r.Line)+" "+r.Message)
	}
	wantRel := []string{`b:2 remote reference "` + refs["b"] + `"`, `c:2 remote reference "` + refs["c"] + `"`}
	if !slices.Equal(rel, wantRel) {
		t.Errorf("related: got %q, want %q", rel, wantRel)
	}

	whole := run(t, []string{dir}, source.Options{WholeUnits: true})
	each := find(whole.Diagnostics, rules.KustomizeBuildRule, "")
	if len(each) != 4 || len(each[0].Related) != 0 || !strings.HasPrefix(each[0].Message, "remote reference ") {
		t.Errorf("with WholeUnits, want each reference's own warning; got%s", dump(each))
	}
}

// A could-not-check notice is info when the run linted a webhook
// configuration, admission policy or CRD, a warning when it linted none:
// then the notice is all the user learns. A severity the configuration
// sets for the rule is kept either way. Two Applications naming one folder
// of another repository (argocd-operator's autonomous-guestbook.yaml and
// managed-guestbook.yaml at 0bd6e8d, both argoproj/argocd-example-apps'
// kustomize-guestbook) are two entries and one source.
func TestUncheckedLevel(t *testing.T) {
	app := func(name string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name + "\n  namespace: argocd\nspec:\n" +
			"  project: default\n  source:\n    repoURL: https://github.com/argoproj/argocd-example-apps\n    targetRevision: HEAD\n" +
			"    path: kustomize-guestbook\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: guestbook\n"
	}
	files := map[string]string{"apps/autonomous.yaml": app("guestbook"), "apps/managed.yaml": app("managed-guestbook")}
	const want = "2 GitOps entries name 1 folder that is not available offline (argocd-example-apps/kustomize-guestbook); " +
		"its manifests are not checked; vendor it, or pass --repo-url if it is this repository"
	notice := func(res *lint.Result) diag.Diagnostic {
		t.Helper()
		got := find(res.Diagnostics, rules.GitOpsSourceRule, "")
		if len(got) != 1 || got[0].Message != want || res.Unchecked != 1 {
			t.Fatalf("want one gitops-source finding:\n%s\nand 1 source not checked (got %d):%s", want, res.Unchecked, dump(res.Diagnostics))
		}
		return got[0]
	}
	alone := testkit.Repo(t, files)
	if d := notice(run(t, []string{alone}, source.Options{})); d.Severity != diag.Warning {
		t.Errorf("nothing else checked: want a warning, got %s", d.Severity)
	}
	files["deploy/webhook.yaml"] = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\n" +
		"webhooks:\n- name: w.example.com\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  failurePolicy: Ignore\n" +
		"  clientConfig:\n    url: https://w.example.com/validate\n"
	checked := testkit.Repo(t, files)
	if d := notice(run(t, []string{checked}, source.Options{})); d.Severity != diag.Info {
		t.Errorf("a webhook configuration checked: want info, got %s", d.Severity)
	}
	lo := lint.Options{Jobs: 1, Severity: map[string]diag.Severity{rules.GitOpsSourceRule: diag.Error}}
	res, err := source.Lint([]string{alone}, nil, "", lo, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := notice(res); d.Severity != diag.Error {
		t.Errorf("the configuration's severity: want error, got %s", d.Severity)
	}
}
