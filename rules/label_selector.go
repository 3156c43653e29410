package rules

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

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
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if w.NamespaceSelector != nil {
			p.ReportFieldErrors(validateSelector(w, "namespaceSelector", w.NamespaceSelector))
		}
		if w.ObjectSelector != nil {
			p.ReportFieldErrors(validateSelector(w, "objectSelector", w.ObjectSelector))
		}
	}
}

// validateSelector is the server's validation of a webhook's selector,
// remembered for the first webhooks by their place and the selector's
// content: a folder of configurations repeats a few. The errors are
// shared; callers must not modify them.
func validateSelector(w *Webhook, name string, s *metav1.LabelSelector) field.ErrorList {
	validate := func() field.ErrorList {
		// A create never tolerates invalid values (that ratchet is for updates).
		opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
		return metav1validation.ValidateLabelSelector(s, opts, w.FieldPath(name))
	}
	return selectorErrors.atPlace(w, func(k *keyBuilder) {
		k.str(name)
		k.selector(s)
	}, validate)
}

var selectorErrors = contentMemo[field.ErrorList]{limit: 4096}
