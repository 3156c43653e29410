package analyzer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// runOn runs the analyzer with opts over one source file and returns the
// diagnostics.
func runOn(t *testing.T, src string, opts *Options) []analysis.Diagnostic {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	var ds []analysis.Diagnostic
	pass := &analysis.Pass{Fset: fset, Files: []*ast.File{f}, Pkg: pkg, TypesInfo: info,
		Report: func(d analysis.Diagnostic) { ds = append(ds, d) }}
	if err := run(pass, opts); err != nil {
		t.Fatal(err)
	}
	return ds
}

const oneMarker = `package p

// +kubebuilder:webhook:path=/v,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=v.example.com,admissionReviewVersions=v1
`

func TestPanickingRuleIsReported(t *testing.T) {
	boom := &rules.Rule{Name: "boom", Severity: diag.Warning, Check: func(*rules.Pass) { panic("nil map") }}
	ds := runOn(t, oneMarker, &Options{Rules: []*rules.Rule{boom}})
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "internal error: rule boom panicked") || ds[0].Category != "boom" {
		t.Fatalf("got %+v, want one internal-error diagnostic for rule boom", ds)
	}
}

func TestDisabledRulesDoNotRun(t *testing.T) {
	ran := false
	r := &rules.Rule{Name: "r", Severity: diag.Warning, Check: func(*rules.Pass) { ran = true }}
	runOn(t, oneMarker, &Options{Rules: []*rules.Rule{r}, Disabled: []string{"r"}})
	if ran {
		t.Error("a disabled rule ran")
	}
	runOn(t, oneMarker, &Options{Rules: []*rules.Rule{r}})
	if !ran {
		t.Error("an enabled rule did not run")
	}
}

func TestKubeVersionReachesRules(t *testing.T) {
	var got rules.KubeVersion
	r := &rules.Rule{Name: "r", Severity: diag.Warning, Check: func(p *rules.Pass) { got = p.Settings.KubeVersion }}
	runOn(t, oneMarker, &Options{Rules: []*rules.Rule{r}, KubeVersion: "1.34"})
	if got != (rules.KubeVersion{Major: 1, Minor: 34}) {
		t.Errorf("rules saw Kubernetes %v, want 1.34", got)
	}
	if _, err := New(Options{KubeVersion: "2.0"}); err == nil {
		t.Error("New accepted Kubernetes version 2.0")
	}
}

// The generated configuration is what controller-gen writes: names,
// defaults and normalized values.
func TestGeneratedConfiguration(t *testing.T) {
	src := `package p

// +kubebuilder:webhook:path=/m,mutating=true,failurePolicy=ignore,sideEffects=none,groups=core;apps,resources=pods,verbs=create;Update,versions=v1,name=b.example.com,admissionReviewVersions=v1,reinvocationPolicy=ifneeded

// +kubebuilder:webhook:url="https://h.example.com/m",mutating=true,failurePolicy=Fail,sideEffects=NoneOnDryRun,groups=apps,resources=deployments,verbs=*,versions=v1,name=a.example.com,admissionReviewVersions=v1;v1beta1,timeoutSeconds=5,matchPolicy=exact,serviceName=ignored

// +kubebuilder:webhook:path=/v,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,verbs=delete,versions=v1,name=v.example.com,admissionReviewVersions=v1,serviceName=svc,serviceNamespace=ns,servicePort=8443
`
	var cfgs []*rules.Config
	r := &rules.Rule{Name: "r", Severity: diag.Warning, Check: func(p *rules.Pass) { cfgs = append(cfgs, p.Config) }}
	if ds := runOn(t, src, &Options{Rules: []*rules.Rule{r}}); len(ds) != 0 {
		t.Fatalf("unexpected diagnostics: %+v", ds)
	}
	if len(cfgs) != 2 {
		t.Fatalf("got %d configurations, want 2", len(cfgs))
	}
	v, m := cfgs[0], cfgs[1]
	if v.Kind != rules.Validating || v.Meta.Name != "validating-webhook-configuration" ||
		m.Kind != rules.Mutating || m.Meta.Name != "mutating-webhook-configuration" {
		t.Fatalf("configurations %s/%s and %s/%s", v.Kind, v.Meta.Name, m.Kind, m.Meta.Name)
	}
	svc := v.Webhooks[0].ClientConfig.Service
	if svc == nil || svc.Name != "svc" || svc.Namespace != "ns" || *svc.Path != "/v" || svc.Port == nil || *svc.Port != 8443 {
		t.Errorf("validating service reference %+v", svc)
	}
	// Sorted by name: a.example.com first.
	a, b := m.Webhooks[0], m.Webhooks[1]
	if a.Name != "a.example.com" || b.Name != "b.example.com" {
		t.Fatalf("mutating webhooks %q, %q; want sorted by name", a.Name, b.Name)
	}
	if a.ClientConfig.URL == nil || *a.ClientConfig.URL != "https://h.example.com/m" || a.ClientConfig.Service != nil {
		t.Errorf("url webhook client config %+v", a.ClientConfig)
	}
	if *a.MatchPolicy != "Exact" || *a.TimeoutSeconds != 5 || strings.Join(a.AdmissionReviewVersions, ",") != "v1,v1beta1" {
		t.Errorf("a: matchPolicy %v timeout %v versions %v", *a.MatchPolicy, *a.TimeoutSeconds, a.AdmissionReviewVersions)
	}
	if *b.FailurePolicy != "Ignore" || *b.SideEffects != "None" || *b.ReinvocationPolicy != "IfNeeded" {
		t.Errorf("b: enum values not normalized: %v %v %v", *b.FailurePolicy, *b.SideEffects, *b.ReinvocationPolicy)
	}
	if got := strings.Join(b.Rules[0].APIGroups, ","); got != ",apps" {
		t.Errorf("b: groups %q, want core mapped to the empty group", got)
	}
	if got := b.Rules[0].Operations; len(got) != 2 || got[0] != "CREATE" || got[1] != "UPDATE" {
		t.Errorf("b: operations %v", got)
	}
	if svc := b.ClientConfig.Service; svc == nil || svc.Name != "webhook-service" || svc.Namespace != "system" || svc.Port != nil {
		t.Errorf("b: default service %+v", svc)
	}
}

// Markers with the scaffold's Service (webhook-service in namespace
// system) generate the kustomize base config/webhook: findings about what
// its overlay changes are info, once per webhook, one kustomize-base note
// says where the fix goes, and none suggests excluding namespace
// "system", which the namespace transformer rewrites in the Service but
// not in a selector.
func TestMarkersOfABaseAreJudgedAsABase(t *testing.T) {
	const pods = `package p

// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1
`
	// go vet fails on any finding: info is shown only when asked for.
	if ds := runOn(t, pods, &Options{}); len(ds) != 0 {
		t.Errorf("default minimum severity (warning) reports info findings: %+v", ds)
	}
	perRule := map[string]int{}
	for _, d := range runOn(t, pods, &Options{MinSeverity: diag.Info}) {
		perRule[d.Category]++
		if d.Category == rules.KustomizeBaseRule && d.Message != "info: markers generate the kustomize base config/webhook: 2 findings at info; make the fix in a kustomize patch, not in the markers [kustomize-base]" {
			t.Errorf("want the note on where the fix goes, for 2 findings: %s", d.Message)
		}
		if d.Category != "self-deadlock" && d.Category != "system-critical-scope" {
			continue
		}
		if !strings.HasPrefix(d.Message, "info: ") {
			t.Errorf("want info: %s", d.Message)
		}
		if strings.Contains(d.Message, `exclude namespace "system"`) {
			t.Errorf("suggests excluding the placeholder namespace: %s", d.Message)
		}
	}
	if perRule["self-deadlock"] != 1 || perRule["system-critical-scope"] != 1 || perRule[rules.KustomizeBaseRule] != 1 {
		t.Errorf("findings per rule %v, want one self-deadlock, one system-critical-scope and one kustomize-base note", perRule)
	}
}

// The note an assumed finding has on the command line
// (rules.Fragment), which the analyzer gives through the same code
// (engine.InContext).
const partOfAnInstall = "assumed applied as written (no Service in the unit): name it in units.entries"

// Markers that state their own Service generate no base, but still only
// controller-gen's config/webhook, a part of what config/default installs
// with the Service: that it is applied as written is assumed, as the CLI
// assumes it of that file linted alone. The finding is info, as there,
// with the same note as a related location (TestAssumptions: and a
// literal the code registers keeps its level).
func TestMarkersWithTheirServiceArePartOfAnInstall(t *testing.T) {
	const own = `package p

// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1,serviceName=hooks,serviceNamespace=hooks-system
`
	if ds := runOn(t, own, &Options{}); len(ds) != 0 {
		t.Errorf("default minimum severity (warning) reports assumed findings: %+v", ds)
	}
	found := false
	for _, d := range runOn(t, own, &Options{MinSeverity: diag.Info}) {
		if d.Category == rules.KustomizeBaseRule {
			t.Errorf("own Service: a base note: %s", d.Message)
		}
		if d.Category != "self-deadlock" {
			continue
		}
		found = true
		if !strings.HasPrefix(d.Message, "info: ") || !strings.Contains(d.Message, `exclude namespace "hooks-system"`) {
			t.Errorf("own Service: %s", d.Message)
		}
		if len(d.Related) != 1 || d.Related[0].Message != partOfAnInstall || d.Related[0].Pos != d.Pos || d.Related[0].End != d.End {
			t.Errorf("own Service: related %+v at %v, want %q at the finding", d.Related, d.Pos, partOfAnInstall)
		}
	}
	if !found {
		t.Error("own Service: no self-deadlock finding")
	}
}
