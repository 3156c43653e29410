package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

var supportedValidationActions = []admissionv1.ValidationAction{admissionv1.Audit, admissionv1.Deny, admissionv1.Warn}

func init() {
	register(&Rule{
		Name:     "admission-policy-binding",
		Summary:  "policy binding fields the API server rejects (ValidatingAdmissionPolicyBinding, MutatingAdmissionPolicyBinding)",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "The API server validates a policy binding when it is created: `policyName` is required and must be " +
				"a DNS subdomain; `paramRef` names its parameter by `name` or by `selector`, never both, and needs a " +
				"`parameterNotFoundAction` (Deny or Allow); `matchResources` follows the rules of a policy's " +
				"`matchConstraints` (a mutating binding cannot match DELETE); a validating binding needs at least one " +
				"`validationActions` entry, each of Deny, Warn and Audit at most once, and not Deny together with Warn " +
				"(the failure would be reported twice).",
			Fix: "Keep Deny or Warn (Audit goes with either), give paramRef either a name or a selector and a " +
				"parameterNotFoundAction, and name the policy the binding enforces.",
			Sources: []string{
				docsVAP + "#validation-actions",
				docsMAP,
				srcValidation,
			},
		},
		CheckPolicy: checkAdmissionPolicyBinding,
	})
}

func checkAdmissionPolicyBinding(p *Pass) {
	spec := field.NewPath("spec")
	if p.Policy.IsBinding() {
		checkPolicyMeta(p)
	}
	switch pol := p.Policy; {
	case pol.ValidatingBinding != nil:
		b := &pol.ValidatingBinding.Spec
		errs := validatePolicyName(b.PolicyName, spec.Child("policyName"))
		errs = append(errs, validateParamRef(b.ParamRef, spec.Child("paramRef"))...)
		errs = append(errs, validateMatchResources(b.MatchResources, spec.Child("matchResources"))...)
		errs = append(errs, validateValidationActions(b.ValidationActions, spec.Child("validationActions"))...)
		p.ReportFieldErrors(errs)
	case pol.MutatingBinding != nil:
		b := &pol.MutatingBinding.Spec
		errs := validatePolicyName(b.PolicyName, spec.Child("policyName"))
		errs = append(errs, validateParamRef(b.ParamRef, spec.Child("paramRef"))...)
		errs = append(errs, validateMatchResources(b.MatchResources, spec.Child("matchResources"))...)
		errs = append(errs, validateMutatingOperations(b.MatchResources, spec.Child("matchResources"))...)
		p.ReportFieldErrors(errs)
	}
}

func validateValidationActions(actions []admissionv1.ValidationAction, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[admissionv1.ValidationAction]bool{}
	for i, a := range actions {
		if !slices.Contains(supportedValidationActions, a) {
			errs = append(errs, field.NotSupported(fp.Index(i), a, supportedValidationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(fp.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admissionv1.Deny] && seen[admissionv1.Warn] {
		errs = append(errs, field.Invalid(fp, actions, "must not contain both Deny and Warn "+
			"(repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, field.Required(fp, ""))
	}
	return errs
}
