package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "dry-run-side-effects",
		Summary:  "sideEffects Some or Unknown makes every matching dry-run request fail",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "When a request is a dry run (`kubectl diff`, `kubectl apply --dry-run=server`, " +
				"Argo CD, Flux, Helm and Terraform previews) and a matching webhook declares `sideEffects: Some` " +
				"or `Unknown`, the API server does not call the webhook: it rejects the whole request with " +
				"`admission webhook \"<name>\" does not support dry run`. That rejection is not a failure to call " +
				"the webhook, so `failurePolicy: Ignore` does not help. v1beta1 configurations that omit " +
				"`sideEffects` get `Unknown` by default; v1 rejects `Some` and `Unknown` on create (the " +
				"`side-effects` server rule), but objects created earlier keep them on update.",
			Fix: "Set `sideEffects: None` when the webhook has no side effects outside the AdmissionReview " +
				"response, or `NoneOnDryRun` when it has some but skips them for requests with `dryRun: true`.",
			Sources: []string{
				docsWebhooks + "#side-effects",
				srcValidatingCalls,
				srcDefaultsV1beta1,
				issueDryRunGatekeeper,
				issueDryRunKnative,
			},
		},
		// A v1beta1 default is fixed by moving to v1, which unserved-api-version asks for.
		ExplainedBy: []Explanation{{Root: UnservedAPIVersionRule, DefaultsOnly: true}},
		Check:       checkDryRunSideEffects,
	})
}

func checkDryRunSideEffects(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		se := w.EffectiveSideEffects()
		if se != admissionv1.SideEffectClassSome && se != admissionv1.SideEffectClassUnknown {
			continue
		}
		if onlyConnect(w.Rules) {
			continue // CONNECT requests cannot be dry runs
		}
		path, how := w.FieldPath("sideEffects"), "sideEffects "+string(se)
		if w.SideEffects == nil {
			// On the webhook, not the field: the v1beta1 default decides.
			path, how = w.Path(), "sideEffects (Unknown by default in v1beta1)"
		}
		p.Reportf(path, "%s: %s fails every dry run it matches; set sideEffects: None or NoneOnDryRun", quoteWebhook(w), how)
	}
}

// onlyConnect reports whether rules exist and select nothing but CONNECT.
func onlyConnect(rules []admissionv1.RuleWithOperations) bool {
	if len(rules) == 0 {
		return false
	}
	for _, r := range rules {
		if len(r.Operations) == 0 || slices.ContainsFunc(r.Operations, func(op admissionv1.OperationType) bool { return op != admissionv1.Connect }) {
			return false
		}
	}
	return true
}
