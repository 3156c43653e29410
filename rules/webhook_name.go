package rules

import (
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "webhook-name",
		Summary:  "each webhook needs a unique, fully qualified name (a lowercase DNS subdomain with at least three segments)",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server requires `webhooks[].name` to be a fully qualified name: a lowercase RFC 1123 " +
				"subdomain with at least three dot-separated segments, conventionally `<purpose>.<owner domain>`. " +
				"Names must also be unique within one configuration (the list is keyed by name for strategic " +
				"merge and server-side apply). Any violation rejects the whole configuration.",
			Fix: "Name each webhook after what it does under a domain you own (`validate-pods.policy.example.com`), " +
				"lowercase only, and give every webhook in a configuration its own name.",
			Sources: []string{
				srcNameValidation,
				srcValidation,
			},
		},
		Check: checkWebhookName,
	})
}

func checkWebhookName(p *Pass) {
	seen := map[string]bool{}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		namePath := w.FieldPath("name")
		p.ReportFieldErrors(utilvalidation.IsFullyQualifiedName(namePath, w.Name))
		// Empty names are already Required; the server skips them here too.
		if w.Name == "" {
			continue
		}
		if seen[w.Name] {
			p.ReportFieldErrors(field.ErrorList{field.Duplicate(namePath, w.Name)})
		}
		seen[w.Name] = true
	}
}
