package rules

import (
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func TestObjectSelectorBypassSeverityAndPaths(t *testing.T) {
	fs := runRuleOn(t, "object-selector-bypass", `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: a.example.com
  objectSelector:
    matchLabels: {enforce: "yes"}
    matchExpressions:
    - {key: skip, operator: DoesNotExist}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`, testSettings())
	// The inclusion (matchLabels) is not reported.
	if len(fs) != 1 {
		t.Fatalf("got %+v", fs)
	}
	if fs[0].Path != "webhooks[0].objectSelector.matchExpressions[0]" || fs[0].Severity != diag.Warning {
		t.Errorf("exclusion: %+v", fs[0])
	}
}

func TestObjectSelectorBypassLeavesNeverMatchingSelectors(t *testing.T) {
	fs := runRuleOn(t, "object-selector-bypass", `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: connect.example.com
  objectSelector:
    matchExpressions: [{key: skip, operator: DoesNotExist}]
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CONNECT], resources: [pods/exec]}]
- name: contradiction.example.com
  objectSelector:
    matchExpressions: [{key: skip, operator: DoesNotExist}, {key: skip, operator: Exists}]
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`, testSettings())
	if len(fs) != 0 {
		t.Fatalf("got %+v", fs)
	}
}

func TestObjectSelectorBypassIgnoresMutatingExclusions(t *testing.T) {
	fs := runRuleOn(t, "object-selector-bypass", `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: injector.example.com
  failurePolicy: Fail
  objectSelector:
    matchExpressions: [{key: sidecar.example.com/inject, operator: NotIn, values: ["false"]}]
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`, testSettings())
	if len(fs) != 0 {
		t.Fatalf("got %+v", fs)
	}
}
