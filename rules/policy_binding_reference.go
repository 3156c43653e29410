package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "policy-binding-reference",
		Summary:  "a policy binding names no policy of the unit, or a policy has no binding, where the unit holds both kinds",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "An admission policy does nothing until a binding names it in `spec.policyName`, and the API server " +
				"accepts a binding whose policy does not exist: both are silently never enforced. A typo in " +
				"`policyName`, or a rename (a kustomize `namePrefix` that rewrites the policy's name but not the " +
				"binding's reference) leaves a policy that was meant to deny requests with no effect, and no error " +
				"anywhere.\n\n" +
				"The rule judges only what the unit shows: a binding is reported when the unit holds policies of " +
				"the kind it binds but not the one it names (a unit with bindings only may install them next to " +
				"policies from elsewhere), and a policy when the unit holds bindings of its kind but none names it. " +
				"A live cluster (`webhooklint cluster`) holds every policy and binding it lists, so there a binding " +
				"to a missing policy is reported even when the cluster has no policy at all.",
			Fix: "Make `policyName` the policy's `metadata.name` (with kustomize, a `nameReference` configuration " +
				"for `spec/policyName` makes namePrefix follow), or remove the unused policy.",
			Sources: []string{
				docsVAP + "#getting-started-with-validating-admission-policy",
				docsMAP,
			},
		},
		CheckPolicy: checkPolicyBindingReference,
	})
}

func checkPolicyBindingReference(p *Pass) {
	pol := p.Policy
	if pol.IsBinding() {
		kind := PolicyKindOf(pol.Kind)
		name := pol.BindingPolicyName()
		if name == "" {
			return // admission-policy-binding reports it
		}
		found, managed := false, p.Input.Listed[kind]
		for _, other := range p.Input.Policies {
			if other.Kind == kind {
				managed = true
				found = found || other.Meta.Name == name
			}
		}
		if managed && !found {
			where := scopeOf(p.Input, kind)
			p.Reportf(field.NewPath("spec", "policyName"), "no %s %q in %s; name one of %s's policies", kind, name, where, where)
		}
		return
	}
	bindingKind := pol.Kind + "Binding"
	bound, managed := false, p.Input.Listed[bindingKind]
	for _, other := range p.Input.Policies {
		if other.Kind == bindingKind {
			managed = true
			bound = bound || other.BindingPolicyName() == pol.Meta.Name
		}
	}
	if managed && !bound {
		p.Reportf(field.NewPath("metadata", "name"), "no %s in %s names this policy; bind it or remove it", bindingKind, scopeOf(p.Input, bindingKind))
	}
}

// scopeOf names what holds the input's objects of a kind: a live cluster
// that listed them all, else the unit.
func scopeOf(in *Inventory, kind string) string {
	if in.Listed[kind] {
		return "the cluster"
	}
	return "the unit"
}
