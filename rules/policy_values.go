package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "policy-values",
		Summary:  "failurePolicy, matchPolicy and reinvocationPolicy must be one of their exact, case-sensitive values",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server accepts only `Fail`/`Ignore` for `failurePolicy`, `Exact`/`Equivalent` for " +
				"`matchPolicy` and, on mutating webhooks, `Never`/`IfNeeded` for `reinvocationPolicy`. The values " +
				"are case-sensitive: `fail` or `ifNeeded` reject the whole configuration.",
			Fix: "Use one of the listed values with exactly this capitalization, or omit the field to get the " +
				"default (`Fail`, `Equivalent`, `Never` in admissionregistration.k8s.io/v1).",
			Sources: []string{
				srcValidation,
				docsWebhooks + "#failure-policy",
			},
		},
		Check: checkPolicyValues,
	})
}

var (
	supportedFailurePolicies      = []admissionv1.FailurePolicyType{admissionv1.Fail, admissionv1.Ignore}
	supportedMatchPolicies        = []admissionv1.MatchPolicyType{admissionv1.Equivalent, admissionv1.Exact}
	supportedReinvocationPolicies = []admissionv1.ReinvocationPolicyType{admissionv1.IfNeededReinvocationPolicy, admissionv1.NeverReinvocationPolicy}
)

func checkPolicyValues(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		var errs field.ErrorList
		if w.FailurePolicy != nil && !slices.Contains(supportedFailurePolicies, *w.FailurePolicy) {
			errs = append(errs, field.NotSupported(w.FieldPath("failurePolicy"), *w.FailurePolicy, supportedFailurePolicies))
		}
		if w.MatchPolicy != nil && !slices.Contains(supportedMatchPolicies, *w.MatchPolicy) {
			errs = append(errs, field.NotSupported(w.FieldPath("matchPolicy"), *w.MatchPolicy, supportedMatchPolicies))
		}
		// Validating webhooks have no such field; the loader reports it as unknown.
		if p.Config.IsMutating() && w.ReinvocationPolicy != nil && !slices.Contains(supportedReinvocationPolicies, *w.ReinvocationPolicy) {
			errs = append(errs, field.NotSupported(w.FieldPath("reinvocationPolicy"), *w.ReinvocationPolicy, supportedReinvocationPolicies))
		}
		p.ReportFieldErrors(errs)
	}
}
