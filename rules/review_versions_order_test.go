package rules

import "testing"

func TestReviewVersionsOrderMissingInV1IsLeftToServerRule(t *testing.T) {
	fs := runRuleOn(t, "review-versions-order", `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: a.example.com
`, testSettings())
	if len(fs) != 0 {
		t.Fatalf("got %+v", fs)
	}
}
