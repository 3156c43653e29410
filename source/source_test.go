package source_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
	"github.com/webhooklint/webhooklint/source/helm"
)

const (
	kubebuilderDir = "../testdata/sources/kubebuilder/config"
	chartDir       = "../testdata/sources/helm/webhook-chart"
)

func run(t *testing.T, args []string, so source.Options) *lint.Result {
	t.Helper()
	res, err := source.Lint(args, nil, "", lint.Options{Jobs: 1}, so)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Internal) > 0 {
		t.Fatalf("internal error: %v", res.Internal[0])
	}
	return res
}

// find returns the diagnostics of a rule whose file ends in suffix.
func find(ds []diag.Diagnostic, rule, suffix string) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ds {
		if d.Rule == rule && strings.HasSuffix(filepath.ToSlash(d.File), suffix) {
			out = append(out, d)
		}
	}
	return out
}

func dump(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("\n  " + d.File + ":" + itoa(d.Line) + ":" + itoa(d.Column) + " [" + d.Rule + "] " + d.Path + " " + d.Origin)
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// A kubebuilder config/ tree is linted as `kustomize build config/default`
// produces it, and each finding lands on the patch line that set the
// field.
func TestKubebuilderTree(t *testing.T) {
	res := run(t, []string{kubebuilderDir}, source.Options{})
	want := []struct {
		rule, file string
		line, col  int
		path       string
	}{
		{"schema", "default/webhook_failurepolicy_patch.yaml", 8, 3, "webhooks[0].timeoutSecond"},
		{"policy-values", "default/webhook_failurepolicy_patch.yaml", 7, 18, "webhooks[0].failurePolicy"},
		{"timeout-range", "default/webhook_timeout_patch.json", 2, 68, "webhooks[0].timeoutSeconds"},
		{"label-selector", "webhook/patch_manifests.yaml", 10, 17, "webhooks[1].namespaceSelector.matchExpressions[0].operator"},
		{"policy-values", "default/kustomization.yaml", 29, 14, "webhooks[0].reinvocationPolicy"},
	}
	for _, w := range want {
		if _, ok := rules.Lookup(w.rule); !ok {
			continue // the rule is not on this branch yet
		}
		got := find(res.Diagnostics, w.rule, w.file)
		ok := false
		for _, d := range got {
			if d.Line == w.line && d.Column == w.col && d.Path == w.path && strings.Contains(d.Origin, "kustomize build") && strings.Contains(d.Origin, "(patch)") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("want %s at %s:%d:%d (%s); got%s", w.rule, w.file, w.line, w.col, w.path, dump(res.Diagnostics))
		}
	}
	for _, d := range res.Diagnostics {
		if strings.Contains(d.File, "(built)") || !strings.Contains(filepath.ToSlash(d.File), "kubebuilder/config/") {
			t.Errorf("finding not mapped back to a source file: %s", dump([]diag.Diagnostic{d}))
		}
		if strings.Contains(d.Message, "Required value") && strings.Contains(d.File, "patch") {
			t.Errorf("a patch is checked as a complete object: %s", dump([]diag.Diagnostic{d}))
		}
	}
	// The built objects are what was linted: 2 configurations, with the
	// overlay's name prefix.
	if res.Configs != 2 {
		t.Errorf("linted %d configurations, want the 2 built ones", res.Configs)
	}
	for _, d := range res.Diagnostics {
		if d.Object != nil && rules.IsWebhookKind(d.Object.APIVersion, d.Object.Kind) && !strings.HasPrefix(d.Object.Name, "project-") {
			t.Errorf("finding on an unbuilt object: %s %s", d.Object.Name, dump([]diag.Diagnostic{d}))
		}
	}
}

// A patch passed on its own (pre-commit) is linted through the build that
// uses it, and only its own findings are reported: its typo and bad
// value, no missing required fields.
func TestPatchAlone(t *testing.T) {
	res := run(t, []string{filepath.Join(kubebuilderDir, "default", "webhook_failurepolicy_patch.yaml")}, source.Options{})
	var rulesSeen []string
	for _, d := range res.Diagnostics {
		rulesSeen = append(rulesSeen, d.Rule+"@"+itoa(d.Line))
		if !strings.Contains(d.Origin, "kustomize build ") || !strings.HasSuffix(d.Origin, "(patch)") {
			t.Errorf("origin does not say the finding comes from the patch in the build: %q", d.Origin)
		}
	}
	slices.Sort(rulesSeen)
	want := []string{"schema@8"}
	if _, ok := rules.Lookup("policy-values"); ok {
		want = []string{"policy-values@7", "schema@8"}
	}
	if !slices.Equal(rulesSeen, want) {
		t.Errorf("got %v, want %v:%s", rulesSeen, want, dump(res.Diagnostics))
	}
}

// A partial object nobody references is recognized by its shape.
func TestPartialByShape(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "patch.yaml")
	if err := os.WriteFile(f, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- name: mpod.kb.io
  timeoutSecond: 3
  namespaceSelector:
    matchExpressions:
    - key: control-plane
      operator: DoesNotExist
`), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, []string{f}, source.Options{})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Rule != "schema" || res.Diagnostics[0].Line != 7 {
		t.Errorf("want only the typo on line 7:%s", dump(res.Diagnostics))
	}
}

// Folders with a kustomization are built; their patch files and the
// bases' own kustomizations are not linted again on their own.
func TestKustomizationFolderNotLintedTwice(t *testing.T) {
	res := run(t, []string{filepath.Join(kubebuilderDir, "webhook", "patch_manifests.yaml"), kubebuilderDir}, source.Options{})
	seen := map[string]int{}
	for _, d := range res.Diagnostics {
		seen[d.File+":"+itoa(d.Line)+":"+d.Rule+":"+d.Path]++
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s reported %d times", k, n)
		}
	}
	if res.Configs != 2 {
		t.Errorf("linted %d configurations, want 2 (config/default only)", res.Configs)
	}
}

func TestRemoteBase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- https://github.com/example/operator//config/default?ref=v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, []string{dir}, source.Options{})
	got := find(res.Diagnostics, rules.KustomizeBuildRule, "kustomization.yaml")
	if len(got) != 1 || got[0].Line != 2 || !strings.Contains(got[0].Message, "offline") || got[0].Severity != diag.Warning {
		t.Errorf("want one kustomize-build warning on line 2:%s", dump(res.Diagnostics))
	}
}

// An entry whose build needs a remote base says so once and still lints
// the local base it reads, as a base: its own errors are reported. The
// notice is info, as webhooks were checked, and the run counts it.
func TestRemoteEntryLintsLocalBases(t *testing.T) {
	files := webhookBase(map[string]string{})
	files["base/webhook.yaml"] = strings.Replace(files["base/webhook.yaml"], "timeoutSeconds: 30", "timeoutSeconds: 31", 1)
	files["prod/kustomization.yaml"] = "resources:\n- ../base\n- https://github.com/example/operator//config/default?ref=v1\n"
	root := testkit.Repo(t, files)
	res := run(t, []string{filepath.Join(root, "prod")}, source.Options{})
	if got := find(res.Diagnostics, rules.KustomizeBuildRule, "prod/kustomization.yaml"); len(got) != 1 || got[0].Severity != diag.Info || res.Unchecked != 1 {
		t.Errorf("want one kustomize-build info on the remote reference, 1 source not checked (got %d):%s", res.Unchecked, dump(res.Diagnostics))
	}
	if got := find(res.Diagnostics, "timeout-range", "base/webhook.yaml"); len(got) != 1 || got[0].Severity != diag.Error {
		t.Errorf("want the base's timeout error:%s", dump(res.Diagnostics))
	}
}

// The chart renders with its default values or with a values file, and
// findings point into the template.
func TestHelmChartValues(t *testing.T) {
	configs := func(opts helm.Options) []*rules.Config {
		c, err := helm.Render(chartDir, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []*rules.Config
		for _, tpl := range c.Templates {
			for _, d := range manifest.Parse(tpl.File, tpl.Rendered).Docs {
				if d.Config != nil {
					out = append(out, d.Config)
				}
			}
		}
		return out
	}
	def := configs(helm.Options{})
	strict := configs(helm.Options{ValuesFiles: []string{filepath.Join(chartDir, "values-strict.yaml")}})
	set := configs(helm.Options{Set: []string{"webhook.failurePolicy=Fail"}})
	if len(set) != 1 || set[0].Webhooks[0].EffectiveFailurePolicy() != "Fail" {
		t.Errorf("--set failurePolicy=Fail not applied: %v", set)
	}
	if len(def) != 1 || len(strict) != 1 {
		t.Fatalf("rendered %d and %d configurations, want 1 each", len(def), len(strict))
	}
	w0, s0 := def[0].Webhooks[0], strict[0].Webhooks[0]
	if w0.EffectiveFailurePolicy() != "Ignore" || w0.NamespaceSelector == nil || len(w0.NamespaceSelector.MatchExpressions) != 1 {
		t.Errorf("default values: failurePolicy %s, namespaceSelector %v", w0.EffectiveFailurePolicy(), w0.NamespaceSelector)
	}
	if s0.EffectiveFailurePolicy() != "Fail" || s0.NamespaceSelector != nil {
		t.Errorf("values-strict.yaml: failurePolicy %s, namespaceSelector %v", s0.EffectiveFailurePolicy(), s0.NamespaceSelector)
	}
}

func TestHelmFindingsPointIntoTemplates(t *testing.T) {
	res := run(t, nil, source.Options{Charts: []string{chartDir}, ValuesFiles: []string{filepath.Join(chartDir, "values-broken.yaml")}})
	schema := find(res.Diagnostics, "schema", "templates/webhook.yaml")
	if len(schema) != 1 || schema[0].Line != 16 || schema[0].Column != 19 || !strings.Contains(schema[0].Origin, "# Source: webhook-chart/templates/webhook.yaml") ||
		!strings.Contains(schema[0].Origin, "template action") {
		t.Errorf("timeoutSeconds type error not traced to templates/webhook.yaml:16:19:%s", dump(res.Diagnostics))
	}
	ph := find(res.Diagnostics, rules.PlaceholderRule, "templates/webhook.yaml")
	if len(ph) != 1 || ph[0].Line != 23 || !strings.Contains(ph[0].Message, "${CA_BUNDLE}") {
		t.Errorf("caBundle placeholder not reported at templates/webhook.yaml:23:%s", dump(res.Diagnostics))
	}
	// The placeholder is not also a base64 error.
	for _, d := range res.Diagnostics {
		if d.Path == "webhooks[0].clientConfig.caBundle" && d.Rule != rules.PlaceholderRule {
			t.Errorf("placeholder restated by %s: %s", d.Rule, d.Message)
		}
	}
}

// A chart folder met in a walk is rendered; its templates are not linted
// as YAML. A template passed on its own is linted through its chart too:
// no helm-template finding.
func TestChartFolderAndLoneTemplate(t *testing.T) {
	res := run(t, []string{filepath.Dir(chartDir)}, source.Options{})
	for _, d := range res.Diagnostics {
		if d.Rule == rules.YAMLSyntaxRule || d.Rule == rules.HelmTemplateRule {
			t.Errorf("chart folder linted as files:%s", dump([]diag.Diagnostic{d}))
		}
	}
	if res.Configs != 1 {
		t.Errorf("linted %d configurations, want the rendered one", res.Configs)
	}
	res = run(t, []string{filepath.Join(chartDir, "templates", "webhook.yaml")}, source.Options{})
	if res.Configs != 1 {
		t.Errorf("linted %d configurations, want the rendered one", res.Configs)
	}
	for _, d := range res.Diagnostics {
		if d.Rule == rules.YAMLSyntaxRule || d.Rule == rules.HelmTemplateRule {
			t.Errorf("lone template linted as a file:%s", dump([]diag.Diagnostic{d}))
		}
	}
}

func TestPlaceholderSeverity(t *testing.T) {
	f := "../testdata/rules/placeholder/placeholder.yaml"
	res, err := source.Lint([]string{f}, nil, "", lint.Options{Severity: map[string]diag.Severity{rules.PlaceholderRule: diag.Error}}, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range res.Diagnostics {
		if d.Rule == rules.PlaceholderRule {
			n++
			if d.Severity != diag.Error {
				t.Errorf("severity %s, want error", d.Severity)
			}
		}
		if d.Rule != rules.PlaceholderRule {
			t.Errorf("placeholder restated or other finding: %s [%s]", d.Message, d.Rule)
		}
	}
	if n != 15 {
		t.Errorf("%d placeholder findings, want 15:%s", n, dump(res.Diagnostics))
	}
}

// Naming a kustomization file (a changed file in a pull request) names
// the builds that read it: their findings are reported wherever they are
// located, since a change to the kustomization can cause any of them.
func TestKustomizationFileArgument(t *testing.T) {
	res := run(t, []string{filepath.Join(kubebuilderDir, "default", "kustomization.yaml")}, source.Options{})
	if res.Configs != 2 || len(find(res.Diagnostics, "policy-values", "default/kustomization.yaml")) != 1 ||
		len(find(res.Diagnostics, "schema", "default/webhook_failurepolicy_patch.yaml")) != 1 ||
		len(find(res.Diagnostics, "label-selector", "webhook/patch_manifests.yaml")) != 1 {
		t.Errorf("configs %d:%s", res.Configs, dump(res.Diagnostics))
	}
	// The base's kustomization file names the root that reads it.
	res = run(t, []string{filepath.Join(kubebuilderDir, "webhook", "kustomization.yaml")}, source.Options{})
	if res.Configs != 2 || len(find(res.Diagnostics, "policy-values", "default/kustomization.yaml")) != 1 {
		t.Errorf("base kustomization: configs %d:%s", res.Configs, dump(res.Diagnostics))
	}
}

// A folder named that is a kustomization is built as named, even when an
// overlay reads it: `webhooklint config/webhook` is `kustomize build
// config/webhook`.
func TestKustomizationFolderArgument(t *testing.T) {
	res := run(t, []string{filepath.Join(kubebuilderDir, "webhook")}, source.Options{})
	if res.Configs != 2 || len(find(res.Diagnostics, "policy-values", "default/kustomization.yaml")) != 0 ||
		len(find(res.Diagnostics, "label-selector", "webhook/patch_manifests.yaml")) != 1 {
		t.Errorf("configs %d:%s", res.Configs, dump(res.Diagnostics))
	}
	// config/default reports its whole build: bases included.
	res = run(t, []string{filepath.Join(kubebuilderDir, "default")}, source.Options{})
	if len(find(res.Diagnostics, "label-selector", "webhook/patch_manifests.yaml")) != 1 {
		t.Errorf("config/default misses its base's finding:%s", dump(res.Diagnostics))
	}
}

// A build error points at the kustomization entry it is about.
func TestKustomizeBuildErrorLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- a.yaml\n- nothere.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, []string{dir}, source.Options{})
	got := find(res.Diagnostics, rules.KustomizeBuildRule, "kustomization.yaml")
	if len(got) != 1 || got[0].Line != 3 || got[0].Column != 3 || !strings.Contains(got[0].Message, "nothere.yaml") {
		t.Errorf("want one kustomize-build finding at 3:3:%s", dump(res.Diagnostics))
	}
}

// A chart whose template takes the replica count from values is judged on
// the values rendered: one replica is the installer's choice, reported as
// info, not the chart's mistake. It is located at the template line that
// takes replicas from the values, with the webhook as related location.
func TestHelmReplicasFromValues(t *testing.T) {
	res := run(t, nil, source.Options{Charts: []string{chartDir}, ValuesFiles: []string{filepath.Join(chartDir, "values-strict.yaml")}})
	found := find(res.Diagnostics, "backend-availability", "templates/deployment.yaml")
	if len(found) != 1 || found[0].Severity != diag.Info || !strings.Contains(found[0].Message, "1 replica (chart value); run 2+ replicas") {
		t.Fatalf("want one info backend-availability finding naming the chart values:%s", dump(res.Diagnostics))
	}
	// Related: the webhook's template, then the values key to change.
	r := found[0].Related
	if len(r) != 2 || !strings.HasSuffix(filepath.ToSlash(r[0].File), "templates/webhook.yaml") || r[0].Line == 0 {
		t.Fatalf("want the webhook's template and the values key as related locations: %+v", r)
	}
	if !strings.HasSuffix(filepath.ToSlash(r[1].File), "webhook-chart/values.yaml") || r[1].Line != 14 || r[1].Message != "chart value replicas is set here" {
		t.Errorf("want values.yaml:14 (replicas) as related location: %+v", r[1])
	}
}

// A chart that generates its CA at every render without lookup
// (aws-load-balancer-controller before #2473) gets a caBundle that changes
// at every upgrade: rendering it twice shows it. The same chart reusing
// its Secret through lookup keeps it at helm upgrade, but not where a
// render has no cluster (helm template, Argo CD: info); with its lookup
// turned off by a value (keepTLSSecret: false), it does not keep it.
func TestHelmCAGeneratedAtEveryRender(t *testing.T) {
	res := run(t, []string{"../testdata/sources/helm-cases/gen-ca"}, source.Options{})
	found := find(res.Diagnostics, "ca-bundle", "gen-ca/templates/webhook.yaml")
	if len(found) != 1 || found[0].Severity != diag.Warning || found[0].Line != 8 ||
		!strings.Contains(found[0].Message, "caBundle is regenerated at each render") {
		t.Errorf("want one ca-bundle warning on the caBundle line:%s", dump(res.Diagnostics))
	}
	res = run(t, []string{"../testdata/sources/helm-cases/gen-ca-lookup"}, source.Options{})
	if found := find(res.Diagnostics, "ca-bundle", ".yaml"); len(found) != 1 || found[0].Severity != diag.Info ||
		!strings.Contains(found[0].Message, "renders without a cluster (helm template, Argo CD) make a new CA") {
		t.Errorf("the chart reuses its Secret through lookup, only at helm upgrade:%s", dump(found))
	}
	res = run(t, []string{"../testdata/sources/helm-cases/gen-ca-lookup-off"}, source.Options{})
	if found := find(res.Diagnostics, "ca-bundle", ".yaml"); len(found) != 1 || found[0].Severity != diag.Warning ||
		!strings.Contains(found[0].Message, "new CA at every helm upgrade: the chart's lookup does not keep it") {
		t.Errorf("the chart's lookup is off by default:%s", dump(found))
	}
}

// A webhook written in a named template (istio's
// validatingwebhookconfiguration.yaml.tpl, included by another template)
// is located at the field's line in the define block, not at the
// including line.
func TestHelmFindingInNamedTemplate(t *testing.T) {
	res := run(t, []string{"../testdata/sources/helm-cases/named-template"}, source.Options{})
	ca := find(res.Diagnostics, "ca-bundle", "templates/validation-template.yaml.tpl")
	order := find(res.Diagnostics, "review-versions-order", "templates/validation-template.yaml.tpl")
	if len(ca) != 1 || ca[0].Line != 18 || ca[0].Column != 17 || len(order) != 1 || order[0].Line != 33 {
		t.Errorf("want ca-bundle at 18:17 and review-versions-order on line 33 of the named template:%s", dump(res.Diagnostics))
	}
	if inc := find(res.Diagnostics, "ca-bundle", "templates/validatingwebhookconfiguration.yaml"); len(inc) != 0 {
		t.Errorf("a finding stayed on the including template:%s", dump(inc))
	}
}

// A template that includes one a failure removed (kargo's API Deployment
// takes a checksum of its Secret, which fails without a value) fails only
// because of that removal: one finding, the value to give, which names the
// template left out with it (info: neither writes a webhook configuration);
// with the value given, none.
func TestHelmIncludeOfFailedTemplate(t *testing.T) {
	const dir = "../testdata/sources/helm-cases/include-failed"
	res := run(t, []string{dir}, source.Options{})
	found := find(res.Diagnostics, "helm-render", ".yaml")
	if len(found) != 1 || found[0].Severity != diag.Info || !strings.HasSuffix(filepath.ToSlash(found[0].File), "templates/secret.yaml") ||
		found[0].Line != 9 || !strings.Contains(found[0].Message, "but templates/deployment.yaml, which includes it") {
		t.Fatalf("want one info finding at the fail, naming the template that includes it:%s", dump(found))
	}
	res = run(t, []string{dir}, source.Options{Set: []string{"api.adminAccount.passwordHash=x"}})
	if found := find(res.Diagnostics, "helm-render", ".yaml"); len(found) != 0 {
		t.Errorf("with the value given the chart renders:%s", dump(found))
	}
}

// A clusterctl template with a variable alone on a line where YAML is
// expected (cluster-api-provider-metal3's ${CTLPLANE_KUBEADM_EXTRA_CONFIG})
// is an unrendered template, not invalid YAML; a document that parses
// with such a line (a plain scalar's continuation) is linted as it is.
func TestEnvsubstBlockPlaceholder(t *testing.T) {
	res := run(t, []string{"../testdata/sources/clusterctl-template"}, source.Options{})
	if syn := find(res.Diagnostics, "yaml-syntax", ".yaml"); len(syn) != 0 {
		t.Errorf("a placeholder line taken for invalid YAML:%s", dump(syn))
	}
	tpl := find(res.Diagnostics, "helm-template", "cluster-template.yaml")
	if len(tpl) != 1 || tpl[0].Line != 15 || !strings.Contains(tpl[0].Message, "`${CTLPLANE_KUBEADM_EXTRA_CONFIG}`") {
		t.Errorf("want one unrendered-template finding at the placeholder line:%s", dump(res.Diagnostics))
	}
	if se := find(res.Diagnostics, "side-effects-value", "cluster-template.yaml"); len(se) != 1 || se[0].Line != 35 {
		t.Errorf("the document that parses was not linted:%s", dump(res.Diagnostics))
	}
}

// An unrendered template that writes nothing the rules judge (capm3's
// clusterctl template of a workload cluster), or is no object at all, or a
// fragment, is info, saying so; the same
// template writing a webhook configuration stays a warning. A templated
// Service is a backend only when a webhook of its unit may call it.
func TestUnrenderedTemplateWritesNoWebhook(t *testing.T) {
	level := func(args ...string) (diag.Severity, string) {
		t.Helper()
		res := run(t, args, source.Options{})
		tpl := find(res.Diagnostics, rules.HelmTemplateRule, "")
		if len(tpl) != 1 {
			t.Fatalf("want one helm-template finding:%s", dump(res.Diagnostics))
		}
		return tpl[0].Severity, tpl[0].Message
	}
	if sev, msg := level("../testdata/sources/clusterctl-no-webhook"); sev != diag.Info || !strings.HasSuffix(msg, "; no webhook or policy in it") {
		t.Errorf("a template of a workload cluster: got %v %q, want info saying it holds no webhook", sev, msg)
	}
	if sev, msg := level("../testdata/sources/clusterctl-webhook"); sev != diag.Warning || strings.Contains(msg, "no webhook") {
		t.Errorf("a template writing a webhook configuration: got %v %q, want a warning", sev, msg)
	}
	// A program's own configuration (top-level keys none of apiVersion,
	// kind, metadata; only if/range actions at the top) is no object; one
	// action at the top level that may write keys (an include) makes it
	// one again.
	if sev, msg := level("../testdata/sources/embedded-config"); sev != diag.Info || !strings.HasSuffix(msg, "; no webhook or policy in it") {
		t.Errorf("an embedded configuration: got %v %q, want info saying it holds no webhook", sev, msg)
	}
	cfg, err := os.ReadFile("../testdata/sources/embedded-config/query-proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	included := testkit.Tree(t, map[string]string{"x.yaml": strings.Replace(string(cfg), "listen:", "{{ include \"header\" . }}\nlisten:", 1)})
	if sev, _ := level(included); sev != diag.Warning {
		t.Errorf("a template whose top-level include may write an object: got %v, want a warning", sev)
	}
	// A header and a footer joined by a build: their blocks do not
	// balance, so neither is applied as it is; the header alone, its if
	// closed, is a template again.
	frag := run(t, []string{"../testdata/sources/template-fragments"}, source.Options{})
	parts := find(frag.Diagnostics, rules.HelmTemplateRule, "")
	if len(parts) != 2 || parts[0].Severity != diag.Info || parts[1].Severity != diag.Info ||
		parts[0].Message != "unrendered template fragment: its blocks open or close in another file; lint what a build joins it into" {
		t.Errorf("want two info helm-template findings naming the fragments:%s", dump(frag.Diagnostics))
	}
	header, err := os.ReadFile("../testdata/sources/template-fragments/crd.header.yaml")
	if err != nil {
		t.Fatal(err)
	}
	whole := testkit.Tree(t, map[string]string{"crd.yaml": string(header) + "{{- end }}\n"})
	if sev, _ := level(whole); sev != diag.Warning {
		t.Errorf("the header with its end: got %v, want a warning", sev)
	}
	dir := t.TempDir()
	service := "apiVersion: v1\nkind: Service\nmetadata:\n  name: ${NAME}\nspec:\n${PORTS}\n"
	if err := os.WriteFile(filepath.Join(dir, "service.yaml"), []byte(service), 0o644); err != nil {
		t.Fatal(err)
	}
	if sev, _ := level(dir); sev != diag.Info {
		t.Errorf("a templated Service no webhook calls: got %v, want info", sev)
	}
	data, err := os.ReadFile("../testdata/sources/clusterctl-template/cluster-template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, webhook, _ := strings.Cut(string(data), "---\n")
	if err := os.WriteFile(filepath.Join(dir, "webhook.yaml"), []byte(webhook), 0o644); err != nil {
		t.Fatal(err)
	}
	if sev, _ := level(dir); sev != diag.Warning {
		t.Errorf("a templated Service next to a webhook configuration: got %v, want a warning", sev)
	}
}

// A timeoutSeconds the chart's values.yaml defaults to is the installer's
// choice (cert-manager documents its 30 s): timeout-too-long is info,
// and says so. One the user passes (--set) is the deployment's: a
// warning naming it.
func TestHelmTimeoutFromValues(t *testing.T) {
	chart := filepath.Join(t.TempDir(), "webhook-chart")
	if err := os.CopyFS(chart, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	values := filepath.Join(chart, "values.yaml")
	data, err := os.ReadFile(values)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, bytes.Replace(data, []byte("timeoutSeconds: 5"), []byte("timeoutSeconds: 30"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, nil, source.Options{Charts: []string{chart}, ValuesFiles: []string{filepath.Join(chart, "values-strict.yaml")}})
	found := find(res.Diagnostics, "timeout-too-long", "templates/webhook.yaml")
	if len(found) != 1 || found[0].Severity != diag.Info || !strings.Contains(found[0].Message, "timeoutSeconds 30 (chart value)") {
		t.Errorf("want one info timeout-too-long finding naming the chart values:%s", dump(res.Diagnostics))
	}
	// The other end, the same table: timeout-too-short, given by the user.
	res = run(t, nil, source.Options{Charts: []string{chartDir}, ValuesFiles: []string{filepath.Join(chartDir, "values-strict.yaml")},
		Set: []string{"webhook.timeoutSeconds=1"}})
	found = find(res.Diagnostics, "timeout-too-short", "templates/webhook.yaml")
	if len(found) != 1 || found[0].Severity != diag.Warning || !strings.Contains(found[0].Message, "timeoutSeconds 1 (--set webhook.timeoutSeconds=1)") {
		t.Errorf("want one timeout-too-short warning naming the --set:%s", dump(res.Diagnostics))
	}
}

// A folder whose texts show no judged kind is parsed without cross-object
// data; when the guess is wrong (a kind spelled with an escape), the folder
// is parsed again in full and its findings are those of the plain spelling,
// the ones that depend on the other files' objects (the Deployment the
// webhook blocks, located in backend.yaml) included.
func TestFolderParsedAloneWhenGuessMisses(t *testing.T) {
	findings := func(dir string) []string {
		var out []string
		for _, d := range run(t, []string{filepath.Join("../testdata/alone", dir)}, source.Options{}).Diagnostics {
			out = append(out, filepath.Base(d.File)+":"+itoa(d.Line)+":"+itoa(d.Column)+" ["+d.Rule+"] "+d.Message)
		}
		return out
	}
	plain, escaped := findings("plain"), findings("escaped")
	if !slices.ContainsFunc(plain, func(s string) bool { return strings.HasPrefix(s, "backend.yaml:") }) ||
		!slices.ContainsFunc(plain, func(s string) bool { return strings.Contains(s, "[self-deadlock]") }) {
		t.Fatalf("the fixture lost its cross-object findings: %q", plain)
	}
	if !slices.Equal(plain, escaped) {
		t.Errorf("escaped kind: got\n%q\nwant\n%q", escaped, plain)
	}
}

// Overlays of one base (dev and prod) locate their findings in the base's
// files, which the run parses for positions once for both.
func TestOverlaysShareTheirBase(t *testing.T) {
	res := run(t, []string{"../testdata/sources/overlays"}, source.Options{})
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, filepath.ToSlash(d.File)+":"+itoa(d.Line)+" "+d.Rule)
	}
	want := []string{
		"../testdata/sources/overlays/base/webhook.yaml:10 timeout-range",
		"../testdata/sources/overlays/base/webhook.yaml:13 system-critical-scope",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// lines renders findings as file:line:col: [rule] message, the way a reader
// compares them.
func lines(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, filepath.ToSlash(d.File)+":"+itoa(d.Line)+":"+itoa(d.Column)+": ["+d.Rule+"] "+d.Message)
	}
	return out
}

// An overlay over a base that cannot build reports the base's error once,
// in one line at the entry of the base that fails, and lints the base's
// files one by one as the message says: whether the overlay is named, its
// kustomization file, or the folder of both (where the base is a root).
func TestOverlayOverABaseThatCannotBuild(t *testing.T) {
	t.Chdir("../testdata/sources/broken-base")
	want := []string{
		"base/kustomization.yaml:6:9: [kustomize-build] patches: 'missing-patch.yaml' does not exist; its files are linted alone",
		`base/webhook.yaml:8:16: [side-effects-value] webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun" (also causes dry-run-side-effects)`,
	}
	for _, args := range [][]string{{"overlay"}, {"."}, {"overlay", "base"}} {
		if got := lines(run(t, args, source.Options{}).Diagnostics); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", args, got, want)
		}
	}
}

// A kustomization that is not YAML is one finding, at the line and column
// the YAML parser means (its message says one line less), with the path
// as typed: not also a yaml-syntax finding when the file is linted one by
// one.
func TestKustomizationSyntaxErrorIsOneFinding(t *testing.T) {
	t.Chdir("../testdata/sources/bad-kustomization")
	want := []string{
		"app/kustomization.yaml:6:2: [kustomize-build] invalid YAML: did not find expected key; its files are linted alone",
		`app/webhook.yaml:8:16: [side-effects-value] webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun" (also causes dry-run-side-effects)`,
	}
	for _, args := range [][]string{{"app"}, {"."}, {"app/kustomization.yaml", "app/webhook.yaml"}} {
		if got := lines(run(t, args, source.Options{}).Diagnostics); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", args, got, want)
		}
	}
}
