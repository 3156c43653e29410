package rules

import (
	"slices"
	"strings"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

// acceptedAdmissionReviewVersions are the AdmissionReview versions the API
// server can send, in the order its messages name them.
var acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}

func init() {
	register(&Rule{
		Name:     "review-versions",
		Summary:  "admissionReviewVersions must list v1 or v1beta1, without duplicates or malformed entries",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server sends the webhook an AdmissionReview in the first listed version it supports. " +
				"In admissionregistration.k8s.io/v1 the list has no default, every entry must be a DNS-1035 label " +
				"without duplicates, and at least one entry must be `v1` or `v1beta1`; otherwise the " +
				"configuration is rejected. (v1beta1 manifests default to `[v1beta1]`.)",
			Fix: "List the versions your webhook server understands, most preferred first: usually `[v1]`.",
			Sources: []string{
				srcValidation,
				srcDefaultsV1beta1,
				docsWebhooks + "#request",
			},
		},
		Fixes: []FixDoc{{
			Name:          "drop-duplicate",
			Title:         "remove the duplicate version",
			Applicability: diag.Safe,
			Why: "A version listed twice means nothing more than listed once (the API server picks the first it " +
				"supports), and the server rejects the configuration because of it: removing the later entry " +
				"keeps the order the webhook asked for.",
		}, {
			Name:          "list-v1",
			Title:         "declare admissionReviewVersions: [v1]",
			Applicability: diag.Unsafe,
			Why: "Offered where `admissionReviewVersions` is missing from a v1 configuration. `v1` is the version every " +
				"webhook library has answered since Kubernetes 1.16 (controller-runtime, the Go admission packages), " +
				"but a server that only decodes `admission.k8s.io/v1beta1` reviews would fail every call: a maintainer " +
				"must check what the webhook's server reads. Inserted after `sideEffects` (or among the fields in name " +
				"order where they are sorted), as a list in the style the file writes its lists.",
		}},
		Check: checkReviewVersions,
	})
}

func checkReviewVersions(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		p.ReportFieldErrorsWith(validateAdmissionReviewVersions(w.EffectiveAdmissionReviewVersions(), w.FieldPath("admissionReviewVersions")),
			func(e *field.Error) *FieldFix {
				if e.Type == field.ErrorTypeRequired && w.AdmissionReviewVersions == nil {
					return &FieldFix{Fix: "list-v1", Edits: []FieldEdit{{Path: e.Field, Insert: true,
						Value: []string{"v1"}, After: webhookFieldsBefore("admissionReviewVersions")}}}
				}
				if e.Detail != duplicateVersion || len(w.AdmissionReviewVersions) == 0 {
					return nil
				}
				v, _ := e.BadValue.(string)
				return &FieldFix{Fix: "drop-duplicate", Edits: []FieldEdit{{Path: e.Field, Old: v, Delete: true}}}
			})
	}
}

// duplicateVersion is the API server's detail for a version listed twice.
const duplicateVersion = "duplicate version"

func validateAdmissionReviewVersions(versions []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	accepted := strings.Join(acceptedAdmissionReviewVersions, ", ")
	if len(versions) == 0 {
		return append(errs, field.Required(path, "must specify one of "+accepted))
	}
	seen := map[string]bool{}
	hasAccepted := false
	for k, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(path.Index(k), v, duplicateVersion))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(path.Index(k), v, msg))
		}
		hasAccepted = hasAccepted || slices.Contains(acceptedAdmissionReviewVersions, v)
	}
	if !hasAccepted {
		errs = append(errs, field.Invalid(path, versions, "must include at least one of "+accepted))
	}
	return errs
}
