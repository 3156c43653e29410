package rules

import (
	"fmt"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "timeout-too-long",
		Summary:  "a fail-closed webhook waits long for its backend before it rejects requests",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "A webhook that fails closed (`failurePolicy: Fail`, the v1 default) holds every matching " +
				"request for up to `timeoutSeconds` whenever its backend is down, overloaded or unreachable, and " +
				"then rejects it. Long timeouts turn a backend outage into a slow, cluster-wide stall: " +
				"controllers back off, leader-election renewals (a few seconds) miss their deadlines, and " +
				"managed upgrades block. v1beta1 configurations that omit `timeoutSeconds` get 30 seconds, the " +
				"maximum. Values outside 1–30 are rejected by the server (the `timeout-range` rule). A backend " +
				"with no ready endpoint fails the call at once; the timeout is what an unreachable (a firewall " +
				"dropping the control plane's packets) or stalled backend costs. In a Helm chart whose template " +
				"takes timeoutSeconds from its default values, the value is the installer's choice and the finding " +
				"is info (cert-manager, for one, documents why its default is 30); a value given to the render " +
				"(`--set`, `--values`) is the deployment's, and the warning names it.",
			Fix: "Keep `timeoutSeconds` of fail-closed webhooks short (Gatekeeper ships 3 s; the v1 default is " +
				"10 s) and make the backend answer well within it; or, if a slow answer is acceptable to skip, " +
				"fail open with `failurePolicy: Ignore`.",
			Sources: []string{
				docsGoodPractices,
				docsWebhooks + "#timeouts",
				srcDefaultsV1,
				srcDefaultsV1beta1,
				incidentGKEOutage,
				issueGatekeeperLeases,
				issueUpgradeTimeouts,
			},
		},
		Options: []Option{{
			Name:    "max-fail-closed-seconds",
			Doc:     "largest effective timeoutSeconds accepted for a webhook that fails closed",
			Default: 10,
		}},
		// A v1beta1 default is fixed by moving to v1, which unserved-api-version asks for.
		ExplainedBy: []Explanation{{Root: UnservedAPIVersionRule, DefaultsOnly: true}},
		Check:       checkTimeoutTooLong,
	})
}

func checkTimeoutTooLong(p *Pass) {
	limit := p.IntOption("max-fail-closed-seconds")
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		t := w.EffectiveTimeout()
		if !w.FailsClosed() || t < 1 || t > 30 || int(t) <= limit {
			continue // out of range is the timeout-range rule's error
		}
		path, why := w.FieldPath("timeoutSeconds"), ""
		if w.TimeoutSeconds == nil {
			// On the webhook, not the field: the version's default decides.
			path, why = w.Path(), " (the v1 default)"
			if p.Config.IsV1beta1() {
				why = " (the v1beta1 default)"
			}
		}
		sev := p.rule.Severity
		if w.TimeoutFromValues {
			// The chart's values choose it (cert-manager documents its 30 s):
			// the installer's choice, worth knowing.
			why, sev = " (chart value)", diag.Info
		} else if w.TimeoutGivenBy != "" {
			why = " (" + w.TimeoutGivenBy + ")" // the deployment's choice
		}
		p.ReportSeverity(sev, path, fmt.Sprintf("%s waits timeoutSeconds %d%s on a stalled backend, then rejects "+
			"the request; set %d or less, or fail open", quoteWebhook(w), t, why, limit))
	}
}
