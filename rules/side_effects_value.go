package rules

import (
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "side-effects-value",
		Summary:  "sideEffects is required and must be None or NoneOnDryRun",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "In admissionregistration.k8s.io/v1 `sideEffects` has no default and a new configuration may only " +
				"declare `None` or `NoneOnDryRun`: the API server must know it can call the webhook for dry-run " +
				"requests (`kubectl diff`, `kubectl apply --dry-run=server`). `Unknown` and `Some` are only kept " +
				"for objects that already had them. A v1beta1 manifest defaults to `Unknown`, which the v1beta1 " +
				"API accepted; such documents are checked against the values v1beta1 allowed.",
			Fix: "Declare `sideEffects: None` if the webhook changes nothing outside the admitted object, or " +
				"`NoneOnDryRun` if it skips its side effects when the request has `dryRun: true`.",
			Sources: []string{
				srcValidation,
				srcDefaultsV1beta1,
				docsWebhooks + "#side-effects",
			},
		},
		Fixes: []FixDoc{{
			Name:          "none-on-dry-run",
			Title:         "declare sideEffects: NoneOnDryRun",
			Applicability: diag.Unsafe,
			Why: "`Some` and `Unknown` say the webhook has side effects; of the values a new configuration may declare, " +
				"`NoneOnDryRun` is the one that keeps that claim honest, but only if the webhook really skips its side " +
				"effects when the request has `dryRun: true`: the API server then calls it on dry runs, so a " +
				"maintainer must check the webhook's code. A missing `sideEffects` gets the same value, inserted after " +
				"`failurePolicy` (or among the fields in name order where they are sorted, as controller-gen writes them): " +
				"whether the webhook has side effects is not in the manifest, and `NoneOnDryRun` is the weaker of the " +
				"two claims the API server accepts (`None` says it has none at all).",
		}},
		Check: checkSideEffectsValue,
	})
}

var (
	// noSideEffectClasses is what v1 accepts on create, sorted as the server prints them.
	noSideEffectClasses = []admissionv1.SideEffectClass{admissionv1.SideEffectClassNone, admissionv1.SideEffectClassNoneOnDryRun}
	// allSideEffectClasses is what the v1beta1 API accepted.
	allSideEffectClasses = []admissionv1.SideEffectClass{
		admissionv1.SideEffectClassNone, admissionv1.SideEffectClassNoneOnDryRun,
		admissionv1.SideEffectClassSome, admissionv1.SideEffectClassUnknown,
	}
)

func checkSideEffectsValue(p *Pass) {
	allowed := noSideEffectClasses
	if p.Config.IsV1beta1() {
		allowed = allSideEffectClasses
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		path := w.FieldPath("sideEffects")
		// v1beta1 defaults a missing value to Unknown, which it accepted.
		if w.SideEffects == nil && !p.Config.IsV1beta1() {
			names := make([]string, len(allowed))
			for k, a := range allowed {
				names[k] = string(a)
			}
			p.ReportFieldErrorsWith(field.ErrorList{field.Required(path, "must specify one of "+strings.Join(names, ", "))},
				func(*field.Error) *FieldFix {
					return &FieldFix{Fix: "none-on-dry-run", Edits: []FieldEdit{{Path: path.String(), Insert: true,
						Value: string(admissionv1.SideEffectClassNoneOnDryRun), After: webhookFieldsBefore("sideEffects")}}}
				})
			continue
		}
		if w.SideEffects != nil && !slices.Contains(allowed, *w.SideEffects) {
			old := string(*w.SideEffects)
			p.ReportFieldErrorsWith(field.ErrorList{field.NotSupported(path, *w.SideEffects, allowed)},
				func(*field.Error) *FieldFix {
					return &FieldFix{Fix: "none-on-dry-run", Edits: []FieldEdit{{Path: path.String(), Old: old, New: string(admissionv1.SideEffectClassNoneOnDryRun)}}}
				})
		}
	}
}
