package celcheck

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/common/debug"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

func mustFor(t testing.TB, minor int) *Compiler {
	t.Helper()
	c, err := For(minor)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The server's messages, as webhook-facts §A.8 (A54, A55) records them
// from a real v1.37.2 API server.
func TestServerMessages(t *testing.T) {
	c := mustFor(t, 37)
	path := field.NewPath("webhooks").Index(0).Child("matchConditions").Index(1).Child("expression")
	for _, tc := range []struct{ expr, want string }{
		{"object.x in [1, 2,", `webhooks[0].matchConditions[1].expression: Invalid value: "object.x in [1, 2,": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'` + "\n | object.x in [1, 2,\n | ..................^"},
		{"1", `webhooks[0].matchConditions[1].expression: Invalid value: "1": must evaluate to bool but got int`},
		{"object.spec", `webhooks[0].matchConditions[1].expression: Invalid value: "object.spec": must evaluate to bool but got dyn`},
		{"params.x == 1", `webhooks[0].matchConditions[1].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')` + "\n | params.x == 1\n | ^"},
		{"request.nmespace == 'a'", `compilation failed: ERROR: <input>:1:8: undefined field 'nmespace'`},
		{"object.metadata.name.matches('[')", `invalid matches argument`},
		{"duration('1x') > duration('1s')", `invalid duration argument`},
	} {
		r := c.Compile(tc.expr)
		if r.OK() || r.AST != nil {
			t.Errorf("%q: accepted, want %q", tc.expr, tc.want)
			continue
		}
		if got := r.FieldError(path).Error(); !strings.Contains(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.expr, got, tc.want)
		}
	}
}

func TestAcceptedHaveCheckedAST(t *testing.T) {
	c := mustFor(t, 37)
	for _, expr := range []string{
		"true",
		`!(request.namespace == "ovn-kubernetes" && object.metadata.labels["name"] == "ovnkube-identity")`,
		"request.userInfo.username != 'system:serviceaccount:kubeflow:katib-controller'",
		"authorizer.group('').resource('pods').namespace(request.namespace).check('create').allowed()",
		"object.metadata.?labels[?'app'].orValue('') == 'web'",
		"namespaceObject.metadata.name == 'x'",
	} {
		r := c.Compile(expr)
		if !r.OK() {
			t.Fatalf("%q: %v", expr, r.Err)
		}
		if r.AST == nil || !r.AST.IsChecked() || r.OutputType.String() != "bool" {
			t.Errorf("%q: AST %v output %v", expr, r.AST, r.OutputType)
		}
		if r.FieldError(field.NewPath("x")) != nil {
			t.Errorf("%q: field error for an accepted expression", expr)
		}
	}
}

// Each library is accepted from the release after the one that introduced
// it (webhook-facts §A.8: base.go IntroducedVersion, compatibility = N−1).
func TestLibraryVersions(t *testing.T) {
	for _, tc := range []struct {
		expr      string
		firstKube int
	}{
		{"isIP('10.0.0.1')", 31},                                // IP library, 1.30
		{"!format.dns1123Label().validate('a').hasValue()", 32}, // format, 1.31
		{"{'a': 1}.all(k, v, v > 0)", 33},                       // two-variable comprehensions, 1.32
		{"isSemver('1.2.3')", 34},                               // semver, 1.33
		{"[3, 1, 2].sort() == [1, 2, 3]", 35},                   // ext.Lists v3, 1.34
		{"lists.range(3).size() == 3", 35},                      // ext.Lists v3, 1.34
		{"request.userInfo.groups.all(g, g != 'x')", 30},        // plain CEL, always
	} {
		for minor := MinKubeMinor; minor <= MaxKubeMinor; minor++ {
			r := mustFor(t, minor).Compile(tc.expr)
			if want := minor >= tc.firstKube; r.OK() != want {
				t.Errorf("1.%d %q: accepted=%v, want %v (%v)", minor, tc.expr, r.OK(), want, r.Err)
			}
			if !r.OK() && !strings.HasPrefix(r.Err.Detail, "compilation failed: ERROR: <input>:") {
				t.Errorf("1.%d %q: unexpected detail %q", minor, tc.expr, r.Err.Detail)
			}
		}
		if tc.firstKube > MinKubeMinor {
			got, ok := mustFor(t, MinKubeMinor).MinimumKubeMinor(tc.expr)
			if !ok || got != tc.firstKube {
				t.Errorf("MinimumKubeMinor(%q) = %d, %v; want %d", tc.expr, got, ok, tc.firstKube)
			}
		}
	}
	if _, ok := mustFor(t, 34).MinimumKubeMinor("object.x in [1,"); ok {
		t.Error("a syntax error has no minimum version")
	}
	if _, ok := mustFor(t, 37).MinimumKubeMinor("[1].includes(1)"); ok {
		t.Error("k8s Lists v1 (1.37) is beyond every supported 1.N−1 set")
	}
}

func TestForRange(t *testing.T) {
	for _, minor := range []int{MinKubeMinor - 1, MaxKubeMinor + 1, 0, -1} {
		if _, err := For(minor); err == nil {
			t.Errorf("For(%d) succeeded", minor)
		}
	}
	a, b := mustFor(t, 36), mustFor(t, 36)
	if a != b || a.KubeMinor() != 36 {
		t.Error("For does not share the compiler of a version")
	}
}

// Neither the capture validator nor compiling on the webhook environment
// alone may change any verdict or message: compare with an untouched
// compiler built the way validation.go builds it, on the package's corpus
// and every condition of the fixtures and the shared corpus.
func TestSameAsUntouchedServerCompiler(t *testing.T) {
	exprs := slices.Concat(corpus, prunedEdgeCases, typedExpressions(), prunedExpressions(t))
	for minor := MinKubeMinor; minor <= MaxKubeMinor; minor++ {
		server := plugincel.NewCompiler(environment.MustBaseEnvSet(CompatibilityVersion(minor)))
		c := mustFor(t, minor)
		for _, expr := range exprs {
			expr = strings.TrimSpace(expr)
			want := server.CompileCELExpression(&matchconditions.MatchCondition{Expression: expr}, WebhookVariables, environment.NewExpressions)
			got := c.Compile(expr)
			if (want.Error == nil) != got.OK() {
				t.Errorf("1.%d %q: server error %v, ours %v", minor, expr, want.Error, got.Err)
				continue
			}
			if want.Error != nil && (want.Error.Detail != got.Err.Detail || want.Error.Type != got.Err.Type) {
				t.Errorf("1.%d %q:\nserver %q\nours   %q", minor, expr, want.Error.Detail, got.Err.Detail)
			}
			if want.Error == nil && want.OutputType.String() != got.OutputType.String() {
				t.Errorf("1.%d %q: output %v vs %v", minor, expr, want.OutputType, got.OutputType)
			}
		}
	}
}

func TestConcurrentCompile(t *testing.T) {
	c := mustFor(t, 37)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, expr := range corpus {
				// Distinct and shared texts, so compiles race with cache hits.
				e := expr
				if i%2 == 0 {
					e = fmt.Sprintf("(%s) || %d == %d", expr, g, i)
				}
				r := c.Compile(e)
				if r.OK() && r.AST == nil {
					t.Errorf("%q: accepted without AST", e)
				}
				if r.OK() && (r.AST.Expr() == nil) {
					t.Errorf("%q: empty AST", e)
				}
			}
		}()
	}
	wg.Wait()
	// Every AST must belong to its own expression: compare it with a
	// compile on a private compiler that nothing else touched.
	fresh := newCompiler(37)
	for _, expr := range corpus {
		r := c.Compile(expr)
		if !r.OK() {
			continue
		}
		got, want := debug.ToDebugString(r.AST.Expr()), debug.ToDebugString(fresh.Compile(expr).AST.Expr())
		if got != want {
			t.Errorf("AST of %q is\n%s\nwant\n%s", expr, got, want)
		}
	}
}
