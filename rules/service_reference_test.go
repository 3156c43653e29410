package rules

import "testing"

func TestServiceReferenceLeavesEmptyToServer(t *testing.T) {
	fs := runRuleOn(t, "service-reference", `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: a.example.com
  clientConfig: {service: {name: "", namespace: ""}}
`, testSettings())
	if len(fs) != 0 {
		t.Fatalf("got %+v", fs)
	}
}
