package rules

import (
	"strings"
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
	// The opt-in (matchLabels) on a fail-closed check of pods, then the opt-out.
	if len(fs) != 2 {
		t.Fatalf("got %+v", fs)
	}
	if fs[0].Path != "webhooks[0].objectSelector.matchLabels[enforce]" || fs[0].Severity != diag.Warning {
		t.Errorf("inclusion: %+v", fs[0])
	}
	if fs[1].Path != "webhooks[0].objectSelector.matchExpressions[0]" || fs[1].Severity != diag.Warning {
		t.Errorf("exclusion: %+v", fs[1])
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

// An exclusion by a label the project's own objects carry is its design:
// info; the same exclusion with no object carrying it is a warning.
// (kubernetes-sigs/aws-load-balancer-controller's IngressClassParams.)
func TestObjectSelectorBypassOwnLabelIsInfo(t *testing.T) {
	c := decodeTestConfig(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: aws-load-balancer-webhook}
webhooks:
- name: vingressclassparams.elbv2.k8s.aws
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1beta1]
  clientConfig:
    service: {name: aws-load-balancer-webhook-service, namespace: kube-system}
  objectSelector:
    matchExpressions:
    - {key: app.kubernetes.io/name, operator: NotIn, values: [aws-load-balancer-controller]}
  rules:
  - {apiGroups: [elbv2.k8s.aws], apiVersions: [v1beta1], operations: [CREATE, UPDATE], resources: [ingressclassparams], scope: Cluster}
`)
	own := &Inventory{Configs: []*Config{c}, Labels: map[string]string{"app.kubernetes.io/name=aws-load-balancer-controller": `IngressClassParams "alb"`}}
	got := runRuleFindings(t, "object-selector-bypass", c, own, DefaultSettings())
	if len(got) != 1 || !strings.HasPrefix(got[0], "info ") {
		t.Errorf("own label: want one info, got %q", got)
	}
	got = runRuleFindings(t, "object-selector-bypass", c, &Inventory{Configs: []*Config{c}}, DefaultSettings())
	if len(got) != 1 || !strings.HasPrefix(got[0], "warning ") {
		t.Errorf("no object carries the label: want one warning, got %q", got)
	}
}
