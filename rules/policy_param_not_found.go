package rules

import (
	"fmt"
	"strconv"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "policy-param-not-found",
		Summary:  "a binding's paramRef finds none of the unit's params objects while parameterNotFoundAction is Deny",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "A policy with a `paramKind` is evaluated against the params its binding's `paramRef` finds: the " +
				"object `name` (in `namespace`, or in the request's namespace for namespaced params), or every object " +
				"the `selector` matches. When none is found, `parameterNotFoundAction: Deny` denies every request the " +
				"binding matches, with `failed to configure binding: no params found`: a misspelled name or a " +
				"selector on labels nobody sets turns the policy into a wall.\n\n" +
				"The rule judges only what the unit shows: it needs the bound policy (for its `paramKind`) and at " +
				"least one object of that kind in the unit, and reports the binding when none of them is the one " +
				"`paramRef` names or selects.",
			Fix: "Name (or label) the params object the unit installs, or use `parameterNotFoundAction: Allow` " +
				"while params are rolled out separately.",
			Sources: []string{
				docsVAP + "#parameter-resources",
				apiserverSource + "pkg/admission/plugin/policy/generic/policy_dispatcher.go",
			},
		},
		CheckPolicy: checkPolicyParamNotFound,
	})
}

func checkPolicyParamNotFound(p *Pass) {
	pol := p.Policy
	var ref *admissionv1.ParamRef
	switch {
	case pol.ValidatingBinding != nil:
		ref = pol.ValidatingBinding.Spec.ParamRef
	case pol.MutatingBinding != nil:
		ref = pol.MutatingBinding.Spec.ParamRef
	}
	if ref == nil || ref.ParameterNotFoundAction == nil || *ref.ParameterNotFoundAction != admissionv1.DenyAction ||
		(ref.Name == "") == (ref.Selector == nil) {
		return // nothing denied, or admission-policy-binding reports it
	}
	kind := boundParamKind(p.Input, PolicyKindOf(pol.Kind), pol.BindingPolicyName())
	if kind == nil {
		return // the policy is not in the unit, or takes no params
	}
	var selector labels.Selector
	if ref.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return // an invalid selector: admission-policy-binding reports it
		}
		selector = s
	}
	candidates := 0
	for _, o := range p.Input.Objects {
		if o.APIVersion != kind.APIVersion || o.Kind != kind.Kind {
			continue
		}
		candidates++
		if ref.Namespace != "" && o.Namespace != "" && o.Namespace != ref.Namespace {
			continue
		}
		if (selector != nil && selector.Matches(labels.Set(o.Labels))) || (selector == nil && o.Name == ref.Name) {
			return
		}
	}
	if candidates == 0 {
		return // the params are not managed in this unit
	}
	what, at := strconv.Quote(ref.Name), field.NewPath("spec", "paramRef", "name")
	if selector != nil {
		what, at = fmt.Sprintf("matching %q", selector.String()), field.NewPath("spec", "paramRef", "selector")
	}
	if ref.Namespace != "" {
		what += " in namespace " + ref.Namespace
	}
	p.Reportf(at, "no %s %s in the unit, with parameterNotFoundAction Deny; fix the reference", kind.Kind, what)
}

// boundParamKind is the paramKind of the unit's policy of that kind and
// name, or nil.
func boundParamKind(in *Inventory, kind, name string) *admissionv1.ParamKind {
	for _, pol := range in.Policies {
		if pol.Kind != kind || pol.Meta.Name != name {
			continue
		}
		switch {
		case pol.Validating != nil:
			return pol.Validating.Spec.ParamKind
		case pol.Mutating != nil:
			return pol.Mutating.Spec.ParamKind
		}
	}
	return nil
}
