package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "timeout-range",
		Summary:  "timeoutSeconds must be between 1 and 30",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server waits at most `timeoutSeconds` for the webhook and rejects configurations whose " +
				"timeout is below 1 or above 30 seconds. Omitted, it defaults to 10 seconds (30 in v1beta1).",
			Fix: "Pick a value from 1 to 30; keep it small (a few seconds), since every matching request waits " +
				"for the webhook.",
			Sources: []string{
				srcValidation,
				docsWebhooks + "#timeouts",
			},
		},
		Check: checkTimeoutRange,
	})
}

func checkTimeoutRange(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if t := w.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
			p.ReportFieldErrors(field.ErrorList{field.Invalid(w.Path().Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds")})
		}
	}
}
