package rules

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "review-versions-order",
		Summary:  "admissionReviewVersions sends v1beta1 although v1 is listed, or offers only v1beta1",
		Severity: diag.Info,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server sends the webhook an AdmissionReview in the first version of " +
				"`admissionReviewVersions` that it supports (v1 or v1beta1), and the webhook must answer in the " +
				"same version. Listing v1beta1 before v1 makes the server send the deprecated v1beta1 " +
				"AdmissionReview even though the webhook understands v1; offering only v1beta1 (also the default " +
				"of v1beta1 configurations) ties the webhook to the deprecated version. Both are info: the API server " +
				"still sends v1beta1 AdmissionReviews and nothing breaks today; webhook frameworks answer in the " +
				"version they receive (controller-runtime's kubebuilder scaffolds listed v1beta1 first for years). " +
				"Missing lists and lists " +
				"without a known version are errors reported by the `review-versions` server rule.",
			Fix: "List `v1` first. Keep `v1beta1` after it only if the webhook must also run on API servers " +
				"older than 1.16.",
			Sources: []string{
				docsWebhooks + "#request",
				srcDefaultsV1beta1,
			},
		},
		Fixes: []FixDoc{{
			Name:          "v1-first",
			Title:         "list v1 first",
			Applicability: diag.Safe,
			Why: "The webhook already lists v1, so it claims to understand v1 AdmissionReviews: moving v1 before " +
				"v1beta1 (the entries between keep their order, after it) only changes which of two versions it " +
				"accepts the API server picks. Offered where the list is written out and v1 is in it.",
		}},
		// A v1beta1 default is fixed by moving to v1, which unserved-api-version asks for.
		ExplainedBy: []Explanation{{Root: UnservedAPIVersionRule, DefaultsOnly: true}},
		Check:       checkReviewVersionsOrder,
	})
}

func checkReviewVersionsOrder(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		versions := w.EffectiveAdmissionReviewVersions()
		v1 := slices.Index(versions, "v1")
		beta := slices.Index(versions, "v1beta1")
		switch {
		case beta < 0:
			// Neither (the review-versions server rule) or v1 only.
		case v1 >= 0 && beta < v1:
			list := w.FieldPath("admissionReviewVersions")
			p.ReportFix(PathString(list.Index(beta)),
				fmt.Sprintf("%s lists v1beta1 before v1, so the API server sends it deprecated v1beta1 AdmissionReviews; "+
					"list v1 first", quoteWebhook(w)),
				moveToFront(list, w.AdmissionReviewVersions, beta, v1))
		case v1 < 0 && len(w.AdmissionReviewVersions) == 0:
			// On the webhook, not the field: the v1beta1 default decides.
			p.Reportf(w.Path(),
				"%s receives only deprecated v1beta1 AdmissionReviews (the v1beta1 default); serve v1 and set "+
					"admissionReviewVersions: [v1]", quoteWebhook(w))
		case v1 < 0:
			p.Reportf(w.FieldPath("admissionReviewVersions"),
				"%s accepts only deprecated v1beta1 AdmissionReviews; serve v1 and list it first", quoteWebhook(w))
		}
	}
}

// moveToFront is the v1-first fix: the entry at to moves to from, and the
// entries from from on shift one place down, each keeping its quoting.
func moveToFront(list *field.Path, versions []string, from, to int) FieldFix {
	fix := FieldFix{Fix: "v1-first"}
	for i := from; i <= to; i++ {
		next := versions[to]
		if i > from {
			next = versions[i-1]
		}
		fix.Edits = append(fix.Edits, FieldEdit{Path: PathString(list.Index(i)), Old: versions[i], New: next})
	}
	return fix
}
