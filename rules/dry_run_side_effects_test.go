package rules

import "testing"

func TestDryRunSideEffectsPaths(t *testing.T) {
	fs := runRuleOn(t, "dry-run-side-effects", `
apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: a.example.com
  rules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [pods]}]
- name: b.example.com
  sideEffects: Some
  rules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [pods]}]
`, testSettings())
	if len(fs) != 2 || fs[0].Path != "webhooks[0]" || fs[1].Path != "webhooks[1].sideEffects" {
		t.Fatalf("got %+v", fs)
	}
	if fs[0].Webhook != "a.example.com" {
		t.Errorf("webhook = %q", fs[0].Webhook)
	}
}
