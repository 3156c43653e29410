package rules

import (
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

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

// Listing v1beta1 first, or only v1beta1, breaks nothing while the API
// server sends v1beta1 AdmissionReviews: info. The webhooks are
// kubernetes-sigs/aws-load-balancer-controller's (test/prow/v2_8_2_adc.yaml)
// and a kubebuilder v2 scaffold's [v1beta1, v1].
func TestReviewVersionsOrderIsInfo(t *testing.T) {
	fs := runRuleOn(t, "review-versions-order", `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: aws-load-balancer-webhook}
webhooks:
- admissionReviewVersions:
  - v1beta1
  clientConfig:
    service: {name: aws-load-balancer-webhook-service, namespace: kube-system, path: /mutate-v1-pod}
  failurePolicy: Fail
  name: mpod.elbv2.k8s.aws
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  sideEffects: None
- admissionReviewVersions: [v1beta1, v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /mutate-batch-v1-cronjob}
  failurePolicy: Fail
  name: mcronjob.kb.io
  rules:
  - {apiGroups: [batch], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [cronjobs]}
  sideEffects: None
`, testSettings())
	if len(fs) != 2 {
		t.Fatalf("want both webhooks reported, got %+v", fs)
	}
	for _, f := range fs {
		if f.Severity != diag.Info {
			t.Errorf("%s: %s, want info", f.Message, f.Severity)
		}
	}
}
