package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/celcheck"
)

func init() {
	register(&Rule{
		Name:     "match-condition-runtime",
		Summary:  "matchConditions that compile but fail when evaluated: null object or oldObject, namespaceObject, missing keys",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "A matchCondition that errors does not simply fail to match. If no condition is false, the error " +
				"goes to the failurePolicy: with `Fail` (the v1 default) the API server rejects the request, with " +
				"`Ignore` (the v1beta1 default) it silently skips the webhook, which for a validating webhook is a " +
				"bypass. Conditions fail at runtime in ways the server cannot see when it accepts them: `object` is " +
				"null on DELETE and `oldObject` on CREATE; on CONNECT `object` is the options object (PodExecOptions…) " +
				"without metadata; `namespaceObject` is never set for webhooks; reading a label, annotation or other " +
				"map key that is not there fails (`no such key`), and so does reading `labels` on an object that has " +
				"none; empty request fields are absent rather than `\"\"` (`request.namespace` on cluster-scoped " +
				"resources such as ClusterRoles or Nodes, `request.subResource` outside subresource requests, " +
				"`request.userInfo.uid` and `extra` when unset). The rule evaluates the compiled conditions " +
				"abstractly for every operation the webhook's rules match, with CEL's semantics (`false && error` is " +
				"`false`, so guards may come before or after the read, and a false condition hides the errors of the " +
				"others); its claims are checked against the API server's own matcher in webhooklint's tests and on a " +
				"real API server (`hack/verify-match-condition-runtime.sh`). Under failurePolicy Ignore an error " +
				"is not reported when it sits where a guarded read would make the condition false (outside " +
				"negations, ternary conditions and comprehensions, as in `object.metadata.labels['app'] == 'web'`): " +
				"skipping the webhook is then exactly what the condition meant. Reads of " +
				"other object fields (`object.spec.nodeName` on a pod that has none also fails) are not checked: the " +
				"server compiles webhook conditions without schemas.\n\n" +
				"ValidatingAdmissionPolicy and MutatingAdmissionPolicy `matchConditions` are evaluated by the same " +
				"matcher, also without namespaceObject (only validations get it), so the same analysis applies " +
				"(`hack/verify-match-condition-runtime.sh` checks its claims on a policy too), " +
				"over the requests the policy's `matchConstraints` match, narrowed to what its bindings in the input " +
				"match. A policy whose conditions read `params` or `variables` is not analyzed (a condition the " +
				"analysis cannot evaluate may be false and hide the others' errors), nor one that excludes " +
				"resources (`excludeResourceRules`), nor one whose bindings only warn or audit under " +
				"`failurePolicy: Fail`. A policy's `validations` are not analyzed.",
			Fix: "Guard reads: `request.operation != 'DELETE' && …` or `object != null && …` before reading object; " +
				"`has(object.metadata.labels) && 'k' in object.metadata.labels && …` before a label; or read optional " +
				"values with `.?` / `[?…]` and `orValue(…)`. Select namespaces with namespaceSelector, not namespaceObject.",
			Sources: []string{
				docsWebhooks + "#matching-requests-matchconditions",
				srcMatchConditions,
				issueMatchConditionNull,
				docsVAP + "#matching-requests-matchconditions",
				srcPolicyMatchCondition,
			},
		},
		Check:       checkMatchConditionRuntime,
		CheckPolicy: checkPolicyMatchConditionRuntime,
	})
}

func checkMatchConditionRuntime(p *Pass) {
	if !hasMatchConditions(p.Config) {
		return // do not build a CEL environment for nothing
	}
	target := matchConditionCompiler(p.Settings)
	// A webhook's findings follow from its rules, failure policy and
	// conditions, which a folder of configurations repeats: each distinct
	// webhook is analyzed once per process.
	k := borrowKey()
	defer keyBuffers.Put(k)
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if len(w.MatchConditions) == 0 {
			continue
		}
		*k = (*k)[:0]
		k.number(target.KubeMinor())
		k.str(string(w.EffectiveFailurePolicy()))
		k.rules(w.Rules)
		for _, mc := range w.MatchConditions {
			k.str(mc.Expression)
		}
		for _, f := range runtimeFindings.get(*k, func() []conditionFinding { return runtimeHazards(w, target) }) {
			p.Reportf(w.FieldPath("matchConditions").Index(f.condition).Child("expression"), "%s", f.message)
		}
	}
}

// runtimeFindings holds runtimeHazards' results by the webhook's key;
// callers must not modify them.
var runtimeFindings = contentMemo[[]conditionFinding]{limit: 4096}

// conditionFinding is a finding on a webhook's condition, without the
// webhook's path.
type conditionFinding struct {
	condition int
	message   string
}

// runtimeHazards lists the ways the webhook's conditions fail when
// evaluated, in the order they are reported.
func runtimeHazards(w *Webhook, target *celcheck.Compiler) []conditionFinding {
	results := make([]celcheck.Result, len(w.MatchConditions))
	for j, mc := range w.MatchConditions {
		results[j] = compileForRuntime(target, strings.TrimSpace(mc.Expression))
	}
	var out []conditionFinding
	hazards := celcheck.RuntimeHazards(results, requestShapes(w.Rules))
	failsOnNamespace := map[int]bool{}
	for _, h := range hazards {
		if h.Kind == celcheck.NamespaceObject {
			failsOnNamespace[h.Condition] = true
		} else if h.ErrorMeansFalse && w.EffectiveFailurePolicy() == admissionv1.Ignore {
			// Ignore skips the webhook on the error, as the guarded
			// condition would by being false: harmless.
			continue
		}
		out = append(out, conditionFinding{h.Condition, runtimeHazardMessage("webhooks", h)})
	}
	for j, r := range results {
		if use, ok := celcheck.NamespaceObjectUse(r); ok && !failsOnNamespace[j] {
			out = append(out, conditionFinding{j,
				fmt.Sprintf("reads namespaceObject (`%s`), which webhooks never get; use namespaceSelector", use)})
		}
	}
	return out
}

// compileForRuntime compiles a condition for analysis. One the target
// version rejects (reported by match-conditions) is analyzed as the newest
// supported server compiles it, so its runtime problems are not hidden
// behind a version problem.
func compileForRuntime(target *celcheck.Compiler, expr string) celcheck.Result {
	if expr == "" {
		return celcheck.Result{Expression: expr}
	}
	r := target.Compile(expr)
	if r.OK() || target.KubeMinor() == celcheck.MaxKubeMinor {
		return r
	}
	if newest, err := celcheck.For(celcheck.MaxKubeMinor); err == nil {
		return newest.Compile(expr)
	}
	return r
}

var allOperations = []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}

// requestShapes lists the kinds of request the webhook's rules can match:
// operation, whether it is for a subresource, and whether it carries a
// namespace. Built-in resources come from the resource table (CONNECT only
// exists on subresources such as pods/exec; namespaces carry their own
// name as namespace); other APIs take their scope from the rule.
func requestShapes(rules []admissionv1.RuleWithOperations) []celcheck.RequestShape {
	seen := map[celcheck.RequestShape]bool{}
	add := func(op admissionv1.OperationType, sub, namespaced bool) {
		if op == admissionv1.Connect && !sub {
			return
		}
		seen[celcheck.RequestShape{Operation: string(op), Subresource: sub, Namespaced: namespaced}] = true
	}
	for _, r := range rules {
		targets := ExpandRule(r)
		for _, res := range targets.Builtin {
			for _, op := range res.Operations {
				add(op, res.Subresource != "", res.Namespaced || res.IsNamespace())
			}
		}
		if !targets.Others {
			continue
		}
		ops := r.Operations
		if slices.Contains(ops, admissionv1.OperationAll) {
			ops = allOperations
		}
		var scopes []bool
		switch EffectiveScope(r.Rule) {
		case admissionv1.NamespacedScope:
			scopes = []bool{true}
		case admissionv1.ClusterScope:
			scopes = []bool{false}
		default:
			scopes = []bool{true, false}
		}
		for _, pattern := range r.Resources {
			_, sub, hasSub := strings.Cut(pattern, "/")
			subs := []bool{hasSub}
			if sub == "*" && strings.HasPrefix(pattern, "*/") {
				subs = []bool{false, true} // */* also matches resources
			}
			for _, op := range ops {
				for _, s := range subs {
					for _, ns := range scopes {
						add(op, s, ns)
					}
				}
			}
		}
	}
	var out []celcheck.RequestShape
	for _, ns := range []bool{true, false} {
		for _, sub := range []bool{false, true} {
			for _, op := range allOperations {
				if s := (celcheck.RequestShape{Operation: string(op), Subresource: sub, Namespaced: ns}); seen[s] {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// runtimeHazardMessage words a hazard of a condition; who is "webhooks" or
// "matchConditions" (of a policy), what never gets namespaceObject. What
// the error does (reject the request, skip the webhook) is the doc's: it
// follows from the failurePolicy.
func runtimeHazardMessage(who string, h celcheck.Hazard) string {
	h.Expr, h.Missing, h.Container = excerpt(h.Expr, maxQuoted), excerpt(h.Missing, maxQuoted), excerpt(h.Container, maxQuoted)
	var what, fix string
	switch h.Kind {
	case celcheck.NullObject:
		what = fmt.Sprintf("errors on DELETE, where object is null (`%s`)", h.Expr)
		fix = "guard with `object != null && …`"
	case celcheck.NullOldObject:
		what = fmt.Sprintf("errors on %s, where oldObject is null (`%s`)", h.Shape.Operation, h.Expr)
		fix = "guard with `oldObject != null && …`"
	case celcheck.OptionsObject:
		what = fmt.Sprintf("errors on CONNECT, where object has no metadata (`%s`)", h.Expr)
		fix = "guard with `request.operation != 'CONNECT' && …`"
	case celcheck.NamespaceObject:
		what = fmt.Sprintf("`%s` errors on every request: %s get no namespaceObject", h.Expr, who)
		fix = "use namespaceSelector"
	case celcheck.MissingKey:
		what = fmt.Sprintf("errors if `%s` is absent", h.Missing)
		if h.Container != "" {
			// The map holding it may be absent too.
			what = fmt.Sprintf("errors if `%s` or its map is absent", h.Missing)
		}
		fix = "guard with `has(…)`" // the doc gives .? and orValue(…) too
	}
	// The condition is named by where the finding is (its expression).
	return what + "; " + fix
}

// checkPolicyMatchConditionRuntime runs the same analysis on an admission
// policy's matchConditions: the API server evaluates them with the
// webhooks' matcher (matchconditions.NewMatcher, given no namespace), so
// every claim above holds for them, namespaceObject included. A condition
// that reads params or variables does not compile in the webhooks'
// environment; the policy is then left alone, as a condition the analysis
// cannot see may be false and hide the others' errors. So is a policy
// whose requests excludeResourceRules narrow, which request shapes cannot
// follow.
func checkPolicyMatchConditionRuntime(p *Pass) {
	spec, ok := specOf(p.Policy)
	if !ok || spec.constraints == nil || len(spec.conditions) == 0 || len(spec.constraints.ExcludeResourceRules) > 0 {
		return
	}
	shapes, ok := policyRequestShapes(p.Input, p.Policy, spec.constraints)
	if !ok {
		return
	}
	target := matchConditionCompiler(p.Settings)
	results := make([]celcheck.Result, len(spec.conditions))
	for i, mc := range spec.conditions {
		results[i] = compileForRuntime(target, strings.TrimSpace(mc.Expression))
		if !results[i].OK() {
			return
		}
	}
	ignore := spec.failurePolicy != nil && *spec.failurePolicy == admissionv1.Ignore
	if !ignore && len(denyingBindings(p.Input, p.Policy)) == 0 && hasBinding(p.Input, p.Policy) {
		return // its bindings only warn or audit: an error denies nothing
	}
	conditions := field.NewPath("spec", "matchConditions")
	failsOnNamespace := map[int]bool{}
	for _, h := range celcheck.RuntimeHazards(results, shapes) {
		if h.Kind == celcheck.NamespaceObject {
			failsOnNamespace[h.Condition] = true
		} else if h.ErrorMeansFalse && ignore {
			continue
		}
		p.Reportf(conditions.Index(h.Condition).Child("expression"),
			"%s", runtimeHazardMessage("matchConditions", h))
	}
	for j, r := range results {
		if use, ok := celcheck.NamespaceObjectUse(r); ok && !failsOnNamespace[j] {
			p.Reportf(conditions.Index(j).Child("expression"),
				"reads namespaceObject (`%s`), which matchConditions never get; read it in a validation", use)
		}
	}
}

// hasBinding reports whether the unit binds the policy.
func hasBinding(in *Inventory, pol *Policy) bool {
	return slices.ContainsFunc(in.Policies, func(b *Policy) bool {
		return b.IsBinding() && PolicyKindOf(b.Kind) == pol.Kind && b.BindingPolicyName() == pol.Meta.Name
	})
}

// policyRequestShapes lists the kinds of request a policy's conditions are
// evaluated on: those of its matchConstraints, narrowed to what its
// bindings in the unit match (all of them when the unit has none). ok is
// false when a binding excludes resources.
func policyRequestShapes(in *Inventory, pol *Policy, constraints *admissionv1.MatchResources) ([]celcheck.RequestShape, bool) {
	policy := requestShapes(withOperations(constraints.ResourceRules))
	var bound []celcheck.RequestShape
	found := false
	for _, b := range in.Policies {
		if !b.IsBinding() || PolicyKindOf(b.Kind) != pol.Kind || b.BindingPolicyName() != pol.Meta.Name {
			continue // another policy's
		}
		found = true
		var m *admissionv1.MatchResources
		if b.ValidatingBinding != nil {
			m = b.ValidatingBinding.Spec.MatchResources
		} else {
			m = b.MutatingBinding.Spec.MatchResources
		}
		if m == nil || len(m.ResourceRules) == 0 {
			if m != nil && len(m.ExcludeResourceRules) > 0 {
				return nil, false
			}
			return policy, true // this binding does not narrow the policy
		}
		if len(m.ExcludeResourceRules) > 0 {
			return nil, false
		}
		narrow := requestShapes(withOperations(m.ResourceRules))
		for _, s := range policy {
			if slices.Contains(narrow, s) && !slices.Contains(bound, s) {
				bound = append(bound, s)
			}
		}
	}
	if !found {
		return policy, true
	}
	// In the order requestShapes gives, as the analysis' cache key is.
	return slices.DeleteFunc(slices.Clone(policy), func(s celcheck.RequestShape) bool { return !slices.Contains(bound, s) }), true
}

func withOperations(named []admissionv1.NamedRuleWithOperations) []admissionv1.RuleWithOperations {
	out := make([]admissionv1.RuleWithOperations, len(named))
	for i, r := range named {
		out[i] = r.RuleWithOperations
	}
	return out
}
