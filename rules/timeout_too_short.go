package rules

import (
	"fmt"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "timeout-too-short",
		Summary:  "a fail-closed webhook rejects every request its backend answers slower than a 1-second timeout",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "A timeout is a failure like any other: under `failurePolicy: Fail` the API server rejects a " +
				"request whose webhook call does not answer within `timeoutSeconds`. One second, the least the " +
				"server accepts, covers the call's connection and TLS setup and the backend's whole answer; a " +
				"backend that reads from the API server, calls another service or pauses for garbage collection " +
				"answers slower than that at its tail, and after a control-plane restart or under load for " +
				"seconds on end, so every request of the matched kinds fails while it does. Kargo saw a tail of " +
				"10–25 s after managed control-plane maintenance (akuity/kargo#7330), and Kyverno's 3 s timeout " +
				"was reached under load with a set of best-practice policies (kyverno/kyverno#419). The sibling " +
				"rule timeout-too-long judges the other end; projects that keep fail-closed timeouts short on " +
				"purpose choose 2 s (Knative) or 3 s (Gatekeeper), which this rule accepts. A chart's default " +
				"value is the installer's choice: info; a value given to the render (`--set`, `--values`) is the " +
				"deployment's: a warning that names it.",
			Fix: "Raise `timeoutSeconds` above the backend's p99 latency under load (the v1 default is 10 s), " +
				"or fail open (`failurePolicy: Ignore`) if skipping a slow answer is acceptable.",
			Sources: []string{
				docsWebhooks + "#timeouts",
				docsWebhooks + "#failure-policy",
				"https://github.com/akuity/kargo/pull/7331",
				"https://github.com/kyverno/kyverno/issues/419",
				"https://github.com/knative/serving/pull/7946",
			},
		},
		Options: []Option{{
			Name:    "min-fail-closed-seconds",
			Doc:     "smallest timeoutSeconds accepted for a webhook that fails closed",
			Default: 2,
		}},
		Check: checkTimeoutTooShort,
	})
}

func checkTimeoutTooShort(p *Pass) {
	limit := p.IntOption("min-fail-closed-seconds")
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		// Only a written value: no version defaults below 10 s.
		if w.TimeoutSeconds == nil || !w.FailsClosed() {
			continue
		}
		t := *w.TimeoutSeconds
		if t < 1 || int(t) >= limit {
			continue // below 1 is the timeout-range rule's error
		}
		sev, why := p.rule.Severity, ""
		if w.TimeoutFromValues {
			sev, why = diag.Info, " (chart value)"
		} else if w.TimeoutGivenBy != "" {
			why = " (" + w.TimeoutGivenBy + ")" // the deployment's choice
		}
		p.ReportSeverity(sev, w.FieldPath("timeoutSeconds"), fmt.Sprintf("%s fails closed after timeoutSeconds %d%s; "+
			"raise it above the backend's p99, or fail open",
			quoteWebhook(w), t, why))
	}
}
