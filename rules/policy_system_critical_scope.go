package rules

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// PolicySystemCriticalScopeRule is the name of the rule, for the packages that judge its findings.
const PolicySystemCriticalScopeRule = "policy-system-critical-scope"

func init() {
	register(&Rule{
		Name:     PolicySystemCriticalScopeRule,
		Summary:  "a fail-closed admission policy can deny requests the control plane and nodes depend on, or the fix of its own params",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "An admission policy runs in the API server, so it cannot be down like a webhook, but it can fail: " +
				"an expression errors at runtime (a field or key that is absent, `oldObject` on CREATE, the cost " +
				"budget), its params are missing, or it was written for other objects than the ones it now " +
				"matches. With `failurePolicy: Fail` (the default) each such error rejects the request, for a " +
				"ValidatingAdmissionPolicy through every binding whose `validationActions` include `Deny`, and for " +
				"a MutatingAdmissionPolicy through every binding. On the requests that keep the cluster alive the " +
				"error becomes a cluster outage; the rule simulates the same requests as system-critical-scope (node " +
				"Leases and Nodes, leader-election Leases, CSRs and the objects in `kube-system`, Events, and before " +
				"1.37 Token/SubjectAccessReviews) against the policy's `matchConstraints` narrowed by each binding's " +
				"`matchResources` and filtered by `matchConditions`, as the API server matches them.\n\n" +
				"A policy can also deny the fix of its own params: when its `paramKind` is a resource it intercepts " +
				"in the params' namespace (the binding's `paramRef.namespace`, or where the unit puts the params " +
				"object), a params object that makes it error can no longer be created or updated. The rule reports " +
				"that when the unit says which resource and namespace the params are. \"May fail closed\" marks " +
				"requests the policy's matchConditions may exclude in ways the rule cannot decide.\n\n" +
				"Policies without a binding in the unit, and bindings that only `Audit` or `Warn`, deny nothing and " +
				"are not reported.",
			Fix: "List only the resources the policy needs; exclude `kube-system` and `kube-node-lease` with a " +
				"namespaceSelector on `kubernetes.io/metadata.name` (on the policy or its binding); leave the params' " +
				"kind out with `excludeResourceRules`; or set `failurePolicy: Ignore` where enforcement is not critical.",
			Sources: []string{
				docsVAP + "#failure-policy",
				docsMAP,
				docsGoodPractices,
				apiserverSource + "pkg/admission/plugin/policy/matching/matching.go",
				issueNodeLeases,
				issueLeaderElection,
			},
		},
		CheckPolicy: checkPolicySystemCriticalScope,
	})
}

// policySpec is what the rule needs of either policy kind.
type policySpec struct {
	constraints   *admissionv1.MatchResources
	conditions    []admissionv1.MatchCondition
	failurePolicy *admissionv1.FailurePolicyType
	paramKind     *admissionv1.ParamKind
}

func specOf(pol *Policy) (policySpec, bool) {
	switch {
	case pol.Validating != nil:
		s := &pol.Validating.Spec
		return policySpec{s.MatchConstraints, s.MatchConditions, s.FailurePolicy, s.ParamKind}, true
	case pol.Mutating != nil:
		s := &pol.Mutating.Spec
		return policySpec{s.MatchConstraints, s.MatchConditions, s.FailurePolicy, s.ParamKind}, true
	}
	return policySpec{}, false
}

// denyingBinding is a binding of the policy through which an error
// rejects the request.
type denyingBinding struct {
	matchResources *admissionv1.MatchResources
	paramRef       *admissionv1.ParamRef
}

// denyingBindings are the unit's bindings of pol that can deny: those of a
// validating policy with the Deny action, every binding of a mutating one.
func denyingBindings(in *Inventory, pol *Policy) []denyingBinding {
	var out []denyingBinding
	for _, b := range in.Policies {
		if !b.IsBinding() || PolicyKindOf(b.Kind) != pol.Kind || b.BindingPolicyName() != pol.Meta.Name {
			continue
		}
		switch {
		case b.ValidatingBinding != nil:
			s := &b.ValidatingBinding.Spec
			if slices.Contains(s.ValidationActions, admissionv1.Deny) {
				out = append(out, denyingBinding{s.MatchResources, s.ParamRef})
			}
		case b.MutatingBinding != nil:
			s := &b.MutatingBinding.Spec
			out = append(out, denyingBinding{s.MatchResources, s.ParamRef})
		}
	}
	return out
}

func checkPolicySystemCriticalScope(p *Pass) {
	spec, ok := specOf(p.Policy)
	if !ok || spec.constraints == nil {
		return // a binding, or a policy admission-policy rejects
	}
	if spec.failurePolicy != nil && *spec.failurePolicy != admissionv1.Fail {
		return // fails open, or a value policy-values reports
	}
	bindings := denyingBindings(p.Input, p.Policy)
	if len(bindings) == 0 {
		return
	}
	sims := make([]*PolicySimulator, len(bindings))
	for i, b := range bindings {
		sims[i] = NewPolicySimulator(spec.constraints, b.matchResources, spec.conditions)
	}
	rules := make([]admissionv1.RuleWithOperations, len(spec.constraints.ResourceRules))
	for i, r := range spec.constraints.ResourceRules {
		rules[i] = r.RuleWithOperations
	}
	subject := criticalSubject{rules: rules,
		simulate:          func(r *Request) Simulation { return anyBinding(sims, r) },
		namespaceSelector: allNamespaceSelectors(spec.constraints, bindings)}
	constraints := field.NewPath("spec", "matchConstraints")
	cs := criticalScopeMessage(subject, sharedCriticalTargets(p.Input, p.Settings.KubeVersion), "")
	if cs.msg != "" {
		// Located where the fix goes, as system-critical-scope does.
		at, atKey := constraints.Child("resourceRules"), false
		if cs.exclude && spec.constraints.NamespaceSelector != nil {
			at, atKey = constraints.Child("namespaceSelector"), true
		}
		p.Emit(Finding{Path: PathString(at), AtKey: atKey, Message: cs.msg, DependsOnOverlay: !cs.clusterWide})
	}
	for i, b := range bindings {
		params, ok := paramsRequests(p.Input, spec.paramKind, b.paramRef)
		if !ok || (cs.msg != "" && (params.namespace == "kube-system" || params.namespace == "kube-node-lease")) {
			continue // the finding above covers params in a system namespace, and its fix too
		}
		for _, r := range params.reqs {
			sim := sims[i].Simulate(r)
			if sim.Outcome != Called && !sim.OnlyUnknown(UnknownMatchConditions) {
				continue
			}
			what := params.resource
			if params.namespace != "" {
				what += " in " + params.namespace
			}
			verb := "fails"
			if sim.Outcome == MaybeCalled {
				verb = "may fail" // unless matchConditions exclude them
			}
			p.Emit(Finding{Path: PathString(constraints.Child("resourceRules").Index(sim.Rule)), DependsOnOverlay: params.namespace != "",
				Message: fmt.Sprintf("%s closed on its params (%s); add them to excludeResourceRules or fail open", verb, what)})
			return // one params finding per policy: the fix is the same
		}
	}
}

// anyBinding is the simulation of the policy through whichever binding
// reaches the request most surely: through any of them, an error denies.
func anyBinding(sims []*PolicySimulator, r *Request) Simulation {
	best := Simulation{Outcome: NotCalled, Rule: -1}
	for _, s := range sims {
		sim := s.Simulate(r)
		if sim.Outcome > best.Outcome || (sim.OnlyUnknown(UnknownMatchConditions) && !best.OnlyUnknown(UnknownMatchConditions)) {
			best = sim
		}
		if best.Outcome == Called {
			break
		}
	}
	return best
}

// allNamespaceSelectors gathers the opt-out expressions of the policy's
// and the bindings' namespaceSelectors, for naming the labels nobody sets.
func allNamespaceSelectors(constraints *admissionv1.MatchResources, bindings []denyingBinding) *metav1.LabelSelector {
	sel := &metav1.LabelSelector{}
	add := func(s *metav1.LabelSelector) {
		if s != nil {
			sel.MatchExpressions = append(sel.MatchExpressions, s.MatchExpressions...)
		}
	}
	add(constraints.NamespaceSelector)
	for _, b := range bindings {
		if b.matchResources != nil {
			add(b.matchResources.NamespaceSelector)
		}
	}
	return sel
}

// paramsTarget is the requests that create and update a binding's params.
type paramsTarget struct {
	resource, namespace string
	reqs                []*Request
}

// paramsRequests builds the requests that write the params ref names, when
// the unit says what they are: a built-in kind or a CRD of the unit, and
// for namespaced params the namespace, from paramRef.namespace or from the
// params object the unit holds.
func paramsRequests(in *Inventory, kind *admissionv1.ParamKind, ref *admissionv1.ParamRef) (paramsTarget, bool) {
	if kind == nil || ref == nil {
		return paramsTarget{}, false
	}
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return paramsTarget{}, false
	}
	resource, namespaced, ok := resourceOfKind(in, gv, kind.Kind)
	if !ok {
		return paramsTarget{}, false
	}
	held := heldParams(in, kind, ref)
	ns := ""
	if namespaced {
		ns = ref.Namespace
		if ns == "" && held != nil {
			ns = held.Namespace
		}
		if ns == "" {
			return paramsTarget{}, false // params in each request's namespace: nothing to judge
		}
	}
	// The params object's labels when the unit holds it, for the
	// objectSelectors; else none, as for the system objects.
	labels := KnownLabels(nil)
	if held != nil {
		labels = KnownLabels(held.Labels)
	}
	t := paramsTarget{resource: resource, namespace: ns}
	if gv.Group != "" {
		t.resource += "." + gv.Group
	}
	for _, op := range []admissionv1.OperationType{admissionv1.Create, admissionv1.Update} {
		r := &Request{Operation: op, Group: gv.Group, Version: gv.Version, Resource: resource, Name: ref.Name, Namespace: ns, Object: labels}
		if ns != "" {
			r.NamespaceLabels = in.AssumedNamespaceLabels(ns)
		}
		if op == admissionv1.Update {
			r.OldObject = r.Object
		}
		t.reqs = append(t.reqs, r)
	}
	return t, true
}

// heldParams is the unit's params object that ref names, or nil.
func heldParams(in *Inventory, kind *admissionv1.ParamKind, ref *admissionv1.ParamRef) *ObjectRef {
	if ref.Name == "" {
		return nil
	}
	for i := range in.Objects {
		o := &in.Objects[i]
		if o.APIVersion == kind.APIVersion && o.Kind == kind.Kind && o.Name == ref.Name &&
			sameNamespace(ref.Namespace, o.Namespace) {
			return o
		}
	}
	return nil
}
