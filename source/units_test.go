package source_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// webhookBase is a kustomize base whose webhook fails closed with a long
// timeout (timeout-too-long), calling a Service the base also defines.
func webhookBase(files map[string]string) map[string]string {
	files["base/kustomization.yaml"] = "resources:\n- webhook.yaml\n- service.yaml\n"
	files["base/webhook.yaml"] = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy
  annotations:
    cert-manager.io/inject-ca-from: app/serving-cert
webhooks:
- name: policy.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 30
  clientConfig:
    service:
      name: policy
      namespace: app
      path: /validate
  rules:
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["deployments"]
`
	files["base/service.yaml"] = "apiVersion: v1\nkind: Service\nmetadata:\n  name: policy\n  namespace: app\nspec:\n  selector:\n    app: policy\n  ports:\n  - port: 443\n"
	return files
}

func timeoutsAt(ds []diag.Diagnostic, suffix string) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ds {
		if d.Rule == "timeout-too-long" && strings.HasSuffix(filepath.ToSlash(d.File), suffix) {
			out = append(out, d)
		}
	}
	return out
}

// Two overlays use one base: a finding both builds have is reported once
// and names no unit; one only the dev build has names it.
func TestSharedBase(t *testing.T) {
	files := webhookBase(map[string]string{})
	files["dev/kustomization.yaml"] = "resources:\n- ../base\n"
	files["prod/kustomization.yaml"] = `resources:
- ../base
patches:
- target:
    kind: ValidatingWebhookConfiguration
  patch: |
    - op: replace
      path: /webhooks/0/timeoutSeconds
      value: 5
`
	root := testkit.Repo(t, files)
	for _, args := range [][]string{{root}, {filepath.Join(root, "base", "webhook.yaml")}} {
		res := run(t, args, source.Options{})
		got := timeoutsAt(res.Diagnostics, "base/webhook.yaml")
		if len(got) != 1 || got[0].Rule != "timeout-too-long" || len(got[0].Units) != 1 ||
			!strings.HasPrefix(got[0].Units[0], "kustomize build ") || !strings.HasSuffix(got[0].Units[0], "dev") {
			t.Errorf("%v: want timeout-too-long in base/webhook.yaml naming the dev build only:%s", args, messages(got))
		}
		if res.Configs != 2 {
			t.Errorf("%v: linted %d configurations, want one per overlay", args, res.Configs)
		}
	}
	// The prod patch line is reported when the folder is linted; naming
	// only the base does not report it (it is not in the base).
	res := run(t, []string{root}, source.Options{})
	for _, d := range res.Diagnostics {
		if d.Rule == "timeout-too-long" && strings.Contains(d.File, "prod") {
			t.Errorf("prod sets timeoutSeconds 5 and has no timeout finding: %s", dump([]diag.Diagnostic{d}))
		}
	}
	// With no difference between the overlays the finding names no unit.
	delete(files, "prod/kustomization.yaml")
	files["prod/kustomization.yaml"] = "resources:\n- ../base\n"
	root = testkit.Repo(t, files)
	res = run(t, []string{filepath.Join(root, "base", "webhook.yaml")}, source.Options{})
	got := timeoutsAt(res.Diagnostics, "base/webhook.yaml")
	if len(got) != 1 || strings.Contains(got[0].Message, "(in ") {
		t.Errorf("identical findings of two builds are not reported once:%s", messages(got))
	}
}

// A component and a patch file are linted through the overlay that uses
// them; the component is never built on its own.
func TestComponentsAndPatches(t *testing.T) {
	files := webhookBase(map[string]string{})
	files["components/strict/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: policy.yaml\n"
	files["components/strict/policy.yaml"] = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: policy\nwebhooks:\n- name: policy.example.com\n  failurePolicy: Sometimes\n"
	files["overlay/kustomization.yaml"] = "resources:\n- ../base\ncomponents:\n- ../components/strict\n"
	root := testkit.Repo(t, files)
	res := run(t, []string{filepath.Join(root, "components", "strict", "policy.yaml")}, source.Options{})
	got := find(res.Diagnostics, "policy-values", "components/strict/policy.yaml")
	if len(got) != 1 || got[0].Line != 7 || !strings.Contains(got[0].Origin, "kustomize build ") || !strings.Contains(got[0].Origin, "overlay (patch)") {
		t.Errorf("want the failurePolicy error on the component's patch line 7, through the overlay:%s", dump(res.Diagnostics))
	}
	if res.Configs != 1 {
		t.Errorf("linted %d configurations, want the overlay's one", res.Configs)
	}
}

// A base used only by an overlay that cannot build is linted as a root,
// beside the overlay's build error.
func TestBrokenOverlayPromotesBase(t *testing.T) {
	files := webhookBase(map[string]string{})
	files["dev/kustomization.yaml"] = "resources:\n- ../base\npatches:\n- path: written-by-make.yaml\n"
	root := testkit.Repo(t, files)
	res := run(t, []string{filepath.Join(root, "base", "webhook.yaml")}, source.Options{})
	if len(timeoutsAt(res.Diagnostics, "base/webhook.yaml")) != 1 || len(find(res.Diagnostics, rules.KustomizeBuildRule, "dev/kustomization.yaml")) != 1 {
		t.Errorf("want the base's finding and the overlay's build error:%s", dump(res.Diagnostics))
	}
}

// kubebuilder's base linted without its overlay: named on its own while
// config/default reads it, or with the entry that reads it commented out
// (fluid's config/default: `#- ../webhook`). The findings that depend on
// the overlay are info, with one note that says why it is a base, and no
// NotIn [system] fix is suggested.
func TestBaseWithoutOverlay(t *testing.T) {
	files := map[string]string{}
	for _, name := range []string{"kustomization.yaml", "kustomizeconfig.yaml", "manifests.yaml", "patch_manifests.yaml", "service.yaml"} {
		data, err := os.ReadFile(filepath.Join(kubebuilderDir, "webhook", name))
		if err != nil {
			t.Fatal(err)
		}
		files["config/webhook/"+name] = string(data)
	}
	files["config/default/kustomization.yaml"] = "namespace: project-system\nresources:\n- ../manager\n# uncomment to enable the webhook\n#- ../webhook\n"
	files["config/manager/kustomization.yaml"] = "resources:\n- cm.yaml\n"
	files["config/manager/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n"
	checkBase := func(res *lint.Result, by string) {
		t.Helper()
		notes := find(res.Diagnostics, rules.KustomizeBaseRule, "")
		if len(notes) != 1 || !strings.Contains(notes[0].Message, by) {
			t.Errorf("want one base note saying %q:%s", by, dump(res.Diagnostics))
		}
		for _, d := range res.Diagnostics {
			switch d.Rule {
			case "self-deadlock", "system-critical-scope":
				if d.Severity != diag.Info {
					t.Errorf("overlay-dependent finding not at info: %s", dump([]diag.Diagnostic{d}))
				}
				if strings.Contains(d.Message, "NotIn [system]") {
					t.Errorf("fix the namespace transformer would break: %s", d.Message)
				}
			}
		}
	}
	checkBase(run(t, []string{testkit.Repo(t, files)}, source.Options{}), "config/default/kustomization.yaml:5): ")
	// Named on its own in the kubebuilder tree, whose overlay reads it.
	checkBase(run(t, []string{filepath.Join(kubebuilderDir, "webhook")}, source.Options{}), "read by ")
	// Linted with the overlay, there is no base.
	res := run(t, []string{kubebuilderDir}, source.Options{})
	if len(find(res.Diagnostics, rules.KustomizeBaseRule, "")) != 0 {
		t.Errorf("base note with the overlay present:%s", dump(res.Diagnostics))
	}
}

// A root kustomization is deployed as built, whatever its names: an
// install overlay that leaves its Service named webhook-service in
// namespace system (kubebuilder's scaffold with no namespace: or
// namePrefix:) keeps its findings at their level.
func TestRootWithScaffoldNamesIsDeployed(t *testing.T) {
	files := map[string]string{}
	for _, name := range []string{"kustomization.yaml", "kustomizeconfig.yaml", "manifests.yaml", "patch_manifests.yaml", "service.yaml"} {
		data, err := os.ReadFile(filepath.Join(kubebuilderDir, "webhook", name))
		if err != nil {
			t.Fatal(err)
		}
		files["config/webhook/"+name] = string(data)
	}
	res := run(t, []string{testkit.Repo(t, files)}, source.Options{})
	if notes := find(res.Diagnostics, rules.KustomizeBaseRule, ""); len(notes) != 0 {
		t.Errorf("a root taken for a base:%s", dump(notes))
	}
	warned := false
	for _, d := range res.Diagnostics {
		if (d.Rule == "self-deadlock" || d.Rule == "system-critical-scope") && d.Severity == diag.Warning {
			warned = true
		}
	}
	if !warned {
		t.Errorf("want the root's findings at warning:%s", dump(res.Diagnostics))
	}
}

// units.entries is given, so it beats the graph: operator-sdk's
// config/default, which `make deploy` applies and config/manifests reads
// for the OLM bundle (argoproj-labs/argocd-operator), is deployed as built
// when named there, also when the whole tree is linted. Not named, it is
// a base of config/manifests.
func TestEntryReadByBundleIsDeployed(t *testing.T) {
	const tree = "../testdata/sources/olm-default"
	conv := func(res *lint.Result) []diag.Diagnostic {
		var out []diag.Diagnostic
		for _, d := range find(res.Diagnostics, "conversion-webhook", "webhook_in_argocds.yaml") {
			if strings.Contains(d.Message, "1 replica") {
				out = append(out, d)
			}
		}
		return out
	}
	res := run(t, []string{filepath.Join(tree, "config", "default")}, source.Options{})
	if c := conv(res); len(c) != 1 || c[0].Severity != diag.Info || len(find(res.Diagnostics, rules.KustomizeBaseRule, "")) != 1 {
		t.Fatalf("not named, config/default is a base of config/manifests:%s", dump(res.Diagnostics))
	}
	deployed := source.Options{Deployed: []string{filepath.Join(tree, "config", "default")}}
	res = run(t, []string{filepath.Join(tree, "config", "default")}, deployed)
	if c := conv(res); len(c) != 1 || c[0].Severity != diag.Warning || len(find(res.Diagnostics, rules.KustomizeBaseRule, "")) != 0 {
		t.Errorf("named in units.entries, config/default is deployed as built:%s", dump(res.Diagnostics))
	}
	res = run(t, []string{tree}, deployed)
	if c := conv(res); len(c) != 1 || c[0].Severity != diag.Warning || len(c[0].Units) != 1 || !strings.HasSuffix(filepath.ToSlash(c[0].Units[0]), "olm-default/config/default") {
		t.Errorf("linting the tree, config/default is built as deployed:%s", dump(res.Diagnostics))
	}
}

// kustomize's deprecation warnings become one info finding on the
// kustomization, and nothing is printed on stderr.
func TestKustomizeDeprecationsCaptured(t *testing.T) {
	files := webhookBase(map[string]string{})
	files["old/kustomization.yaml"] = "bases:\n- ../base\ncommonLabels:\n  team: a\n"
	root := testkit.Repo(t, files)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	res, lintErr := source.Lint([]string{root}, nil, "", lint.Options{Jobs: 1}, source.Options{})
	os.Stderr = saved
	_ = w.Close()
	leaked, _ := io.ReadAll(r)
	if lintErr != nil {
		t.Fatal(lintErr)
	}
	if len(leaked) > 0 {
		t.Errorf("kustomize wrote to stderr: %q", leaked)
	}
	got := find(res.Diagnostics, rules.KustomizeBuildRule, "old/kustomization.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || got[0].Line != 1 || !strings.Contains(got[0].Message, "'bases', 'commonLabels'") {
		t.Errorf("want one info finding naming both deprecated fields:%s", dump(res.Diagnostics))
	}
}

const chartWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: {{ .Release.Name }}-policy
  annotations:
    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/serving-cert
webhooks:
- name: policy.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: {{ .Values.failurePolicy }}
  timeoutSeconds: {{ .Values.timeout | toJson }}
  clientConfig:
    service:
      name: {{ .Release.Name }}-policy
      namespace: {{ .Release.Namespace }}
  rules:
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["deployments"]
`

// A chart with a file:// dependency renders it offline; a file of the
// dependency is linted through the chart that uses it. A missing remote
// dependency is skipped with one note, a disabled one silently, and the
// rest of the chart is still linted; --set and --set-string apply.
func TestChartDependencies(t *testing.T) {
	root := testkit.Repo(t, map[string]string{
		"charts/app/Chart.yaml": `apiVersion: v2
name: app
version: 0.1.0
dependencies:
- name: lib
  version: 0.1.0
  repository: file://../lib
- name: remote
  version: 1.0.0
  repository: https://charts.example.com
- name: optional
  version: 1.0.0
  repository: oci://ghcr.io/example/charts
  condition: optional.enabled
`,
		"charts/app/values.yaml":           "failurePolicy: Fail\noptional:\n  enabled: false\n",
		"charts/app/templates/NOTES.txt":   "installed\n",
		"charts/lib/Chart.yaml":            "apiVersion: v2\nname: lib\nversion: 0.1.0\n",
		"charts/lib/values.yaml":           "failurePolicy: Fail\ntimeout: 5\n",
		"charts/lib/templates/policy.yaml": chartWebhook,
	})
	lib := filepath.Join(root, "charts", "lib", "templates", "policy.yaml")
	res := run(t, []string{lib}, source.Options{Set: []string{"lib.failurePolicy=Sometimes"}})
	got := find(res.Diagnostics, "policy-values", "lib/templates/policy.yaml")
	if len(got) != 1 || got[0].Line != 11 || !strings.Contains(got[0].Origin, "helm template ") || !strings.Contains(got[0].Origin, "charts/app --set lib.failurePolicy=Sometimes") {
		t.Errorf("want the --set failurePolicy error in the dependency's template, rendered through app:%s", dump(res.Diagnostics))
	}
	for _, d := range res.Diagnostics {
		if d.Rule == rules.HelmTemplateRule {
			t.Errorf("chart template warned as unrendered: %s", dump([]diag.Diagnostic{d}))
		}
	}
	res = run(t, []string{root}, source.Options{})
	notes := find(res.Diagnostics, rules.HelmRenderRule, "app/Chart.yaml")
	if len(notes) != 1 || notes[0].Severity != diag.Info || notes[0].Line != 8 || !strings.Contains(notes[0].Message, "dependency remote (https://charts.example.com)") {
		t.Errorf("want one info note on the missing remote dependency at line 8:%s", dump(res.Diagnostics))
	}
	if res.Configs != 1 {
		t.Errorf("linted %d configurations, want the dependency's one", res.Configs)
	}
	// --set 40 is a number (out of range), --set-string 40 a string where
	// an integer belongs.
	res = run(t, []string{root}, source.Options{Set: []string{"lib.timeout=40"}})
	if len(find(res.Diagnostics, "timeout-range", "lib/templates/policy.yaml")) != 1 {
		t.Errorf("--set lib.timeout=40 not applied as a number:%s", dump(res.Diagnostics))
	}
	res = run(t, []string{root}, source.Options{SetString: []string{"lib.timeout=40"}})
	if len(find(res.Diagnostics, "schema", "lib/templates/policy.yaml")) != 1 {
		t.Errorf("--set-string lib.timeout=40 not applied as a string:%s", dump(res.Diagnostics))
	}
}

// The configuration's charts: entries render a chart with their own
// values; two entries lint the chart twice, and a finding only one has
// names it.
func TestChartConfigs(t *testing.T) {
	root := testkit.Repo(t, map[string]string{
		"chart/Chart.yaml":            "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"chart/values.yaml":           "failurePolicy: Fail\ntimeout: 5\n",
		"chart/values-bad.yaml":       "failurePolicy: Sometimes\n",
		"chart/templates/policy.yaml": chartWebhook,
	})
	chart := filepath.Join(root, "chart")
	res := run(t, []string{root}, source.Options{ChartConfigs: []source.Chart{
		{Dir: chart, ReleaseName: "prod", Namespace: "prod-system"},
		{Dir: chart, ValuesFiles: []string{filepath.Join(chart, "values-bad.yaml")}},
	}})
	got := find(res.Diagnostics, "policy-values", "templates/policy.yaml")
	if len(got) != 1 || len(got[0].Units) != 1 || !strings.Contains(got[0].Units[0], "--values ") || !strings.Contains(got[0].Units[0], "values-bad.yaml") {
		t.Errorf("want the failurePolicy error naming the values-bad.yaml render:%s", dump(res.Diagnostics))
	}
	if res.Configs != 2 {
		t.Errorf("linted %d configurations, want one per entry", res.Configs)
	}
}

func messages(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("\n  " + d.Message)
		if len(d.Units) > 0 {
			b.WriteString(" (only in " + strings.Join(d.Units, "; ") + ")")
		}
	}
	return b.String()
}
