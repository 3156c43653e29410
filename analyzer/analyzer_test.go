package analyzer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// testRules stand in for the rule set, so these tests pin down the
// front ends (what is built from Go, where findings land) independently
// of which rules exist. Each reports the kind of path real rules report:
// a set field, an element of a list, a missing field, a configuration
// field, a field inside a selector. unserved-api-version is the real one:
// where the apiVersion finding lands (on the literal's type) is the front
// end's.
var testRules = []*rules.Rule{
	rules.MustLookup(rules.UnservedAPIVersionRule),
	{
		Name: "test-failure-policy", Severity: diag.Warning,
		Check: func(p *rules.Pass) {
			for i := range p.Config.Webhooks {
				w := &p.Config.Webhooks[i]
				if w.EffectiveFailurePolicy() == admissionv1.Ignore {
					p.Reportf(w.Path().Child("failurePolicy"), "failurePolicy Ignore lets requests through while the webhook is down")
				}
			}
		},
	},
	{
		Name: "test-operations", Severity: diag.Error,
		Check: func(p *rules.Pass) {
			for i := range p.Config.Webhooks {
				w := &p.Config.Webhooks[i]
				for j, r := range w.Rules {
					for k, op := range r.Operations {
						if op == admissionv1.Connect {
							p.Reportf(w.Path().Child("rules").Index(j).Child("operations").Index(k), "operation %q is not allowed here", op)
						}
					}
				}
			}
		},
	},
	{
		Name: "test-timeout", Severity: diag.Warning,
		Check: func(p *rules.Pass) {
			for i := range p.Config.Webhooks {
				w := &p.Config.Webhooks[i]
				if t := w.EffectiveTimeout(); t > 10 && w.FailsClosed() {
					p.Reportf(w.Path().Child("timeoutSeconds"), "timeout %ds on a fail-closed webhook", t)
				}
			}
		},
	},
	{
		Name: "test-side-effects", Severity: diag.Error,
		Check: func(p *rules.Pass) {
			for i := range p.Config.Webhooks {
				w := &p.Config.Webhooks[i]
				if w.EffectiveSideEffects() == "" {
					p.ReportFieldErrors(field.ErrorList{field.Required(w.Path().Child("sideEffects"), "sideEffects is required")})
				}
			}
		},
	},
	{
		Name: "test-namespace-selector", Severity: diag.Warning,
		Check: func(p *rules.Pass) {
			for i := range p.Config.Webhooks {
				w := &p.Config.Webhooks[i]
				if w.NamespaceSelector == nil {
					continue
				}
				for j, e := range w.NamespaceSelector.MatchExpressions {
					if e.Operator == metav1.LabelSelectorOpNotIn {
						p.Reportf(w.Path().Child("namespaceSelector", "matchExpressions").Index(j).Child("operator"), "namespaceSelector opts out with NotIn")
					}
				}
			}
		},
	},
	{
		Name: "test-rule-resources", Severity: diag.Error,
		Check: func(p *rules.Pass) {
			for i := range p.Config.Webhooks {
				w := &p.Config.Webhooks[i]
				for j, r := range w.Rules {
					if len(r.Resources) == 0 {
						p.Reportf(w.Path().Child("rules").Index(j).Child("resources"), "resources is required")
					}
				}
			}
		},
	},
	{
		Name: "test-config-name", Severity: diag.Error,
		Check: func(p *rules.Pass) {
			if n := p.Config.Meta.Name; len(validation.IsDNS1123Subdomain(n)) > 0 && n != "" {
				p.Reportf(field.NewPath("metadata", "name"), "configuration name %q is not a DNS subdomain", n)
			}
		},
	},
}

func testAnalyzer(t *testing.T) *analysis.Analyzer {
	t.Helper()
	a, err := New(Options{Rules: testRules})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var (
	fetchTestdataOnce sync.Once
	fetchTestdataErr  error
)

// testdataModule is a module (go.mod requiring the real k8s.io/api),
// which analysistest loads with GOPROXY=off from the module cache. Its
// dependencies are fetched first (through the configured module proxy, a
// no-op when cached), since its versions need not be the main module's.
func testdataModule(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(analysistest.TestData(), "src")
	fetchTestdataOnce.Do(func() {
		cmd := exec.Command("go", "list", "-deps", "-test", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			fetchTestdataErr = fmt.Errorf("fetching the testdata module's dependencies: %w\n%s", err, out)
		}
	})
	if fetchTestdataErr != nil {
		t.Fatal(fetchTestdataErr)
	}
	return dir
}

// spans lists each diagnostic as "line: [source text it covers] message"
// so tests can check columns, which // want comments cannot.
func spans(t *testing.T, results []*analysistest.Result) []string {
	t.Helper()
	var out []string
	for _, r := range results {
		for _, d := range r.Diagnostics {
			pos := r.Pass.Fset.Position(d.Pos)
			end := r.Pass.Fset.Position(d.End)
			var src []byte
			for _, f := range r.Pass.Files {
				if r.Pass.Fset.File(f.Pos()).Name() == pos.Filename {
					b, err := r.Pass.ReadFile(pos.Filename)
					if err != nil {
						t.Fatal(err)
					}
					src = b
				}
			}
			text := string(src[pos.Offset:end.Offset])
			out = append(out, fmt.Sprintf("%s:%d: [%s] %s", filepath.Base(pos.Filename), pos.Line, text, d.Category))
		}
	}
	// A package with tests is analyzed twice (with and without its
	// _test.go files); each finding counts once.
	slices.Sort(out)
	return slices.Compact(out)
}

// TestFrontEnds checks both front ends in one load: loading the real
// k8s.io/api from source is what takes the time.
func TestFrontEnds(t *testing.T) {
	results := analysistest.Run(t, testdataModule(t), testAnalyzer(t), "./markers", "./literals")
	got := spans(t, results)
	t.Run("markers", func(t *testing.T) { checkMarkerSpans(t, got) })
	t.Run("literals", func(t *testing.T) { checkLiteralSpans(t, got) })
}

func only(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func checkMarkerSpans(t *testing.T, got []string) {
	got = only(got, "markers.go:")
	// Each finding covers the key=value it is about, or the whole marker
	// when the marker lacks the key.
	want := []string{
		"markers.go:10: [failurePolicy=ignore] test-failure-policy",
		"markers.go:14: [connect] test-operations",
		"markers.go:19: [timeoutSeconds=25] test-timeout",
		"markers.go:23: [\"namespaceSelector\"] test-namespace-selector",
		"markers.go:65: [\\\"namespaceSelector\\\"] test-namespace-selector",
		"markers.go:28: [name=Bad_Name] test-config-name",
		"markers.go:32: [+kubebuilder:webhook:path=/validate-v1-namespace,mutating=false,failurePolicy=fail,groups=\"\",resources=namespaces,verbs=delete,versions=v1,name=vnamespace.example.com,admissionReviewVersions=v1] controller-gen",
		"markers.go:36: [+kubebuilder:webhook:path=/validate-v1-node,mutating=false,failurePolicy=fail,sideEffects=None,groups=\"\",resources=nodes,verbs=update,versions=v1,name=vnode.example.com] kubebuilder-marker",
		"markers.go:38: [port=9443] kubebuilder-marker",
		"markers.go:40: [ten] kubebuilder-marker",
		"markers.go:44: [sideEffects=Some] controller-gen",
		"markers.go:46: [matchPolicy=Similar] controller-gen",
		"markers.go:48: [url=\"https://hooks.example.com/validate\"] controller-gen",
		"markers.go:50: [webhookVersions=v1beta1] controller-gen",
		"markers.go:54: [+kubebuilder:webhook:path=/validate-v1-endpoints,mutating=false,failurePolicy=fail,sideEffects=None,groups=\"\",resources=endpoints,verbs=create,versions=v1,name=vendpoints.example.com,admissionReviewVersions=v1] kubebuilder-marker",
		"markers.go:60: [+kubebuilder:webhook:path=/validate-v1-limitrange,mutating=false,failurePolicy=fail,sideEffects=None,groups=\"\",resources=limitranges,verbs=create,versions=v1,name=vlimitrange.example.com,admissionReviewVersions=v1] kubebuilder-marker",
	}
	slices.Sort(want)
	if d := diffLines(want, got); d != "" {
		t.Errorf("diagnostic spans differ (-want +got):\n%s", d)
	}
}

func checkLiteralSpans(t *testing.T, got []string) {
	got = only(got, "literals.go:")
	// A finding on a field covers its value; one about a field the
	// literal lacks covers the literal's type and brace.
	want := []string{
		"literals.go:22: [\"Bad_Name\"] test-config-name",
		"literals.go:25: [&ignore] test-failure-policy",
		"literals.go:31: [admissionregistrationv1.Connect] test-operations",
		"literals.go:45: [admissionregistrationv1.MutatingWebhook{] test-side-effects",
		"literals.go:48: [ptr.To[int32](25)] test-timeout",
		"literals.go:53: [metav1.LabelSelectorOpNotIn] test-namespace-selector",
		"literals.go:88: [ptr.To(admissionregistrationv1.Ignore)] test-failure-policy",
		"literals.go:122: [ptr.To(admissionregistrationv1.Ignore)] test-failure-policy",
		"literals.go:142: [{] test-rule-resources",
		"literals.go:173: [ptr.To(admissionregistrationv1.Ignore)] test-failure-policy",
		"literals.go:203: [admissionregistrationv1beta1.ValidatingWebhookConfiguration] unserved-api-version",
		"literals.go:205: [{] test-failure-policy",
	}
	slices.Sort(want)
	if d := diffLines(want, got); d != "" {
		t.Errorf("diagnostic spans differ (-want +got):\n%s", d)
	}
}

func diffLines(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "-%s\n", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "+%s\n", g)
		}
	}
	return b.String()
}

func TestMarkerFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdataModule(t), testAnalyzer(t), "./markerfix")
}

// TestRealCode runs every registered rule on the other uses real
// operators make of the admissionregistration types: only configurations
// being built get findings (the // want comments), one per cause.
func TestRealCode(t *testing.T) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdataModule(t), a, "./realcode")
}

// TestSuppressions checks webhooklint:ignore comments on markers and
// literals, with every registered rule.
func TestSuppressions(t *testing.T) {
	// review-versions-order, suppressed below, is info since issue 21.
	a, err := New(Options{MinSeverity: diag.Info})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdataModule(t), a, "./suppress")
}

// TestPolicyLiterals runs every registered rule on literals of the
// admission policy kinds.
func TestPolicyLiterals(t *testing.T) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdataModule(t), a, "./policies")
}

// TestUnservedPolicyLiterals: a policy kind the target version does not
// serve gets the CLI's unserved-api-version error and nothing else.
func TestUnservedPolicyLiterals(t *testing.T) {
	a, err := New(Options{KubeVersion: "1.35"})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdataModule(t), a, "./oldpolicies")
}

// TestRuleFixes: a rule's safe fix (review-versions-order's v1 first)
// becomes a SuggestedFix on the marker that writes the field.
func TestRuleFixes(t *testing.T) {
	a, err := New(Options{Rules: []*rules.Rule{rules.MustLookup("review-versions-order")}, MinSeverity: diag.Info})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, testdataModule(t), a, "./rulefix")
}

// TestLiteralFixes: the safe fixes of review-versions (drop a duplicate),
// review-versions-order (v1 first) and match-conditions (a unique name)
// become SuggestedFixes on the Go literal that writes the value; a value
// written through a constant, a comment in the way and an unsafe fix
// (timeout-range's clamp) get none.
func TestLiteralFixes(t *testing.T) {
	var rs []*rules.Rule
	for _, name := range []string{"review-versions", "review-versions-order", "match-conditions", "timeout-range"} {
		rs = append(rs, rules.MustLookup(name))
	}
	a, err := New(Options{Rules: rs, MinSeverity: diag.Info})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, testdataModule(t), a, "./literalfix")
}

// TestAssumptions: a finding that holds only under an assumption is info
// here as on the command line, with the same note as a related location
// (engine.InContext). Markers that state their own Service generate
// controller-gen's config/webhook, a part of what config/default installs
// with the Service: that it is applied as written is assumed. A literal
// the code registers is applied as written, and keeps its level.
func TestAssumptions(t *testing.T) {
	a, err := New(Options{MinSeverity: diag.Info})
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, r := range analysistest.Run(t, testdataModule(t), a, "./assumed") {
		for _, d := range r.Diagnostics {
			assumed := strings.HasPrefix(d.Message, "info: ")
			if assumed != (len(d.Related) == 1) {
				t.Errorf("%s: related %+v, want the assumption on info findings only", d.Message, d.Related)
				continue
			}
			if assumed {
				notes++
				if rel := d.Related[0]; rel.Message != partOfAnInstall || rel.Pos != d.Pos || rel.End != d.End {
					t.Errorf("%s: related %+v, want %q at the finding", d.Message, rel, partOfAnInstall)
				}
			}
		}
	}
	if notes != 2 {
		t.Errorf("%d findings with the assumption, want the markers' 2", notes)
	}
}
