package rules

import (
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "label-selector",
		Summary:  "namespaceSelector and objectSelector must be valid label selectors",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Selectors are validated like every label selector in Kubernetes: `matchLabels` keys must be " +
				"qualified names and values valid label values; `matchExpressions` need a valid key, one of the " +
				"operators `In`, `NotIn`, `Exists`, `DoesNotExist`, values for `In`/`NotIn` and none for " +
				"`Exists`/`DoesNotExist`. A new configuration with an invalid selector is rejected.",
			Fix: "Use one of the four operators (case-sensitive), give `In`/`NotIn` at least one value, drop the " +
				"values of `Exists`/`DoesNotExist`, and keep keys and values within the label syntax.",
			Sources: []string{
				srcLabelValidation,
				docsLabels,
			},
		},
		Check: checkLabelSelector,
	})
}

func checkLabelSelector(p *Pass) {
	// A create never tolerates invalid values (that ratchet is for updates).
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if w.NamespaceSelector != nil {
			p.ReportFieldErrors(metav1validation.ValidateLabelSelector(w.NamespaceSelector, opts, w.FieldPath("namespaceSelector")))
		}
		if w.ObjectSelector != nil {
			p.ReportFieldErrors(metav1validation.ValidateLabelSelector(w.ObjectSelector, opts, w.FieldPath("objectSelector")))
		}
	}
}
