package celcheck

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	celtypes "github.com/google/cel-go/common/types"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The request-time side of matchConditions: evaluating them exactly as the
// API server does before it calls a webhook (generic/webhook.go
// ShouldCallHook → accessors.go GetCompiledMatcher → matchconditions
// Matcher.Match). Stored expressions are compiled with the
// StoredExpressions environment, not the stricter NewExpressions one that
// validation uses.

// Evaluator evaluates matchConditions like an API server of one version.
type Evaluator struct {
	compiler plugincel.ConditionCompiler
}

var evaluators [MaxKubeMinor + 1]struct {
	once sync.Once
	e    *Evaluator
}

// EvaluatorFor returns the evaluator of a 1.minor server.
func EvaluatorFor(minor int) (*Evaluator, error) {
	if minor < MinKubeMinor || minor > MaxKubeMinor {
		return nil, fmt.Errorf("matchConditions: Kubernetes 1.%d is not supported (supported: 1.%d to 1.%d)", minor, MinKubeMinor, MaxKubeMinor)
	}
	slot := &evaluators[minor]
	slot.once.Do(func() {
		slot.e = &Evaluator{compiler: plugincel.NewConditionCompiler(environment.MustBaseEnvSet(CompatibilityVersion(minor)))}
	})
	return slot.e, nil
}

// ConditionValue is what one matchCondition evaluated to.
type ConditionValue struct {
	Name string
	// Value is the boolean result when Err is nil.
	Value bool
	// Err is the evaluation (or compilation) error.
	Err error
}

// Decision is the server's verdict on a webhook's matchConditions.
type Decision struct {
	// Values holds one entry per condition, in order.
	Values []ConditionValue
	// Matches: all conditions are true (or errors were ignored, see
	// matchconditions.Matcher) and the webhook is called.
	Matches bool
	// FailedCondition names the first false condition, which skips the
	// webhook whatever the other conditions did.
	FailedCondition string
	// Err is set when errors reject the request (failurePolicy Fail).
	Err error
}

// Evaluate runs conds for the request in attrs under failurePolicy policy
// and reports each condition's value and the server's decision. authz
// answers the `authorizer` variable; nil answers every check with an
// error, as a server whose authorizer fails would.
func (e *Evaluator) Evaluate(ctx context.Context, conds []admissionv1.MatchCondition, policy admissionv1.FailurePolicyType,
	attrs *admission.VersionedAttributes, authz authorizer.UnconditionalAuthorizer) Decision {
	accessors := make([]plugincel.ExpressionAccessor, len(conds))
	for i, c := range conds {
		accessors[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
	}
	if authz == nil {
		authz = failingAuthorizer{}
	}
	filter := e.compiler.CompileCondition(accessors, WebhookVariables, environment.StoredExpressions)
	var d Decision
	results, _, err := filter.ForInput(ctx, attrs,
		plugincel.CreateAdmissionRequest(attrs.Attributes, metav1.GroupVersionResource(attrs.GetResource()), metav1.GroupVersionKind(attrs.VersionedKind)),
		plugincel.OptionalVariableBindings{Authorizer: authz}, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if err != nil {
		for _, c := range conds {
			d.Values = append(d.Values, ConditionValue{Name: c.Name, Err: err})
		}
	} else {
		for i, r := range results {
			v := ConditionValue{Name: conds[i].Name, Err: r.Error}
			if r.Error == nil {
				switch r.EvalResult {
				case celtypes.True:
					v.Value = true
				case celtypes.False:
				default:
					v.Err = fmt.Errorf("expression evaluated to %v, not a bool", r.EvalResult)
				}
			}
			d.Values = append(d.Values, v)
		}
	}
	m := matchconditions.NewMatcher(filter, &policy, "webhook", "admit", "simulated")
	r := m.Match(ctx, attrs, nil, authz)
	d.Matches, d.FailedCondition, d.Err = r.Matches, r.FailedConditionName, r.Error
	return d
}

// failingAuthorizer stands in for an authorizer that cannot be reached.
type failingAuthorizer struct{}

func (failingAuthorizer) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "", fmt.Errorf("no authorizer")
}

// rootVariables are the variables the API server binds for admission
// expressions (plugin/cel/compile.go), webhook or not.
var rootVariables = map[string]bool{
	"object": true, "oldObject": true, "request": true, "authorizer": true,
	"params": true, "namespaceObject": true, "variables": true,
}

// Variables lists what a compiled expression reads: the root variables it
// names ("object", "oldObject", "authorizer", "params"…) and, for
// "request", each field it selects as "request.<field>" (or "request"
// when it uses the whole request). Sorted, without duplicates.
func Variables(r Result) []string {
	if r.AST == nil {
		return nil
	}
	return variablesOf(r.AST.Expr())
}

// ParsedVariables is Variables of an expression that is only parsed, not
// checked: it also names what the webhook environment does not declare
// (params, variables), as an admission policy's expressions read them.
// Nil when expr does not parse.
func ParsedVariables(expr string) []string {
	p := warmParser()
	if p == nil {
		return nil
	}
	parsed, errs := p.Parse(common.NewTextSource(expr))
	if parsed == nil || (errs != nil && len(errs.GetErrors()) > 0) {
		return nil
	}
	return variablesOf(parsed.Expr())
}

func variablesOf(root celast.Expr) []string {
	seen := map[string]bool{}
	var walk func(e celast.Expr)
	walk = func(e celast.Expr) {
		switch e.Kind() {
		case celast.IdentKind:
			if rootVariables[e.AsIdent()] {
				seen[e.AsIdent()] = true
			}
		case celast.SelectKind:
			s := e.AsSelect()
			if op := s.Operand(); op.Kind() == celast.IdentKind && op.AsIdent() == "request" {
				seen["request."+s.FieldName()] = true
				return
			}
			walk(s.Operand())
		case celast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target())
			}
			for _, a := range c.Args() {
				walk(a)
			}
		case celast.ListKind:
			for _, el := range e.AsList().Elements() {
				walk(el)
			}
		case celast.MapKind:
			for _, en := range e.AsMap().Entries() {
				me := en.AsMapEntry()
				walk(me.Key())
				walk(me.Value())
			}
		case celast.StructKind:
			for _, f := range e.AsStruct().Fields() {
				walk(f.AsStructField().Value())
			}
		case celast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange())
			walk(c.AccuInit())
			walk(c.LoopCondition())
			walk(c.LoopStep())
			walk(c.Result())
		}
	}
	walk(root)
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
