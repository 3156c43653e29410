package rules

import "github.com/webhooklint/webhooklint/diag"

// UnservedAPIVersionRule is the name of the rule the front end reports a
// removed or never-served apiVersion under.
const UnservedAPIVersionRule = "unserved-api-version"

func init() {
	register(&Rule{
		Name:     UnservedAPIVersionRule,
		Summary:  "webhook configurations are served only in admissionregistration.k8s.io/v1 (v1beta1 was removed in 1.22)",
		Severity: diag.Warning,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Since 1.22 the API server serves webhook configurations only in `admissionregistration.k8s.io/v1`; " +
				"any other version (`v1alpha1`, a typo) was never served and is an error. For v1beta1, the warning says " +
				"applying a v1beta1 manifest fails with `no matches for kind`. Changing only the apiVersion is not " +
				"enough either: v1 defaults differ (failurePolicy Fail instead of Ignore, matchPolicy Equivalent " +
				"instead of Exact, timeoutSeconds 10 instead of 30) and sideEffects and admissionReviewVersions become " +
				"required. webhooklint keeps linting the content with the v1beta1 defaults so the other findings " +
				"describe how the manifest behaved.",
			Bad:  "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration",
			Good: "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nwebhooks:\n- name: check.example.com\n  failurePolicy: Ignore      # what v1beta1 did implicitly\n  sideEffects: None\n  admissionReviewVersions: [v1]",
			Fix:  "Move to v1 and write out the v1beta1 defaults you relied on.",
			Sources: []string{
				docsDeprecation,
				srcDefaultsV1beta1,
				srcDefaultsV1,
			},
		},
	})
}
