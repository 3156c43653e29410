package rules

import (
	"fmt"
	"strconv"

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
		Fixes: []FixDoc{{
			Name:          "clamp",
			Title:         "clamp timeoutSeconds to the allowed range",
			Applicability: diag.Unsafe,
			Why: "The configuration is rejected as written, so nothing runs with the out-of-range value; the nearest " +
				"allowed value (30, or 1) is what the author most likely meant, but it changes how long every matching " +
				"request may wait and whether a slow webhook times out: a maintainer should check it against the " +
				"webhook's latency and `failurePolicy`.",
		}},
		Check: checkTimeoutRange,
	})
}

func checkTimeoutRange(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if t := w.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
			to := min(max(*t, 1), 30)
			path := w.FieldPath("timeoutSeconds")
			p.ReportFieldErrorsWith(field.ErrorList{field.Invalid(path, *t, "the timeout value must be between 1 and 30 seconds")},
				func(*field.Error) *FieldFix {
					return &FieldFix{Fix: "clamp", Message: fmt.Sprintf("set timeoutSeconds to %d", to),
						Edits: []FieldEdit{{Path: path.String(), Old: strconv.Itoa(int(*t)), New: strconv.Itoa(int(to)), Number: true}}}
				})
		}
	}
}
